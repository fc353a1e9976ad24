"""``python -m runner notebook``: the sweep executed as a papermill notebook and kept, sealed,
in its run directory; errors end as the runner's one-line error; SIGINT stops it cleanly and
``--resume`` finishes it with every planned trial exactly once. Loopback only (no root)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, run_runner, runner_cmd, runner_env, write_sweep_profile
from rundir.verify import verify

def _profile(tmp_path: Path, reps: int = 2, duration: float = 0.2) -> Path:
    return write_sweep_profile(tmp_path, "nb", seed=7, duration_s=duration,
                               repetitions={"min": reps, "max": reps})


def _outputs(nb_path: Path) -> str:
    nb = nbformat.read(nb_path, as_version=4)
    return "\n".join(str(o.get("text", "")) + json.dumps(o.get("data", {}))
                     for c in nb.cells for o in c.get("outputs", []))


def _trial_ids(run_dir: Path) -> list[str]:
    return [json.loads(x)["trial_id"] for x in (run_dir / "trials.jsonl").read_text().splitlines()]


@pytest.mark.sweep
def test_notebook_sweep_is_kept_and_sealed(runner_copybench: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    r = run_runner("notebook", "--profile", str(_profile(tmp_path)), "--run-dir", str(run_dir),
                   timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    nb = run_dir / "sweep.ipynb"
    text = _outputs(nb)
    assert "4 cells" in text and "estimated" in text  # the plan and its time
    assert "[8/8]" in text  # progress
    assert "trials recorded: 8 (8 ok)" in text and "sweep-exit: 0" in text
    assert "sweep summary" in text
    sums = (run_dir / "SHA256SUMS").read_text()
    assert " sweep.ipynb" in sums or "*sweep.ipynb" in sums, sums
    assert verify(run_dir).ok
    assert not list(tmp_path.glob(".*.sweep.ipynb")), "the in-progress notebook was left"
    assert len(_trial_ids(run_dir)) == 8


def test_notebook_bad_profile_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[profile]\nname = "bad"\nduration_s = -1\n')
    run_dir = tmp_path / "run"
    r = run_runner("notebook", "--profile", str(bad), "--run-dir", str(run_dir), timeout=120)
    assert r.returncode == 2, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("runner:") and "executing"
              not in ln]
    assert len(errors) == 1 and "duration_s" in errors[0], r.stderr
    assert "Traceback" not in r.stderr and "PapermillExecutionError" not in r.stderr
    assert not run_dir.exists() or not any(run_dir.iterdir())
    assert not list(tmp_path.glob(".*.sweep.ipynb"))


@pytest.mark.sweep
@pytest.mark.slow  # 18 s; the notebook's lock and SIGKILL are in make test (test_run_lock, test_nothing_left)
def test_notebook_sigint_then_resume(runner_copybench: Path, tmp_path: Path) -> None:
    prof = _profile(tmp_path, reps=3)
    run_dir = tmp_path / "run"
    log = open(tmp_path / "first.log", "w")
    p = subprocess.Popen(runner_cmd("notebook", "--profile", str(prof), "--run-dir",
                                    str(run_dir)), stdout=log, stderr=subprocess.STDOUT,
                         cwd=str(ROOT), env=runner_env(),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trials = run_dir / "trials.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if trials.exists() and len(trials.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=120)
    log.close()
    first_log = (tmp_path / "first.log").read_text()
    assert rc == 130, first_log[-3000:]
    # (the log is printed on failure: a traceback was seen here once in about ten runs, with
    # rc 130, and could not be reproduced; its text is what the next failure must show)
    assert "--resume" in first_log and "Traceback" not in first_log, first_log[-4000:]
    first = _trial_ids(run_dir)
    assert 3 <= len(first) < 12
    assert "sweep-exit: 130" in _outputs(run_dir / "sweep.ipynb")
    r = run_runner("notebook", "--resume", "--run-dir", str(run_dir), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ids = _trial_ids(run_dir)
    assert len(ids) == 12 and not [k for k, v in Counter(ids).items() if v > 1]
    assert ids[:len(first)] == first
    assert "sweep-exit: 0" in _outputs(run_dir / "sweep.resume-1.ipynb")
    sessions = json.loads((run_dir / "sessions.json").read_text())
    assert [s["complete"] for s in sessions] == [False, True]
    assert verify(run_dir).ok

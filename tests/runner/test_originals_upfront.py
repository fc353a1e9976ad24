"""A profile with the reports' own programs, where their sources cannot be had (no archive,
no GitHub): ``runner sweep`` and ``runner notebook`` refuse at once, in one line naming
``ORIGINALS_ARCHIVES`` and ``--archives``, exit 2, nothing created, as ``make claims`` does;
``--without-originals`` goes on without them, their cells not run and the plan saying why
(never a failed or made-up record of theirs).

Their sources come from an empty directory of archives here (fetch then never reaches for
GitHub), so the refusal does not depend on this machine's network."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import run_runner, write_sweep_profile
from runner.sweep import cli

#: copybench's send beside S2's programs, on loopback (no namespaces): two cells of ours,
#: two of theirs
ORIGINALS_EXPERIMENT = {"name": "s2", "command": "send", "methods": ["send", "sendmsg"],
                        "sizes": ["4K"], "transports": ["loopback"],
                        "placements": ["cross-core"], "originals": ["S2"]}


def _env(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "no-archives"
    empty.mkdir(exist_ok=True)
    return {"COPYBENCH_ORIGINALS_ARCHIVES": str(empty),
            "COPYBENCH_ORIGINALS_CACHE": str(tmp_path / "cache")}


def _profile(tmp_path: Path) -> Path:
    return write_sweep_profile(tmp_path, "orig", repetitions={"min": 1, "max": 1},
                               experiments=[ORIGINALS_EXPERIMENT])


def _one_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


@pytest.mark.sweep
def test_sweep_refuses_at_once_without_their_sources(runner_copybench: Path,
                                                     tmp_path: Path) -> None:
    run = tmp_path / "run"
    t0 = time.monotonic()
    r = run_runner("sweep", "--profile", str(_profile(tmp_path)), "--run-dir", str(run),
                   "--no-progress", timeout=120, **_env(tmp_path))
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "ORIGINALS_ARCHIVES" in line and "--archives" in line, line
    assert "--without-originals" in line and "S2" in line, line
    assert time.monotonic() - t0 < 30
    assert not run.exists()


@pytest.mark.sweep
def test_sweep_archives_option_names_the_directory_it_was_given(runner_copybench: Path,
                                                                 tmp_path: Path) -> None:
    env = _env(tmp_path)
    given = tmp_path / "given-archives"
    given.mkdir()
    r = run_runner("sweep", "--profile", str(_profile(tmp_path)), "--run-dir",
                   str(tmp_path / "run"), "--archives", str(given), "--no-progress",
                   timeout=120, **env)
    line = _one_line(r.stderr)
    assert r.returncode == 2 and str(given) in line, line
    r = run_runner("sweep", "--profile", str(_profile(tmp_path)), "--archives",
                   str(tmp_path / "nothing-here"), timeout=60, **env)
    line = _one_line(r.stderr)
    assert r.returncode == 2 and "nothing-here" in line and "not a directory" in line, line


def test_notebook_refuses_before_a_kernel_starts(runner_copybench: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for k, v in _env(tmp_path).items():
        monkeypatch.setenv(k, v)
    run = tmp_path / "run"
    code = cli.main(["notebook", "--profile", str(_profile(tmp_path)), "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 2, err[-3000:]
    line = _one_line(err)
    assert "ORIGINALS_ARCHIVES" in line and "--without-originals" in line, line
    assert "executing" not in err  # the driver's line as papermill starts
    assert not run.exists()


@pytest.mark.sweep
def test_without_originals_runs_ours_and_says_theirs_were_not_run(runner_copybench: Path,
                                                                  tmp_path: Path) -> None:
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(_profile(tmp_path)), "--run-dir", str(run),
                   "--no-progress", "--without-originals", timeout=120, **_env(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    recs = [json.loads(x) for x in (run / "trials.jsonl").read_text().splitlines()]
    assert recs and all(x["config"]["kind"] == "copybench" for x in recs)
    assert all(x["status"] == "ok" for x in recs), [x["error"] for x in recs]
    plan = json.loads((run / "plan.json").read_text())
    assert not any(c["kind"].startswith("original:") for c in plan["cells"].values())
    why = [k for k in plan["skipped"] if k.startswith("original:S2")]
    assert why and "--without-originals" in why[0], plan["skipped"]
    assert "not run" in r.stderr and "S2" in r.stderr
    from rundir.verify import verify
    assert verify(run).ok, verify(run).problems


@pytest.mark.sweep
def test_a_resume_of_a_run_with_their_cells_refuses_without_their_sources(
        runner_copybench: Path, tmp_path: Path) -> None:
    """The run planned their trials: a resume where their sources are gone refuses (it
    would record them as failed), naming the same remedy."""
    from conftest import tree_digest
    from runner.plan import profile as prof_mod
    from runner.sweep import runfiles
    from runner.host.binary import find_binary
    prof = prof_mod.load(str(_profile(tmp_path)))
    binary = find_binary()
    assert binary is not None
    run, _, _, lock = runfiles.prepare_new(prof, tmp_path / "run", None, binary)
    lock.release()
    before = tree_digest(run)
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=120,
                   **_env(tmp_path))
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "ORIGINALS_ARCHIVES" in line and "S2" in line, line
    assert tree_digest(run) == before
    assert os.path.isdir(run)

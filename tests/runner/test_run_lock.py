"""One writer per run directory (rundir.lock, runner.sweep.runlock): while a sweep writes a run, a
second sweep, a resume, seal, pack and a notebook on it are refused in one line naming the
run and the holder's pid (exit 1) and write nothing, readers (make book's check, compare)
refuse it; the first sweep completes with every trial once and the run verifies. A holder
killed with SIGKILL leaves no stale lock: two resumes started at once after it are one
writer and one refusal, and the run completes. ``runner notebook`` holds the lock in the
driver and lends it to the sweep in its kernel."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from conftest import ROOT, copy_run, run_runner, runner_cmd, runner_env, write_sweep_profile
from rundir.verify import verify, write_seal

pytestmark = pytest.mark.sweep

def _ids(run: Path) -> list[str]:
    path = run / "trials.jsonl"
    return [json.loads(x)["trial_id"] for x in path.read_text().splitlines()] \
        if path.exists() else []


def _wait_records(run: Path, n: int, p: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        try:
            if len(_ids(run)) >= n:
                return
        except (OSError, ValueError):
            pass  # a line being written
        time.sleep(0.02)
    pytest.fail(f"fewer than {n} records in {run} (exit status {p.poll()})")


def _complete(run: Path, planned: int) -> None:
    ids = _ids(run)
    assert len(ids) == planned and max(Counter(ids).values()) == 1, Counter(ids)
    report = verify(run)
    assert report.ok, report.problems[:5]
    assert not (run / ".lock").exists()


def _refused(r: subprocess.CompletedProcess[str], run: Path, pid: int) -> str:
    lines = [ln for ln in (r.stderr + r.stdout).splitlines() if ln.strip()
             and "executing notebooks/sweep.ipynb" not in ln]
    assert "Traceback" not in r.stderr
    assert len(lines) == 1, r.stderr
    assert f"run {run} is being written by pid {pid}" in lines[0], lines[0]
    return lines[0]


def _start(*args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(runner_cmd(*args), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=str(ROOT),
                            env=runner_env(**env))


def test_a_second_writer_is_refused_and_the_first_completes(runner_copybench: Path,
                                                           runner_small_run: Path,
                                                           tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "lk", seed=3, repetitions={"min": 1, "max": 1})
    run = tmp_path / "run"
    first = _start("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress")
    _wait_records(run, 1, first)
    # stopped, the first sweep still holds its lock: however slowly the others start on a
    # loaded machine, they all meet a writer at work
    first.send_signal(signal.SIGSTOP)
    py = sys.executable
    # writers, then readers (make book's check of a run, and compare), all at once
    others = {
        "resume": runner_cmd("sweep", "--resume", "--run-dir", str(run)),
        "new sweep": runner_cmd("sweep", "--profile", str(prof), "--run-dir", str(run)),
        "notebook": runner_cmd("notebook", "--resume", "--run-dir", str(run)),
        "seal": [py, "-m", "rundir", "seal", str(run)],
        "pack": [py, "-m", "rundir", "pack", str(run)],
        "check": [py, "-m", "rundir", "check", str(run)],
        "compare": [py, "-m", "analysis.compare_report", str(run), str(runner_small_run),
                    "--out", str(tmp_path / "cmp")]}
    try:
        procs = {k: subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=str(ROOT), env=runner_env())
                 for k, argv in others.items()}
        said = {k: p.communicate(timeout=120) for k, p in procs.items()}
    finally:
        first.send_signal(signal.SIGCONT)
    for what, (out, err) in said.items():
        assert procs[what].returncode == 1, (what, err)
        line = _refused(subprocess.CompletedProcess([], 1, out, err), run, first.pid)
        assert {"check": "UNVERIFIED=1", "compare": "no report written"}.get(
            what, "nothing was written") in line, (what, line)
    assert not (tmp_path / "cmp").exists()
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err[-3000:]
    _complete(run, planned=4)
    sessions = json.loads((run / "sessions.json").read_text())
    assert len(sessions) == 1 and not list(run.glob("manifest.resume-*"))


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
def test_sigkill_then_two_resumes_at_once(runner_copybench: Path, tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "lk", seed=4, duration_s=0.5)
    run = tmp_path / "run"
    first = _start("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress")
    _wait_records(run, 2, first)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert (run / ".lock").exists()  # the file stays; its flock went with the process
    resumes = [_start("sweep", "--resume", "--run-dir", str(run), "--no-progress")
               for _ in range(2)]
    errs = [p.communicate(timeout=300)[1] for p in resumes]
    codes = sorted(p.returncode for p in resumes)
    assert codes == [0, 1], errs
    winner = next(p for p in resumes if p.returncode == 0)
    loser = next(e for p, e in zip(resumes, errs) if p.returncode == 1)
    _refused(subprocess.CompletedProcess([], 1, "", loser), run, winner.pid)
    _complete(run, planned=8)


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
def test_the_notebook_lends_its_lock_to_its_kernel(runner_copybench: Path,
                                                  tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "nb", seed=5)
    run = tmp_path / "run"
    nb = _start("notebook", "--profile", str(prof), "--run-dir", str(run))
    _wait_records(run, 1, nb)
    # the kernel runs the sweep: paused while the driver holds the lock, it cannot end first
    kernel = [c for c in psutil.Process(nb.pid).children()
              if "ipykernel" in " ".join(c.cmdline())]
    assert kernel
    for k in kernel:
        k.suspend()
    try:
        r = run_runner("sweep", "--resume", "--run-dir", str(run), timeout=120)
    finally:
        for k in kernel:
            k.resume()
    assert r.returncode == 1
    assert "python -m runner notebook" in _refused(r, run, nb.pid)
    _, err = nb.communicate(timeout=300)
    assert nb.returncode == 0, err[-3000:]
    _complete(run, planned=8)
    assert "sweep.ipynb" in (run / "SHA256SUMS").read_text()


def test_readers_refuse_a_run_that_does_not_verify(runner_small_run: Path,
                                                  tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run")
    lines = (run / "trials.jsonl").read_text().splitlines(keepends=True)
    (run / "trials.jsonl").write_text("".join(lines + lines[:2]))  # as two writers left it
    write_seal(run)  # sealed as they left it: the hashes agree, the records do not
    r = subprocess.run(["make", "--no-print-directory", "book-check-run", f"RUN={run}"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    said = [ln for ln in r.stderr.splitlines() if ln.startswith("make book:")]
    assert r.returncode != 0 and len(said) == 1, r.stderr
    assert "does not verify" in said[0] and "already used on line 1" in said[0], said
    r = subprocess.run(["make", "--no-print-directory", "book-check-run", f"RUN={run}",
                        "UNVERIFIED=1"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"make book: warning: the run is NOT verified: run {run} does not verify" in r.stderr

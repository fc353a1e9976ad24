"""A sweep's exit status says how it ended: trials that failed for a cause outside the
method they measure (a full disk, a directory gone, a topology that could not be set up)
make a complete run exit 3, naming the cause once; SIGTERM at any point of a sweep ends it
promptly with 143 and a run that resumes to completion, and a signal is never taken for a
trial's own failure (the sweep's interruption is not an ``Exception`` a trial's code may
catch)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path
from types import FrameType

import pytest

from conftest import ROOT, run_runner, runner_cmd, runner_env, write_sweep_profile
from rundir.verify import verify
from runner.plan.cells import Cell, Trial
from runner.sweep import loop, session
from runner.trial import copybench_trial
from runner.trial.trialrecord import Context


def _records(run: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (run / "trials.jsonl").read_text().splitlines() if x]


# --- a signal during a trial's own clean-up ------------------------------------------------

def test_an_interruption_is_not_an_exception_a_trial_catches() -> None:
    assert not issubclass(loop.Interrupted, Exception)
    assert issubclass(loop.Interrupted, BaseException)


def test_sigterm_while_a_profile_is_reduced_stops_the_sweep(tmp_path: Path) -> None:
    """The reduction of a profiled trial catches what goes wrong in it (``except
    Exception``): a SIGTERM that lands there must still stop the sweep. perf.data is a FIFO
    nobody writes, so the reduction waits in open() until the signal comes."""
    data = tmp_path / "perf.data"
    os.mkfifo(data)
    ctx = Context(binary=Path("/bin/true"), run_dir=tmp_path, run_id="r", seed=1, janitor=None)

    def _raise(signum: int, frame: FrameType | None) -> None:
        raise loop.Interrupted(signum)

    old = signal.signal(signal.SIGTERM, _raise)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    try:
        timer.start()
        with pytest.raises(loop.Interrupted):
            out = copybench_trial.reduce_profile(ctx, Trial("c" * 12, 0, 1), data)
            pytest.fail(f"the signal was taken for the reduction's failure: {out}")
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, old)


# --- the exit status of a complete run -------------------------------------------------------

def test_exit_status_of_a_complete_run_with_outside_failures(tmp_path: Path) -> None:
    """The rule on records, without a sweep: a method's own failure (a verification
    mismatch, a timeout) leaves 0; a full disk, a missing directory or a failed set-up
    gives 3, each cause named once with its count."""
    def rec(status: str, error: str | None) -> dict[str, object]:
        return {"status": status, "error": error}

    def result(recs: list[dict[str, object]]) -> session.Result:
        out = loop.Outcome(tmp_path, True, __import__("collections").Counter(), 1.0)
        return session.Result(tmp_path, out, recs, True)

    own = [rec("ok", None), rec("failed", "copybench exit 1: 12 mismatches at offset 0"),
           rec("timeout", "timed out after 3 s")]
    assert result(own).exit_code() == 0
    assert result(own).outside_causes() == []
    outside = own + [
        rec("failed", "copybench exit 1: write /x/(O_TMPFILE, no name) at byte 65536: No "
            "space left on device\nstderr: ..."),
        rec("failed", "copybench exit 1: write /x/(O_TMPFILE, no name) at byte 0: No space "
            "left on device"),
        rec("failed", "--dir: cannot create a file in '/gone': No such file or directory"),
        rec("failed", "topology veth: ip link add failed: Operation not permitted")]
    res = result(outside)
    assert res.exit_code() == session.EXIT_OUTSIDE == 3
    causes = res.outside_causes()
    assert [n for _, n in causes] == [2, 1, 1], causes
    assert "No space left on device" in causes[0][0]
    assert "'/gone'" in causes[1][0] and "topology veth" in causes[2][0]


@pytest.mark.sweep
@pytest.mark.root
def test_a_full_disk_mid_sweep_exits_non_zero_naming_the_cause_once(
        runner_copybench: Path, runner_root: None, tmp_path: Path) -> None:
    """A 64 KiB tmpfs as the profile's dir: the 4 KiB file trials fit, the 1 MiB ones fail
    with ENOSPC; the run completes, verifies, and the sweep exits 3 saying so once."""
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(tiny)], check=True)
    try:
        prof = write_sweep_profile(tmp_path, "disk", repetitions={"min": 1, "max": 1},
                                   dir=str(tiny), experiments=[
                                       {"name": "f", "command": "copy",
                                        "methods": ["read-write"], "sizes": ["4K", "1M"],
                                        "placements": ["same-core"]}])
        run = tmp_path / "run"
        r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run),
                       "--no-progress", timeout=120)
    finally:
        subprocess.run(["umount", str(tiny)], check=False)
    assert r.returncode == 3, r.stderr[-3000:]
    said = [x for x in r.stderr.splitlines() if "outside the method" in x]
    assert len(said) == 1 and "No space left on device" in said[0], r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    statuses = sorted(str(x["status"]) for x in _records(run))
    assert statuses == ["failed", "ok"], statuses
    assert verify(run).ok, verify(run).problems


# --- SIGTERM at any point --------------------------------------------------------------------

@pytest.mark.sweep
def test_sigterm_mid_sweep_ends_it_promptly_and_the_run_resumes(runner_copybench: Path,
                                                                tmp_path: Path) -> None:
    """Three tries at random points of one sweep's trials: each ends within seconds with
    143 and the resume hint; the last resume completes a run that verifies, every planned
    trial recorded once."""
    prof = write_sweep_profile(tmp_path, "term", repetitions={"min": 3, "max": 3})
    run = tmp_path / "run"
    rng = random.Random(os.getpid())
    first = True
    for attempt in range(3):
        args = ["sweep", "--no-progress", "--run-dir", str(run)]
        args += ["--profile", str(prof)] if first else ["--resume"]
        p = subprocess.Popen(runner_cmd(*args), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=str(ROOT),
                             env=runner_env())
        trials = run / "trials.jsonl"
        have = len(trials.read_text().splitlines()) if trials.exists() else 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            if trials.exists() and len(trials.read_text().splitlines()) > have:
                break
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))
        if p.poll() is not None:
            break  # it finished before the signal: the last resume below still checks
        sent = time.monotonic()
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        assert time.monotonic() - sent < 15, "not promptly"
        if p.returncode == 0 and "Traceback" not in err:
            # its last trial ended between the poll above and the signal (a loaded machine
            # makes that window wide): the run is complete, which the resume below checks
            break
        assert p.returncode == 143, (attempt, p.returncode, err[-3000:])
        assert "resume with" in err and "Traceback" not in err, err[-3000:]
        first = False
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    ids = [str(x["trial_id"]) for x in _records(run)]
    plan = json.loads((run / "plan.json").read_text())
    assert sorted(ids) == sorted(t for rnd in plan["rounds"] for t in rnd)
    assert verify(run).ok, verify(run).problems

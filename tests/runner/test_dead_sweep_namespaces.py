"""A sweep killed together with its reaper (SIGKILL to both) leaves its network namespaces;
the next sweep, of any run, new or resumed, removes every namespace whose sweep (the pid in
its name) is dead and says so, and leaves a live sweep's alone (not only a
``--resume`` of the same run). The state such a kill leaves is made here with real namespaces named for a real,
dead process: the sweep's note of its run (``/run/copybench-netns/<pid>/run``) and its namespaces
``cb<pid>-<n>a|b``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import copy_run, run_runner, runner_namespaces, write_sweep_profile
from runner.host import netns

pytestmark = pytest.mark.sweep

#: where a sweep notes its run (runner.host.netns.OWNERS)
OWNERS = Path("/run/copybench-netns")


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _left_by(pid: int, run: Path, names: list[str]) -> None:
    """What sweep ``pid`` of ``run`` leaves when it and its reaper are killed."""
    for n in names:
        subprocess.run(["ip", "netns", "add", n], check=True)
    (OWNERS / str(pid)).mkdir(parents=True)
    (OWNERS / str(pid) / "run").write_text(f"{run.resolve()}\n")


# a new run's sweep (any sweep) reaps them; the resume of the killed sweep's own run takes
# the same start-up path: make test-slow (make test stays under 15 min)
@pytest.mark.parametrize("how", [pytest.param("resume-of-this-run", marks=pytest.mark.slow),
                                 "new-run"])
def test_a_sweep_removes_the_namespaces_of_dead_sweeps(
        how: str, runner_root: None, runner_small_run: Path, tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=1)
    other = copy_run(runner_small_run, tmp_path / "other", drop=1)
    mine_pid, other_pid = _dead_pid(), _dead_pid()
    mine = [f"{netns.NS_PREFIX}{mine_pid}-1a", f"{netns.NS_PREFIX}{mine_pid}-1b"]
    theirs = [f"{netns.NS_PREFIX}{other_pid}-1a", f"{netns.NS_PREFIX}{other_pid}-1b"]
    live = [f"{netns.NS_PREFIX}{os.getpid()}-1a"]  # this test's pid: alive, never touched
    try:
        _left_by(mine_pid, run, mine)
        _left_by(other_pid, other, theirs)
        subprocess.run(["ip", "netns", "add", live[0]], check=True)
        if how == "resume-of-this-run":
            args = ["--resume", "--run-dir", str(run)]
        else:
            args = ["--profile", str(write_sweep_profile(tmp_path, "ns", seed=3,
                                                         duration_s=0.1,
                                                         repetitions={"min": 1, "max": 1})),
                    "--run-dir", str(tmp_path / "new")]
        r = run_runner("sweep", *args, "--no-progress", timeout=180)
        assert r.returncode == 0, r.stderr[-3000:]
        gone = sorted(mine + theirs)
        said = [ln for ln in r.stderr.splitlines()
                if "network namespaces left by killed sweeps (their processes are dead)" in ln]
        assert len(said) == 1 and all(n in said[0].split() for n in gone), r.stderr[-3000:]
        left = runner_namespaces()
        assert not set(gone) & left and set(live) <= left, left
        assert not (OWNERS / str(mine_pid)).exists() and not (OWNERS / str(other_pid)).exists()
    finally:
        for n in mine + theirs + live:  # the namespaces this test made
            subprocess.run(["ip", "netns", "delete", n], capture_output=True, check=False)
        for pid in (mine_pid, other_pid):
            shutil.rmtree(OWNERS / str(pid), ignore_errors=True)

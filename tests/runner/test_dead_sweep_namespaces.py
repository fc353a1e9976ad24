"""A sweep killed together with its reaper (SIGKILL to both) leaves its network namespaces;
the next ``--resume`` of the same run removes them and says so, and leaves those of another
run alone. The state such a kill leaves is made here with real namespaces named for a real,
dead process: the sweep's note of its run (``/run/copybench-netns/<pid>/run``) and its namespaces
``cb<pid>-<n>a|b``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import copy_run, run_runner, runner_namespaces
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


def test_a_resume_removes_the_namespaces_of_its_dead_sweeps(
        runner_root: None, runner_small_run: Path, tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=1)
    other = copy_run(runner_small_run, tmp_path / "other", drop=1)
    mine_pid, other_pid = _dead_pid(), _dead_pid()
    mine = [f"{netns.NS_PREFIX}{mine_pid}-1a", f"{netns.NS_PREFIX}{mine_pid}-1b"]
    theirs = [f"{netns.NS_PREFIX}{other_pid}-1a", f"{netns.NS_PREFIX}{other_pid}-1b"]
    try:
        _left_by(mine_pid, run, mine)
        _left_by(other_pid, other, theirs)
        r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress",
                       timeout=180)
        assert r.returncode == 0, r.stderr[-3000:]
        assert (f"removed 2 network namespaces left by a killed sweep of this run: "
                f"{' '.join(mine)}") in r.stderr, r.stderr[-3000:]
        left = runner_namespaces()
        assert not set(mine) & left, left
        assert set(theirs) <= left  # another run's: its own resume removes them
        assert not (OWNERS / str(mine_pid)).exists()
    finally:
        for n in mine + theirs:  # the namespaces this test made
            subprocess.run(["ip", "netns", "delete", n], capture_output=True, check=False)
        for pid in (mine_pid, other_pid):
            shutil.rmtree(OWNERS / str(pid), ignore_errors=True)

"""Nothing is left behind when the runner is killed with SIGKILL: no temporary file of a trial
(``$TMPDIR/copybench-*``), no copy of the vDSO perf makes (``/tmp/perf-vdso.so-*``: the name
is compiled into perf, TMPDIR does not move it), no notebook kernel connection file (it holds
the kernel's key). Each test gives the runner a TMPDIR of its own, which must be empty once
the runner's processes are gone; a temporary directory whose reaper was killed too is
removed by the next run."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Callable

import pytest

from conftest import (ROOT, copy_run, run_runner, runner_cmd, runner_env, runner_tagged_pids,
                      write_sweep_profile)

pytestmark = pytest.mark.sweep

VDSO = "/tmp/perf-vdso.so-*"
#: the copies on the machine when this module was loaded (another perf's)
VDSO_BEFORE = set(glob.glob(VDSO))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _children(pid: int) -> list[int]:
    out = []
    for task in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            out += [int(x) for x in Path(task).read_text().split()]
        except OSError:
            pass
    return out


def _ours(tag: str, test: Callable[[int, bytes], bool]) -> bool:
    return any(test(pid, _cmdline(pid)) for pid in runner_tagged_pids(tag))


def _sending(tag: str) -> bool:
    return _ours(tag, lambda pid, c: b"copybench" in c and b"\0send\0" in c)


def _kill_when(argv: list[str], ready: Callable[[str, Path], bool], tmpdir: Path,
               also: Callable[[str], None] | None = None) -> str:
    """Start the runner with TMPDIR=tmpdir, SIGKILL it once ``ready``; its test tag."""
    tag = uuid.uuid4().hex
    p = subprocess.Popen(runner_cmd(*argv), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=str(ROOT),
                         env=runner_env(TMPDIR=str(tmpdir), RUNNER_TEST_TAG=tag))
    deadline = time.monotonic() + 180
    while not ready(tag, tmpdir):
        assert p.poll() is None and time.monotonic() < deadline, "never got there"
        time.sleep(0.005)
    if also is not None:
        also(tag)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    return tag


def _gone(tag: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while runner_tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not runner_tagged_pids(tag), [_cmdline(p) for p in runner_tagged_pids(tag)]


def _no_new_vdso(before: set[str]) -> None:
    """Copies made since ``before`` that are still there a while later (another perf on the
    machine removes its own when it ends)."""
    new = set(glob.glob(VDSO)) - before
    if new:
        time.sleep(5)
    left = {f for f in new if os.path.exists(f)}
    assert not left, left


def _tmp(tmp_path: Path) -> Path:
    d = tmp_path / "tmpdir"
    d.mkdir()
    return d


def test_sigkill_mid_trial_leaves_no_temporary_file(runner_copybench: Path,
                                                    tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "k", duration_s=1.0)
    tmpdir = _tmp(tmp_path)
    tag = _kill_when(["sweep", "--profile", str(prof), "--run-dir", str(tmp_path / "run")],
                     lambda tag, _: _sending(tag), tmpdir)
    _gone(tag)
    assert list(tmpdir.iterdir()) == []


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
def test_a_killed_reaper_s_directory_goes_with_the_next_resume(runner_copybench: Path,
                                                               runner_small_run: Path,
                                                               tmp_path: Path) -> None:
    """The reaper killed too: its process's directory stays until the next run starts."""
    prof = write_sweep_profile(tmp_path, "k", duration_s=2.0)
    tmpdir = _tmp(tmp_path)

    def kill_reaper(tag: str) -> None:
        for pid in runner_tagged_pids(tag):
            if b"runner.host.reaper" in _cmdline(pid):
                os.kill(pid, signal.SIGKILL)

    tag = _kill_when(["sweep", "--profile", str(prof), "--run-dir", str(tmp_path / "run")],
                     lambda tag, _: _sending(tag), tmpdir, also=kill_reaper)
    _gone(tag)
    left = list(tmpdir.iterdir())
    assert [d.name.startswith("copybench-") for d in left] == [True], left
    run = copy_run(runner_small_run, tmp_path / "other")
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=120,
                   TMPDIR=str(tmpdir))
    assert r.returncode == 0, r.stderr[-2000:]
    assert list(tmpdir.iterdir()) == []


#: perf record pid -> when its workload was first seen ended
_ENDING_SINCE: dict[int, float] = {}


def _perf_record_ending(tag: str, _: Path) -> bool:
    """perf record still runs, its workload (copybench) has ended: perf is ending the
    recording (that is when it copies the vDSO, without -B); killed once a copy appears,
    or 0.3 s into the ending."""
    def ending(pid: int, cmd: bytes) -> bool:
        if not (cmd.startswith(b"perf\0record") and b"copybench" in cmd) or _children(pid):
            return False
        since = _ENDING_SINCE.setdefault(pid, time.monotonic())
        return bool(set(glob.glob(VDSO)) - VDSO_BEFORE) or time.monotonic() - since > 0.3
    return _ours(tag, ending)


def _perf_script(tag: str, _: Path) -> bool:
    return _ours(tag, lambda pid, c: c.startswith(b"perf\0script"))


@pytest.mark.root
@pytest.mark.parametrize("when", [_perf_record_ending, _perf_script],
                         ids=["perf record ending", "perf script reducing"])
def test_sigkill_in_a_profiled_trial_leaves_no_vdso_copy(
        runner_copybench: Path, runner_root: None, tmp_path: Path,
        when: Callable[[str, Path], bool]) -> None:
    prof = write_sweep_profile(tmp_path, "p", duration_s=1.0,
                               repetitions={"min": 1, "max": 1},
                               experiments=[{"name": "m", "command": "send",
                                             "methods": ["send"], "sizes": ["16K"],
                                             "transports": ["loopback"],
                                             "placements": ["cross-core"], "perf": True}])
    tmpdir = _tmp(tmp_path)
    before = set(glob.glob(VDSO))
    tag = _kill_when(["sweep", "--profile", str(prof), "--run-dir", str(tmp_path / "run")],
                     when, tmpdir)
    _gone(tag)
    _no_new_vdso(before)
    assert list(tmpdir.iterdir()) == []


def _connection_file(tag: str, tmpdir: Path) -> bool:
    return any(p.suffix == ".json" for p in tmpdir.rglob("*"))


@pytest.mark.parametrize("when", [_connection_file, lambda tag, _: _sending(tag)],
                         ids=["kernel starting", "mid-trial"])
def test_sigkill_of_the_notebook_leaves_no_connection_file(
        runner_copybench: Path, tmp_path: Path, when: Callable[[str, Path], bool]) -> None:
    prof = write_sweep_profile(tmp_path, "n", duration_s=1.0)
    tmpdir = _tmp(tmp_path)
    tag = _kill_when(["notebook", "--profile", str(prof), "--run-dir", str(tmp_path / "run")],
                     when, tmpdir)
    _gone(tag)
    assert list(tmpdir.iterdir()) == []
    # the partial notebook is not left beside the run directory either
    assert not list(tmp_path.glob(".*.ipynb"))

"""The sweep's check of its copybench (runner.host.binary): a program that only prints
``{"tool":"copybench"}``, or a copybench built from other sources than this checkout's
``src/``, is refused; a program that hangs is refused after the check's timeout and leaves
nothing running (its whole process group is ended). In this process."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from runner.host import binary as B


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def test_a_program_that_only_says_copybench_is_refused(tmp_path: Path) -> None:
    fake = _script(tmp_path / "copybench", "echo '{\"tool\":\"copybench\"}'\n")
    why = B.binary_problem(fake)
    assert why is not None and why.startswith(f"{fake}: "), why


def test_a_copybench_of_other_sources_is_refused(tmp_path: Path,
                                                 runner_copybench: Path) -> None:
    """The real program's answers, but its build names other sources than src/'s."""
    info = json.loads(os.popen(f"'{runner_copybench}' --build-info").read())
    methods = os.popen(f"'{runner_copybench}' methods --json").read().strip()
    info["source_sha"] = "0123456789abcdef"
    fake = _script(tmp_path / "copybench", f"""case "$1" in
--build-info) echo '{json.dumps(info)}' ;;
methods) echo '{methods}' ;;
esac
""")
    why = B.binary_problem(fake)
    assert why is not None and "built from other sources" in why and "make -C src" in why, why
    assert B.binary_problem(runner_copybench) is None


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_program_that_hangs_leaves_nothing_running(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "CHECK_TIMEOUT_S", 1.0, raising=False)
    pidfile = tmp_path / "child.pid"
    hang = _script(tmp_path / "copybench", f"sleep 1000 &\necho $! > '{pidfile}'\nwait\n")
    t0 = time.monotonic()
    why = B.binary_problem(hang)
    took = time.monotonic() - t0
    child = int(pidfile.read_text())
    try:
        assert why is not None and "not copybench" in why, why
        deadline = time.monotonic() + 5  # SIGKILL is queued: the child dies when next run
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), f"the check's child {child} (sleep 1000) is still running"
        assert took < 10, took
    finally:
        if _alive(child):
            os.kill(child, 9)  # the sleep this test started


def test_runner_env_with_a_hanging_program_is_refused_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``runner env`` checks a hanging COPYBENCH_BIN (never runs it unchecked for 93 s, exit 0,
    its children left running): it is refused as sweep, plan and notebook
    refuse it: exit 2, one line, the program's whole group ended."""
    from runner.sweep import cli
    monkeypatch.setattr(B, "CHECK_TIMEOUT_S", 1.0, raising=False)
    pidfile = tmp_path / "child.pid"
    hang = _script(tmp_path / "copybench", f"sleep 1000 &\necho $! > '{pidfile}'\nwait\n")
    monkeypatch.setenv("COPYBENCH_BIN", str(hang))
    t0 = time.monotonic()
    code = cli.main(["env", "--no-memcpy"])
    took = time.monotonic() - t0
    err = capsys.readouterr().err
    child = int(pidfile.read_text())
    try:
        assert code == 2, err
        assert len(err.strip().splitlines()) == 1 and "COPYBENCH_BIN" in err, err
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), f"{child} (sleep 1000) is still running"
        assert took < 15, took
    finally:
        if _alive(child):
            os.kill(child, 9)  # the sleep this test started

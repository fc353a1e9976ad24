"""Every tool a command asks a question (``perf``, ``iperf3``, ``sockperf``: their versions,
``perf stat``, ``perf record``) runs in a process group of its own that is gone when the
answer came or the time ran out: a fake ``perf`` that runs ``sleep 999 &`` leaves
no orphans behind ``runner env``, and one that hangs ends it in no traceback.

Fake tools first on PATH, real commands; what is left is found by the environment tag every
process of the command inherits (conftest.runner_tagged_pids)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import run_runner, runner_tagged_pids

TOOLS = ("perf", "iperf3", "sockperf")


def _fakes(tmp_path: Path, body: str) -> str:
    d = tmp_path / "bin"
    d.mkdir()
    for t in TOOLS:
        (d / t).write_text(f"#!/bin/sh\n{body}\n")
        (d / t).chmod(0o755)
    return f"{d}{os.pathsep}{os.environ['PATH']}"


def _left(tag: str) -> set[int]:
    """The tagged processes still there a moment after the command returned."""
    deadline = time.monotonic() + 2
    while (pids := runner_tagged_pids(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


def test_runner_env_leaves_no_child_of_its_tools(tmp_path: Path) -> None:
    """Tools that answer at once but leave a child running (detached from the answer's
    pipes): the manifest is written and nothing of theirs is left."""
    tag = f"tools-{os.getpid()}-{time.monotonic_ns()}"
    path = _fakes(tmp_path, "(sleep 999 >/dev/null 2>&1 &)\necho 'fake 1.0'")
    try:
        r = run_runner("env", "--no-memcpy", timeout=300, PATH=path, RUNNER_TEST_TAG=tag)
        assert r.returncode == 0, r.stderr[-2000:]
        assert "Traceback" not in r.stderr
        doc = json.loads(r.stdout)
        assert doc["tools"]["iperf3"] == "fake 1.0"
        left = _left(tag)
        assert left == set(), f"{len(left)} processes of the fake tools left running"
    finally:
        for pid in runner_tagged_pids(tag):
            os.kill(pid, 9)


def test_a_hanging_question_ends_in_time_with_its_whole_group(tmp_path: Path) -> None:
    """The one helper every such question goes through: a tool that hangs (and has started
    a child that holds its output) is no answer after the timeout, and its group is gone."""
    tag = f"hang-{os.getpid()}-{time.monotonic_ns()}"
    script = tmp_path / "hangs"
    script.write_text("#!/bin/sh\nsleep 999 &\nsleep 999\n")
    script.chmod(0o755)
    from runner.host.proc import ask
    t0 = time.monotonic()
    a = ask([str(script)], timeout=1.0, env={**os.environ, "RUNNER_TEST_TAG": tag})
    took = time.monotonic() - t0
    try:
        assert a.problem is not None and "did not answer within 1 s" in a.problem, a
        assert a.returncode is None and a.text is None
        assert took < 8, took
        assert _left(tag) == set()
    finally:
        for pid in runner_tagged_pids(tag):
            os.kill(pid, 9)


@pytest.mark.parametrize("argv,problem", [(["/nonexistent/tool"], "No such file"),
                                          (["true"], None)])
def test_ask_says_why_there_is_no_answer(argv: list[str], problem: str | None) -> None:
    from runner.host.proc import ask
    a = ask(argv, timeout=5)
    assert (a.problem is None) if problem is None else (problem in (a.problem or ""))

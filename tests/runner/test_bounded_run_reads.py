"""The runner reads a run's own state files (sessions.json, plan.json) as bounded regular
files inside the run: a FIFO there is refused at once (it used to block the reader for ever),
a link to /dev/zero is refused (it used to be read until memory ran out)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from rundir import layout
from rundir.inside import BadInput
from runner.host import manifest
from runner.sweep import runfiles, session


@pytest.fixture(autouse=True)
def _alarm():
    """A hang fails the test instead of blocking the suite."""
    def boom(*_):
        raise TimeoutError("the reader blocked")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _plant(path: Path, how: str) -> None:
    if how == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("how", ["fifo", "link-to-dev-zero"])
def test_sessions_json_is_read_bounded(tmp_path: Path, how: str) -> None:
    _plant(tmp_path / layout.SESSIONS, how)
    with pytest.raises(BadInput):
        runfiles.record_session(tmp_path, {"started": "now"})
    with pytest.raises(BadInput):
        session._sessions(tmp_path)


@pytest.mark.parametrize("how", ["fifo", "link-to-dev-zero"])
def test_plan_json_is_read_bounded(tmp_path: Path, how: str) -> None:
    _plant(tmp_path / layout.PLAN, how)
    assert manifest.plan_sizes(tmp_path) == []
    assert runfiles._planned_profile(tmp_path) is None


def test_sessions_json_still_counts_and_grows(tmp_path: Path) -> None:
    (tmp_path / layout.SESSIONS).write_text(json.dumps([{"started": "a"}]))
    assert session._sessions(tmp_path) == 1
    assert runfiles.record_session(tmp_path, {"started": "b"}) == 2
    assert session._sessions(tmp_path) == 2

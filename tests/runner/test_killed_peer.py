"""A trial whose sender a signal ends (SIGKILL from outside: the OOM killer, a user) says so
in its error, ``sender killed by signal 9 (SIGKILL)``, not that it "printed no JSON". A real
iperf3 pair on loopback (runner.sweep.trials.run_trial), its client killed while it runs."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from runner.plan.cells import Cell, Trial
from runner.trial.trialrecord import Context
from runner.trial.transports import Loopback
from runner.sweep.trials import run_trial


def _kill_client_when_it_runs(done: threading.Event, killed: list[int]) -> None:
    """SIGKILL this process's descendant ``iperf3 -c`` once it has run for a moment."""
    me = psutil.Process()
    while not done.is_set():
        for p in me.children(recursive=True):
            try:
                argv = p.cmdline()
                if argv[:1] == ["iperf3"] and "-c" in argv and time.time() - p.create_time() > 0.5:
                    os.kill(p.pid, signal.SIGKILL)
                    killed.append(p.pid)
                    return
            except psutil.Error:
                continue
        time.sleep(0.05)


def test_a_killed_iperf3_client_is_named_as_killed(tmp_path: Path) -> None:
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed")
    cell = Cell(kind="peer:iperf3", command="send", method="iperf3", transport="loopback",
                placement="unpinned", mode="stream", size=16384, threads=1, cache=None,
                duration_s=3.0, warmup_s=0.0, verify="off", fields=8, mtu=None)
    ctx = Context(binary=Path("/nonexistent"), run_dir=tmp_path, run_id="r", seed=1,
                  janitor=None)
    done, killed = threading.Event(), []
    t = threading.Thread(target=_kill_client_when_it_runs, args=(done, killed))
    t.start()
    try:
        rec = run_trial(ctx, cell, Trial(cell.id, 1), Loopback(), 0)
    finally:
        done.set()
        t.join()
    assert killed, "the iperf3 client was never seen running"
    assert rec.status == "failed", rec.error
    assert rec.error is not None
    assert rec.error.splitlines()[0] == "sender killed by signal 9 (SIGKILL)", rec.error

"""A standalone `copybench send` bounds its own life: with its sink stopped (SIGSTOP) mid-trial
it gives up `--grace` seconds (default 10) after the window, prints one failed record saying
why and exits 1; it never waits on the sink for ever.

Real processes over loopback: a `copybench sink`, a `copybench send` against it, the sink
stopped once its receiver threads run (the session has begun), resumed and ended afterwards.
The binary is src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import running_sink

WARMUP, DURATION = 0.3, 1.0
# the bound the README states, beyond warm-up + duration + grace: set-up and 2 s of shutdown
SLACK = 4.0
Sink = tuple[subprocess.Popen[str], int]  # the sink process and its control port


@pytest.fixture(scope="module")
def available(copybench: Path) -> set[str]:
    out = subprocess.run([str(copybench), "methods", "--json"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {m["name"] for m in json.loads(out) if m["available"]}


@pytest.fixture
def sink(copybench: Path) -> Iterator[Sink]:
    with running_sink(copybench) as sp:
        yield sp


def wait_for_receivers(sink_pid: int, sender: subprocess.Popen[str]) -> None:
    """Until the sink runs a receiver thread: handshake and data connections are done."""
    deadline = time.monotonic() + 10
    while len(os.listdir(f"/proc/{sink_pid}/task")) < 2:
        if sender.poll() is not None or time.monotonic() > deadline:
            out, err = sender.communicate()
            pytest.fail(f"the session never started (send exit {sender.returncode}: {err[-300:]!r})")
        time.sleep(0.005)


def send_with_stopped_sink(copybench: Path, sink: subprocess.Popen[str], port: int, grace: float | None,
                           *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Start send, stop the sink once its session runs; (result, seconds, the bound)."""
    extra = [] if grace is None else ["--grace", str(grace)]
    bound = WARMUP + DURATION + (10.0 if grace is None else grace) + SLACK
    cmd = [str(copybench), "send", "--host", "127.0.0.1", "--port", str(port), "--warmup", str(WARMUP),
           "--duration", str(DURATION), *extra, *args]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         text=True)
    wait_for_receivers(sink.pid, p)
    sink.send_signal(signal.SIGSTOP)
    try:
        out, err = p.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail(f"send still running {bound:.1f} s after it started, with its sink stopped "
                    f"(stdout {out[:300]!r}, stderr {err[-300:]!r})")
    return subprocess.CompletedProcess(cmd, p.returncode, out, err), time.monotonic() - t0, bound


def assert_failed_record(r: subprocess.CompletedProcess[str], *needles: str) -> dict:
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (runtime failure): {r.stderr!r}"
    lines = r.stdout.splitlines()
    assert len(lines) == 1, f"expected one record on stdout, got {r.stdout!r}"
    rec = json.loads(lines[0])
    assert rec["status"] == "failed" and rec["error"], rec
    for n in needles:
        assert n in rec["error"], f"{n!r} not in the error {rec['error']!r}"
    return rec


@pytest.mark.parametrize("method", ["send", "sendfile", "zerocopy", "splice2"])
def test_stopped_sink_ends_the_trial_within_grace(copybench: Path, available: set[str], sink: Sink,
                                                  method: str) -> None:
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    p, port = sink
    r, took, bound = send_with_stopped_sink(copybench, p, port, 2.0, "--method", method, "--size", "1M")
    rec = assert_failed_record(r, "--grace", "stopped reading")
    assert took >= WARMUP + DURATION + 2.0 - 0.5, f"gave up after {took:.1f} s, before its grace"
    assert rec["config"]["method"] == method


@pytest.mark.slow  # waits out the 10 s default; the same bound at --grace 1 is in make test
def test_default_grace_bounds_a_standalone_send(copybench: Path, sink: Sink) -> None:
    """No option: the default grace (10 s) still ends it, long before a runner's timeout would."""
    p, port = sink
    r, took, bound = send_with_stopped_sink(copybench, p, port, None, "--method", "send", "--size", "64K")
    assert_failed_record(r, "gave up 10 s after the window", "stopped reading")


def test_stopped_udp_sink_never_answers(copybench: Path, sink: Sink) -> None:
    """UDP sends never block on the receiver: the sender waits for a result that never comes."""
    p, port = sink
    r, took, bound = send_with_stopped_sink(copybench, p, port, 2.0, "--method", "sendmsg",
                                            "--protocol", "udp", "--size", "1400")
    assert_failed_record(r, "sink's result", "stopped answering")


def test_grace_is_checked(copybench: Path) -> None:
    r = subprocess.run([str(copybench), "send", "--method", "send", "--host", "127.0.0.1", "--grace", "0"],
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2 and r.stdout == "" and "--grace" in r.stderr, r.stderr

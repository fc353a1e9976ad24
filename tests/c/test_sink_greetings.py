"""The sink's greetings: control connections that have not yet greeted are served side by
side (one poll over all of them, each with its own deadline), so an idle, slow or garbage
client never delays another's session; and only a session whose greeting completed counts
for ``--once`` (and ``--idle-timeout``). Real processes and real sockets over loopback.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXIT_WINDOW_MISSED, until_window_met

IDLE_CLIENTS = 130  # more than the listener's backlog (128): a serial sink drains none of them


class Sink:
    def __init__(self, copybench: Path, *args: str) -> None:
        self.p = subprocess.Popen([str(copybench), "sink", "--bind", "127.0.0.1", "--port", "0",
                                   *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        assert self.p.stdout is not None
        ready = json.loads(self.p.stdout.readline())
        assert ready["event"] == "ready", ready
        self.port: int = ready["port"]

    def stop(self) -> str:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            _, err = self.p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        return err


@pytest.fixture
def sink_factory(copybench: Path) -> Iterator[list[Sink]]:
    made: list[Sink] = []
    yield made
    for s in made:
        s.stop()


def start(copybench: Path, made: list[Sink], *args: str) -> Sink:
    s = Sink(copybench, *args)
    made.append(s)
    return s


def send(copybench: Path, port: int) -> tuple[subprocess.CompletedProcess[str], float]:
    """One short real trial against the sink, and how long it took (taken again only when
    its window was missed on a busy machine)."""
    def attempt() -> tuple[subprocess.CompletedProcess[str], float]:
        t0 = time.monotonic()
        r = subprocess.run([str(copybench), "send", "--method", "sendmsg", "--host", "127.0.0.1",
                            "--port", str(port), "--size", "16K", "--duration", "0.2",
                            "--warmup", "0.05", "--counters", "rusage", "--verify", "full"],
                           capture_output=True, text=True, timeout=60, check=False)
        return r, time.monotonic() - t0
    return until_window_met(attempt, lambda o: o[0].returncode == EXIT_WINDOW_MISSED)


def assert_served(r: subprocess.CompletedProcess[str]) -> None:
    assert r.returncode == 0, (r.returncode, r.stderr[-600:], r.stdout[:600])
    rec = json.loads(r.stdout)
    assert rec["status"] == "ok", rec["error"]
    v = rec["result"]["verify"]
    assert v["mismatches"] == 0 and v["bytes_checked"] > 0, v


def test_idle_connections_do_not_delay_a_real_sender(copybench: Path,
                                                     sink_factory: list[Sink]) -> None:
    sink = start(copybench, sink_factory)
    idle = []
    try:
        for _ in range(IDLE_CLIENTS):
            c = socket.socket()
            c.settimeout(5)
            c.connect(("127.0.0.1", sink.port))  # connected, and then says nothing
            idle.append(c)
        r, took = send(copybench, sink.port)
        assert_served(r)
        # a trial alone takes well under 2 s (0.25 s of windows, set-up in ms); one greeting
        # wait of the sink's (5 s) before it would already show
        assert took < 4.5, f"the sender took {took:.1f} s behind {IDLE_CLIENTS} idle clients"
    finally:
        for c in idle:
            c.close()
    err = sink.stop()
    assert "session tcp stream" in err, err[-800:]


def test_a_slow_greeting_does_not_delay_another(copybench: Path,
                                                sink_factory: list[Sink]) -> None:
    """A client that sends half a greeting and stalls waits on its own deadline."""
    sink = start(copybench, sink_factory)
    slow = socket.create_connection(("127.0.0.1", sink.port))
    try:
        slow.sendall(b"HELLO copybench/1 proto=tcp mode=str")
        r, took = send(copybench, sink.port)
        assert_served(r)
        assert took < 4.5, took
        # its deadline (5 s) passes: it is dropped, with nothing answered to half a line
        slow.settimeout(8)
        assert slow.recv(100) == b""
    finally:
        slow.close()


@pytest.mark.parametrize("client", ["garbage", "silent-then-closed", "binary"])
def test_a_failed_greeting_does_not_consume_once(copybench: Path, sink_factory: list[Sink],
                                                 client: str) -> None:
    sink = start(copybench, sink_factory, "--once")
    c = socket.create_connection(("127.0.0.1", sink.port))
    c.settimeout(8)
    if client == "garbage":
        c.sendall(b"GET / HTTP/1.1\r\n\r\n")
        assert c.recv(200).startswith(b"ERR "), "the sink answers a line that is not a greeting"
    elif client == "binary":
        c.sendall(b"\x00\xff" * 9000)  # no newline within the control buffer
    c.close()
    time.sleep(0.3)  # the sink has read it (and, before the fix, exited)
    assert sink.p.poll() is None, "the sink exited after a client that never greeted"
    r, _ = send(copybench, sink.port)
    assert_served(r)
    # the real session was the one: the sink exits by itself after it
    try:
        sink.p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("the sink did not exit after its one session (--once)")
    assert sink.p.returncode == 0

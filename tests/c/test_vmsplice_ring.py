"""``vmsplice`` never rewrites a page while bytes on it can still be in flight: its ring is
sized by the bytes the connection can hold (the send buffer, the receiver's, the pipe), not by
a count of messages, and the record says both (``result.vmsplice``).

The stress: the sink and the sender on one CPU, the sink at nice 19, so the sender runs ahead
until the buffers are full and the receiver reads each byte as late as the connection allows.
At 64 B that is 0.8 MiB here, more than a ring of 8192 messages holds (512 KiB): such a ring
is rewritten under bytes not yet delivered in nearly every such trial of half a second. Real
processes over loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXIT_WINDOW_MISSED, running_sink, until_window_met
from test_noise_fields import schema_problems, wrapped

TRIALS = 12
PIPE_MAX = 1 << 20  # fs.pipe-max-size's default: the most the method's pipe asks for


def sysctl_max(name: str) -> int:
    return int(Path(f"/proc/sys/net/ipv4/{name}").read_text().split()[2])


@pytest.fixture(scope="module")
def niced_sink(copybench: Path) -> Iterator[int]:
    """A sink on CPU 0 at nice 19 (the sender shares CPU 0 and comes first)."""
    with running_sink(copybench, 0, nice=19) as (_, port):
        yield port


def vmsplice_trial(copybench: Path, port: int, size: int, duration: str) -> dict[str, Any]:
    def attempt() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(copybench), "send", "--method", "vmsplice", "--host",
                               "127.0.0.1", "--port", str(port), "--cpus", "0", "--size",
                               str(size), "--verify", "full", "--duration", duration,
                               "--warmup", "0.05", "--counters", "rusage"],
                              capture_output=True, text=True, timeout=60, check=False)
    r = until_window_met(attempt, lambda o: o.returncode == EXIT_WINDOW_MISSED)
    rec: dict[str, Any] = json.loads(r.stdout)
    assert rec["result"] is not None, rec["error"]
    return rec


@pytest.mark.parametrize("size", [63, 64])
def test_small_messages_are_never_rewritten_in_flight(copybench: Path, niced_sink: int,
                                                      size: int) -> None:
    bad = []
    for _ in range(TRIALS):
        rec = vmsplice_trial(copybench, niced_sink, size, "0.5")
        v = rec["result"]["verify"]
        if rec["status"] != "ok" or v["mismatches"]:
            bad.append(rec["error"] or v["first_mismatch"])
    assert not bad, f"{len(bad)} of {TRIALS} trials at {size} B failed verification: {bad[:3]}"


def test_the_record_gives_the_ring_against_the_bytes_in_flight(copybench: Path,
                                                               niced_sink: int) -> None:
    rec = vmsplice_trial(copybench, niced_sink, 64, "0.2")
    ring = rec["result"]["vmsplice"]
    # the bound covers both ends' largest buffers (this host's sysctls) and the pipe ...
    floor = sysctl_max("tcp_wmem") + sysctl_max("tcp_rmem")
    assert floor < ring["in_flight_bound"] <= floor + PIPE_MAX + (1 << 20), ring
    # ... the ring holds at least that many bytes between two writes of one page ...
    assert ring["ring_bytes"] >= ring["in_flight_bound"], ring
    # ... and its memory stays within twice that (a byte of gap per field) plus padding
    assert ring["ring_bytes"] < ring["ring_memory"] <= 2 * ring["ring_bytes"] + (1 << 20), ring
    assert schema_problems(wrapped(rec)) == []
    # methods without a ring say nothing of one
    other = subprocess.run([str(copybench), "send", "--method", "sendmsg", "--host", "127.0.0.1",
                            "--port", str(niced_sink), "--size", "64", "--duration", "0.1",
                            "--warmup", "0", "--counters", "rusage"],
                           capture_output=True, text=True, timeout=60, check=False)
    assert "vmsplice" not in json.loads(other.stdout)["result"]


def test_a_ring_that_comes_round_delivers_every_byte(copybench: Path, niced_sink: int) -> None:
    """256 KiB messages against the stalling receiver: the ring is rewritten within the trial
    (several times over on an idle machine), and every byte arrives as sent."""
    rec = vmsplice_trial(copybench, niced_sink, 256 << 10, "1.5")
    res = rec["result"]
    assert rec["status"] == "ok" and res["verify"]["mismatches"] == 0, rec["error"]
    assert res["verify"]["bytes_checked"] > res["vmsplice"]["ring_bytes"], (
        "the ring did not come round: nothing was reused", res["verify"], res["vmsplice"])


def test_a_buffer_beyond_the_ring_s_limit_is_refused_in_one_line(copybench: Path,
                                                                 niced_sink: int) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: --sockbuf past net.core.wmem_max takes CAP_NET_ADMIN")
    r = subprocess.run([str(copybench), "send", "--method", "vmsplice", "--host", "127.0.0.1",
                        "--port", str(niced_sink), "--size", "64", "--sockbuf", "768M",
                        "--duration", "0.1", "--warmup", "0"],
                       capture_output=True, text=True, timeout=60, check=False)
    rec = json.loads(r.stdout)
    assert r.returncode == 1 and rec["status"] == "failed", (r.returncode, rec["status"])
    assert "can be in flight" in rec["error"] and "--sockbuf" in rec["error"], rec["error"]
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr

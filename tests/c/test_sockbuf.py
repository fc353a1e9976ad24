"""``copybench send --sockbuf BYTES``: both ends' socket buffers fixed (the sender's SO_SNDBUF,
the sink's SO_RCVBUF, set on its listener before listen() so the accepted socket inherits it
and its window scale fits), which turns TCP's buffer autotuning off. A control of the noise
study: does the buffer growing during a window explain part of the trial-to-trial spread?

Real processes over loopback, as tests/c/test_noise_fields.py runs them; the record's
``sndbuf_*``/``rcvbuf_*`` fields (getsockopt at the window's edges) show what took effect.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from test_noise_fields import port, send  # noqa: F401  (the module's sink fixture)

FIXED = 256 * 1024


def test_fixed_buffers_stay_at_their_size_through_the_window(copybench: Path,
                                                              port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "send", "--size", "64K", "--duration", "0.5",
               "--warmup", "0.2", "--sockbuf", "256K")
    assert rec["config"]["sockbuf"] == FIXED
    res = rec["result"]
    # the sender's send buffer and the sink's receive buffer are what was asked, at both
    # edges of the window: autotuning (which grows them under a bulk stream) is off
    assert res["sender"]["sndbuf_start"] == res["sender"]["sndbuf_end"] == [FIXED], res["sender"]
    rcv = res["receiver"]
    assert rcv["rcvbuf_start"] == rcv["rcvbuf_end"] == [FIXED], rcv
    assert res["bytes"] > 0


def test_without_it_the_record_says_autotuned(copybench: Path, port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "send", "--size", "16K", "--duration", "0.3",
               "--warmup", "0.1")
    assert rec["config"]["sockbuf"] is None


@pytest.mark.parametrize("args,words", [
    (["--sockbuf", "1K"], "--sockbuf"),
    (["--sockbuf", "2G"], "--sockbuf"),
    (["--sockbuf", "lots"], "--sockbuf"),
    (["--sockbuf", "64K", "--protocol", "udp"], "only with --protocol tcp"),
])
def test_bad_values_are_one_line_usage_errors(copybench: Path, args: list[str],
                                              words: str) -> None:
    r = subprocess.run([str(copybench), "send", "--method", "send", "--host", "127.0.0.1",
                        *args], capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2, r
    assert r.stdout == "" and r.stderr.strip().count("\n") == 0 and words in r.stderr, r.stderr


def _smallest_send_buffer() -> int:
    """What this kernel keeps for a TCP send buffer set to 0: its smallest (SOCK_MIN_SNDBUF)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 0)
        return s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)


@pytest.mark.parametrize("below", [None, 100, 1, -1], ids=["4096", "least-100", "least-1",
                                                           "least+1"])
def test_a_size_the_kernel_does_not_keep_is_refused_in_one_line(copybench: Path, port: int,  # noqa: F811
                                                               below: int | None) -> None:
    """From 4096 to 4607 bytes the kernel raises a send buffer to its smallest
    (SOCK_MIN_SNDBUF, 4608 on x86-64), and an odd size comes back one less: every trial with
    one would fail after its set-up. Refused before anything starts, saying what this kernel
    keeps."""
    value = "4096" if below is None else str(_smallest_send_buffer() - below)
    r = subprocess.run([str(copybench), "send", "--method", "send", "--host", "127.0.0.1",
                        "--port", str(port), "--size", "1K", "--duration", "0.2",
                        "--warmup", "0.05", "--sockbuf", value], capture_output=True,
                       text=True, timeout=30, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout[:300], r.stderr)
    assert r.stdout == "" and r.stderr.strip().count("\n") == 0, r.stderr
    assert f"--sockbuf {value}:" in r.stderr and "kernel keeps" in r.stderr, r.stderr


def test_the_smallest_size_the_kernel_keeps_works(copybench: Path, port: int) -> None:  # noqa: F811
    least = _smallest_send_buffer()
    rec = send(copybench, port, "--method", "send", "--size", "1K", "--duration", "0.2",
               "--warmup", "0.05", "--sockbuf", str(least))
    assert rec["config"]["sockbuf"] == least
    assert rec["result"]["sender"]["sndbuf_start"] == [least], rec["result"]["sender"]

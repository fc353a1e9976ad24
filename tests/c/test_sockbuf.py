"""``copybench send --sockbuf BYTES``: both ends' socket buffers fixed (the sender's SO_SNDBUF,
the sink's SO_RCVBUF, set on its listener before listen() so the accepted socket inherits it
and its window scale fits), which turns TCP's buffer autotuning off. A control of the noise
study: does the buffer growing during a window explain part of the trial-to-trial spread?

Real processes over loopback, as tests/c/test_noise_fields.py runs them; the record's
``sndbuf_*``/``rcvbuf_*`` fields (getsockopt at the window's edges) show what took effect.
"""

from __future__ import annotations

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

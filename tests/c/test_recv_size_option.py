"""`copybench sink --recv-size` and `copybench send --recv-size`: a TCP stream receiver's bytes
per recv() (4K to 64M; the sink's default 64K). A bad value is a usage error (exit 2, one
stderr line naming the option and the range, nothing on stdout); the sender's size travels in
the greeting, and every record's receiver block says the size the sink used.

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import running_sink, until_window_met

T = ["--duration", "0.15", "--warmup", "0.05"]


def run(copybench: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(copybench), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, check=False)


@pytest.mark.parametrize("value", ["1K", "4095", "65M", "0", "abc", "-4K", ""])
@pytest.mark.parametrize("cmd", [["sink", "--port", "0"],
                                 ["send", "--method", "send", "--host", "127.0.0.1",
                                  "--port", "9"]], ids=["sink", "send"])
def test_bad_sizes_are_one_line_usage_errors(copybench: Path, cmd: list[str],
                                             value: str) -> None:
    r = run(copybench, *cmd, "--recv-size", value)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert "--recv-size" in line, line


@pytest.mark.parametrize("extra", [["--mode", "pingpong"], ["--protocol", "udp"]])
def test_only_a_tcp_stream_takes_it(copybench: Path, extra: list[str]) -> None:
    r = run(copybench, "send", "--method", "send", "--host", "127.0.0.1", *extra,
            "--recv-size", "64K")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "copybench: --recv-size: only with --protocol tcp --mode stream (a datagram or an "
        "echo is received whole)"]


def test_the_record_says_the_size_the_sink_used(copybench: Path) -> None:
    def trial(port: int, *extra: str) -> dict:
        def once() -> dict:
            r = run(copybench, "send", "--method", "send", "--host", "127.0.0.1", "--port",
                    str(port), "--size", "1M", *T, *extra)
            return json.loads(r.stdout)
        rec = until_window_met(once, lambda x: x["status"] == "failed"
                               and str(x.get("error", "")).startswith("window missed"))
        assert rec["status"] == "ok", rec["error"]
        return rec["result"]["receiver"]

    with running_sink(copybench) as (_, port):
        assert trial(port)["recv_size"] == 65536
        assert trial(port, "--recv-size", "256K")["recv_size"] == 262144
        assert trial(port, "--recv-size", "4096")["recv_size"] == 4096

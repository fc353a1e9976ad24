"""copybench's numbers are decimal only, with no trailing separator (src/args.c): base 0 read
``--seed 010`` as octal 8, strtod read ``--duration 0x1p-3`` as 0.125 s, and ``--cpus 0,``
passed. Each such value is a usage error (exit 2, one line naming the option); a decimal
value with a leading zero is read as decimal.

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest


@pytest.mark.parametrize("option,value", [
    ("--cpus", "0,"), ("--cpus", "0,,1"), ("--duration", "0x1p-3"), ("--duration", " 1"),
    ("--duration", "nan"), ("--warmup", "+0.1"), ("--seed", "0x10"), ("--seed", "-1"),
    ("--seed", " 7"), ("--threads", "+2"), ("--fields", " 8")])
def test_a_number_that_is_not_decimal_is_refused(copybench: Path, option: str,
                                                 value: str) -> None:
    # port 9 (discard): a value that passed would get as far as connecting (exit 1)
    r = subprocess.run([str(copybench), "send", "--method", "send", "--host", "127.0.0.1",
                        "--port", "9", "--size", "1K", option, value], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert r.returncode == 2, f"{option} {value!r}: exit {r.returncode}: {r.stderr!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and option in lines[0] and repr(value)[1:-1] in lines[0], lines
    assert r.stdout == ""


def test_a_leading_zero_is_decimal(copybench: Path) -> None:
    sink = subprocess.Popen([str(copybench), "sink", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert sink.stdout is not None
        port = json.loads(sink.stdout.readline())["port"]
        r = subprocess.run([str(copybench), "send", "--method", "send", "--host", "127.0.0.1",
                            "--port", str(port), "--size", "1K", "--duration", "0.05",
                            "--warmup", "0", "--seed", "010"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60, check=False)
    finally:
        sink.send_signal(signal.SIGTERM)
        sink.communicate(timeout=10)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["config"]["seed"] == 10

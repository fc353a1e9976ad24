"""`copybench sink --bind ADDR` with an ADDR it cannot listen on is a usage error about --bind:
exit 2, one stderr line naming --bind (not --host, not --port) and what it may be, nothing on
stdout (no ready event). A --port in use stays a runtime failure naming --port (exit 1,
src/tests/run_tests.sh).

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest


# a name that resolves nowhere; 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this host
@pytest.mark.parametrize("addr,why", [("notanaddr", "cannot resolve"),
                                      ("192.0.2.1", "not an address of this host"),
                                      ("", "cannot resolve")])
def test_bad_bind_address_names_bind(copybench: Path, addr: str, why: str) -> None:
    r = subprocess.run([str(copybench), "sink", "--bind", addr, "--port", "0"], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert r.returncode == 2, f"exit {r.returncode}, expected 2 (usage error): {r.stderr!r}"
    assert r.stdout == "", f"a usage error printed on stdout: {r.stdout!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    line = lines[0]
    assert "--bind" in line and why in line, line
    assert "--host" not in line and "--port" not in line, f"names another option: {line!r}"
    assert "allowed:" in line and "::" in line, f"does not say what --bind may be: {line!r}"


def test_good_bind_address_listens(copybench: Path) -> None:
    p = subprocess.Popen([str(copybench), "sink", "--bind", "127.0.0.1", "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         text=True)
    try:
        assert p.stdout is not None
        ready = json.loads(p.stdout.readline())
        assert ready["event"] == "ready" and ready["port"] > 0, ready
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=10)
    assert p.returncode == 0

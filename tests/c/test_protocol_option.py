"""`copybench send --protocol tcp|udp` names the protocol, not `--transport`:
"transport" means loopback, veth, udp-forward or remote everywhere else. No
recorded command line is ever run again (a resumed or retried trial builds its argv anew), so
the old name is not kept as an alias: any form of it is a usage error (exit 2), one stderr line
that names `--protocol`, nothing on stdout, before anything is sent.

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SEND = ["send", "--method", "send", "--host", "127.0.0.1", "--port", "9"]


def run(copybench: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(copybench), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30, check=False)


def test_help_lists_protocol_not_transport(copybench: Path) -> None:
    text = run(copybench, "send", "--help").stdout
    assert "--protocol P" in text and "tcp | udp" in text, text
    assert "--transport" not in text, text


@pytest.mark.parametrize("old", [["--transport", "udp"], ["--transport=tcp"], ["--transport"],
                                 ["--transport", "loopback"]],
                         ids=["value", "equals", "bare", "a-transport"])
def test_old_transport_option_is_a_usage_error_naming_protocol(copybench: Path,
                                                               old: list[str]) -> None:
    r = run(copybench, *SEND, *old)
    assert r.returncode == 2, f"exit {r.returncode}, expected 2 (usage error): {r.stderr!r}"
    assert r.stdout == "", f"a usage error printed on stdout: {r.stdout!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    assert "--transport" in lines[0] and "--protocol" in lines[0], lines[0]


def test_old_option_is_refused_before_other_errors_of_its_line(copybench: Path) -> None:
    # options are read in order: the renamed one, first, is the error reported
    r = run(copybench, "send", "--transport", "udp", "--method", "nosuch")
    assert r.returncode == 2 and "--protocol" in r.stderr, r.stderr


@pytest.mark.parametrize("proto", ["tcp", "udp"])
def test_protocol_is_parsed(copybench: Path, proto: str) -> None:
    # vmsplice is tcp only: the check of --protocol's value names it, so it was read
    r = run(copybench, "send", "--method", "vmsplice", "--host", "127.0.0.1", "--protocol", proto,
            "--duration", "0.1", "--warmup", "0", "--port", "9")
    if proto == "udp":
        assert r.returncode == 2 and "--protocol: udp works with" in r.stderr, r.stderr
    else:  # tcp: parsed, then no sink listens on port 9: a runtime failure, not a usage error
        assert r.returncode != 2, r.stderr


def test_bad_protocol_value_names_protocol(copybench: Path) -> None:
    r = run(copybench, *SEND, "--protocol", "veth")
    assert r.returncode == 2 and r.stderr.startswith("copybench: --protocol"), r.stderr

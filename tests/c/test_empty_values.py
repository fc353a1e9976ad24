"""An empty ``--host``, ``--dir`` or ``--dst`` (``--host ''``) names nothing: a usage error,
exit 2, one line naming the option, no record (not a failed trial's record
and exit 1). Runs the real binary: src/build/copybench, or $COPYBENCH_BIN."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SEND = ["send", "--method", "send", "--host", "127.0.0.1", "--port", "9", "--size", "1K"]
COPY = ["copy", "--method", "read-write", "--size", "1K"]


@pytest.mark.parametrize("argv,option", [
    (["send", "--method", "send", "--port", "9", "--size", "1K", "--host", ""], "--host"),
    ([*SEND, "--dir", ""], "--dir"), ([*COPY, "--dst", ""], "--dst"),
    ([*COPY, "--dir", ""], "--dir"), ([*COPY, "--src", ""], "--src")])
def test_an_empty_path_or_host_is_a_usage_error(copybench: Path, argv: list[str],
                                                option: str) -> None:
    r = subprocess.run([str(copybench), *argv], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert r.returncode == 2, f"{option} '': exit {r.returncode}: {r.stderr!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and option in lines[0] and "empty" in lines[0], lines
    assert r.stdout == ""

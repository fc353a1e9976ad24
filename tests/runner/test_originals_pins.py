"""``runner originals``' pin table (``--pins``) is read as every input file is
(``rundir.utf8.read``): a device such as /dev/zero, a FIFO, a directory or bytes that are not
UTF-8 are refused in one line, exit 2, at once (/dev/zero was read until memory ran out, a
FIFO waited for a writer for ever). Real processes on real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


def _fetch(pins: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runner", "originals", "fetch", "--pins",
                           str(pins)], capture_output=True, text=True, timeout=30,
                          cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)},
                          stdin=subprocess.DEVNULL, check=False)


def _fifo(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "pins.tsv")
    return tmp_path / "pins.tsv"


def _not_utf8(tmp_path: Path) -> Path:
    (tmp_path / "pins.tsv").write_bytes(b"id\trepository\tcommit\ttree\n\xff\n")
    return tmp_path / "pins.tsv"


@pytest.mark.parametrize("make,said", [
    (lambda t: Path("/dev/zero"), "is a device"),
    (_fifo, "is a FIFO"),
    (lambda t: t, "is a directory"),
    (_not_utf8, "byte 0xff is not UTF-8"),
], ids=["dev-zero", "fifo", "directory", "not-utf8"])
def test_a_pin_table_that_is_no_file_is_refused_at_once(make, said: str,
                                                         tmp_path: Path) -> None:
    pins = make(tmp_path)
    r = _fetch(pins)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and "Traceback" not in r.stderr, lines[:12]
    assert lines[0].startswith(f"python -m runner originals: pins {pins}: "), lines[0]
    assert said in lines[0], lines[0]

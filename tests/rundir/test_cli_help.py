"""``python -m rundir --help`` is help: the commands explained, exit 0 (not one usage line
and exit 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_rundir_help_is_help(flag: str) -> None:
    r = subprocess.run([sys.executable, "-m", "rundir", flag], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout and "seal" in r.stdout and "verify" in r.stdout
    assert len(r.stdout.splitlines()) > 3  # the commands explained, not one usage line

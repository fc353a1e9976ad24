"""``make book RUN=`` (RUN given, empty) says RUN is empty, exit 2, not "no committed
reference run" when there is one."""

from __future__ import annotations

import subprocess

from conftest import ROOT


def test_make_book_with_an_empty_run_says_so() -> None:
    """``make book RUN=`` (empty) is not "no committed reference run" (there is one)."""
    r = subprocess.run(["make", "--no-print-directory", "-s", "book", "RUN=", "SETUP_DONE=1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "RUN is empty" in r.stderr and "no committed reference run" not in r.stderr

"""``make book``'s one-line cause of a failed notebook (``BOOK_WHY`` in mk/book.mk, an awk
program run on the notebook's log): the notebook's own exception after papermill's, or the
last refusal of the steps after it (``notebooks/finalize.py``'s ``finalize: ...``, an
exception, ``mv``). The real program from mk/book.mk, run by awk on logs such as those steps
write."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import ROOT


def _book_why() -> str:
    """BOOK_WHY's awk program as make hands it to the shell (``$$`` is ``$``)."""
    text = (ROOT / "mk" / "book.mk").read_text()
    m = re.search(r"^BOOK_WHY := ((?:.*\\\n)*.*)$", text, re.M)
    assert m, "mk/book.mk defines BOOK_WHY"
    return m.group(1).replace("\\\n", "\n").replace("$$", "$")


def _why(log: str) -> str:
    awk = shutil.which("awk")
    if awk is None:
        pytest.skip("awk is not installed (make book runs it)")
    r = subprocess.run([awk, _book_why()], input=log, capture_output=True, text=True,
                       env={"LC_ALL": "C"}, timeout=30, check=True)
    return r.stdout.strip()


def test_a_finalize_refusal_is_the_cause() -> None:
    line = ("finalize: build/book/x.tmp.ipynb: not a notebook (no 'cells' list); "
            "nothing written")
    assert _why(f"some papermill warning\n{line}\n") == line


def test_the_notebooks_own_exception_after_papermills() -> None:
    log = ("papermill.exceptions.PapermillExecutionError: \n"
           "---------------------------------------------------------------------------\n"
           "Exception encountered at \"In [3]\":\n"
           "BadRun: data/raw/r/trials.jsonl:6: a record that cannot be read: no 'cell'\n")
    assert _why(log) == "BadRun: data/raw/r/trials.jsonl:6: a record that cannot be read: no 'cell'"


def test_an_exception_or_mv_without_papermill() -> None:
    assert _why("ValueError: bad\n") == "ValueError: bad"
    assert _why("mv: cannot move 'a' to 'b': Permission denied\n").startswith("mv: ")

"""No development history in the product: no tracked file (code, schemas, docs, profiles,
tests) names an issue by its number, a defect of an issue's list, or dates a change of the
code with "until"/"since" and a day; git keeps that history. The dates of the study's rule
revisions are data (the book's table of the rules' revisions prints them) and stay, written
as timestamps, not as "until <day>" notes. The committed runs (data/raw) and the bench
results are measurements and are not scanned.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import ROOT

#: what names development history: the word issue with a number after it (a space, a hyphen
#: or a hash between), a hash and a number in parentheses, the word defect with a number, and
#: "until" or "since" before a day (test_the_pattern_finds_each_kind_of_reference shows each)
HISTORY = re.compile(r"\bissues?[ -]#?\d+|\b(?:until|since) 20\d\d-\d\d-\d\d|\(#\d+\b"
                     r"|\bdefects? \d+\b", re.IGNORECASE)
#: tracked paths that are measurements, not the product
NOT_SCANNED = (":!data/raw", ":!bench/results")


def history_hits(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each line of ``text`` that names development history."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if HISTORY.search(line)]


def _tracked() -> list[str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the product's files are found through git ls-files")
    out = subprocess.run(["git", "ls-files", "-z", "--", ".", *NOT_SCANNED], cwd=ROOT,
                         capture_output=True, check=True, timeout=60).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def test_the_pattern_finds_each_kind_of_reference() -> None:
    """The scanner is no empty check: each kind of reference is found, and the words it
    must leave alone (a run id, a rule's timestamp, a colour, a pull request of another
    project cited as evidence of a version) are not."""
    issue = "iss" + "ue"
    found = [f"Since {issue} 63, the sink reads", f"exit 2 ({issue} 47)", f"({issue.title()}s #4)",
             f"the {issue}-14 probes", "(#" + "51, def" + "ect 13)", "defe" + "ct 3: --dst",
             "0.07 unt" + "il 2026-11-27", "sin" + "ce 2026-11-28 it reads"]
    kept = ["data/raw/20261127T121419Z-paper-ebfc", '("2026-11-27T08:53Z", BAND_RULE,',
            "color: #222;", "pandas 3.x (pyiron/pysqa PR #522, 2026-04-28)",
            "the reference run of 28 November", "an issue of the kernel's"]
    assert [n for n, _ in history_hits("\n".join(found))] == list(range(1, len(found) + 1))
    assert history_hits("\n".join(kept)) == []


def test_no_tracked_file_names_development_history() -> None:
    """Every tracked text file outside the runs and bench results: no line names an issue,
    an issue's defect, or a dated change of the code (file:line of each hit)."""
    hits = []
    for rel in _tracked():
        path = ROOT / rel
        if not path.is_file() or path.is_symlink():
            continue  # deleted in the work tree, or a link to what is scanned anyway
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        hits += [f"{rel}:{n}: {line[:160]}"
                 for n, line in history_hits(data.decode("utf-8", "replace"))]
    assert not hits, "development history in the product:\n" + "\n".join(hits)

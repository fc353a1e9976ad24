"""The README's "What it found": the number of published claims it names is the number the
analysis tests, and the counts it types (what paid, the verdicts) are the reference run's
Study's, read by the functions the book's abstract counts with."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis import claims as C
from analysis import study as SD
from analysis.words import abstract as AB
from analysis.words import counts as CN

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "data" / "raw" / "20261128T171229Z-paper-5394"
WORDS = {13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen"}


def _readme() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def _found() -> str:
    text = _readme()
    at = text.index("## What it found")
    return text[at:text.index("## ", at + 3)]


def test_the_readme_names_the_number_of_claims_tested() -> None:
    assert f"tests {WORDS[len(C.CLAIMS)]} published claims" in _readme()


@pytest.mark.reference
def test_the_readme_counts_are_the_reference_runs() -> None:
    """Every number of the README's findings paragraph is one the Study gives: a count typed
    there that the run no longer gives (a verdict moved, a rule changed) fails here."""
    study = SD.open(REFERENCE)
    run, rmin = study.run, study.run.rounds_min
    msg_k, msg_n = AB.paid(CN.map_comparisons(run, study.readings), rmin)
    file_k, file_n = AB.paid(study.file_readings, rmin)
    v = study.facts["verdicts"]
    untested = v["not testable here"] + v["not run in this profile"]
    testable = sum(v.values()) - untested
    said = _found()
    assert (f"paid for messages in {msg_k} of the decision map's {msg_n} comparisons"
            in said), said
    assert f"for files in {file_k} of the {file_n} comparisons" in said, said
    assert (f"Of the {testable} verdicts on published claims testable there, {v['holds']} "
            f"hold, {v['refuted']} are refuted, {v['inconclusive']} are inconclusive and "
            f"{v['undetermined']} is undetermined; {untested} more are not testable there"
            in said), said
    # no other number is typed there
    raw = (ROOT / "README.md").read_text(encoding="utf-8")
    under = raw[raw.index("## What it found"):].split("\n\n")[1]  # its first paragraph
    first = " ".join(under.split())
    assert sorted(map(int, re.findall(r"\b\d+\b", first))) == sorted(
        [msg_k, msg_n, file_k, file_n, testable, v["holds"], v["refuted"], v["inconclusive"],
         v["undetermined"], untested]), first

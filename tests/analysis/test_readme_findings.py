"""The README's "What it found": the number of published claims it names is the number the
analysis tests (the counts of verdicts are the book's abstract's, glued from the run)."""

from __future__ import annotations

from pathlib import Path

from analysis import claims as C

ROOT = Path(__file__).resolve().parents[2]
WORDS = {13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen"}


def test_the_readme_names_the_number_of_claims_tested() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"tests {WORDS[len(C.CLAIMS)]} published claims" in readme

"""The built book's front page: its findings open with the decision map, are at most six,
and each is at most 40 words as a reader reads it (analysis/words/advice.py words them). Skips
unless COPYBENCH_BOOK_RUN names the run the book was built from."""

from __future__ import annotations

import html as H
import os
import re
from pathlib import Path

import pytest

from analysis.words import advice as V

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
pytestmark = [pytest.mark.book,
              pytest.mark.skipif(not RUN, reason="set by `make test-book` after the build")]


def _text(fragment: str) -> str:
    return " ".join(H.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def findings_section() -> str:
    page = (HTML / "intro.html").read_text(encoding="utf-8")
    m = re.search(r'<section id="findings">(.*?)</section>', page, flags=re.S)
    assert m, "intro.html has no Findings section"
    return m.group(1)


#: what the front page says in the list's place when no finding can be worded (a smoke run)
NONE = V.findings_list([])


def findings() -> list[str]:
    """The numbered findings; [] only where the page says that none could be worded."""
    sec = findings_section()
    lists = re.findall(r"<ol\b[^>]*>(.*?)</ol>", sec, flags=re.S)
    if not lists:
        assert NONE in _text(sec), "the Findings section has no numbered list"
        return []
    return [_text(li) for li in re.findall(r"<li\b[^>]*>(.*?)</li>", lists[0], flags=re.S)]


def test_at_most_six_findings_of_at_most_40_words() -> None:
    items = findings()
    assert len(items) <= V.MAX_FINDINGS, items
    long = [(len(t.split()), t) for t in items if len(t.split()) > V.MAX_WORDS]
    assert not long, long


def test_the_findings_open_with_the_decision_map_and_link_it() -> None:
    sec = findings_section()
    fig = sec.find("<figure")
    items = findings()
    after = sec.find("<ol") if items else sec.find(NONE)
    assert 0 <= fig < after, "the decision map is not the section's first figure"
    assert 'id="fig-decision-panels"' in sec and "decision-map.png" in sec
    assert any((HTML / "_images").glob("decision-map*.png"))
    if items:
        assert "#fig-decision-panels" in sec.split("<ol", 1)[1]  # a finding links it

"""Every count the built book prints is the one owner's (analysis/words/counts.py): the counts
are built from :func:`analysis.words.counts.book_counts` on the run the book was built from and
each printed occurrence is found in the pages; no page prints a count of comparisons or
verdicts that the owner did not make. Skips unless COPYBENCH_BOOK_RUN names that run."""

from __future__ import annotations

import html as H
import os
import re
from pathlib import Path

import pytest

from analysis.statistics.fmt import fmt_band

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
pytestmark = [pytest.mark.book,
              pytest.mark.skipif(not RUN, reason="set by `make test-book` after the build")]


def _text(page: str) -> str:
    raw = (HTML / page).read_text(encoding="utf-8")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    text = " ".join(H.unescape(re.sub(r"<[^>]+>", " ", raw)).split())
    # a glued value inside parentheses is its own element: "( loopback, cross-core )"
    return text.replace("( ", "(").replace(" )", ")")


@pytest.fixture(scope="module")
def counts():  # noqa: ANN201
    from analysis import claims as C
    from analysis.words import counts as CN
    from analysis.loading import run as A
    run = A.load_run(ROOT / RUN)
    results = C.evaluate(run)
    out = CN.book_counts(run, results)
    # the replication chapter also counts the verdicts of each reading (copybench's, their
    # programs'), which add up to the owner's total
    out_by_basis = {sum(1 for r in results if r.basis == b) for b in {r.basis for r in results}}
    assert sum(out_by_basis) <= out.n_verdicts
    return out, out_by_basis


def test_each_printed_count_is_the_owners(counts) -> None:  # noqa: ANN001
    counts, _ = counts
    intro = _text("intro.html")
    m, r, v = counts.message, counts.reference, counts.verdicts
    if m.n:  # the abstract's answer counts the decision map's rows, with their unit
        assert f"of the {m.n} comparisons of a copy-avoiding method with two-copy" in intro
    if counts.n_verdicts:  # the abstract and the contributions
        # the abstract's claims sentence, where the run supports results (a smoke run's
        # abstract says it does not, and leaves them to the reference run's)
        if "cannot support results" not in intro:
            assert (f"Of the {counts.testable} verdicts on published claims testable here"
                    in intro)
        assert (f"of the {counts.n_verdicts} verdicts {v.get('holds', 0)} hold, "
                f"{v.get('refuted', 0)} are refuted" in intro)
    if r.n:
        assert f"{r.text()} at {counts.reference_config}" in _text("results.html")
        assert (f"({counts.reference_config}), {r.undecided} of {r.n} are inconclusive"
                in _text("_generated/replication.html"))


def test_no_page_prints_a_count_the_owner_did_not_make(counts) -> None:  # noqa: ANN001
    counts, by_basis = counts
    allowed = {counts.message.n, counts.reference.n, counts.read.n, counts.fallback.n,
               *(t.n for t in counts.by_method.values())}
    for page in sorted(HTML.rglob("*.html")):
        text = _text(str(page.relative_to(HTML)))
        for n in re.findall(r"\bof (\d+) comparisons\b", text):
            assert int(n) in allowed, (page.name, n, allowed)
        for n in re.findall(r"\b[Oo]f (?:the )?(\d+) (?:claim )?verdicts\b", text):
            # every verdict, those testable here, each reading's, or the magnitude verdicts
            # (those with a published ratio): all are the owner's
            allowed_v = {counts.n_verdicts, counts.testable, *by_basis,
                         sum(counts.magnitude.values())}
            assert int(n) in allowed_v, (page.name, n, allowed_v)


def test_every_comparison_table_carries_each_comparisons_reading() -> None:
    """The findings' tables of every comparison (against `send`, against `sendmsg`, the file
    methods against `read-write`) show each comparison's reading: as many cells read "not
    read" and "receiver-bound" as the run's readings hold (decision.reading), the table's
    "reading" column beside its "decision"."""
    from analysis import study as SD
    from decision import reading as RD
    study = SD.open(ROOT / RUN)
    page = (HTML / "_generated" / "findings.html").read_text(encoding="utf-8")
    cells = [H.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", page, flags=re.S)]
    for label in RD.UNREAD:
        want = sum(int((t["read"] == label).sum()) for t in
                   (study.readings, study.readings_sendmsg, study.file_readings)
                   if len(t) and "read" in t)
        assert cells.count(label) == want, (label, cells.count(label), want)
    if len(study.readings):
        assert re.search(r"<th[^>]*>\s*reading\s*</th>", page), "no reading column"

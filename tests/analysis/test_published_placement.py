"""A report's published number is read against our CI the same way for every claim: it lies
above, inside or below our CI on this testbed, whatever side of 1 it is on and whether it is a
point or an "at best" bound; no words module judges the report (overstated, smaller or larger
than published)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import analysis.claims as C
from analysis.claims import magnitude as MAG
from analysis.claims.base import ABOVE, BELOW, INSIDE
from analysis.words import findings as F
from analysis.words import verdicts as VW

RUN = Path(__file__).resolve().parents[2] / "data" / "raw" / "20261128T171229Z-paper-5394"
JUDGEMENT = re.compile(r"overstat|understat|than published|detectably (smaller|larger)")


@pytest.mark.parametrize(("published", "lo", "hi", "where"), [
    (0.52, 0.49, 0.589, INSIDE),   # C9's "at best ~52 %" against a CI that holds it
    (0.974, 1.45, 1.63, BELOW),    # C5, S2's program at 512 B: the report's number is lower
    (121.0, 2.91, 3.44, ABOVE),    # C1: the report's number is higher
    (0.30, 0.35, 0.40, BELOW),     # below 1 and below the CI: the same word as above 1
    (3.0, 2.0, 2.5, ABOVE),
    (0.40, 0.30, 0.35, ABOVE),
    (0.49, 0.49, 0.589, INSIDE),   # an end of the CI is inside it
])
def test_the_published_number_is_placed_against_our_ci(published: float, lo: float, hi: float,
                                                        where: str) -> None:
    assert MAG.place(published, lo, hi) == where


def test_a_ci_without_ends_places_nothing() -> None:
    with pytest.raises(ValueError, match="CI"):
        MAG.place(0.5, float("nan"), 0.6)


def _c9(best: tuple[float, float, float]) -> C.ClaimResult:
    r = C.ClaimResult("C9", "S3", "at best ~52 %", "0.52", verdict=C.HOLDS)
    r.rule_id = "C9:at best ~52 %"
    ratio, lo, hi = best
    r.details = [dict(size=1024, ratio=0.22, lo=0.204, hi=0.25),
                 dict(size=4096, ratio=0.29, lo=0.254, hi=0.332),
                 dict(size=16384, ratio=ratio, lo=lo, hi=hi),
                 dict(size=65536, ratio=0.46, lo=0.434, hi=0.491)]
    return r


def test_an_at_best_bound_is_read_as_a_point() -> None:
    r = _c9((0.54, 0.49, 0.589))
    MAG.assess(r)
    assert "published at best 0.52 lies inside our CI (0.540 [0.490, 0.589])" in r.magnitude_text, \
        r.magnitude_text
    # the published per-size ratios lie above (1, 4 KiB, 64 KiB) and below (16 KiB) our CIs
    assert "1 KiB: published 0.346 lies above our CI" in r.magnitude_text, r.magnitude_text
    assert "16 KiB: published 0.409 lies below our CI" in r.magnitude_text, r.magnitude_text
    assert r.magnitude == C.ABOVE_AND_BELOW


@pytest.fixture(scope="module")
def results() -> list[C.ClaimResult]:
    if not RUN.is_dir():
        pytest.skip(f"the reference run {RUN.name} is not in this checkout")
    from analysis.loading import run as A

    return C.evaluate(A.load_run(RUN))


@pytest.mark.reference
def test_the_reference_run_places_c5_below_and_judges_no_report(results) -> None:  # noqa: ANN001
    c5 = [r for r in results if r.claim == "C5" and r.basis == C.THEIR_PROGRAM
          and r.part.startswith("same-core")]
    assert c5 and "512 B: published 0.974 lies below our CI (1.54 [1.45, 1.63])" \
        in c5[0].magnitude_text, [r.magnitude_text for r in c5]
    table = C.verdict_table(results)
    texts = [VW.magnitude_text(results), MAG.verdict_key(), MAG.rule_text(),
             F.magnitude_of_holds(table), F.verdict_counts(table, with_ids=True),
             *(r.magnitude_text for r in results), *(r.magnitude for r in results)]
    for t in texts:
        assert not JUDGEMENT.search(t), t
    assert "on this testbed" in VW.magnitude_text(results)
    assert {r.magnitude for r in results if r.magnitude} <= set(C.MAGNITUDES)


def test_the_introduction_glues_every_magnitude_count_the_claims_notebook_writes() -> None:
    from analysis.words.counts import BookCounts, Tally

    intro = (Path(__file__).resolve().parents[2] / "book" / "intro.md").read_text()
    used = set(re.findall(r"claims\.ipynb::(count_magnitude\w*):s", intro))
    empty = Tally.of(__import__("pandas").DataFrame())
    glued = BookCounts(empty, empty, "", (), {}, 0, {v: 0 for v in C.MAGNITUDES}, {}, empty,
                       empty).glue()
    assert used == {k for k in glued if k.startswith("count_magnitude")}, used
    assert "overstated" not in intro

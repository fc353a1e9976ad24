"""The verdict table carries an error statement computed from the rules' levels: the expected
number of wrong verdicts and the chance that any is wrong, bounded without assuming the
verdicts independent; the replication chapter prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import claims as C
from analysis.claims import table_error as TE
from analysis.claims.sesoi import AT_THIS_NOISE

ROOT = Path(__file__).resolve().parents[2]


def _r(verdict: str, magnitude: str = "", reason: str = "") -> C.ClaimResult:
    r = C.ClaimResult("C4", "S", "s", "p", verdict=verdict, reason=reason)
    r.magnitude = magnitude
    return r


def test_the_bounds_follow_from_the_rules_levels() -> None:
    rs = ([_r(C.HOLDS, C.INSIDE)] * 3 + [_r(C.REFUTED, C.ABOVE)] * 2
          + [_r(C.INCONCLUSIVE, C.BELOW)] * 5
          + [_r(C.NOT_TESTABLE, reason=f"{AT_THIS_NOISE}: ...")]  # read its CIs
          + [_r(C.NOT_TESTABLE, reason="needs 8 CPUs"), _r(C.NOT_RUN), _r(C.UNDETERMINED)])
    e = TE.table_error(rs)
    assert (e.tested, e.decided, e.magnitudes, e.magnitudes_decided) == (11, 5, 10, 10)
    assert e.expected_wrong == pytest.approx(0.55) and e.any_wrong == pytest.approx(0.55)
    assert TE.table_error(rs * 3).any_wrong == 1.0  # the union bound caps at 1
    text = e.text()
    assert "at most 0.55" in text and "11 direction verdicts" in text and "5 decided" in text


def test_the_replication_chapter_prints_it() -> None:
    src = (ROOT / "notebooks" / "replication.py").read_text()
    assert 'glue_text("table_error", TE.table_error(results).text())' in src
    assert "{glue:text}`table_error:s`" in src


def test_a_union_bound_of_one_or_more_is_worded_as_no_bound() -> None:
    """At alpha x T >= 1 the union bound says nothing about the chance that any verdict is
    wrong: the text says so (with the product), never "at most 100%", and still gives the
    expected number wrong, which stays a bound."""
    rs = [_r(C.INCONCLUSIVE, C.BELOW)] * 25  # 25 x 0.05 = 1.25
    e = TE.table_error(rs)
    text = e.text()
    assert "100%" not in text and "at most 100" not in text
    assert "does not bound the chance" in text and "1.25" in text
    assert f"at most {e.expected_wrong:.2f}" in text
    small = TE.table_error(rs[:4]).text()  # 0.20: the bound is a bound, and said as one
    assert "at most 20%" in small and "does not bound" not in small

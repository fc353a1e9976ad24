"""Two questions per claim, counted separately: the direction against a smallest effect of
interest derived from the A/A control and the noise model (analysis/claims/sesoi.py), and
the report's published number against our CI's band (analysis/claims/magnitude.py)."""

from __future__ import annotations

import math

import pytest

from analysis import claims as C
from analysis.claims import magnitude as M
from analysis.claims import rules as RU
from analysis.claims import sesoi as Z
from blockstats import claimtable


def test_the_smallest_effect_of_interest_is_its_derivation() -> None:
    """Not chosen: the committed constant is the derivation's result on the committed
    inputs (the reference run's A/A control, the noise model's stream cells)."""
    sigma, half, sesoi = Z.derive()
    assert sesoi == Z.SESOI == claimtable.SESOI
    assert half <= Z.SESOI < half + 0.01
    # the A/A control at 30 rounds resolves no better than ±5 %: the old 3 % band is below it
    lo, hi, n = Z.AA_CONTROL
    assert math.sqrt(hi / lo) - 1 > 0.03
    assert f"1 ± {Z.SESOI:.0%}" in Z.text()


def test_every_direction_rule_uses_it() -> None:
    for rs in RU.RULES.values():
        for r in rs:
            if r.decision.kind == "direction":
                assert r.decision.threshold == Z.SESOI, r.claim


def _r(claim: str, rows: list[tuple[int, float, float, float]],
       verdict: str = C.INCONCLUSIVE) -> C.ClaimResult:
    r = C.ClaimResult(claim, "S", "s", "p", verdict=verdict)
    r.details = [{"size": s, "ratio": v, "lo": lo, "hi": hi, "n": 30} for s, v, lo, hi in rows]
    return r


@pytest.mark.parametrize("rows,expected", [
    # C4 at 512 B: published 5.44 / 1.14 = 4.77, band [3.82, 5.96]
    ([(512, 4.8, 4.0, 5.5)], C.HOLDS),
    ([(512, 0.95, 0.86, 1.05)], C.REFUTED),        # e8c3's cross-core 512 B
    ([(512, 4.0, 3.0, 5.0)], C.INCONCLUSIVE),       # straddles 3.82
    ([(512, 4.8, 4.0, 5.5), (4096, 1.0, 0.9, 1.1)], C.REFUTED),  # any size outside refutes
])
def test_magnitude_is_the_published_ratio_inside_the_ci_band(rows, expected) -> None:
    r = _r("C4", rows)
    M.assess(r)
    assert r.magnitude == expected, r.magnitude_text
    assert "published 4.77" in r.magnitude_text


def test_a_claim_without_a_published_ratio_has_no_magnitude() -> None:
    for claim in ("C3", "C11", "C15"):
        r = _r(claim, [(65536, 1.0, 0.9, 1.1)])
        M.assess(r)
        assert r.magnitude == "" and claim not in M.PUBLISHED


def test_the_counts_are_separate() -> None:
    a, b = _r("C4", [(512, 0.95, 0.86, 1.05)]), _r("C13", [(100_000_000, 1.3, 1.2, 1.4)],
                                                   C.HOLDS)
    M.assess_all([a, b])
    assert C.magnitude_counts([a, b]) == {C.HOLDS: 1, C.REFUTED: 1, C.INCONCLUSIVE: 0}
    assert C.verdict_counts([a, b])[C.COPYBENCH][C.INCONCLUSIVE] == 1


def test_the_revision_is_recorded_and_older_runs_are_post_hoc() -> None:
    from analysis.run import instant
    whens = [instant(w) for w, _ in RU.REVISIONS]
    assert whens == sorted(whens) and RU.REVISED == RU.REVISIONS[-1][0]
    assert "smallest effect of interest" in RU.REVISION_NOTE
    # the reference run e8c3 was made before it: its verdicts under these rules are post hoc
    assert instant("2026-11-24T13:36:52Z") < instant(RU.REVISED)

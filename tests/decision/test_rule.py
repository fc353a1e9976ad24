"""The one reading of a CI against a rule (decision.rule): the band reading, direction and
size apart (the decision map), a claim's expectation at one size (the minimum-effect test),
and the rules of one comparison."""

from __future__ import annotations

import math

import numpy as np
import pytest

from decision import rule as R
from decision import verdict as V
from decision.band import SESOI

T = SESOI
NAN = math.nan


def test_side_is_ends_included_inside_and_strict_outside() -> None:
    assert R.side(1.08, 1.15, 0.93, 1.07) == "above"
    assert R.side(0.85, 0.92, 0.93, 1.07) == "below"
    assert R.side(0.93, 1.07, 0.93, 1.07) == "inside"
    assert R.side(1.07, 1.2, 0.93, 1.07) == "across"
    assert R.side(120, 180, 100, 100) == "above"
    assert R.side(NAN, NAN, 0.93, 1.07) == "none"


def test_band_outcome() -> None:
    assert R.band_outcome(1.05 + T, 1.15 + T) == "greater"
    assert R.band_outcome(0.85 - T, 0.95 - T) == "less"
    assert R.band_outcome(0.98, 1.02) == "equivalent"
    assert R.band_outcome(0.99, 1.06 + T) == "inconclusive"
    assert R.band_outcome(1.05, 1.15, 0.03) == "greater"  # another band where one is given
    assert R.band_outcome(NAN, NAN) == "inconclusive"


def test_crosses_is_elementwise_and_strict() -> None:
    lo, hi = np.array([0.8, 1.0, 1.12]), np.array([1.2, 1.1, 1.3])
    assert R.crosses(lo, hi, 1.12).tolist() == [True, False, False]
    assert R.decided(1.12, 1.3, (1.12,)) and not R.decided(NAN, 1.3, (1.12,))


@pytest.mark.parametrize("ci,label,decided", [
    ((0.80, 0.95), "slower (size open)", True),   # the map: slower, by how much not known
    ((0.70, 0.85), "slower by more than 12 %", True),
    ((1.05, 1.30), "faster (size open)", True),
    ((1.15, 1.30), "faster by more than 12 %", True),
    ((0.95, 1.05), "equivalent (within ±12 %)", False),
    ((0.90, 0.99), "equivalent (within ±12 %)", True),
    ((0.80, 1.05), "undecided", False),
    ((NAN, NAN), "undecided", False),
])
def test_direction_and_size_apart(ci: tuple[float, float], label: str, decided: bool) -> None:
    r = R.direction_and_size(*ci)
    assert r.label() == label and r.decided is decided


@pytest.mark.parametrize("kind,ci,outcome", [
    # an effect claim: agrees beyond its edge, contradicts wholly on the near side, whatever
    # side of the other edge the CI lies on
    (R.GREATER, (1.13, 1.50), R.AGREES),
    (R.GREATER, (0.80, 0.91), R.CONTRADICTS),   # crosses 1 - t: still no effect of interest
    (R.GREATER, (0.95, 1.11), R.CONTRADICTS),
    (R.GREATER, (1.00, 1.20), R.UNSETTLED),
    (R.LESS, (0.50, 0.87), R.AGREES),
    (R.LESS, (0.85, 1.30), R.UNSETTLED),
    (R.LESS, (0.89, 1.30), R.CONTRADICTS),
    # an at-most claim ("never beats"): the reverse
    (R.AT_MOST, (0.85, 0.95), R.AGREES),
    (R.AT_MOST, (0.50, 1.11), R.AGREES),
    (R.AT_MOST, (1.13, 1.30), R.CONTRADICTS),
    (R.AT_MOST, (1.00, 1.20), R.UNSETTLED),
    # an equivalence reading
    (R.EQUIVALENT, (0.90, 1.10), R.AGREES),
    (R.EQUIVALENT, (1.13, 1.30), R.CONTRADICTS),
    (R.EQUIVALENT, (0.50, 0.80), R.CONTRADICTS),
    (R.EQUIVALENT, (0.85, 1.05), R.UNSETTLED),
    (R.GREATER, (NAN, NAN), R.UNSETTLED),
])
def test_an_expectation_reads_one_edge(kind: str, ci: tuple[float, float], outcome: str) -> None:
    r = R.Expect(kind).read(*ci)
    assert r.outcome == outcome, r
    if outcome == R.UNSETTLED and math.isfinite(ci[0]):
        assert r.crosses and "straddles" in r.why


def test_a_greater_claim_refuted_by_a_ci_below_its_edge_at_one_size() -> None:
    """CI [0.80, 0.91] at a named size refutes a claim of an effect above 1 + t, even where
    the other sizes agree or are open (the band reading left it inconclusive)."""
    e = R.Expect(R.GREATER)
    reads = {512: e.read(1.2, 1.5), 4096: e.read(0.80, 0.91), 16384: e.read(1.0, 1.3)}
    assert V.every(reads) == V.REFUTED
    assert V.every({512: e.read(1.2, 1.5), 16384: e.read(1.0, 1.3)}) == V.INCONCLUSIVE
    assert V.every({512: e.read(1.2, 1.5)}) == V.HOLDS


def test_expectations_from_the_tables_outcome_sets() -> None:
    assert R.expect_of(frozenset({"greater"})) == R.Expect(R.GREATER)
    assert R.expect_of(frozenset({"less", "equivalent"})) == R.Expect(R.AT_MOST)
    assert R.expect_of(frozenset({"equivalent"})).edges() == (1 - T, 1 + T)
    with pytest.raises(ValueError, match="no expectation"):
        R.expect_of(frozenset({"greater", "less"}))


@pytest.mark.parametrize("ci,rule,outcome,straddles", [
    ((0.98, 1.06), R.DecisionRule("direction", 0.03), "inconclusive", (1.03,)),
    ((0.95, 1.06), R.DecisionRule("direction", 0.03), "inconclusive", (0.97, 1.03)),
    ((1.04, 1.10), R.DecisionRule("direction", 0.03), "greater", ()),
    ((0.80, 0.96), R.DecisionRule("direction", 0.03), "less", ()),
    ((0.98, 1.02), R.DecisionRule("direction", 0.03), "equivalent", ()),
    ((120.0, 150.0), R.DecisionRule("above", value=100.0), "holds", ()),
    ((0.9, 1.3), R.DecisionRule("above", value=100.0), "refuted", ()),
    ((80.0, 130.0), R.DecisionRule("above", value=100.0), "inconclusive", (100.0,)),
    ((0.5, 0.65), R.DecisionRule("below", value=0.7), "holds", ()),
    ((1.3, 1.5), R.DecisionRule("approx", value=1.42, tolerance=1.25), "holds", ()),
    ((1.8, 2.5), R.DecisionRule("approx", value=1.42, tolerance=1.25), "refuted", ()),
    ((1.21, 2.92), R.DecisionRule("approx", value=1.42, tolerance=1.25), "inconclusive",
     (1.42 * 1.25,)),
])
def test_decide(ci: tuple[float, float], rule: R.DecisionRule, outcome: str,
                straddles: tuple[float, ...]) -> None:
    d = R.decide(rule, *ci)
    assert d.outcome == outcome
    assert d.straddles == pytest.approx(straddles)
    if outcome == "inconclusive":
        assert "straddles" in d.why
    assert R.decide(rule, NAN, NAN).outcome == "inconclusive"


def test_best_threads() -> None:
    g, lss = R.Expect(R.GREATER), R.Expect(R.LESS)
    up = {2: g.read(1.2, 1.4), 4: g.read(0.9, 1.0)}
    down = {2: lss.read(0.5, 0.8), 4: lss.read(0.9, 1.0)}
    assert V.best_threads(up, down) == (V.HOLDS, 2)
    up = {2: g.read(0.9, 1.05), 4: g.read(1.2, 1.4)}
    down = {2: lss.read(0.5, 0.8), 4: lss.read(0.9, 1.0)}
    assert V.best_threads(up, down)[0] == V.REFUTED  # 2: t/1 contradicts; 4: 8/t contradicts
    up = {2: g.read(1.0, 1.3), 4: g.read(1.2, 1.4)}
    assert V.best_threads(up, down)[0] == V.INCONCLUSIVE

"""Statistics module against synthetic data whose truth is known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.statistics import stats as S


def test_median_ci_coverage_near_95_percent() -> None:
    """Over many seeds the bootstrap CI of the median covers the true median ~95 % of
    the time (lognormal samples, true median exp(0) = 1)."""
    hits, n_seeds = 0, 400
    for seed in range(n_seeds):
        x = np.random.default_rng(seed).lognormal(0.0, 0.2, 30)
        ci = S.median_ci(x, n_resamples=1000, seed=seed)
        hits += ci.contains(1.0)
    coverage = hits / n_seeds
    assert 0.90 <= coverage <= 0.985, coverage


def test_ratio_ci_coverage_near_95_percent() -> None:
    hits, n_seeds = 0, 250
    for seed in range(n_seeds):
        rng = np.random.default_rng(10_000 + seed)
        a = rng.lognormal(math.log(1.3), 0.1, 30)
        b = rng.lognormal(0.0, 0.1, 30)
        hits += S.ratio_of_medians(a, b, n_resamples=1000, seed=seed).contains(1.3)
    assert 0.90 <= hits / n_seeds <= 0.99, hits / n_seeds


def test_median_ci_degenerate_inputs() -> None:
    assert math.isnan(S.median_ci([]).value)
    one = S.median_ci([3.0])
    assert one.value == 3.0 and math.isnan(one.lo)
    same = S.median_ci([2.0, 2.0, 2.0])
    assert (same.lo, same.value, same.hi) == (2.0, 2.0, 2.0)
    assert S.median_ci([1.0, np.nan, 3.0]).n == 2


def _model(size: float, per_msg: float, per_byte: float) -> float:
    return size / (per_msg + size * per_byte)  # throughput with a per-message cost


@pytest.mark.parametrize("seed", range(5))
def test_planted_crossover_recovered_within_ci(seed: int) -> None:
    """a has a high per-message cost and a low per-byte cost: a overtakes b exactly where
    per_msg_a + s pb_a = per_msg_b + s pb_b, i.e. s* = (4 - 1) / (0.1 - 0.05) / 1 = 60."""
    rng = np.random.default_rng(seed)
    sizes = [8, 16, 32, 64, 128, 256, 512]
    truth = (4.0 - 1.0) / (0.1 - 0.05)
    a = {s: _model(s, 4.0, 0.05) * rng.lognormal(0, 0.03, 7) for s in sizes}
    b = {s: _model(s, 1.0, 0.1) * rng.lognormal(0, 0.03, 7) for s in sizes}
    c = S.crossover(a, b, seed=seed)
    assert c.lo <= truth <= c.hi, c
    assert c.p_none < 0.05
    assert c.lo < c.size < c.hi


def test_no_crossover_in_range_reported_as_probability() -> None:
    rng = np.random.default_rng(3)
    sizes = [64, 512, 4096]
    a = {s: rng.lognormal(0, 0.03, 6) for s in sizes}
    b = {s: rng.lognormal(0.5, 0.03, 6) for s in sizes}  # b always ~65 % faster
    c = S.crossover(a, b)
    assert math.isnan(c.size) and c.p_none > 0.99


def test_crossover_needs_two_sizes() -> None:
    c = S.crossover({1: [1.0, 2.0]}, {1: [1.0, 2.0]})
    assert math.isnan(c.size) and math.isnan(c.p_none)


def test_holm_matches_reference_values() -> None:
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
    np.testing.assert_allclose(S.holm([0.01, 0.02, 0.03, 0.04, 0.05]),
                               [0.05, 0.08, 0.09, 0.09, 0.09])
    np.testing.assert_allclose(S.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    out = S.holm([0.2, math.nan, 0.01])
    assert math.isnan(out[1]) and out[0] == pytest.approx(0.2) and out[2] == pytest.approx(0.02)


def _holm_reference(p: list[float]) -> list[float]:
    """Holm's step-down procedure written out from its definition."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


@pytest.mark.heavy  # over 2 s: make test runs it, make check does not
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
def test_holm_equals_step_down_definition(p: list[float]) -> None:
    np.testing.assert_allclose(S.holm(p), _holm_reference(p), rtol=1e-12, atol=1e-15)


def test_drift_detected_when_planted() -> None:
    detected = 0
    for seed in range(50):
        rng = np.random.default_rng(seed)
        order = np.arange(200)
        values = (1.0 - 0.10 * order / 199) * rng.lognormal(0, 0.03, 200)
        d = S.drift(order, values)
        detected += d.detected and d.rho < 0
    assert detected >= 48


def test_drift_not_detected_when_absent() -> None:
    false_alarms = sum(
        S.drift(np.arange(200), np.random.default_rng(seed).lognormal(0, 0.03, 200)).detected
        for seed in range(200))
    assert false_alarms / 200 <= 0.09  # nominal 5 %


def test_tukey_counts_and_never_removes() -> None:
    x = np.r_[np.ones(20), 1.1, 0.9, 10.0, -5.0]
    x[:20] += np.linspace(-0.01, 0.01, 20)
    o = S.tukey_outliers(x)
    assert (o.low, o.high, o.n) == (2, 2, 24)  # 0.9 and -5 low; 1.1 and 10 high
    assert x.size == 24


def test_normality_check() -> None:
    rng = np.random.default_rng(0)
    assert S.normality(rng.normal(10, 1, 50)).normal is True
    assert S.normality(rng.exponential(1, 200) ** 3).normal is False
    assert S.normality([1.0, 2.0]).normal is None


def test_compare_family_uses_threshold_and_holm() -> None:
    rng = np.random.default_rng(1)
    base = rng.lognormal(0, 0.02, 20)
    faster = rng.lognormal(math.log(1.2), 0.02, 20)
    same = rng.lognormal(0.0, 0.005, 20)
    res = S.compare_family([(faster, base), (base, faster), (same, rng.lognormal(0, 0.005, 20))])
    assert [r.direction for r in res] == ["greater", "less", "equivalent"]
    assert all(r.p_holm >= r.p for r in res)
    assert res[0].welch_p is not None  # lognormal with small sigma passes Shapiro


def test_ci_width_achieved() -> None:
    e = S.Estimate(10.0, 9.0, 11.0, 5)
    assert e.half_width_rel == pytest.approx(0.1)
    assert math.isnan(S.Estimate(1.0, math.nan, math.nan, 1).half_width_rel)

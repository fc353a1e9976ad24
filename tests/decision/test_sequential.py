"""decision.sequential: spending functions, group-sequential boundaries, repeated CIs, the
reading of a CI against its rule, the schedule, the top-up order and the design's text.

The boundaries are checked three ways: against published Lan-DeMets values (five equally
spaced looks, two-sided 0.05), against their defining property by simulating the normal
increments directly (an independent computation), and for reproducibility."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from decision import families
from decision import rule as R
from decision import sequential as sq
from decision.band import band

FIVE = (0.2, 0.4, 0.6, 0.8, 1.0)


# ---------------------------------------------------------------------------- spending

@pytest.mark.parametrize("name", [sq.OBRIEN_FLEMING, sq.POCOCK])
def test_spending_reaches_alpha_and_grows(name: str) -> None:
    ts = np.linspace(0.05, 1.0, 20)
    spent = [sq.spend(name, 0.05, float(t)) for t in ts]
    assert spent[-1] == pytest.approx(0.05, rel=1e-12)
    assert all(b > a for a, b in zip(spent, spent[1:]))
    assert sq.spend(name, 0.05, 1.7) == pytest.approx(0.05, rel=1e-12)


def test_obrien_fleming_spends_little_early_and_pocock_evenly() -> None:
    assert sq.spend(sq.OBRIEN_FLEMING, 0.05, 0.2) == pytest.approx(
        2 * stats.norm.sf(stats.norm.isf(0.025) / math.sqrt(0.2)))
    assert sq.spend(sq.OBRIEN_FLEMING, 0.05, 0.2) < 1e-4
    assert sq.spend(sq.POCOCK, 0.05, 0.2) == pytest.approx(0.05 * math.log(1 + (math.e - 1) * .2))


def test_unknown_spending_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown spending function 'linear': allowed are "
                                         r"obrien-fleming, pocock$"):
        sq.spend("linear", 0.05, 0.5)
    with pytest.raises(ValueError, match="allowed are obrien-fleming, pocock"):
        sq.boundaries((0.5, 1.0), 0.05, "haybittle")
    with pytest.raises(ValueError, match="allowed are"):
        sq.SequentialDesign(spending="OBF")


# -------------------------------------------------------------------------- boundaries

def test_one_look_is_the_fixed_design() -> None:
    assert sq.boundaries((1.0,), 0.05) == pytest.approx((stats.norm.isf(0.025),), abs=1e-12)
    assert sq.boundaries((1.0,), 0.05, sq.POCOCK) == pytest.approx((1.959964,), abs=1e-6)


def test_pocock_boundaries_match_published_values() -> None:
    """Lan-DeMets Pocock-type spending, five equally spaced looks, two-sided 0.05 (the
    values of gsDesign / ldbounds)."""
    assert sq.boundaries(FIVE, 0.05, sq.POCOCK) == pytest.approx(
        (2.4380, 2.4268, 2.4101, 2.3966, 2.3859), abs=5e-4)


def test_obrien_fleming_type_spending_matches_published_values() -> None:
    """gsDesign's sfLDOF at one-sided 0.025, five equally spaced looks, gives the upper
    bounds 4.8769, 3.3569, 2.6803, 2.2898, 2.0310. The symmetric two-sided design spending
    twice that one-sided function has the same bounds (a path that crossed the lower side
    first and the upper later is a chance below 1e-6 here)."""
    one_sided = [2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - 0.025 / 2) / math.sqrt(t))
                 for t in FIVE]
    assert sq.critical_values(FIVE, [2 * a for a in one_sided]) == pytest.approx(
        (4.8769, 3.3569, 2.6803, 2.2898, 2.0310), abs=5e-4)
    # the module's own O'Brien-Fleming type spends the two-sided alpha: c_1 is closed form
    assert sq.boundaries(FIVE, 0.05, sq.OBRIEN_FLEMING)[0] == pytest.approx(
        stats.norm.isf(0.025) / math.sqrt(0.2), abs=1e-9)


def test_critical_values_refuse_bad_spent_error() -> None:
    for bad in ([0.01, 0.005], [0.01], [0.01, 1.0]):
        with pytest.raises(ValueError, match="one non-decreasing value in"):
            sq.critical_values((0.5, 1.0), bad)


@pytest.mark.parametrize("name", [sq.OBRIEN_FLEMING, sq.POCOCK])
def test_boundaries_spend_as_planned_in_a_direct_simulation(name: str) -> None:
    """Independent check of the defining property: Brownian motion at t = n_j/N (sums of
    independent increments), first crossing of |Z_j| >= c_j, per look, against
    alpha(t_j) - alpha(t_{j-1}); 400 000 paths, at 4.5 binomial standard errors."""
    fr = (6 / 30, 10 / 30, 14 / 30, 18 / 30, 22 / 30, 26 / 30, 1.0)
    alpha = 0.05
    cs = np.asarray(sq.boundaries(fr, alpha, name))
    rng = np.random.default_rng(7)
    runs = 400_000
    inc = rng.standard_normal((runs, len(fr))) * np.sqrt(np.diff((0.0, *fr)))
    z = np.cumsum(inc, axis=1) / np.sqrt(fr)
    cross = np.abs(z) >= cs
    first = np.where(cross.any(axis=1), cross.argmax(axis=1), -1)
    spent = np.diff([0.0] + [sq.spend(name, alpha, t) for t in fr])
    for j, p in enumerate(spent):
        seen = np.mean(first == j)
        assert abs(seen - p) <= 4.5 * math.sqrt(p * (1 - p) / runs) + 1e-6, (j, seen, p)
    assert np.mean(first >= 0) == pytest.approx(alpha, abs=4.5 * math.sqrt(alpha / runs))


def test_boundaries_are_reproducible_and_a_prefix_keeps_its_values() -> None:
    fr = sq.schedule(6, 4, 42).fractions
    first = sq.boundaries(fr, 0.0125)
    sq._critical_values.cache_clear()
    again = sq.boundaries(fr, 0.0125)
    assert first == again  # bit for bit: the integration's seed and tolerances are fixed
    assert sq.boundaries(fr[:4], 0.0125) == pytest.approx(first[:4], abs=1e-6)
    assert all(math.isfinite(c) and c > stats.norm.isf(0.0125 / 2) for c in first)


def test_obrien_fleming_boundaries_fall_and_pocock_stay_flat() -> None:
    fr = (0.25, 0.5, 0.75, 1.0)
    obf = sq.boundaries(fr, 0.05, sq.OBRIEN_FLEMING)
    poc = sq.boundaries(fr, 0.05, sq.POCOCK)
    assert all(b < a for a, b in zip(obf, obf[1:]))
    assert max(poc) - min(poc) < 0.1
    assert obf[-1] < poc[-1]  # O'Brien-Fleming keeps the last look close to the fixed 1.96


@pytest.mark.parametrize("bad,msg", [
    ((), "at least one"), ((0.0, 1.0), "lie in"), ((0.5, 1.2), "lie in"),
    ((0.5, 0.5, 1.0), "increase strictly"), ((0.6, 0.4, 1.0), "increase strictly")])
def test_bad_fractions_are_refused(bad: tuple[float, ...], msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        sq.boundaries(bad, 0.05)


def test_bad_alpha_is_refused() -> None:
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        sq.boundaries((1.0,), 1.5)


# ---------------------------------------------------------------------------- schedule

@pytest.mark.parametrize("n0,k,n_max,looks", [
    (6, 4, 18, (6, 10, 14, 18)), (6, 4, 20, (6, 10, 14, 18, 20)), (6, 4, 6, (6,)),
    (15, 4, 45, (15, 19, 23, 27, 31, 35, 39, 43, 45)), (2, 1, 4, (2, 3, 4))])
def test_schedule_looks(n0: int, k: int, n_max: int, looks: tuple[int, ...]) -> None:
    s = sq.schedule(n0, k, n_max)
    assert s.looks == looks
    assert s.rounds_max == n_max
    assert s.fractions == pytest.approx(tuple(n / n_max for n in looks))


@pytest.mark.parametrize("args,msg", [
    ((6, 0, 18), "look interval must be an integer >= 1, got 0"),
    ((1, 4, 18), "planned rounds n0 must be an integer >= 2, got 1"),
    ((6, 4, 5), "maximum rounds N must be an integer >= n0 = 6, got 5"),
    ((6, 2.5, 18), "look interval must be an integer"),
    ((6, True, 18), "look interval must be an integer")])
def test_schedule_refuses_bad_input_in_one_line(args: tuple, msg: str) -> None:
    with pytest.raises(ValueError) as e:
        sq.schedule(*args)
    assert msg in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------------ repeated intervals

def test_one_look_gives_the_ordinary_paired_t_interval() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.1, 0.15, 12)
    (lk,) = sq.repeated_cis(d, sq.Schedule((12,)), family=4)
    q = stats.t.isf(0.05 / 4 / 2, 11)
    se = d.std(ddof=1) / math.sqrt(12)
    assert (lk.lo, lk.hi) == pytest.approx((math.exp(d.mean() - q * se),
                                            math.exp(d.mean() + q * se)), rel=1e-9)
    assert lk.level == pytest.approx(1 - 0.05 / 4)
    assert lk.estimate == pytest.approx(math.exp(d.mean()))


def test_repeated_intervals_are_wider_than_fixed_ones_and_stop_at_the_data() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.0, 0.2, 17)
    s = sq.schedule(6, 4, 30)
    looks = sq.repeated_cis(d, s, family=2)
    assert [lk.rounds for lk in looks] == [6, 10, 14]  # 18 is beyond the 17 rounds
    assert [lk.index for lk in looks] == [1, 2, 3]
    for lk in looks:
        q_fixed = stats.t.isf(0.05 / 2 / 2, lk.rounds - 1)
        half = math.log(lk.hi / lk.lo) / 2
        assert half > q_fixed * lk.sd_log / math.sqrt(lk.rounds)
        assert lk.level > 1 - 0.05 / 2


def test_quantiles_follow_the_nominal_level_of_each_look() -> None:
    s = sq.schedule(6, 4, 18)
    cs = sq.boundaries(s.fractions, 0.05 / 4)
    qs = sq.quantiles(s, 4)
    assert qs == pytest.approx(tuple(stats.t.isf(stats.norm.sf(c), n - 1)
                                     for c, n in zip(cs, s.looks)))
    with pytest.raises(ValueError, match="family size must be an integer >= 1, got 0"):
        sq.quantiles(s, 0)


def test_constant_ratios_collapse_the_interval_and_bad_values_are_refused() -> None:
    (lk,) = sq.repeated_cis([0.2] * 6, sq.Schedule((6,)))
    assert lk.lo == lk.hi == pytest.approx(math.exp(0.2))
    with pytest.raises(ValueError, match="finite"):
        sq.repeated_cis([0.1, math.nan, 0.2], sq.Schedule((3,)))


# --------------------------------------------------------------- reading and stopping

@pytest.mark.parametrize("lo,hi,want", [
    (1.05, 1.2, True), (0.98, 1.02, True), (0.5, 0.9, True), (1.0, 1.05, False),
    (0.9, 1.1, False), (1.03, 1.2, True), (math.nan, 1.2, False)])
def test_decided_when_no_boundary_is_strictly_inside(lo: float, hi: float, want: bool) -> None:
    assert sq.decided(lo, hi, (0.97, 1.03)) is want


def _look(i: int, n: int, lo: float, hi: float) -> sq.Look:
    return sq.Look(i, n, math.sqrt(lo * hi), lo, hi, 0.99, 0.0, 0.1)


def test_stopping_look_is_the_first_decided_else_the_last() -> None:
    looks = [_look(1, 6, 0.9, 1.3), _look(2, 10, 1.04, 1.2), _look(3, 14, 1.05, 1.15)]
    assert sq.stopping_look(looks, (0.97, 1.03)) == sq.Stop(2, 10, 1.04, 1.2, math.sqrt(
        1.04 * 1.2), True)
    open_ = [_look(1, 6, 0.9, 1.3), _look(2, 10, 1.0, 1.2)]
    st = sq.stopping_look(open_, (0.97, 1.03))
    assert (st.look, st.rounds, st.decided) == (2, 10, False)
    with pytest.raises(ValueError, match="no look reached"):
        sq.stopping_look([], (1.0,))


# ------------------------------------------------------------------------- order rule

def _summary(block: str, n: int, left: int, mean: float, sd: float, lo: float, hi: float,
             rule: tuple[float, ...] = (0.97, 1.03), q: float = 3.0) -> sq.Summary:
    return sq.Summary(block, n, left, mean, sd, lo, hi, rule, q)


def test_extra_rounds_is_the_rounds_to_clear_the_nearest_straddled_boundary() -> None:
    s = _summary("a", 10, 20, math.log(1.10), 0.15, 1.0, 1.2)
    d = math.log(1.10) - math.log(1.03)  # 0.97 is not straddled
    assert sq.extra_rounds(s) == pytest.approx((3.0 * 0.15 / d) ** 2 - 10)
    assert sq.extra_rounds(_summary("a", 10, 20, 0.1, 0.1, 1.05, 1.2)) is None
    assert sq.extra_rounds(_summary("a", 10, 20, math.log(1.03), 0.1, 1.0, 1.1)) == math.inf


def test_rank_blocks_puts_the_closest_first_and_leaves_out_the_done() -> None:
    near = _summary("b", 10, 20, math.log(1.10), 0.10, 1.01, 1.2)
    far = _summary("a", 10, 20, math.log(1.05), 0.20, 0.9, 1.2)
    done = _summary("c", 10, 20, 0.2, 0.1, 1.1, 1.3)
    full = _summary("d", 30, 0, math.log(1.10), 0.10, 1.01, 1.2)
    tie = _summary("a2", 10, 20, math.log(1.10), 0.10, 1.01, 1.2)
    ranked = sq.rank_blocks([far, near, done, full, tie])
    assert [b for b, _ in ranked] == ["a2", "b", "a"]
    assert ranked[0][1] == pytest.approx(sq.extra_rounds(near))
    # a block counts by its closest undecided comparison
    both = sq.rank_blocks([far, _summary("a", 10, 20, math.log(1.2), 0.05, 1.02, 1.4)])
    assert both[0][1] == pytest.approx((3.0 * 0.05 / (math.log(1.2) - math.log(1.03))) ** 2
                                       - 10)


def test_summarize_reads_the_latest_look_from_the_log_ratios() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(math.log(1.1), 0.15, 13)
    s = sq.schedule(6, 4, 18)
    sm = sq.summarize("blk", d, s, 4, (0.97, 1.03))
    last = sq.repeated_cis(d, s, 4)[-1]
    assert (sm.rounds, sm.rounds_left, sm.lo, sm.hi) == (10, 8, last.lo, last.hi)
    assert sm.q_final == pytest.approx(sq.quantiles(s, 4)[-1])
    with pytest.raises(ValueError, match="block blk: 5 rounds reach no look"):
        sq.summarize("blk", d[:5], s, 4, (0.97, 1.03))


# -------------------------------------------------------------------------- the design

def test_design_schedule_description_and_text() -> None:
    dsn = sq.SequentialDesign()
    assert (dsn.spending, dsn.first_look, dsn.look_every, dsn.rounds_max) == (
        sq.POCOCK, 10, 10, 30)
    assert dsn.schedule(30).looks == (10, 20, 30)  # the first look is at 10 rounds
    doc = json.loads(json.dumps(dsn.to_json()))
    assert doc["spending"] == sq.POCOCK and doc["alpha"] == 0.05
    assert doc["order_rule"] == sq.ORDER_RULE
    text = sq.design_text(doc)
    assert "after 10 rounds, then every 10 rounds, up to N = 30 rounds" in text
    assert "Pocock-type" in text and "alpha/m" in text and "verdict testable here" in text
    assert "\n" not in text


def test_a_design_from_planned_rounds_with_a_factor() -> None:
    dsn = sq.SequentialDesign(spending=sq.OBRIEN_FLEMING, first_look=None, look_every=4,
                              max_factor=3, rounds_max=30)
    assert dsn.schedule(6).looks == (6, 10, 14, 18)
    assert dsn.schedule(15).looks == (15, 19, 23, 27, 30)
    text = sq.design_text(dsn.to_json())
    assert "after the block's planned rounds n0" in text and "N = min(3 n0, 30)" in text
    assert "O'Brien-Fleming-type" in text
    with pytest.raises(ValueError, match="n0 = 31 exceed rounds_max = 30"):
        dsn.schedule(31)


@pytest.mark.parametrize("kwargs,msg", [
    ({"look_every": 0}, "look_every must be an integer >= 1, got 0"),
    ({"first_look": 1}, "first_look must be an integer >= 2, got 1"),
    ({"first_look": 100}, "first_look = 100 exceeds rounds_max = 30"),
    ({"max_factor": 0}, "max_factor must be an integer >= 1, got 0"),
    ({"alpha": 0.0}, r"alpha must lie in \(0, 1\)")])
def test_design_refuses_bad_settings(kwargs: dict, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        sq.SequentialDesign(**kwargs)


# ------------------------------------------------- --------------------- the verdict order

def test_the_predicted_chance_at_the_next_look_matches_a_simulation() -> None:
    """p_decided_at: today's estimate taken as the truth, the chance that the next look's
    repeated CI (its own quantile, not the final look's) holds no boundary, checked against
    a simulation of the rounds still to come."""
    sched = sq.Schedule((10, 20, 30))
    rng = np.random.default_rng(3)
    x = math.log(1.045) + 0.1 * rng.standard_normal(10)
    (look,) = sq.repeated_cis(x, sched, 4)
    s = sq.summary_of("b", [look], sched, 4, (0.97, 1.03), verdicts=("C4 cross-core",))
    assert s is not None and s.q_looks[1] > s.q_looks[-1]
    p = sq.p_next(s)
    m, sd = float(np.mean(x)), float(np.std(x, ddof=1))
    q = s.q_looks[1]
    future = m + sd * rng.standard_normal((20000, 10))
    mean20 = (x.sum() + future.sum(axis=1)) / 20
    half = q * sd / math.sqrt(20)
    ok = ~(((mean20 - half) < math.log(1.03)) & (math.log(1.03) < (mean20 + half))) & \
        ~(((mean20 - half) < math.log(0.97)) & (math.log(0.97) < (mean20 + half)))
    assert p == pytest.approx(float(ok.mean()), abs=0.02)
    # the final look's quantile would promise more than the next look can give
    assert sq.p_decided_at(s, 20, s.q_looks[-1]) > p


def test_the_verdict_order_weighs_chance_per_second_and_drops_the_hopeless() -> None:
    sched = sq.Schedule((10, 20, 30))
    qs = tuple(sq.quantiles(sched, 1))

    def summ(block: str, mean: float, sd: float, verdict: str) -> sq.Summary:
        h = qs[0] * sd / math.sqrt(10)
        return sq.Summary(block, 10, 20, math.log(mean), sd, mean * math.exp(-h),
                          mean * math.exp(h), (0.97, 1.03), qs[-1], sched.looks, qs,
                          (verdict,))
    near, far = summ("a", 1.07, 0.08, "C13 same-core"), summ("b", 1.07, 0.08, "C5 same-core")
    # the same chance, but b's look costs twice as much: a first
    order = sq.rank_by_verdicts([near, far], {"a": 10.0, "b": 20.0})
    assert [b for b, _ in order] == ["a", "b"]
    assert order[0][1] == pytest.approx(2 * order[1][1])
    hopeless = summ("c", 1.03, 0.3, "C5 same-core")  # on the boundary, wide
    assert sq.p_by_max(hopeless) < sq.DROP_BELOW
    order = sq.rank_by_verdicts([near, far, hopeless], {"a": 10.0, "b": 20.0, "c": 1.0})
    assert [b for b, _ in order] == ["a"]  # C5 same-core is out of reach: b and c get nothing


def _one_boundary(mean: float, sd: float, rounds: int = 2) -> sq.Summary:
    """A comparison of family 4 at its first look of a (2, 4, 6) schedule, read against the
    one boundary 1.0 (its CI from its own mean and sd)."""
    sched = sq.Schedule((2, 4, 6))
    qs = tuple(sq.quantiles(sched, 4))
    h = qs[0] * sd / math.sqrt(rounds)
    return sq.Summary("b", rounds, 6 - rounds, mean, sd, math.exp(mean - h),
                      math.exp(mean + h), (1.0,), qs[-1], sched.looks, qs, ("C4 cross-core",))


def test_a_comparison_sure_to_be_decided_at_its_next_look_gets_the_look() -> None:
    """Undecided at its first look (1 df: the CI is ±112 sd wide), certain to be decided at
    the next (the chance reads 1.0 in floating point): the best use of a look, never taken
    for an already decided comparison (the order once skipped every block whose chance
    read 1.0)."""
    s = _one_boundary(0.3, 0.01)
    assert s.lo < 1.0 < s.hi and sq.p_next(s) == 1.0
    assert sq.rank_by_verdicts([s], {"b": 2.0}) == [("b", pytest.approx(0.5))]
    decided = _one_boundary(0.3, 0.001)  # its CI at the first look clears 1.0
    assert decided.lo > 1.0 and sq.p_next(decided) == 1.0
    assert sq.rank_by_verdicts([decided], {"b": 2.0}) == []


def test_a_chance_reads_the_same_on_either_side_of_a_boundary() -> None:
    """Mirror images about the boundary have one chance; an upper tail is read as a tail
    (sf), not as 1 - cdf (0 in floating point beyond z ~ 8.3), so a chance of ~1e-24
    above a boundary no longer reads 1e-29 while its mirror below reads 1e-24."""
    below, above = _one_boundary(-0.02, 0.1), _one_boundary(0.02, 0.1)
    p_below, p_above = sq.p_next(below), sq.p_next(above)
    assert 0.0 < p_below < 1e-15
    assert p_above == pytest.approx(p_below, rel=1e-9, abs=0.0)


# ------------------------------- the verdict order follows each verdict's combination

def _verdict_summ(block: str, mean: float, sd: float, serves: tuple, n: int = 10,
                  rule: tuple[float, ...] = (0.93, 1.07)) -> sq.Summary:
    """A comparison at its first look (10 of 30 rounds) with a CI from its mean and sd."""
    sched = sq.Schedule((10, 20, 30))
    qs = tuple(sq.quantiles(sched, 4))
    h = qs[0] * sd / math.sqrt(n)
    return sq.Summary(block, n, 30 - n, math.log(mean), sd, mean * math.exp(-h),
                      mean * math.exp(h), rule, qs[-1], sched.looks, qs,
                      tuple(v.verdict for v in serves), serves)


BAND = band()


def test_a_verdict_refuted_by_one_comparison_needs_no_more_rounds() -> None:
    """C4 ("one-copy beats two-copy at every size") is refuted by one size whose CI lies
    wholly below 1 + t: the block holding another of its sizes gains nothing from more
    rounds."""
    at = {s: families.serves(["C4"], "stream", s, "cross-core") for s in (512, 4096)}
    assert [v.verdict for v in at[512]] == ["C4 cross-core"]
    assert at[512][0].expect == R.Expect(R.GREATER)
    refuting = _verdict_summ("a", 0.70, 0.05, at[512], rule=BAND)  # CI far below 1.12
    assert sq.p_next(refuting) == 1.0
    open_ = _verdict_summ("b", 1.25, 0.15, at[4096], rule=BAND)  # across 1.12
    assert sq.p_next(open_) < 1.0
    assert sq.rank_by_verdicts([refuting, open_], {"a": 10.0, "b": 10.0}) == []
    # the same sizes agreeing: C4 waits on b, which is then worth its look
    agreeing = _verdict_summ("a", 1.40, 0.05, at[512], rule=BAND)
    (only,) = sq.rank_by_verdicts([agreeing, open_], {"a": 10.0, "b": 10.0})
    assert only[0] == "b"
    assert only[1] == pytest.approx(sum(sq.gaps_next(open_, at[4096][0].edges())
                                        [i] for i in (0, 1)) / 10.0)


def test_the_top_up_asks_c4s_4_kib_cell_nothing_once_its_ci_lies_below_the_edge() -> None:
    """The reference run's C4 cross-core 4 KiB comparison, CI [0.658, 1.118] at 30 rounds: it
    straddles 1 - t, which the band reading kept asking about ("less" or "equivalent", both
    of which refute C4), but lies wholly below C4's one edge 1 + t, so C4 is refuted and the
    top-up credits its block with nothing for C4, even though the comparison's boundaries
    (the union with the placement question's band) still cross it."""
    serves = families.serves(["C4", "P1"], "stream", 4096, "cross-core", "sendmsg/send")
    c4 = next(v for v in serves if v.verdict.startswith("C4"))
    assert c4.edges() == (1.12,)
    lo, hi = 0.658, 1.118
    s = sq.Summary("a", 10, 20, math.log(math.sqrt(lo * hi)), 0.16, lo, hi, BAND,
                   3.0, (10, 20, 30), (3.5, 3.2, 3.0), tuple(v.verdict for v in serves),
                   serves)
    assert sq.undecided(s)  # 0.88 lies inside: the comparison as a whole is open
    assert not sq.open_for(s, c4)  # but it has no question left for C4
    scores = sq.verdict_scores([s])
    assert "C4 cross-core" not in scores.get("a", {})
    # the public order: C4 alone serving a comparison at 0.82 [0.742, 0.906] (sd 0.09 at its
    # first look), likely "less" by the next: the band reading ranked its block to decide
    # between "less" and "equivalent" (both refute C4); it is not ranked at all
    alone = families.serves(["C4"], "stream", 4096, "cross-core")
    h = 3.5 * 0.09 / math.sqrt(10)
    s1 = sq.Summary("a", 10, 20, math.log(0.82), 0.09, 0.82 * math.exp(-h),
                    0.82 * math.exp(h), BAND, 3.0, (10, 20, 30), (3.5, 3.2, 3.0),
                    tuple(v.verdict for v in alone), alone)
    assert sq.undecided(s1) and sq.p_by_max(s1) > sq.DROP_BELOW
    assert sq.rank_by_verdicts([s1], {"a": 10.0}) == []
    # the same CI across 1.12 is still C4's question
    s2 = sq.Summary("a", 10, 20, math.log(1.05), 0.16, 0.90, 1.22, BAND, 3.0, (10, 20, 30),
                    (3.5, 3.2, 3.0), tuple(v.verdict for v in serves), serves)
    assert sq.verdict_scores([s2])["a"]["C4 cross-core"] > 0.0


def test_a_block_that_can_refute_ranks_above_zero_while_a_sibling_sits_on_a_boundary() -> None:
    """A sibling size on its edge (under 10 % to be decided by N: dropped) does not zero a
    verdict that another size can still refute: the block that can refute it is ranked,
    by its chance to be decided contrary at its next look."""
    at = {s: families.serves(["C4"], "stream", s, "same-core") for s in (512, 4096)}
    can_refute = _verdict_summ("a", 1.02, 0.12, at[512], rule=BAND)  # across 1.12
    on_boundary = _verdict_summ("b", 1.12, 0.30, at[4096], rule=BAND)
    edges = at[512][0].edges()
    assert sum(sq.gaps_by_max(on_boundary, edges)) < sq.DROP_BELOW
    order = sq.rank_by_verdicts([can_refute, on_boundary], {"a": 10.0, "b": 10.0})
    sides = sq.gap_sides(at[512][0])
    assert sides == (-1, 1)  # below 1 + t refutes, above agrees
    p_contrary = sq.gaps_next(can_refute, edges)[0]
    assert p_contrary > 0.3
    assert order == [("a", pytest.approx(p_contrary / 10.0))]


def test_contrary_sides_follow_the_rules_ratio_and_its_edge() -> None:
    """Per verdict, the gaps around its own edge on the comparison's ratio (Gbit/s): C1's
    "zero-copy takes longer" (the time per message, the inverse) agrees below 1/(1 + t);
    C5's "not ahead at 512 B" (at most 1 + t) agrees below 1 + t; C5's 4 KiB and C3's sizes
    above its band agree above 1 + t; a verdict without an expectation of the comparison (the
    placement question, C3 inside its band) has no gaps of its own."""
    (c1,) = families.serves(["C1"], "stream", 512, "cross-core")
    (c5,) = families.serves(["C5"], "stream", 512, "cross-core")
    assert c1.verdict == "C1 [S1's code: window/messages, 8 x 64 B] cross-core" and c1.inverse
    assert c1.edges() == (round(1 / 1.12, 6),) and sq.gap_sides(c1) == (1, -1)
    assert c5.edges() == (1.12,) and sq.gap_sides(c5) == (1, -1)
    (c5_4k,) = families.serves(["C5"], "stream", 4096, "cross-core")
    assert sq.gap_sides(c5_4k) == (-1, 1)
    c3 = families.serves(["C3"], "stream", 256 * 1024, "same-core")
    assert [sq.gap_sides(v) for v in c3] == [(-1, 1), ()]
    (p1,) = families.serves(["P1"], "stream", 512, "same-core")
    assert sq.gap_sides(p1) == () and p1.expect is None
    # C9's two readings are two verdicts over the same comparisons, each with its own edge
    c9 = families.serves(["C9"], "stream", 1024, "same-core")
    assert [(v.verdict, v.edges(), sq.gap_sides(v)) for v in c9] == [
        ("C9 [never beats] same-core", (1.12,), (1, -1)),
        ("C9 [at best ~52 %] same-core", (0.88,), (1, -1))]
    # C1's round trip reads the ping-pong cells only, in their own ratio
    (rt,) = families.serves(["C1"], "pingpong", 64, "same-core")
    assert not rt.inverse and sq.gap_sides(rt) == (-1, 1)
    # the union a plan asks a comparison about: every verdict's edge, the band for P1
    assert families.edges(["C1", "C3", "C5", "P1"], "stream", 512, "zerocopy/send") == \
        (0.88, round(1 / 1.12, 6), 1.12)
    assert families.edges(["C4"], "stream", 4096, "sendmsg/send") == (1.12,)

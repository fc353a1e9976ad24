"""Group-sequential reading of the block design's paired comparisons: interim looks with
repeated confidence intervals, so a comparison may stop once its CI clears its decision
rule's boundary while the others continue, without the optimism of "stop when it looks good".

The statistics (Jennison & Turnbull, JRSS B 51, 1989: repeated confidence intervals; alpha
spending after Lan & DeMets, Biometrika 70, 1983):

* A block is looked at after n_1 < n_2 < ... < n_K rounds (:func:`schedule`: a first look,
  then every k rounds, up to its maximum N; :class:`SequentialDesign` says where the first
  look falls); the information fraction of look j is t_j = n_j / N.
* A spending function alpha(t) (:data:`SPENDING`) says how much of the two-sided error
  alpha has been used by fraction t; :func:`boundaries` turns it into critical values
  c_1..c_K on the normal scale, such that under H0 (Z_j the standardised mean after n_j
  rounds, corr(Z_i, Z_j) = sqrt(t_i / t_j)) the chance of first crossing at look j is
  alpha(t_j) - alpha(t_{j-1}); the chance of ever crossing is alpha(t_K) <= alpha.
* Inverting the test at every look gives intervals that hold *simultaneously*:
  P(theta in CI_j for every j) >= 1 - alpha, so the CI at any look chosen from the data (the
  first that decides, or the one where the budget ran out) keeps its confidence
  (:func:`repeated_cis`). The per-round log ratios' sd is estimated, so the normal-scale c_j
  is carried over by its nominal level: CI_j = mean_j +- q_j sd_j / sqrt(n_j) with q_j the t
  quantile (n_j - 1 df) at the two-sided level 2 (1 - Phi(c_j)) (Jennison & Turnbull,
  *Group Sequential Methods*, 2000, sec. 11.1: an approximation, slightly liberal at few
  degrees of freedom; tests/decision/test_sequential_simulation.py checks that the error
  rates stay within alpha + 0.02 at this design's rounds, studies/simulate_topup.py prints
  them).
* A verdict's family of m comparisons is read at alpha/m each (Bonferroni), as the fixed
  design reads it (analysis.statistics.stats.paired_ratio).

The runner decides from :func:`rank_blocks` which undecided block gets the next rounds; the
analysis reads each comparison at its :func:`stopping_look`. This module imports neither.
The design's declaration (its parameters, looks and text) is :mod:`decision.schedule`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
from scipy import optimize, stats

from decision import families
from decision import interval as I
from decision import rule as R

# the design as declared (stdlib only, decision.schedule), re-exported beside the statistics
# that read it, so a reader of a run needs one module
from decision.schedule import (ALPHA, CONFIDENCE, DROP_BELOW, OBRIEN_FLEMING,  # noqa: F401
                                 ORDER_RULE, POCOCK, SPENDING_NAMES,
                              SPENDING_TEXT, Schedule, SequentialDesign, check_alpha,
                              check_spending, design_of, design_text, schedule)

#: the QMC integration of the normal rectangles: fixed seed and tolerances (reproducible c_j)
MVN_SEED = 20261124
MVN_MAXPTS = 200_000
#: relative accuracy of a crossing probability (an error e moves c by about e / c)
MVN_RELEPS = 1e-4
#: earlier looks whose crossing chances add up to less than this share of the current
#: look's increment are left out of its integral (an error below 1e-4 in c)
NEGLIGIBLE = 1e-4
#: absolute tolerance of each c_k (moves a t quantile by less than 1e-4 of itself)
C_TOL = 1e-4


def _obrien_fleming(alpha: float, t: float) -> float:
    """Lan-DeMets O'Brien-Fleming type: alpha(t) = 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t))."""
    return 2.0 * float(stats.norm.sf(stats.norm.isf(alpha / 2.0) / math.sqrt(t)))


def _pocock(alpha: float, t: float) -> float:
    """Lan-DeMets Pocock type: alpha(t) = alpha ln(1 + (e - 1) t)."""
    return alpha * math.log1p((math.e - 1.0) * t)


#: spending functions by name: alpha(t) for 0 < t <= 1, alpha(1) = alpha
SPENDING: dict[str, Callable[[float, float], float]] = {
    OBRIEN_FLEMING: _obrien_fleming, POCOCK: _pocock}



def spend(name: str, alpha: float, t: float) -> float:
    """The error spent by information fraction t (0 < t <= 1; t > 1 counts as 1)."""
    check_spending(name)
    check_alpha(alpha)
    if not t > 0.0:
        raise ValueError(f"information fraction must be > 0, got {t!r}")
    return SPENDING[name](alpha, min(t, 1.0))


def _check_fractions(fractions: Sequence[float]) -> None:
    if not fractions:
        raise ValueError("boundaries need at least one information fraction")
    if not all(0.0 < t <= 1.0 for t in fractions):
        raise ValueError(f"information fractions must lie in (0, 1], got {list(fractions)}")
    if any(b <= a for a, b in zip(fractions, fractions[1:])):
        raise ValueError(f"information fractions must increase strictly, got "
                         f"{list(fractions)}")


def _cross_prob(c: float, prior: Sequence[float], t_prior: Sequence[float], t: float) -> float:
    """P(|Z_i| < c_i for the given earlier looks i, |Z| >= c at fraction t) under H0,
    corr(Z_i, Z_j) = sqrt(t_i / t_j): twice the rectangle {|Z_i| < c_i, Z > c} (the normal
    is symmetric), by scipy's QMC integration (fixed seed and tolerances)."""
    if not prior:
        return 2.0 * float(stats.norm.sf(c))
    tt = np.asarray([*t_prior, t])
    cov = np.sqrt(np.minimum.outer(tt, tt) / np.maximum.outer(tt, tt))
    upper = np.array([*prior, np.inf])
    lower = np.array([-x for x in prior] + [c])
    scale = 2.0 * float(stats.norm.sf(c))
    p = stats.multivariate_normal.cdf(
        upper, mean=np.zeros(tt.size), cov=cov, lower_limit=lower, maxpts=MVN_MAXPTS,
        abseps=max(scale * MVN_RELEPS, 1e-13), releps=MVN_RELEPS,
        rng=np.random.default_rng(MVN_SEED))
    return 2.0 * float(p)


def _binding(prior: Sequence[float], t: Sequence[float], increment: float) -> list[int]:
    """The earlier looks that constrain look k: leaving out looks whose chances
    P(|Z_i| >= c_i) add up to at most NEGLIGIBLE * increment changes the crossing
    probability by at most that sum (a union bound), so they are left out (fewer
    dimensions; an infinite c_i constrains nothing)."""
    tail = sorted((2.0 * float(stats.norm.sf(c)), i) for i, c in enumerate(prior))
    dropped, keep = 0.0, []
    for p, i in tail:
        if dropped + p <= NEGLIGIBLE * increment:
            dropped += p
        else:
            keep.append(i)
    return sorted(keep)


def _next_boundary(prior: Sequence[float], t: Sequence[float], spent_before: float,
                   increment: float) -> float:
    """c_k solving P(no crossing before k, |Z_k| >= c_k) = increment, by Brent's method.

    The univariate bound P(|Z_k| >= c) >= P(...) gives c_hi; writing the left side as
    r(c) P(|Z_k| >= c), with r(c) the chance of no earlier crossing given a crossing at c
    (it changes slowly with c), one step c = z(1 - increment / (2 r(c_hi))) lands past the
    root, so the two usually bracket it closely; otherwise the bracket is the univariate
    bounds, P(|Z_k| >= c) - spent_before <= P(...) <= P(|Z_k| >= c)."""
    if increment <= 0.0:
        return math.inf  # nothing left to spend at this look: it never stops a comparison
    hi = float(stats.norm.isf(increment / 2.0))
    keep = _binding(prior, t, increment)
    if not keep:
        return hi
    cs, ts = [prior[i] for i in keep], [t[i] for i in keep]
    seen: dict[float, float] = {}  # brentq evaluates the bracket ends again: reuse them

    def f(c: float) -> float:
        if c not in seen:
            seen[c] = _cross_prob(c, cs, ts, t[-1]) - increment
        return seen[c]

    if f(hi) >= 0.0:  # integration error at the bound: the bound itself is the answer
        return hi
    r = (f(hi) + increment) / (2.0 * float(stats.norm.sf(hi)))
    lo = float(stats.norm.isf(min(increment / (2.0 * max(r, 1e-300)), 0.5)))
    if f(lo) <= 0.0:
        lo = float(stats.norm.isf(min(increment + spent_before, 1.0) / 2.0))
        if f(lo) <= 0.0:
            return lo
    return float(optimize.brentq(f, lo, hi, xtol=C_TOL))


@lru_cache(maxsize=256)
def _critical_values(fractions: tuple[float, ...], spent: tuple[float, ...]) -> tuple[float, ...]:
    out: list[float] = []
    before = 0.0
    for k, total in enumerate(spent):
        out.append(_next_boundary(out, fractions[:k + 1], before, total - before))
        before = total
    return tuple(out)


def critical_values(fractions: Sequence[float], spent: Sequence[float]) -> tuple[float, ...]:
    """Two-sided critical values c_1..c_K (normal scale) for the cumulative error ``spent``
    (s_1 <= ... <= s_K) at information fractions 0 < t_1 < ... < t_K <= 1: under H0, with
    corr(Z_i, Z_j) = sqrt(t_i / t_j), P(|Z_1| < c_1, ..., |Z_{k-1}| < c_{k-1}, |Z_k| >= c_k)
    = s_k - s_{k-1}.

    c_1 = z(1 - s_1/2); each later c_k is the root (Brent) of that equation, whose left side
    is a rectangle probability of the multivariate normal (scipy's QMC integration with a
    fixed seed and tolerances, so the values are reproducible; relative error about 1e-4 of
    the increment, below 1e-4 in c). c_k depends only on t_1..t_k and s_1..s_k: the looks of
    a schedule cut short keep their values. Cached."""
    _check_fractions(fractions)
    if len(spent) != len(fractions) or any(b < a for a, b in zip(spent, spent[1:])) \
            or not all(0.0 <= x < 1.0 for x in spent):
        raise ValueError("spent error must be one non-decreasing value in [0, 1) per look")
    return _critical_values(tuple(float(t) for t in fractions), tuple(float(x) for x in spent))


def boundaries(fractions: Sequence[float], alpha: float = ALPHA,
               spending: str = POCOCK) -> tuple[float, ...]:
    """The critical values c_1..c_K at information fractions t_1 < ... < t_K <= 1 for the
    two-sided error alpha spent by the named function: under H0 the chance of first
    crossing at look k is alpha(t_k) - alpha(t_{k-1}) (:func:`critical_values`)."""
    check_spending(spending)
    check_alpha(alpha)
    _check_fractions(fractions)
    return critical_values(fractions, [spend(spending, alpha, t) for t in fractions])


@lru_cache(maxsize=1024)
def _levels(sched: Schedule, family: int, alpha: float, spending: str) -> tuple[
        tuple[float, ...], tuple[float, ...]]:
    cs = boundaries(sched.fractions, alpha / family, spending)
    tails = [float(stats.norm.sf(c)) for c in cs]
    return (tuple(float(stats.t.isf(p, n - 1)) for p, n in zip(tails, sched.looks)),
            tuple(1.0 - 2.0 * p for p in tails))


def quantiles(sched: Schedule, family: int = 1, alpha: float = ALPHA,
              spending: str = POCOCK) -> tuple[float, ...]:
    """q_j per look: the t quantile with n_j - 1 df at the two-sided level 2 (1 - Phi(c_j)),
    c_j from :func:`boundaries` at alpha / family (Bonferroni over the verdict's family).
    Cached."""
    if isinstance(family, bool) or not isinstance(family, int) or family < 1:
        raise ValueError(f"family size must be an integer >= 1, got {family!r}")
    return _levels(sched, family, float(alpha), spending)[0]


# ------------------------------------------------------------------ the repeated intervals

@dataclass(frozen=True)
class Look:
    """The repeated CI of one comparison at one look (ratio scale)."""

    index: int  # 1-based look number
    rounds: int
    estimate: float  # geometric-mean ratio exp(mean of the log ratios)
    lo: float
    hi: float
    level: float  # nominal two-sided level of this look's interval, 1 - 2 (1 - Phi(c_j))
    mean_log: float
    sd_log: float


def repeated_cis(log_ratios: Sequence[float], sched: Schedule, family: int = 1,
                 spending: str = POCOCK, alpha: float = ALPHA) -> list[Look]:
    """The repeated CI at every look the data reach: log_ratios are the comparison's
    per-round log ratios in round order; at look j with n_j rounds the CI is
    exp(mean +- q_j sd / sqrt(n_j)) over the first n_j of them (:func:`quantiles`).
    Looks beyond the data are not reached; with zero spread the CI is the point."""
    d = np.asarray(log_ratios, dtype=float)
    if d.ndim != 1 or not np.all(np.isfinite(d)):
        raise ValueError("log ratios must be a flat sequence of finite numbers")
    qs = quantiles(sched, family, alpha, spending)
    levels = _levels(sched, family, float(alpha), spending)[1]
    reached = [n for n in sched.looks if n <= d.size]
    if not reached:
        return []
    mean, sd, half = I.running(d, reached, qs[:len(reached)])
    return [Look(j, n, _exp(m), _exp(m - h), _exp(m + h), level, m, v)
            for j, (n, level, m, v, h) in enumerate(
                zip(reached, levels, mean[0].tolist(), sd[0].tolist(), half[0].tolist()), 1)]


_exp = I.exp_or_inf


# ----------------------------------------------------------- reading a CI against its rule

#: a CI is decided when no edge of its rule lies strictly inside it (decision.rule)
decided = R.decided


@dataclass(frozen=True)
class Stop:
    """Where a comparison stops: its first decided look, else the last look reached."""

    look: int
    rounds: int
    lo: float
    hi: float
    estimate: float
    decided: bool


def stopping_look(looks: Sequence[Look], rule_boundaries: Sequence[float]) -> Stop:
    """The stopping look of a comparison: the first look whose CI is :func:`decided`, else
    the last look reached (undecided). Its CI is the one the verdict reads."""
    if not looks:
        raise ValueError("no look reached: a comparison needs at least its first look")
    for lk in looks:
        if decided(lk.lo, lk.hi, rule_boundaries):
            return Stop(lk.index, lk.rounds, lk.lo, lk.hi, lk.estimate, True)
    lk = looks[-1]
    return Stop(lk.index, lk.rounds, lk.lo, lk.hi, lk.estimate, False)


# -------------------------------------------------------------- the order of the top-up

@dataclass(frozen=True)
class Summary:
    """One comparison at its latest look, as the order rule needs it."""

    block: str
    rounds: int  # n: rounds so far
    rounds_left: int  # N - n for its block
    mean_log: float
    sd_log: float
    lo: float  # CI at the latest look (ratio scale)
    hi: float
    rule_boundaries: tuple[float, ...]  # ratio scale
    q_final: float  # q_K of the block's schedule at its family
    # the verdict order (:func:`rank_by_verdicts`): the block's looks and their quantiles at
    # this comparison's family, and the verdicts testable here that read it ("C4 cross-core")
    looks: tuple[int, ...] = ()
    q_looks: tuple[float, ...] = ()
    verdicts: tuple[str, ...] = ()
    # each verdict of ``verdicts`` as the order models it: its combination and the outcomes
    # of this comparison that refute it by themselves (decision.families.Serves)
    serves: tuple[families.Serves, ...] = ()


def summarize(block: str, log_ratios: Sequence[float], sched: Schedule, family: int,
              rule_boundaries: Sequence[float], spending: str = POCOCK,
              alpha: float = ALPHA) -> Summary:
    """The :class:`Summary` of a comparison from its per-round log ratios so far (the
    runner's numbers from the records); its CI is the one at the latest look reached."""
    looks = repeated_cis(log_ratios, sched, family, spending, alpha)
    if not looks:
        raise ValueError(f"block {block}: {len(log_ratios)} rounds reach no look "
                         f"(the first is at {sched.looks[0]})")
    last = looks[-1]
    q_final = quantiles(sched, family, alpha, spending)[-1]
    return Summary(block, last.rounds, sched.rounds_max - last.rounds, last.mean_log,
                   last.sd_log, last.lo, last.hi, tuple(rule_boundaries), q_final)


def extra_rounds(s: Summary) -> float | None:
    """The extra rounds a comparison needs by the order rule, ((q_K s)/d)^2 - n, or None when
    it is decided (no boundary strictly inside its CI). d = 0 (the mean on a boundary): inf."""
    inside = R.crossed(s.lo, s.hi, s.rule_boundaries)
    if not inside:
        return None
    d = min(abs(s.mean_log - math.log(b)) for b in inside)
    if d == 0.0:
        return math.inf
    return (s.q_final * s.sd_log / d) ** 2 - s.rounds


def rank_blocks(summaries: Iterable[Summary]) -> list[tuple[str, float]]:
    """The extra-rounds order of plans made before the verdict order
    (:data:`decision.schedule.EXTRA_ROUNDS_RULE`): (block id, extra rounds of its closest
    undecided comparison), closest first, ties by block id; blocks with every comparison
    decided or no rounds left are not listed."""
    best: dict[str, float] = {}
    for s in summaries:
        need = extra_rounds(s)
        if need is None or s.rounds_left <= 0:
            continue
        best[s.block] = min(need, best.get(s.block, math.inf))
    return sorted(best.items(), key=lambda kv: (kv[1], kv[0]))


# ------------------------------------------------- looks from rounds that may have gaps

def looks_by_round(rounds: Sequence[int], log_ratios: Sequence[float], sched: Schedule,
                   reached: int, family: int = 1, spending: str = POCOCK,
                   alpha: float = ALPHA) -> list[Look]:
    """The repeated CI at every look a block has reached (``reached``: the rounds it ran),
    from per-round log ratios labelled by their round: look j reads the ratios of rounds
    1..n_j. A round whose pair is missing (a failed trial) is left out, so look j may hold
    fewer than n_j ratios: its interval then uses the t quantile of the ratios it has at
    the look's nominal level (with every round present this is :func:`repeated_cis`). A
    look with fewer than two ratios has no CI (NaN ends). The runner's top-up and the
    analysis's verdicts both read a comparison through this function."""
    r = np.asarray(rounds, dtype=int)
    d = np.asarray(log_ratios, dtype=float)
    if r.shape != d.shape or d.ndim != 1 or not np.all(np.isfinite(d)):
        raise ValueError("rounds and log ratios must be two flat sequences of one length, "
                         "the ratios finite")
    levels = _levels(sched, family, float(alpha), spending)[1]
    out: list[Look] = []
    for j, (n, level) in enumerate(zip(sched.looks, levels), 1):
        if n > reached:
            break
        x = d[r <= n]
        if x.size < 2:
            out.append(Look(j, n, math.nan, math.nan, math.nan, level, math.nan, math.nan))
            continue
        ci = I.paired_interval(x, quantile=float(stats.t.isf((1.0 - level) / 2.0,
                                                              x.size - 1)))
        out.append(Look(j, n, ci.estimate, ci.lo, ci.hi, level, ci.mean_log, ci.sd_log))
    return out


def summary_of(block: str, looks: Sequence[Look], sched: Schedule, family: int,
               rule_boundaries: Sequence[float], spending: str = POCOCK,
               alpha: float = ALPHA,
               verdicts: Sequence[str | families.Serves] = ()) -> Summary | None:
    """The :class:`Summary` of a comparison at its latest look (from :func:`looks_by_round`),
    or None when that look has no CI (fewer than two pairs: nothing to rank). ``verdicts``:
    the verdicts testable here it serves, each a :class:`decision.families.Serves` (a bare
    name is a verdict decided only when every comparison it reads is decided)."""
    if not looks or math.isnan(looks[-1].lo):
        return None
    last = looks[-1]
    qs = quantiles(sched, family, alpha, spending)
    serves = tuple(families.Serves(v, families.ALL) if isinstance(v, str) else v
                   for v in verdicts)
    return Summary(block, last.rounds, sched.rounds_max - last.rounds, last.mean_log,
                   last.sd_log, last.lo, last.hi, tuple(rule_boundaries), qs[-1],
                   tuple(sched.looks), tuple(qs), tuple(v.verdict for v in serves), serves)


# ------------------------------------------------ the verdict order: chance per second



def gap_chances(s: Summary, n_next: int, q_next: float,
                edges: Sequence[float] | None = None) -> tuple[float, ...]:
    """The predicted chance, per gap between ``edges`` (sorted; by default the comparison's
    rule boundaries; the first gap lies below the lowest, the last above the highest), that
    the CI at a look after ``n_next`` rounds whose quantile is ``q_next`` lies wholly in that
    gap: with the true mean log ratio taken as today's estimate m and the sd as today's s,
    the mean at that look is normal around m with sd s sqrt(n' - n) / n' and the CI's
    half-width is q' s / sqrt(n'). A comparison decided already against these edges has
    chance 1 in its gap; one that cannot move (no spread, no rounds to come) has 0
    everywhere."""
    ends = s.rule_boundaries if edges is None else tuple(edges)
    lbs = sorted(math.log(b) for b in ends)
    gaps = [-math.inf, *lbs, math.inf]
    if R.decided(s.lo, s.hi, ends):
        mid = 0.5 * (math.log(s.lo) + math.log(s.hi)) if s.lo > 0.0 and \
            math.isfinite(s.hi) else s.mean_log
        return _one_hot(gaps, mid)
    if not (s.sd_log > 0.0) or n_next <= s.rounds:
        return (0.0,) * (len(gaps) - 1)
    h = I.half_log(s.sd_log, n_next, quantile=q_next)
    spread = s.sd_log * math.sqrt(n_next - s.rounds) / n_next
    # the CI holds no edge: its mean lies in a gap between edges wider than 2h
    out = []
    for lo, hi in zip(gaps, gaps[1:]):
        a, b = lo + h, hi - h
        out.append(max(0.0, _normal_mass((a - s.mean_log) / spread, (b - s.mean_log) / spread))
                   if a < b else 0.0)
    return tuple(out)


def _one_hot(edges: Sequence[float], x: float) -> tuple[float, ...]:
    """1 for the first gap of ``edges`` that holds x, 0 for the others."""
    out, hit = [], False
    for lo, hi in zip(edges, edges[1:]):
        here = not hit and lo <= x <= hi
        hit |= here
        out.append(1.0 if here else 0.0)
    return tuple(out)


def p_decided_at(s: Summary, n_next: int, q_next: float) -> float:
    """The predicted chance that comparison ``s`` is decided at a look after ``n_next``
    rounds whose quantile is ``q_next`` (no boundary inside its CI): the sum of its
    :func:`gap_chances`; 1 when it is decided already."""
    if not undecided(s):
        return 1.0
    return min(1.0, max(0.0, sum(gap_chances(s, n_next, q_next))))


def _phi(z: float) -> float:
    """The standard normal cdf (scipy's, to rounding), without scipy's per-call overhead:
    the top-up's order calls it for every comparison at every grant."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _normal_mass(za: float, zb: float) -> float:
    """P(za < Z < zb) for a standard normal Z, from the tail nearer to the interval (an
    upper tail read as 1 - cdf is 0 in floating point beyond z ~ 8.3, where the upper tail
    itself, cdf(-z), still holds it: a chance must not read 0 on one side of a boundary
    and 1e-26 on the other)."""
    if za > 0.0:
        return _phi(-za) - _phi(-zb)
    return _phi(zb) - _phi(za)


def undecided(s: Summary) -> bool:
    """A boundary lies strictly inside the comparison's CI at its latest look."""
    return not R.decided(s.lo, s.hi, s.rule_boundaries)


def _next(s: Summary) -> tuple[int, float]:
    """The block's next look after the comparison's rounds and its quantile (the rounds
    themselves and 0 where none is left)."""
    later = [(n, q) for n, q in zip(s.looks, s.q_looks) if n > s.rounds]
    return later[0] if later else (s.rounds, 0.0)


def _max(s: Summary) -> tuple[int, float]:
    """The block's last look and its quantile (the rounds so far and 0 where it is reached)."""
    return (s.looks[-1], s.q_looks[-1]) if s.looks and s.looks[-1] > s.rounds \
        else (s.rounds, 0.0)


@lru_cache(maxsize=1 << 16)
def p_next(s: Summary) -> float:
    """:func:`p_decided_at` at the block's next look (its quantile, not the final one's).
    Cached (a :class:`Summary` is frozen)."""
    return p_decided_at(s, *_next(s))


@lru_cache(maxsize=1 << 16)
def p_by_max(s: Summary) -> float:
    """:func:`p_decided_at` at the block's maximum N (its last look's quantile). Cached."""
    if not s.looks:
        return 0.0
    return p_decided_at(s, *_max(s))


@lru_cache(maxsize=1 << 17)
def gaps_next(s: Summary, edges: tuple[float, ...] | None = None) -> tuple[float, ...]:
    """:func:`gap_chances` at the block's next look (between ``edges``; default the
    comparison's boundaries). Cached: a simulation of the top-up ranks the same unchanged
    comparisons at every grant."""
    return gap_chances(s, *_next(s), edges)


@lru_cache(maxsize=1 << 17)
def gaps_by_max(s: Summary, edges: tuple[float, ...] | None = None) -> tuple[float, ...]:
    """:func:`gap_chances` at the block's maximum N (as :func:`gaps_next`). Cached."""
    if not s.looks:
        return (0.0,) * (len(s.rule_boundaries if edges is None else edges) + 1)
    return gap_chances(s, *_max(s), edges)


@lru_cache(maxsize=4096)
def gap_sides(serve: families.Serves) -> tuple[int, ...]:
    """Per gap between the edges of what the verdict ``serve`` expects of a comparison
    (:meth:`decision.families.Serves.edges`, on the comparison's ratio), what a CI lying
    wholly in it says of the verdict: -1 contradicts it, +1 agrees. One edge, two gaps: an
    effect claim agrees beyond its edge and contradicts on its near side, whatever side of
    the band's other edge the CI lies on (:class:`decision.rule.Expect`). A verdict with no
    expectation of the comparison has no gaps of its own: ()."""
    ends = serve.edges()
    if not ends:
        return ()
    points = [ends[0] / 2.0, *(math.sqrt(a * b) for a, b in zip(ends, ends[1:])),
              ends[-1] * 2.0]
    return tuple(1 if (r := serve.read(x, x)) is not None and r.outcome == R.AGREES else -1
                 for x in points)


def _split(gaps: Sequence[float], sides: Sequence[int]) -> tuple[float, float]:
    """(chance decided compatibly, chance decided contrary) from a comparison's gap chances."""
    agree = sum(g for g, x in zip(gaps, sides) if x > 0)
    return min(1.0, agree), min(1.0, sum(g for g, x in zip(gaps, sides) if x < 0))


def _serves(s: Summary) -> tuple[families.Serves, ...]:
    """A comparison's verdicts as the order models them (bare names: every comparison of
    the verdict must be decided)."""
    return s.serves or tuple(families.Serves(v, families.ALL) for v in s.verdicts)


def open_for(s: Summary, serve: families.Serves) -> bool:
    """Whether the comparison still has a question for the verdict: its CI crosses an edge
    of what the verdict expects of it (or, without an expectation, one of its boundaries)."""
    ends = serve.edges() or s.rule_boundaries
    return not R.decided(s.lo, s.hi, ends)


def _chances(c: Summary, sv: families.Serves, at_next: bool,
             drop_below: float) -> tuple[float, float]:
    """(a, c): the comparison's chances to be decided compatibly with the verdict and
    contrary to it (its block's next look where ``at_next``, else by its maximum); 0 and 0
    for a comparison with less than ``drop_below`` chance by its maximum (dropped: it decides
    nothing). A verdict that reads no edge of it, or that one comparison cannot refute,
    counts only its chance to be decided."""
    ends = sv.edges()
    if ends:
        if R.decided(c.lo, c.hi, ends):
            r = sv.read(c.lo, c.hi)
            agrees = r is not None and r.outcome == R.AGREES
            return (1.0, 0.0) if agrees or not sv.alone else (0.0, 1.0)
        if sum(gaps_by_max(c, ends)) < drop_below:
            return 0.0, 0.0
        gaps = gaps_next(c, ends) if at_next else gaps_by_max(c, ends)
        a, cc = _split(gaps, gap_sides(sv))
        return (a, cc) if sv.alone else (min(1.0, a + cc), 0.0)
    if p_by_max(c) < drop_below:
        return 0.0, 0.0
    return min(1.0, sum(gaps_next(c) if at_next else gaps_by_max(c))), 0.0


def verdict_scores(summaries: Iterable[Summary], drop_below: float = DROP_BELOW
                   ) -> dict[str, dict[str, float]]:
    """Block -> verdict -> the predicted chance that the block's next look decides the
    verdict (the terms :func:`rank_by_verdicts` sums): a verdict is decided when one of its
    comparisons contradicts it (a size that contradicts a claim about every size refutes
    it) or when every comparison agrees. With a_i and c_i a comparison's chances to be
    decided compatibly and contrary (the block's at its next look; the others' by their
    maximum; independent), the block's look is credited with the chance that its own
    comparisons refute the verdict at that look, plus the chance that all agree:
    (1 - prod_own (1 - c_i)) + prod_all a_i. The others' chances to refute it later do not
    discount the look (they need looks of their own, and the order is re-read after every
    grant, so a verdict refuted by one block's look takes nothing more from the others;
    discounting them left a verdict that several blocks would each surely refute with no
    look at all). A verdict refuted already
    counts for no block; a block counts a verdict only while one of its comparisons still
    has a question for it (:func:`open_for`): a comparison whose CI lies wholly on one side
    of the verdict's edge gets no more rounds for it."""
    ss = [s for s in summaries if s.verdicts]
    by_verdict: dict[str, list[tuple[Summary, families.Serves]]] = {}
    for s in ss:
        for v in _serves(s):
            by_verdict.setdefault(v.verdict, []).append((s, v))
    refuted = set()
    for v, comps in by_verdict.items():
        for s, sv in comps:
            r = sv.read(s.lo, s.hi) if sv.alone and sv.edges() and \
                R.decided(s.lo, s.hi, sv.edges()) else None
            if r is not None and r.outcome == R.CONTRADICTS:
                refuted.add(v)
    out: dict[str, dict[str, float]] = {}
    for block in sorted({s.block for s in ss}):
        mine = [s for s in ss if s.block == block]
        if not any(s.rounds_left > 0 for s in mine):
            continue
        scores: dict[str, float] = {}
        for v in sorted({v for s in mine for v in s.verdicts}):
            comps = by_verdict[v]
            if v in refuted or not any(s.block == block and s.rounds_left > 0
                                       and open_for(s, sv) for s, sv in comps):
                continue  # decided already, or as far as this block goes
            agree_all, own_none = 1.0, 1.0
            for c, sv in comps:
                a, cc = _chances(c, sv, c.block == block, drop_below)
                agree_all *= a
                if c.block == block:
                    own_none *= 1.0 - cc
            score = (1.0 - own_none) + agree_all
            if score > 0.0:
                scores[v] = score
        if scores:
            out[block] = scores
    return out


def rank_by_verdicts(summaries: Iterable[Summary], seconds: Mapping[str, float],
                     drop_below: float = DROP_BELOW) -> list[tuple[str, float]]:
    """The top-up order of :data:`ORDER_RULE`: each block with rounds left and a verdict
    testable here still open for one of its comparisons, by the predicted chance per second
    that its next look decides a verdict (:func:`verdict_scores`, summed over the block's
    verdicts, divided by the next look's ``seconds``). Blocks whose score is 0 are not
    listed; ties go to the smaller block id."""
    out = {b: sum(v.values()) / seconds[b]
           for b, v in verdict_scores(summaries, drop_below).items()
           if b in seconds and seconds[b] > 0.0}
    return sorted(((b, x) for b, x in out.items() if x > 0.0), key=lambda kv: (-kv[1], kv[0]))


# ------------------------------------------------------------- planning: the chance to decide

#: simulated runs per comparison for :func:`p_decided` (seeded: a plan prints the same)
PLAN_DRAWS = 4000
PLAN_SEED = 20261125


def p_decided(mean_log: float, sd: float, sched: Schedule, family: int,
              rule_boundaries: Sequence[float], spending: str = POCOCK, alpha: float = ALPHA,
              draws: int = PLAN_DRAWS, seed: int = PLAN_SEED) -> tuple[float, float]:
    """The chance that a comparison whose per-round log ratios are normal with mean
    ``mean_log`` and sd ``sd`` is decided (a) at the first look and (b) at some look up to
    the schedule's maximum, each look reading the repeated CI of the rounds so far; by a
    seeded simulation of ``draws`` runs (the planning number a plan prints)."""
    if not sd > 0.0:
        inside = any(math.log(b) == mean_log for b in rule_boundaries)
        return (0.0, 0.0) if inside else (1.0, 1.0)
    rng = np.random.default_rng(seed)
    x = mean_log + sd * rng.standard_normal((draws, sched.rounds_max))
    mean, _, half = I.running(x, sched.looks, quantiles(sched, family, alpha, spending))
    straddled = np.zeros_like(mean, dtype=bool)
    for b in rule_boundaries:
        straddled |= R.crosses(mean - half, mean + half, math.log(b))
    ok = ~straddled
    return float(ok[:, 0].mean()), float(ok.any(axis=1).mean())

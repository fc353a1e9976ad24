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
  rates stay within alpha + 0.02 at this design's rounds, scripts/simulate_topup.py prints
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
    # running sums of the values less the first one (a shift that keeps the variance exact)
    y = d[:reached[-1]] - d[0]
    s1, s2 = np.cumsum(y), np.cumsum(y * y)
    out: list[Look] = []
    for j, (n, q, level) in enumerate(zip(reached, qs, levels), 1):
        m = float(s1[n - 1]) / n
        sd = math.sqrt(max(float(s2[n - 1]) - n * m * m, 0.0) / (n - 1))
        mean = float(d[0]) + m
        half = q * sd / math.sqrt(n)
        out.append(Look(j, n, _exp(mean), _exp(mean - half), _exp(mean + half), level, mean,
                        sd))
    return out


def _exp(x: float) -> float:
    """exp that gives inf past the float range (an early look's q can be in the hundreds)."""
    return math.exp(x) if x < 709.0 else math.inf


# ----------------------------------------------------------- reading a CI against its rule

def decided(lo: float, hi: float, rule_boundaries: Iterable[float]) -> bool:
    """A CI is decided when no boundary of its rule lies strictly inside it (it lies wholly
    on one side of each: direction 0.97 / 1.03, "~R" R/1.25 / 1.25 R, above/below X: X).
    A CI with a NaN end decides nothing."""
    if math.isnan(lo) or math.isnan(hi):
        return False
    return not any(lo < b < hi for b in rule_boundaries)


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
    inside = [b for b in s.rule_boundaries if s.lo < b < s.hi]
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
        mean, sd = float(x.mean()), float(x.std(ddof=1))
        q = float(stats.t.isf((1.0 - level) / 2.0, x.size - 1))
        half = q * sd / math.sqrt(x.size)
        out.append(Look(j, n, _exp(mean), _exp(mean - half), _exp(mean + half), level, mean,
                        sd))
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



def gap_chances(s: Summary, n_next: int, q_next: float) -> tuple[float, ...]:
    """The predicted chance, per gap between the comparison's boundaries (sorted; the
    first gap lies below the lowest, the last above the highest), that the CI at a look
    after ``n_next`` rounds whose quantile is ``q_next`` lies wholly in that gap: with the
    true mean log ratio taken as today's estimate m and the sd as today's s, the mean at
    that look is normal around m with sd s sqrt(n' - n) / n' and the CI's half-width is
    q' s / sqrt(n'). A comparison decided already has chance 1 in its gap; one that
    cannot move (no spread, no rounds to come) has 0 everywhere."""
    lbs = sorted(math.log(b) for b in s.rule_boundaries)
    edges = [-math.inf, *lbs, math.inf]
    if not undecided(s):
        mid = 0.5 * (math.log(s.lo) + math.log(s.hi)) if s.lo > 0.0 and \
            math.isfinite(s.hi) else s.mean_log
        return _one_hot(edges, mid)
    if not (s.sd_log > 0.0) or n_next <= s.rounds:
        return (0.0,) * (len(edges) - 1)
    h = q_next * s.sd_log / math.sqrt(n_next)
    spread = s.sd_log * math.sqrt(n_next - s.rounds) / n_next
    # the CI holds no boundary: its mean lies in a gap between boundaries wider than 2h
    out = []
    for lo, hi in zip(edges, edges[1:]):
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
    return any(s.lo < b < s.hi for b in s.rule_boundaries)


@lru_cache(maxsize=1 << 16)
def p_next(s: Summary) -> float:
    """:func:`p_decided_at` at the block's next look (its quantile, not the final one's).
    Cached (a :class:`Summary` is frozen): the order reads the same comparison's chance once
    per verdict and block it serves, and a simulation of the top-up ranks the same
    unchanged comparisons at every grant."""
    later = [(n, q) for n, q in zip(s.looks, s.q_looks) if n > s.rounds]
    return p_decided_at(s, *later[0]) if later else (0.0 if undecided(s) else 1.0)


@lru_cache(maxsize=1 << 16)
def p_by_max(s: Summary) -> float:
    """:func:`p_decided_at` at the block's maximum N (its last look's quantile). Cached, as
    :func:`p_next`."""
    if not s.looks:
        return 0.0
    return p_decided_at(s, s.looks[-1], s.q_looks[-1]) if s.looks[-1] > s.rounds else \
        (0.0 if undecided(s) else 1.0)


@lru_cache(maxsize=1 << 16)
def gaps_next(s: Summary) -> tuple[float, ...]:
    """:func:`gap_chances` at the block's next look (as :func:`p_next`). Cached."""
    later = [(n, q) for n, q in zip(s.looks, s.q_looks) if n > s.rounds]
    return gap_chances(s, *later[0]) if later else gap_chances(s, s.rounds, 0.0)


@lru_cache(maxsize=1 << 16)
def gaps_by_max(s: Summary) -> tuple[float, ...]:
    """:func:`gap_chances` at the block's maximum N (as :func:`p_by_max`). Cached."""
    if not s.looks:
        return (0.0,) * (len(s.rule_boundaries) + 1)
    return gap_chances(s, s.looks[-1], s.q_looks[-1]) if s.looks[-1] > s.rounds else \
        gap_chances(s, s.rounds, 0.0)


#: two boundaries count as the pair 1 - t, 1 + t of a direction rule when x + y is 2 within
#: this (a profile writes 1 / 1.07 as 0.934579)
PAIR_TOL = 1e-5


@lru_cache(maxsize=4096)
def gap_sides(rule_boundaries: tuple[float, ...], serve: families.Serves) -> tuple[int, ...]:
    """Per gap between a comparison's boundaries (as :func:`gap_chances` orders them), what a
    CI in it says of the verdict ``serve``: -1 refutes it by itself (its outcome, in the
    rule's ratio, is one of ``serve.contrary``), +1 agrees or leaves it to the other
    comparisons. The rule's outcomes are those of a direction rule (greater above 1 + t,
    less below 1 - t, equivalent between, analysis.statistics.stats.DecisionRule): its boundaries are
    the pair x < 1 < y of the comparison's (inverted where the rule's ratio is the
    comparison's inverse) with x + y = 2. Where no such pair is unique, or the verdict has
    no contrary outcome, every gap counts +1 (decided only when every comparison is)."""
    k = len(rule_boundaries) + 1
    if not serve.contrary:
        return (1,) * k
    own = sorted((1.0 / b if serve.inverse else b) for b in rule_boundaries if b > 0.0)
    pairs = [(x, y) for x in own if x < 1.0 for y in own if y > 1.0
             if abs(x + y - 2.0) < PAIR_TOL]
    if len(pairs) != 1:
        return (1,) * k
    lx, ly = math.log(pairs[0][0]), math.log(pairs[0][1])
    edges = [-math.inf, *sorted(math.log(b) for b in rule_boundaries), math.inf]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        r_lo, r_hi = (-hi, -lo) if serve.inverse else (lo, hi)
        if r_lo >= ly - PAIR_TOL:
            outcome = families.GREATER
        elif r_hi <= lx + PAIR_TOL:
            outcome = families.LESS
        elif r_lo >= lx - PAIR_TOL and r_hi <= ly + PAIR_TOL:
            outcome = families.EQUIVALENT
        else:
            outcome = ""
        out.append(-1 if outcome in serve.contrary else 1)
    return tuple(out)


def _split(gaps: Sequence[float], sides: Sequence[int]) -> tuple[float, float]:
    """(chance decided compatibly, chance decided contrary) from a comparison's gap chances."""
    agree = sum(g for g, x in zip(gaps, sides) if x > 0)
    return min(1.0, agree), min(1.0, sum(g for g, x in zip(gaps, sides) if x < 0))


def _serves(s: Summary) -> tuple[families.Serves, ...]:
    """A comparison's verdicts as the order models them (bare names: every comparison of
    the verdict must be decided)."""
    return s.serves or tuple(families.Serves(v, families.ALL) for v in s.verdicts)


def rank_by_verdicts(summaries: Iterable[Summary], seconds: Mapping[str, float],
                     drop_below: float = DROP_BELOW) -> list[tuple[str, float]]:
    """The top-up order of :data:`ORDER_RULE`: each block with rounds left and an undecided
    comparison that serves a verdict testable here, by the predicted chance per second
    that its next look decides a verdict, summed over the verdicts its comparisons serve
    and divided by the next look's seconds (``seconds``).

    A verdict is decided when one of its comparisons is decided contrary (a size that
    contradicts an "every size" claim refutes it, :class:`decision.families.Serves`), or
    when every comparison is decided and none is contrary. With a_i and c_i a comparison's
    chances to be decided compatibly and contrary (the block's at its next look,
    :func:`gaps_next`; the others' by their maximum, :func:`gaps_by_max`; independent), the
    chance that the block's look decides it is the chance that its own comparisons refute
    it while no other would, plus the chance that all are decided compatibly:
    prod_other (1 - c_j) (1 - prod_own (1 - c_i)) + prod_all a_i. A verdict already
    refuted by a decided comparison counts 0 (it needs no more rounds); one whose
    comparisons in this block are all decided counts 0 for the block. A comparison with a
    chance below ``drop_below`` (the design's, :data:`DROP_BELOW` = 10 %) to be decided by
    its maximum is dropped: it decides nothing (a_i = c_i = 0), so the verdicts it serves
    can still be refuted by their other comparisons. For a verdict none of whose
    comparisons can refute it alone, this is the product of the comparisons' chances.
    Blocks whose score is 0 are not listed; ties go to the smaller block id."""
    ss = [s for s in summaries if s.verdicts]
    by_verdict: dict[str, list[tuple[Summary, families.Serves]]] = {}
    for s in ss:
        for v in _serves(s):
            by_verdict.setdefault(v.verdict, []).append((s, v))
    refuted = {v for v, comps in by_verdict.items()
               if any(_split(gap_chances(s, s.rounds, 0.0),
                             gap_sides(s.rule_boundaries, sv))[1] >= 1.0 for s, sv in comps)}
    out: dict[str, float] = {}
    for block in sorted({s.block for s in ss}):
        mine = [s for s in ss if s.block == block]
        # undecided, not "a chance below 1": a comparison sure to be decided at its next
        # look (a chance of 1.0 in floating point) is the best use of a look, not a decided one
        if not any(s.rounds_left > 0 and undecided(s) for s in mine) or \
                block not in seconds or not seconds[block] > 0.0:
            continue
        score = 0.0
        for v in sorted({v for s in mine for v in s.verdicts}):
            comps = by_verdict[v]
            if v in refuted or not any(s.block == block and undecided(s)
                                       for s, _ in comps):
                continue  # decided already, or as far as this block goes
            agree_all, own_none, other_none = 1.0, 1.0, 1.0
            for c, sv in comps:
                if p_by_max(c) < drop_below:
                    a = cc = 0.0
                else:
                    gaps = gaps_next(c) if c.block == block else gaps_by_max(c)
                    a, cc = _split(gaps, gap_sides(c.rule_boundaries, sv))
                agree_all *= a
                if c.block == block:
                    own_none *= 1.0 - cc
                else:
                    other_none *= 1.0 - cc
            score += other_none * (1.0 - own_none) + agree_all
        if score > 0.0:
            out[block] = score / seconds[block]
    return sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))


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
    n = np.asarray(sched.looks, dtype=float)
    idx = np.asarray(sched.looks) - 1
    c1, c2 = np.cumsum(x, axis=1)[:, idx], np.cumsum(x * x, axis=1)[:, idx]
    mean = c1 / n
    s = np.sqrt(np.maximum((c2 - n * mean * mean) / (n - 1), 0.0))
    half = np.asarray(quantiles(sched, family, alpha, spending)) * s / np.sqrt(n)
    straddled = np.zeros_like(mean, dtype=bool)
    for b in rule_boundaries:
        lb = math.log(b)
        straddled |= (mean - half < lb) & (lb < mean + half)
    ok = ~straddled
    return float(ok[:, 0].mean()), float(ok.any(axis=1).mean())

"""The smallest effect of interest of a direction rule ("X beats Y"), derived from the noise
and the design a run reads its comparisons with, in one function (:func:`derive`) that both the
planner (runner.plan.rounds: plan.json's ``design.sesoi`` and its warning) and the book
(analysis.claims.sesoi.text) call.

Definition. A direction rule reads a comparison's CI against the band [1 - t, 1 + t]: "greater"
above it, "less" below, "equivalent" inside. The band is the smallest t for which the design
*can* say "no difference": with a true ratio of 1 and a per-round sd of the log ratio sigma,
the repeated CI at the design's last look (N rounds, quantile q_K of its family's level,
:func:`decision.sequential.quantiles`) lies inside the band with probability at least
:data:`POWER` (80 %, the usual target; Cohen 1988). A smaller band makes "equivalent" out of
reach even when the claim's effect is exactly zero, so every comparison near 1 would end
undecided whatever the truth; that is the sense in which the band is what the testbed resolves.
The band is rounded up to a whole percent.

The second power the derivation states is the direction's: the smallest true ratio at which the
last look's CI lies wholly above 1 + t with probability :data:`POWER` (by symmetry, below
1 - t for its mirror), i.e. the effect a claim needs for the design to decide its direction.

Both chances are computed at the last look alone, exactly for normal per-round log ratios: the
mean and the sample sd are independent, the mean normal with sd sigma / sqrt(N), the sd a
scaled chi; the chance is integrated over the sd (scipy's quad). An earlier look can only add
decisions (at the cost of a wrong one with at most the family's alpha), so the last look's
chance is the design's, to within that alpha.
"""

from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import asdict, dataclass
from typing import Any

from scipy import integrate, optimize, stats

from decision import families
from decision import interval as I
from decision.band import band as band_
from decision.schedule import CONFIDENCE
from decision import sequential as sq

#: the chance the design must give to decide (the usual 80 %)
POWER = 0.80
#: the largest family a direction verdict combines (the fixed families of the claims' table:
#: 4 sizes)
FAMILY = max(m for m in families.FAMILY.values() if isinstance(m, int))


def last_quantile(design: sq.SequentialDesign, family: int) -> tuple[float, int]:
    """(q_K, N): the repeated-CI quantile of the design's last look at the family's level and
    that look's rounds (a design whose first look is the block's planned rounds is read from
    its maximum: the last look does not depend on where the first falls beyond its
    spending)."""
    sched = design.schedule(design.first_look or design.rounds_max)
    return sq.quantiles(sched, family, design.alpha, design.spending)[-1], sched.rounds_max


def _phi(z: float) -> float:
    """The standard normal cdf (scipy's, to rounding), without scipy's per-call overhead: the
    integrals below evaluate it hundreds of times each."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _chi2_pdf(x: float, df: int, log_norm: float) -> float:
    """The chi-square density (scipy's, to rounding), ``log_norm`` its log normalising
    constant."""
    return math.exp((df / 2.0 - 1.0) * math.log(x) - x / 2.0 - log_norm) if x > 0.0 else 0.0


def _over_sd(f, n: int) -> float:
    """E[f(s / sigma)] over the sample sd of n normal values: s^2 / sigma^2 ~ chi2(n-1)/(n-1)."""
    df = n - 1
    lo, hi = stats.chi2.ppf(1e-9, df), stats.chi2.ppf(1 - 1e-9, df)
    log_norm = (df / 2.0) * math.log(2.0) + math.lgamma(df / 2.0)
    val, _ = integrate.quad(lambda x: f(math.sqrt(x / df)) * _chi2_pdf(x, df, log_norm), lo,
                            hi, limit=200)
    return float(val)


def equivalence_power(t: float, sigma: float, q: float, n: int) -> float:
    """P(the CI exp(mean +- q s / sqrt(n)) lies inside [1 - t, 1 + t]) at a true ratio of 1."""
    if not 0.0 < t < 1.0:
        raise ValueError(f"band must lie in (0, 1), got {t!r}")
    if not sigma > 0.0:
        return 1.0
    up, down, se = math.log1p(t), math.log1p(-t), sigma / math.sqrt(n)

    def inside(r: float) -> float:
        h = q * r * se  # the half-width for a sample sd of r sigma
        return max(0.0, _phi((up - h) / se) - _phi((down + h) / se))

    return _over_sd(inside, n)


def direction_power(ratio: float, t: float, sigma: float, q: float, n: int) -> float:
    """P(the CI lies wholly above 1 + t) at a true ratio ``ratio`` > 1 (the mirror case below
    1 - t is the same at 1 / ratio, to the band's asymmetry)."""
    se = sigma / math.sqrt(n)
    gap = math.log(ratio) - math.log1p(t)
    return _over_sd(lambda r: _phi((gap - q * r * se) / se), n)


@dataclass(frozen=True)
class Derivation:
    """The smallest effect of interest and what it rests on."""

    sigma: float  # per-round sd of the log ratio
    family: int  # m: the verdict's family (Bonferroni)
    rounds: int  # N: the design's last look
    quantile: float  # q_K: the last look's quantile at alpha / m
    power: float  # the target chance (80 %)
    band: float  # the smallest t with P(equivalent | ratio 1) >= power (unrounded)
    sesoi: float  # band rounded up to a whole percent
    power_equivalent: float  # P(equivalent | ratio 1) at sesoi
    detectable: float  # the true ratio at which the direction is decided with ``power``
    half_width: float  # the last look's CI half-width at s = sigma, exp(q sigma / sqrt N) - 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        """The derivation in words (the planner's note and the book's sentence use it)."""
        if not math.isfinite(self.sesoi):
            return (f"no band below ±100%: the CI at the design's last look ({self.rounds} "
                    f"rounds, quantile {self.quantile:.2f} at the level of a family of "
                    f"{self.family}) falls inside one with {self.power:.0%} probability at no "
                    f"band at a per-round sd of the log ratio of {self.sigma:.3f}")
        return (f"±{self.sesoi:.0%}: the smallest band inside which the CI at the design's last "
                f"look ({self.rounds} rounds, quantile {self.quantile:.2f} at the level of a "
                f"family of {self.family}) falls with {self.power:.0%} probability when the true "
                f"ratio is 1, at a per-round sd of the log ratio of {self.sigma:.3f} "
                f"(±{self.band:.1%}, rounded up to a whole percent; at ±{self.sesoi:.0%} the "
                f"chance is {self.power_equivalent:.0%}); the direction is decided with "
                f"{self.power:.0%} probability from a true ratio of {self.detectable:.3g} "
                "on (or its mirror below 1)")


def derive(sigma: float, design: sq.SequentialDesign, family: int,
           power: float = POWER) -> Derivation:
    """The smallest effect of interest for per-round sd ``sigma`` under ``design`` (its last
    look's quantile at alpha / family), as the module doc defines it."""
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    if not 0.5 <= power < 1.0:
        raise ValueError(f"power must lie in [0.5, 1), got {power!r}")
    q, n = last_quantile(design, family)

    def short(t: float) -> float:
        return equivalence_power(t, sigma, q, n) - power

    hi = 0.5
    while short(hi) < 0.0 and hi < 0.999:
        hi = (1.0 + hi) / 2.0
    if short(hi) < 0.0:  # too few rounds for any band below 100 %: nothing is resolved
        return Derivation(sigma, family, n, q, power, math.inf, math.inf,
                          equivalence_power(hi, sigma, q, n), math.inf,
                          math.expm1(I.half_log(sigma, n, quantile=q)))
    band = float(optimize.brentq(short, 1e-6, hi, xtol=1e-7))
    sesoi = math.ceil(band * 100 - 1e-9) / 100
    detectable = float(optimize.brentq(
        lambda r: direction_power(r, sesoi, sigma, q, n) - power, band_(sesoi)[1], 100.0,
        xtol=1e-7))
    return Derivation(sigma, family, n, q, power, band, sesoi,
                      equivalence_power(sesoi, sigma, q, n), detectable,
                      math.expm1(I.half_log(sigma, n, quantile=q)))


# ------------------------------------------------------------------------ the A/A control

@dataclass(frozen=True)
class ControlRounds:
    """The rounds the A/A control is planned to, and its chance to read "equivalent"."""

    rounds: int  # planned (capped at the design's maximum)
    wanted: int  # the rounds that reach ``power`` (may exceed ``rounds``)
    chance: float  # P(the CI lies inside the band | true ratio 1) at ``rounds``
    sigma: float
    band: float
    power: float

    def text(self) -> str:
        def pct(x: float) -> str:
            return f"{100 * x:.0f} %"

        capped = (f" (it would need {self.wanted} for {pct(self.power)}; the design's maximum "
                  f"is {self.rounds})" if self.wanted > self.rounds else "")
        return (f"the A/A control runs {self.rounds} rounds: at the noise model's per-round sd "
                f"of the log ratio of {self.sigma:.3f}, its 95 % CI of a true ratio of 1 lies "
                f"inside ±{pct(self.band)} with probability {pct(self.chance)}{capped}")


@lru_cache(maxsize=256)
def control_rounds(sigma: float, band: float, most: int, power: float = POWER,
                   level: float = CONFIDENCE, least: int = 2) -> ControlRounds:
    """The A/A control's rounds: the fewest n >= ``least`` at which its fixed t CI at
    ``level`` (family 1: it is one comparison) of a true ratio of 1 lies inside [1 - band,
    1 + band] with probability at least ``power`` at per-round sd ``sigma``
    (:func:`equivalence_power`), capped at ``most``; with that chance at the rounds planned."""
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")

    def chance(n: int) -> float:
        return equivalence_power(band, sigma, I.t_quantile(level, n), n)

    wanted = next((n for n in range(max(2, least), 1001) if chance(n) >= power), 1001)
    rounds = max(least, min(wanted, most))
    return ControlRounds(rounds, wanted, chance(rounds), sigma, band, power)


# ------------------------------------------------------- what a per-round sd means for a verdict

@dataclass(frozen=True)
class Needs:
    """The rounds a comparison needs at a per-round sd of the log ratio ``sigma``, read as the
    band is derived (the design's looks, their repeated-CI quantiles at the level of a family
    of ``family``): for "equivalent" at a true ratio of 1, and for the direction at true
    ratios a relative ``beyond`` past the band's edge (both with probability ``power``)."""

    sigma: float
    band: float
    family: int
    power: float
    looks: tuple[int, ...]  # the design's looks (rounds)
    quantiles: tuple[float, ...]  # their quantiles at the family's level
    equivalent: float  # rounds for P(CI inside the band | ratio 1) >= power
    chance_at_last: float  # P(CI inside the band | ratio 1) at the design's last look
    beyond: tuple[float, ...]  # relative distances past the edge, e.g. 0.06 = 6 % past it
    direction: tuple[float, ...]  # rounds for the direction at each of ``beyond``

    @property
    def rounds_max(self) -> int:
        return self.looks[-1]


def equivalence_rounds(sigma: float, t: float, looks: tuple[int, ...],
                       quantiles: tuple[float, ...], power: float = POWER,
                       most: int = 100_000) -> float:
    """The rounds at which the CI of a true ratio of 1 lies inside [1 - t, 1 + t] with
    probability ``power`` (:func:`equivalence_power`) at per-round sd ``sigma``: the first of
    the design's ``looks`` that reaches it at its quantile, else (past the last look) the
    fewest n that reaches it at the last look's quantile, as
    :func:`decision.interval.rounds_to_decide` extends a design past its last look; inf past
    ``most``."""
    for n, q in zip(looks, quantiles):
        if equivalence_power(t, sigma, q, n) >= power:
            return float(n)
    q = quantiles[-1]
    lo, hi = looks[-1], looks[-1] * 2
    while equivalence_power(t, sigma, q, hi) < power:
        lo, hi = hi, hi * 2
        if hi > most:
            return math.inf
    while hi - lo > 1:  # the chance grows with n: bisect for the fewest n that reaches it
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if equivalence_power(t, sigma, q, mid) >= power else (mid, hi)
    return float(hi)


def needs(sigma: float, design: sq.SequentialDesign, family: int, t: float,
          beyond: tuple[float, ...], power: float = POWER) -> Needs:
    """:class:`Needs` at per-round sd ``sigma`` under ``design`` (its looks from its first
    look, else from its maximum, as :func:`last_quantile` reads it) at the level of a family
    of ``family``, the band ``t``."""
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    sched = design.schedule(design.first_look or design.rounds_max)
    qs = tuple(float(q) for q in sq.quantiles(sched, family, design.alpha, design.spending))
    looks = tuple(int(n) for n in sched.looks)
    direction = tuple(I.rounds_to_decide(math.log1p(x), sigma, power, looks=looks,
                                         quantiles=qs) for x in beyond)
    return Needs(sigma, t, family, power, looks, qs,
                 equivalence_rounds(sigma, t, looks, qs, power),
                 equivalence_power(t, sigma, qs[-1], looks[-1]), tuple(beyond), direction)


# ------------------------------------------------------------------ the A/A control's rule

#: the A/A control's one rule, declared once: a pair passes when its paired ratio CI at
#: :data:`decision.schedule.CONFIDENCE` (family 1: one comparison) contains 1. Chosen from the
#: noise model, not from any run's outcome: under a true ratio of 1 with normal per-round log
#: ratios the t CI misses 1 with probability 1 - CONFIDENCE whatever the sd and the rounds,
#: so the rule's false-positive rate is known in advance and the pairs of a run estimate
#: it. Whether the CI also lies inside the claims' band depends on the sd and the rounds
#: (:func:`control_rounds`: about 80 % at the planned rounds): that is the pair's
#: resolution, reported beside the rule and no part of it.
AA_RULE = (f"an A/A pair passes when its paired ratio CI at {CONFIDENCE:.0%} (one comparison) "
           "contains 1; the design's false-positive rate is the share of pairs whose CI "
           f"misses 1 (expected {1 - CONFIDENCE:.0%})")


def aa_passes(lo: float, hi: float) -> bool:
    """:data:`AA_RULE` on a pair's CI [lo, hi] (a CI that is not finite does not pass)."""
    return bool(math.isfinite(lo) and math.isfinite(hi) and lo <= 1.0 <= hi)


@dataclass(frozen=True)
class FalsePositives:
    """The A/A pairs whose CI misses 1 among those read, with the Clopper-Pearson CI of the
    rate at :data:`CONFIDENCE`, and the rate the rule expects."""

    misses: int
    pairs: int
    lo: float
    hi: float
    expected: float = round(1 - CONFIDENCE, 12)

    @property
    def rate(self) -> float:
        return self.misses / self.pairs if self.pairs else math.nan

    def text(self) -> str:
        if not self.pairs:
            return "no A/A pair read: the design's false-positive rate is not estimated"
        return (f"{self.misses} of {self.pairs} A/A pairs miss 1 (false-positive rate "
                f"{self.rate:.0%}, {CONFIDENCE:.0%} CI [{self.lo:.0%}, {self.hi:.0%}], "
                f"Clopper-Pearson; the rule expects {self.expected:.0%})")


def false_positives(misses: int, pairs: int) -> FalsePositives:
    """The false-positive rate of ``misses`` in ``pairs`` A/A pairs with its exact
    (Clopper-Pearson) CI at :data:`CONFIDENCE`."""
    if pairs < 0 or not 0 <= misses <= max(pairs, 0):
        raise ValueError(f"misses must lie in 0..pairs, got {misses} of {pairs}")
    if not pairs:
        return FalsePositives(0, 0, math.nan, math.nan)
    ci = stats.binomtest(misses, pairs).proportion_ci(CONFIDENCE, method="exact")
    return FalsePositives(misses, pairs, float(ci.low), float(ci.high))

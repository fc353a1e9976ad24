"""The intervals every decision reads, computed once: the paired log-ratio t interval (fixed,
at a look's quantile, or for many simulated runs at once), the rounds a comparison needs to
decide, and the percentile bootstrap of a median.

* :func:`paired_interval`: the geometric-mean ratio of per-round ratios with its t interval,
  exp(mean +- q sd / sqrt(n)) over the per-round log ratios, q the t quantile (n - 1 df) at
  a two-sided level (:func:`t_quantile`), or a given quantile (a sequential look's,
  :mod:`decision.sequential`). The fixed design reads it at 1 - alpha/m (Bonferroni over the
  verdict's family of m), the repeated CI at each look's nominal level.
* :func:`running`: the same interval at given rounds for many rows of per-round log ratios at
  once (the simulations of the design and the planner's chance to decide).
* :func:`rounds_to_half_width`: the rounds at which the t interval's half-width reaches a
  target (the planner's n0, the noise chapter's rounds to decide); :func:`rounds_to_decide`:
  the rounds at which a CI clears an edge with a given power (the distance of an undecided
  comparison).
* :func:`median_ci`: the median with a percentile-bootstrap CI (scipy.stats.bootstrap), seeded
  by the caller (the planner seeds with the cell and its count, so plans are reproducible).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats


def t_quantile(level: float, n: int) -> float:
    """The two-sided t quantile with n - 1 degrees of freedom at confidence ``level``."""
    return float(stats.t.ppf(1.0 - (1.0 - level) / 2.0, n - 1))


def half_log(sd: float, n: int, level: float | None = None,
             quantile: float | None = None) -> float:
    """The t interval's half-width on the log scale, q sd / sqrt(n): q the given
    ``quantile`` or the t quantile at ``level`` (n - 1 df); inf below two rounds."""
    if n < 2:
        return math.inf
    q = t_quantile(level, n) if quantile is None else quantile  # type: ignore[arg-type]
    return q * sd / math.sqrt(n)


def level_of(family: int, alpha: float) -> float:
    """The confidence level of one comparison of a family of ``family`` at error ``alpha``
    (Bonferroni)."""
    return 1.0 - alpha / max(1, int(family))


def exp_or_inf(x: float) -> float:
    """exp that gives inf past the float range (an early look's q can be in the hundreds)."""
    return math.exp(x) if x < 709.0 else math.inf


@dataclass(frozen=True)
class Interval:
    """A paired ratio with its interval: the geometric mean exp(mean), the ends exp(mean -+
    half), the mean and sd of the per-round log ratios, their count and the quantile used."""

    estimate: float
    lo: float
    hi: float
    mean_log: float
    sd_log: float
    n: int
    quantile: float

    @property
    def half(self) -> float:
        """The half-width on the log scale (NaN below two values)."""
        return half_log(self.sd_log, self.n, quantile=self.quantile) if self.n >= 2 \
            else math.nan


def paired_interval(log_ratios: Any, level: float | None = None,
                    quantile: float | None = None) -> Interval:
    """The interval of the per-round log ratios (finite values): at confidence ``level`` (the
    t quantile of their count) or at the given ``quantile``. With fewer than two values the
    ends are NaN; with no spread the interval is the point."""
    d = np.asarray(log_ratios, dtype=float).ravel()
    n = int(d.size)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, math.nan, 0, math.nan)
    mean = float(d.mean())
    if n < 2:
        return Interval(exp_or_inf(mean), math.nan, math.nan, mean, math.nan, n, math.nan)
    sd = float(d.std(ddof=1))
    if quantile is None:
        if level is None:
            raise ValueError("paired_interval needs a level or a quantile")
        quantile = t_quantile(level, n)
    half = half_log(sd, n, quantile=quantile)
    return Interval(exp_or_inf(mean), exp_or_inf(mean - half), exp_or_inf(mean + half), mean,
                    sd, n, float(quantile))


def running(x: Any, rounds: Sequence[int], quantiles: Sequence[float]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows of per-round log ratios ``x`` (runs x rounds, in round order), the mean, sd
    and half-width of the interval over the first n of each row, for every n of ``rounds``
    with its quantile: three arrays of runs x len(rounds) (log scale)."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None, :]
    n = np.asarray(rounds, dtype=float)  # the same q sd / sqrt(n) as half_log, per column
    idx = np.asarray(rounds, dtype=int) - 1
    # running sums of the values less each row's first one (a shift that keeps the variance
    # exact when the mean is far from 0)
    y = x - x[:, :1]
    c1, c2 = np.cumsum(y, axis=1)[:, idx], np.cumsum(y * y, axis=1)[:, idx]
    m = c1 / n
    sd = np.sqrt(np.maximum((c2 - n * m * m) / np.maximum(n - 1, 1), 0.0))
    half = np.asarray(quantiles, dtype=float) * sd / np.sqrt(n)
    return x[:, :1] + m, sd, half


def rounds_to_half_width(sd: float, target: float, level: float, least: int = 2,
                         most: int = 100_000) -> int:
    """The smallest n >= ``least`` at which the t interval's half-width t(n - 1) sd / sqrt(n)
    is at most ``target`` (log scale); ``most`` where none up to it is."""
    if not sd > 0:
        return least
    q = 1 - (1 - level) / 2
    n = max(least, math.ceil((stats.norm.ppf(q) * sd / target) ** 2))
    while n < most and half_log(sd, n, level) > target:
        n += 1
    return min(n, most)


def rounds_to_decide(distance_log: float, sd: float, power: float, level: float | None = None,
                     looks: Sequence[int] = (), quantiles: Sequence[float] = (),
                     least: int = 2, beyond: int = 100_000) -> float:
    """The rounds n at which a CI around a true mean log ratio ``distance_log`` away from an
    edge (per-round sd ``sd``) clears it with probability ``power``: (q + z(power)) sd /
    sqrt(n) <= d. With a sequential design's ``looks`` and their ``quantiles``: the first look
    that meets it, else (past the last look) the n that meets it at the last look's quantile;
    else the fixed design's t quantile at ``level``. inf when the distance is 0; past
    ``beyond`` the normal approximation's n is returned as it is."""
    d = abs(distance_log)
    if d == 0.0:
        return math.inf
    z = float(stats.norm.ppf(power))
    if looks:
        for n, q in zip(looks, quantiles):
            if (q + z) * sd / math.sqrt(n) <= d:
                return float(n)
        return float(max(looks[-1] + 1, math.ceil(((quantiles[-1] + z) * sd / d) ** 2)))
    if level is None:
        raise ValueError("rounds_to_decide needs a level or the looks")
    p = (1.0 - level) / 2.0
    n = max(least, math.ceil(((float(stats.norm.isf(p)) + z) * sd / d) ** 2))
    if n > beyond:
        return float(n)
    while (float(stats.t.isf(p, n - 1)) + z) * sd / math.sqrt(n) > d:
        n += 1
    return float(n)


def median_ci(x: Any, confidence: float, resamples: int,
              rng: np.random.Generator) -> tuple[float, float, float, int]:
    """(median, lo, hi, n) of the values ``x`` with a percentile-bootstrap CI
    (scipy.stats.bootstrap, ``rng`` the caller's seeded generator). With fewer than two values
    the CI is NaN; with identical values it collapses to the value."""
    a = np.asarray(x, dtype=float).ravel()
    n = int(a.size)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    med = float(np.median(a))
    if n < 2:
        return med, math.nan, math.nan, n
    if np.all(a == a[0]):
        return med, med, med, n
    res = stats.bootstrap((a,), np.median, confidence_level=confidence,
                          n_resamples=resamples, method="percentile", vectorized=True,
                          axis=-1, random_state=rng)
    return med, float(res.confidence_interval.low), float(res.confidence_interval.high), n

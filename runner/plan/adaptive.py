"""Adaptive repetitions: when has a cell been measured enough?

A cell runs at least ``min`` and at most ``max`` repetitions. After ``min`` it stops as soon
as the percentile-bootstrap CI of the median of its primary metric (throughput, or the median
RTT for pingpong: :func:`decision.quantities.primary`) has a half-width within
``target_rel_ci`` of the median. Pure functions of the
values: the same records always give the same decision (the bootstrap is seeded from the
cell id and the number of values), so a resumed sweep makes the same choices.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from decision import interval as I
from decision.schedule import CONFIDENCE
from runner.plan.profile import Repetitions


@dataclass(frozen=True)
class CI:
    median: float
    low: float
    high: float
    n: int

    @property
    def rel_half_width(self) -> float:
        if self.n < 2 or not math.isfinite(self.low) or not math.isfinite(self.high):
            return math.inf
        if self.median == 0:
            return 0.0 if self.high == self.low else math.inf
        return (self.high - self.low) / 2 / abs(self.median)


def _seed(key: str, n: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{key}:{n}".encode()).digest()[:8], "little")


def median_ci(values: Sequence[float], confidence: float = CONFIDENCE, resamples: int = 2000,
              key: str = "") -> CI:
    """Median and its percentile-bootstrap CI (scipy.stats.bootstrap)."""
    return CI(*I.median_ci(values, confidence, resamples,
                           np.random.default_rng(_seed(key, len(values)))))


@dataclass(frozen=True)
class StopDecision:
    """Whether a cell needs another repetition, and why."""

    more: bool
    reason: str
    ci: CI | None


def decide(attempts: int, values: Sequence[float], reps: Repetitions,
           key: str = "") -> StopDecision:
    """Whether a cell with ``attempts`` repetitions so far (``values`` from the ok ones)
    needs another."""
    if attempts < reps.min:
        return StopDecision(True, "below min", None)
    if attempts >= reps.max:
        return StopDecision(False, "max reached", median_ci(values, reps.confidence,
                                                        reps.resamples, key))
    if not values:
        return StopDecision(False, "no successful repetition", None)
    ci = median_ci(values, reps.confidence, reps.resamples, key)
    if ci.rel_half_width <= reps.target_rel_ci:
        return StopDecision(False, "target reached", ci)
    return StopDecision(True, "CI above target", ci)

"""copybench beside iperf3: the parity margin and its rule, declared before the run that reads
them (:data:`DECLARATIONS`; the book's table of the rules' revisions lists each).

The reading, per size of the stream cells that run beside iperf3 (loopback, cross-core,
:data:`SIZES`; the reference profile's ``stream-peers`` experiment, each size a block of its
own): the throughput ratio copybench :data:`METHOD` / iperf3, paired by round in its block (the
geometric mean of the per-round ratios, t CI at :data:`CONFIDENCE`, one comparison per size:
:data:`FAMILY`), read against [1 - :data:`MARGIN`, 1 + :data:`MARGIN`]:

* ``at parity``: the CI lies inside the margin (two one-sided tests at 2.5 % each);
* ``not at parity``: the CI lies wholly outside it (above 1 + m or below 1 - m);
* ``undecided``: the CI crosses an edge of the margin.

copybench is at parity over the range only where every size reads ``at parity`` (an
intersection-union test: each size at its own level, no correction for the sizes).

The peer's method: iperf3 writes one buffer it never fills again, so each of its writes is the
kernel's copy alone; so is copybench ``sendmsg``'s (its iovecs point at the message's fields).
copybench ``send`` copies the fields into one buffer first (two copies by definition), so
``send`` / iperf3 measures the harness and that memcpy together. The blocks hold ``send``
beside ``sendmsg``: ``send`` / ``sendmsg`` paired by round (:data:`GAP_METHOD` over
:data:`METHOD`) is the cost of that memcpy. A run whose blocks hold no ``sendmsg`` beside
iperf3 is read under the declaration it was made under (:data:`EARLIER`: ``send`` / iperf3)
and says so (:func:`declaration`).

Derivation of the margin: the claims' band of "no difference" (:data:`decision.band.SESOI`,
the smallest effect of interest, derived from the measured noise and the design's last look)
as it stood at the first declaration. A harness that differed from an established tool by more than
the smallest effect the study reads as a difference between two methods could not be said
to measure what that tool measures at the precision the claims are read at; a narrower margin
is out of reach of the planned rounds (below). It is a constant of its own, not the band by
reference: a later revision of the band does not move it (a test holds the two apart).

The rounds: the profile plans each size to a CI of at most ±:data:`PLANNED_HALF_WIDTH` at the
noise model's sd (runner/plan/blocks.py ``hold_rounds``: 21 rounds at the stream, cross-core,
1 s sd of 0.205), so the CI is narrower than the margin and parity can be read; at that sd the
chance to read it is below one in two even at a true ratio of 1 (:func:`chance`: 0.45; 0.38
at the fidelity bench's 0.965), at the bench's own per-round sd (about 0.12) above nine in
ten: an undecided size is the likely reading of a noisy day, not evidence against parity. What the margin gives up: a gap
below 12 % is not resolved as a gap (the fidelity bench measured 0.965 over 20 rounds at 256 KiB).

Only the standard library (the profile loader and the runner import decision/).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Iterable

from decision.schedule import CONFIDENCE  # noqa: F401  (the one level)


@dataclass(frozen=True)
class Declaration:
    """One declaration of the rule: when (UTC) and which copybench method it reads against
    iperf3 (the margin, sizes, rounds and configuration are the same in each)."""

    declared: str
    method: str


#: copybench send / iperf3: a run whose stream-peers blocks hold no sendmsg is read under it
EARLIER = Declaration("2026-11-28T14:28Z", "send")
#: copybench sendmsg / iperf3, the declaration in force: both sides' writes are the kernel's
#: copy alone
IN_FORCE = Declaration("2026-11-29T13:04Z", "sendmsg")
#: every declaration, oldest first
DECLARATIONS = (EARLIER, IN_FORCE)
#: when the rule in force was declared (UTC), before any run that reads it
DECLARED = IN_FORCE.declared
#: the copybench method the rule in force reads against iperf3
METHOD = IN_FORCE.method
#: the method whose gap to :data:`METHOD`, paired by round, is its own memcpy's cost
GAP_METHOD = "send"
#: the parity margin: copybench / iperf3 within [1 - MARGIN, 1 + MARGIN] reads "at parity"
#: (the claims' band at the first declaration)
MARGIN = 0.12
#: the CI half-width (relative) the profile plans each size to (its experiment's target)
PLANNED_HALF_WIDTH = 0.10
#: one comparison per size (an intersection-union reading over the sizes needs no correction)
FAMILY = 1
#: the sizes read (bytes): 16 KiB to 1 MiB
SIZES = (16 << 10, 64 << 10, 256 << 10, 1 << 20)
#: the configuration of the cells
TRANSPORT, PLACEMENT = "loopback", "cross-core"


def declaration(methods: Iterable[str]) -> Declaration:
    """The declaration a run is read under, from the copybench methods it measured beside
    iperf3 at the rule's sizes: the one in force where :data:`METHOD` is among them, else
    :data:`EARLIER` where its method is; the one in force where neither is (nothing to read)."""
    have = set(methods)
    if METHOD in have or EARLIER.method not in have:
        return IN_FORCE
    return EARLIER


AT_PARITY, NOT_AT_PARITY, UNDECIDED = "at parity", "not at parity", "undecided"
READINGS = (AT_PARITY, NOT_AT_PARITY, UNDECIDED)


def edges(margin: float = MARGIN) -> tuple[float, float]:
    """The margin's edges on the ratio copybench / iperf3."""
    return 1.0 - margin, 1.0 + margin


def reading(lo: float, hi: float, margin: float = MARGIN) -> str:
    """The parity reading of a CI [lo, hi] of copybench / iperf3 (see the module doc); a CI
    that is not finite reads ``undecided``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        return UNDECIDED
    a, b = edges(margin)
    if a <= lo and hi <= b:
        return AT_PARITY
    if lo > b or hi < a:
        return NOT_AT_PARITY
    return UNDECIDED


def overall(readings: list[str]) -> str:
    """The range's reading: at parity where every size is, not at parity where one size is
    not, else undecided (none read: undecided)."""
    if readings and all(r == AT_PARITY for r in readings):
        return AT_PARITY
    if any(r == NOT_AT_PARITY for r in readings):
        return NOT_AT_PARITY
    return UNDECIDED


def chance(true_ratio: float, sd: float, rounds: int, margin: float = MARGIN,
           confidence: float = CONFIDENCE) -> float:
    """About how likely the CI after ``rounds`` rounds at per-round sd ``sd`` of the log ratio
    lies inside the margin when the true ratio is ``true_ratio`` (the mean log ratio normal,
    its sd taken as known, the half-width at the t quantile's normal approximation)."""
    if rounds < 2 or sd <= 0:
        return math.nan
    se = sd / math.sqrt(rounds)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    # the t quantile at rounds - 1 df, by Cornish-Fisher (a few terms suffice here)
    df = rounds - 1
    t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
    h = t * se
    lo, hi = math.log(1 - margin) + h, math.log(1 + margin) - h
    if lo >= hi:
        return 0.0
    mu, n = math.log(true_ratio), NormalDist()
    return max(0.0, n.cdf((hi - mu) / se) - n.cdf((lo - mu) / se))

"""One reading per throughput comparison, made once: its ratio, CI, rounds and decision
(direction and size apart, :func:`decision.rule.direction_and_size`) with two labels that are
inputs of the reading, not notes beside it.

* ``bound``: which side set the rate of the cells the comparison rests on (:data:`SENDER`,
  :data:`RECEIVER`, :data:`NEITHER`, :data:`UNKNOWN` where a cell records no CPU figures).
  Each cell's side comes from its busy fractions at the threshold
  :data:`analysis.statistics.bottleneck.BUSY` declares; a comparison is receiver-bound where
  either of its two cells is: a ratio of two rates one of which copybench's receiver set is
  bounded by that receiver, not decided by the two senders (:func:`bound`).
* ``under_minimum``: the comparison rests on fewer rounds than the design's minimum
  (``design.rounds_min``).

The reading (:func:`reading`): a comparison under the minimum reads :data:`NOT_READ`; one
about a sender primitive's rate (:data:`RATE_METRICS`) resting on a receiver-bound cell reads
:data:`RECEIVER_BOUND`, never faster or slower, never holds or refuted; any other reads its
decision. A claim about every size (:func:`claim_verdict`) is refuted by a size that tests
the sender and contradicts it; where no such size does and one of its sizes is
receiver-bound, the verdict reads :data:`RECEIVER_BOUND`.

The rule took effect at :data:`IN_FORCE` (UTC), after the reference run
20261128T171229Z-paper-5394 was seen, for message streams; at :data:`FILE_SOCKET_IN_FORCE`
it took in a file sent into a socket too (the same receiver, the same sides), after that run
and the claims run 20261129T195203Z-claims were seen. Every run made before a version is read
under it post hoc.

Only the standard library (the runner imports decision/).
"""

from __future__ import annotations

import math
from typing import Iterable

#: when this reading rule took effect (UTC): mended after the reference run was seen
IN_FORCE = "2026-11-29T16:22Z"
#: when the reading took in file→socket cells (UTC): mended after two runs were seen
FILE_SOCKET_IN_FORCE = "2026-11-29T23:31Z"

#: which side set a cell's rate (analysis.statistics.bottleneck.limit), in the order a table
#: explains them
RECEIVER, SENDER, NEITHER, UNKNOWN = "receiver", "sender", "neither", "unknown"
BOUNDS = (RECEIVER, SENDER, NEITHER, UNKNOWN)
#: the reading of a comparison resting on fewer rounds than the design's minimum
NOT_READ = "not read"
#: the reading of a comparison of sender rates resting on a cell copybench's receiver bounded
RECEIVER_BOUND = "receiver-bound: not a test of the sender"
#: the readings that are not decisions (counted apart from every decision's count)
UNREAD = (NOT_READ, RECEIVER_BOUND)
#: the metrics that are a rate one side sets (a receiver-bound cell bounds them)
RATE_METRICS = frozenset({"gbit_per_s", "msgs_per_s", "mib_per_s"})


def bound(limits: Iterable[str]) -> str:
    """The side that set the rate of a comparison from its cells' sides: receiver where any
    cell's receiver did, else unknown where any cell's side is unknown, else sender where
    every cell's sender did, else neither (no cell: unknown)."""
    got = [str(x) if x in BOUNDS else UNKNOWN for x in limits]
    if not got:
        return UNKNOWN
    if RECEIVER in got:
        return RECEIVER
    if UNKNOWN in got:
        return UNKNOWN
    return SENDER if all(x == SENDER for x in got) else NEITHER


def under_minimum(rounds: float | None, rounds_min: int | None) -> bool:
    """Whether a comparison resting on ``rounds`` rounds is under the design's minimum
    (``rounds_min`` None: a run that declares none, nothing is under it; rounds not known:
    under it)."""
    if rounds_min is None:
        return False
    if rounds is None or not math.isfinite(float(rounds)):
        return True
    return float(rounds) < rounds_min


def reading(decision: str, bound_: str, under: bool, metric: str = "gbit_per_s") -> str:
    """The one reading of a comparison: :data:`NOT_READ` under the minimum, else
    :data:`RECEIVER_BOUND` for a rate resting on a receiver-bound cell, else ``decision``."""
    if under:
        return NOT_READ
    if bound_ == RECEIVER and metric in RATE_METRICS:
        return RECEIVER_BOUND
    return decision


def claim_verdict(free: str, bound_sizes: Iterable[int], refuted: str = "refuted"
                  ) -> str | None:
    """The verdict of a claim about every size whose sizes ``bound_sizes`` rest on a
    receiver-bound cell, from ``free``, the verdict of its other sizes (those that test the
    sender; :func:`decision.verdict.every`): refuted stays refuted (a size that tests the
    sender contradicts the claim); otherwise :data:`RECEIVER_BOUND` (the claim cannot hold
    at a size that does not test the sender). None where no size is receiver-bound."""
    if not list(bound_sizes):
        return None
    return refuted if free == refuted else RECEIVER_BOUND

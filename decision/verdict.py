"""Combining a claim's per-size readings into its verdict, once: the analysis's rules engine
and the runner's top-up (through :mod:`decision.families`) both follow these.

* :func:`every`: a claim about every size it names (C1, C4, C5, C8, C9, C10, C13, C14, and C6
  at its one size): **refuted** if any size run contradicts it, whatever the others;
  **holds** if every size run agrees (scoped to the sizes run); else **inconclusive**,
  naming the edges its open sizes' CIs cross.
* :func:`above_crossover`: C3's sizes above the claimed crossover band must each agree with
  "greater" (an effect beyond 1 + t); one that contradicts refutes.
* :func:`best_threads`: C11: holds if for t = 2 or 4, t/1 agrees with "greater" and 8/t with
  "less"; refuted if for each t, t/1 contradicts "greater" or 8/t contradicts "less".
* :func:`at_this_noise`: a verdict whose claim expects an effect (greater or less) at a size
  where the report's own published ratio lies inside the band could not hold even if the
  report were exactly right: undecided, or refuted only at such sizes, it reads
  :data:`NOT_TESTABLE` ("not testable at this noise").

The per-size readings are :class:`decision.rule.Read` (agrees, contradicts, open).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from decision import rule as R
from decision.band import band

HOLDS, REFUTED, INCONCLUSIVE = "holds", "refuted", "inconclusive"
NOT_TESTABLE = "not testable here"
#: the run's plan has no cells for the claim (a profile that leaves it out): not a statement
#: about the testbed, unlike NOT_TESTABLE
NOT_RUN = "not run in this profile"
#: the run could not decide the claim because its own method failed (C15: the copy count did
#: not validate): a result of the method, not a limit of the testbed
UNDETERMINED = "undetermined"
VERDICTS = (HOLDS, REFUTED, INCONCLUSIVE, UNDETERMINED, NOT_TESTABLE, NOT_RUN)
#: the reason a claim whose published effect lies inside the band is not testable
AT_THIS_NOISE = "not testable at this noise"


def every(reads: Mapping[int, R.Read]) -> str:
    """The verdict of a claim about every size from its sizes' readings: refuted if one
    contradicts, holds if all agree, else inconclusive (no size: inconclusive)."""
    outs = [r.outcome for r in reads.values()]
    if R.CONTRADICTS in outs:
        return REFUTED
    if outs and all(o == R.AGREES for o in outs):
        return HOLDS
    return INCONCLUSIVE


def first(reads: Mapping[int, R.Read], outcome: str) -> int | None:
    """The first size (in the mapping's order) whose reading is ``outcome``."""
    return next((s for s, r in reads.items() if r.outcome == outcome), None)


def above_crossover(reads: Mapping[int, R.Read]) -> str:
    """C3 above its claimed band: every size must agree with an effect beyond 1 + t (the
    method pays off there): :func:`every` over the sizes above the band."""
    return every(reads)


def best_threads(up: Mapping[int, R.Read], down: Mapping[int, R.Read]) -> tuple[str, int | None]:
    """C11 from ``up`` (t -> the reading of t/1 threads against "greater") and ``down``
    (t -> the reading of 8/t threads against "less"), t in 2 and 4: (verdict, the thread count
    that decided it; None where none did)."""
    ts = sorted(set(up) & set(down))
    peak = [t for t in ts if up[t].outcome == R.AGREES and down[t].outcome == R.AGREES]
    if peak:
        return HOLDS, peak[0]
    if ts and all(up[t].outcome == R.CONTRADICTS or down[t].outcome == R.CONTRADICTS
                  for t in ts):
        return REFUTED, ts[-1]
    return INCONCLUSIVE, None


def at_this_noise(verdict: str, reads: Mapping[int, R.Read],
                  expected: Mapping[int, R.Expect], published: Mapping[int, float],
                  t: float) -> list[tuple[int, float]]:
    """The sizes (with their published ratios) that make a verdict "not testable at this
    noise", or [] where it stays: the claim expects an effect (greater or less) at a size
    whose published ratio lies inside [1 - t, 1 + t] (size 0 of ``expected`` or
    ``published``: every size), and the verdict is inconclusive, or refuted only at such
    sizes and there not beyond the band on the far side (what the report's own number
    predicts there, so no evidence against it). A verdict decided otherwise stays."""
    if verdict not in (INCONCLUSIVE, REFUTED):
        return []

    def exp(s: int) -> R.Expect | None:
        return expected.get(s, expected.get(0))

    effect = {s for s in (set(expected) | set(reads)) if (e := exp(s)) is not None
              and e.kind in (R.GREATER, R.LESS)}
    inside = sorted((s, v) for s, v in published.items()
                    if (s in effect or (s == 0 and effect)) and R.holds(*band(t), v))
    if not inside:
        return []
    if verdict == REFUTED:
        swallowed = {s for s, _ in inside}
        for s, r in reads.items():
            if r.outcome != R.CONTRADICTS:
                continue
            e = exp(s)
            # beyond the band on the far side (a "greater" claim read "less"): evidence
            # against the report whatever its own number, so the refutation stands
            far = e is not None and r.band == {R.GREATER: R.LESS, R.LESS: R.GREATER}.get(e.kind)
            if far or (s not in swallowed and 0 not in swallowed):
                return []
    return inside


def crossed_edges(reads: Iterable[R.Read]) -> tuple[float, ...]:
    """Every edge the open readings' CIs cross, once, in order."""
    return tuple(sorted({e for r in reads for e in r.crosses}))

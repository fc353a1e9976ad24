"""The claims' verdicts counted and said in one sentence each (:mod:`analysis.claims`): where
the published numbers lie against our CIs, how many verdicts of each state per basis, and
one claim's verdicts in one line.
"""

from __future__ import annotations

from typing import Sequence

from analysis.claims import (ABOVE, ABOVE_AND_BELOW, BELOW, COPYBENCH, INCONCLUSIVE, INSIDE,
                             THEIR_PROGRAM, ClaimResult, magnitude_counts, verdict_counts)


def magnitude_text(results: Sequence[ClaimResult]) -> str:
    """The magnitude counts in one sentence: where the published numbers lie against our CIs
    on this testbed."""
    c = magnitude_counts(results)
    n = sum(c.values())
    if not n:
        return "no verdict on a published number in this run"
    return (f"of {n} verdicts with a published ratio, the published number lies inside our CI "
            f"on this testbed in {c[INSIDE]}, above it in {c[ABOVE]}, below it in {c[BELOW]}, "
            f"above it at some sizes and below it at others in {c[ABOVE_AND_BELOW]}, and "
            f"inside it where measured with a published size not measured in "
            f"{c[INCONCLUSIVE]}")


def counts_text(results: Sequence[ClaimResult]) -> str:
    """The verdict counts in one sentence, each count saying which reading it is for."""
    names = {COPYBENCH: "the claims as their reports word them, measured by copybench",
             THEIR_PROGRAM: "the claims as the reports' own programs behave, run here"}
    parts = []
    for basis, c in verdict_counts(results).items():
        n = sum(c.values())
        parts.append(f"{names[basis]}: " + ", ".join(f"{k} {v}" for k, v in c.items() if v)
                     + f" (of {n} verdicts)")
    return "; ".join(parts)


def claim_verdict_text(results: Sequence[ClaimResult]) -> str:
    """One claim's verdicts in one line: the verdict alone when there is one row, else each
    part's ("cross-core: refuted; same-core: inconclusive")."""
    if len(results) == 1 and not results[0].part:
        return results[0].verdict
    return "; ".join(f"{r.part or 'all'}: {r.verdict}" for r in results)

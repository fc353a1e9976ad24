"""The reproduction rule in words (:mod:`analysis.comparison.reproduce`): one claim's
expected results as a rerun is scored against them, and the run-level criterion with its
number and why.
"""

from __future__ import annotations

from typing import Sequence

from analysis.claims.base import ClaimResult
from analysis.comparison.reproduce import (CRITERION_PAIRS, IN_FORCE, MAGNITUDE_WORDS,
                                           MIN_SHARE)


def expected_text(results: Sequence[ClaimResult]) -> str:
    """One claim's expected results as the rule scores a rerun against them: each verdict's
    direction and, where the report publishes a number, the verdict on that number
    ("cross-core: holds, published number above our CI; same-core: inconclusive")."""
    parts = []
    for r in results:
        t = r.verdict + (f", {MAGNITUDE_WORDS[r.magnitude]}" if r.magnitude in MAGNITUDE_WORDS
                         else "")
        parts.append(f"{r.part or 'all'}: {t}" if len(results) > 1 or r.part else t)
    return "; ".join(parts)


def _pairs_text() -> str:
    parts = [f"{s} of {d}" + ("" if r == 0 else f" ({r} reversed)")
             for _, _, s, d, r in CRITERION_PAIRS]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def criterion_text() -> str:
    """The run-level criterion in words, with its number and why (plain text: the artifact
    appendix glues it, the compare report prints it)."""
    rev = sum(p[4] for p in CRITERION_PAIRS)
    c = IN_FORCE
    return (
        "A reviewer's run reproduces the study when it reverses no verdict the reference "
        "decides (holds in one run, refuted in the other) and reproduces, by the rule above, "
        f"at least {c.min_share} % of the comparison sets of the reference's decided verdicts "
        "that both runs tested (two readings that share their CIs, such as C9's two, count "
        "once; a set is reproduced when each of its decided verdicts is); otherwise the study "
        "is not reproduced. A decided verdict not reproduced, or not reproduced in size, "
        "counts against it; newly decided, both undecided, both not testable and not "
        "comparable verdicts count neither way, and a run that tested none of the reference's "
        "decided verdicts does not reproduce it. "
        f"The number comes from a simulation with a known error rate: reruns of the "
        "reference's truth (each set's estimates, the noise model's per-round sd, the "
        "design's looks and each claim's family) pass it with probability at least 95 % "
        "(make criterion writes that probability and the chance of passing when 1 to 5 sets "
        "truly differ). It replaces a post hoc number with no error rate, "
        f"{MIN_SHARE} % of the decided verdicts, the smallest share of {len(CRITERION_PAIRS)} "
        f"committed pairs of runs on one class of machine ({_pairs_text()}, "
        f"{'none' if not rev else rev} reversed). A rerun on another class of machine is "
        "judged only on the verdicts the same on every class measured (a parameter of the "
        "simulation: the sets it judges).")

"""Operational tests of the published claims C1-C15 (shared CLAIMS.md) and of the placement
hypothesis (why the PA02 reports S2 and S3 disagree). Each test selects its configuration
from a run, computes a statistic with a CI and returns a verdict: holds / refuted /
inconclusive / not testable here (with the reason). Nothing here is typed by hand but the
published numbers and the decision rules, which are stated with each claim.

One module per family of claims: :mod:`.latency` (C1, C10), :mod:`.pmu` (C2, C7, C12),
:mod:`.crossover` (C3, C5), :mod:`.pa02` (C4, C6, C8, C9, C11), :mod:`.files` (C13, C14),
:mod:`.copies` (C15), :mod:`.placement` (the placement hypothesis); :mod:`.base` holds what
they share.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Callable, Sequence, Union

import pandas as pd

from analysis.claims.base import HOLDS, INCONCLUSIVE, NOT_TESTABLE, REFUTED, ClaimResult
from analysis.claims.copies import COPIES_TOL, TEXTBOOK_COPIES, c15, copies_per_byte
from analysis.claims.crossover import c3, c5
from analysis.claims.files import c13, c14
from analysis.claims.latency import c1, c10
from analysis.claims.pa02 import c4, c6, c8, c9, c11
from analysis.claims.placement import placement_hypothesis
from analysis.claims.pmu import c2, c7, c12
from analysis.claims.rules import RULES, rule_text, rules_table
from analysis.claims.sendcmp import send_comparisons, twin_pairs
from analysis.run import Run

__all__ = ["HOLDS", "REFUTED", "INCONCLUSIVE", "NOT_TESTABLE", "ClaimResult", "CLAIMS",
           "COPIES_TOL", "TEXTBOOK_COPIES", "copies_per_byte", "placement_hypothesis",
           "evaluate", "verdict_table", "as_dict", "by_claim", "claim_verdict_text", "RULES",
           "rule_text", "rules_table", "send_comparisons", "twin_pairs", "c1", "c2", "c3", "c4", "c5", "c6", "c7",
           "c8", "c9", "c10", "c11", "c12", "c13", "c14", "c15"]


ClaimFn = Callable[[Run], Union[ClaimResult, list[ClaimResult]]]
CLAIMS: tuple[ClaimFn, ...] = (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15)


def evaluate(run: Run) -> list[ClaimResult]:
    """Every claim's results, in claim order: one per placement (and per reading of the
    source, where it has two) as the rules in :mod:`analysis.claims.rules` say, or one row
    when the run cannot test the claim at all. Missing data gives "not testable here" with
    the reason; an analysis bug raises (and fails the notebook, hence the book build)."""
    out: list[ClaimResult] = []
    for fn in CLAIMS:
        res = fn(run)
        for r in (res if isinstance(res, list) else [res]):
            if not r.rule:
                r.rule = rule_text(r.claim)
            if not r.boundaries:
                r.boundaries = r.rule
            out.append(r)
    return out


def by_claim(results: Sequence[ClaimResult]) -> dict[str, list[ClaimResult]]:
    out: dict[str, list[ClaimResult]] = {}
    for r in results:
        out.setdefault(r.claim, []).append(r)
    return out


def claim_verdict_text(results: Sequence[ClaimResult]) -> str:
    """One claim's verdicts in one line: the verdict alone when there is one row, else each
    part's ("cross-core: refuted; same-core: inconclusive")."""
    if len(results) == 1 and not results[0].part:
        return results[0].verdict
    return "; ".join(f"{r.part or 'all'}: {r.verdict}" for r in results)


def verdict_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    return pd.DataFrame([{"claim": r.claim, "for": r.part or "—", "source": r.source,
                          "statement": r.statement, "verdict": r.verdict,
                          "statistic": r.statistic,
                          "estimate [CI]": r.ci_text(), "design": r.design or "—",
                          "sensitivity (other design)": r.sensitivity or "—",
                          "CI straddles": r.boundary or "—",
                          "configuration": r.configuration, "decision rule": r.rule,
                          "rule boundaries": r.boundaries,
                          "reason": r.reason, "published": r.published} for r in results])


def as_dict(r: ClaimResult) -> dict[str, Any]:
    return asdict(r)

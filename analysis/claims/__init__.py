"""Operational tests of the published claims C1-C15 (shared CLAIMS.md) and of the placement
hypothesis (why the PA02 reports S2 and S3 disagree). Each test selects its configuration
from a run, computes a statistic with a CI and returns a verdict: holds / refuted /
inconclusive / not testable here (with the reason). Nothing here is typed by hand but the
published numbers and the decision rules, which are stated with each claim.

One module per family of claims: :mod:`.latency` (C1, C10), :mod:`.pmu` (C2, C7, C12),
:mod:`.crossover` (C3, C5), :mod:`.throughput` (C4, C6, C8, C9, C11), :mod:`.files` (C13, C14),
:mod:`.copies` (C15), :mod:`.placement` (the placement hypothesis); :mod:`.base` holds what
they share.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Callable, Sequence, Union

import pandas as pd

from analysis.claims.base import (ABOVE, ABOVE_AND_BELOW, BELOW, COPYBENCH, HOLDS,
                                  INCONCLUSIVE, INSIDE, MAGNITUDE_DECIDED, MAGNITUDES, NOT_RUN,
                                  NOT_TESTABLE, REFUTED, THEIR_PROGRAM, UNDETERMINED, VERDICTS,
                                  ClaimResult)
from analysis.claims.copies import COPIES_TOL, TEXTBOOK_COPIES, c15, copies_per_byte
from analysis.claims.crossover import c3, c5
from analysis.claims.files import c13, c14
from analysis.claims.latency import c1, c10
from analysis.claims.magnitude import PUBLISHED, assess_all
from analysis.claims.sesoi import untestable_at_noise
from analysis.claims.throughput import c4, c6, c8, c9, c11
from analysis.claims.originals import REPORTED, SOURCE_OF, their_results
from analysis.claims.placement import placement_hypothesis
from analysis.claims.pmu import c2, c7, c12
from analysis.claims.rules import REVISED, REVISION_NOTE, RULES, rule_text, rules_table
from analysis.claims.baselines import send_comparisons, twin_pairs
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size
from analysis.loading.run import Run, instant

#: the claims whose source's own program runs here (S1-S3)
ORIGINAL_CLAIMS = frozenset(SOURCE_OF)

__all__ = ["HOLDS", "REFUTED", "INCONCLUSIVE", "UNDETERMINED", "NOT_TESTABLE", "NOT_RUN",
           "VERDICTS", "INSIDE", "ABOVE", "BELOW", "ABOVE_AND_BELOW", "MAGNITUDES",
           "MAGNITUDE_DECIDED",
           "COPYBENCH", "THEIR_PROGRAM", "ClaimResult", "CLAIMS", "verdict_counts",
           "compact_table", "magnitude_counts", "post_hoc", "REVISED", "REVISION_NOTE",
           "COPIES_TOL", "TEXTBOOK_COPIES", "copies_per_byte", "placement_hypothesis",
           "evaluate", "verdict_table", "rounds_key", "decided_where_run", "as_dict", "by_claim", "RULES",
           "rule_text", "rules_table", "send_comparisons", "twin_pairs", "c1", "c2", "c3", "c4", "c5", "c6", "c7",
           "c8", "c9", "c10", "c11", "c12", "c13", "c14", "c15"]


ClaimFn = Callable[[Run], Union[ClaimResult, list[ClaimResult]]]
CLAIMS: tuple[ClaimFn, ...] = (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15)


def evaluate(run: Run) -> list[ClaimResult]:
    """Every claim's results, in claim order: one per placement and reading, as the rules in
    :mod:`analysis.claims.rules` say: the claim as its report words it (copybench's
    measurement), then, for S1-S3, the claim as the report's code behaves (their own program
    run here). A claim the testbed cannot test is "not testable here" with its applicability
    condition; one this run's plan has no cells for is "not run in this profile"; an analysis
    bug raises (and fails the notebook, hence the book build)."""
    out: list[ClaimResult] = []
    theirs = by_claim(their_results(run))
    for fn in CLAIMS:
        res = fn(run)
        res = res if isinstance(res, list) else [res]
        for r in res + theirs.get(res[0].claim, []):
            if not r.rule:
                r.rule = rule_text(r.claim)
            if not r.boundaries:
                r.boundaries = r.rule
            if not r.reading and r.basis == COPYBENCH and r.claim in theirs:
                r.reading = "report's words (copybench)"
            out.append(r)
    assess_all(out)  # the second question: the published number against our CI
    # a claim whose published effect lies inside the band: undecided reads "not testable at
    # this noise" (after the magnitude, which still compares the published number)
    untestable_at_noise(out, PUBLISHED)
    return out


def magnitude_counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    """How many verdicts on a published number (the magnitude question) in each state."""
    return {v: sum(r.magnitude == v for r in results) for v in MAGNITUDES}


def verdict_counts(results: Sequence[ClaimResult]) -> dict[str, dict[str, int]]:
    """Per basis (copybench: the claims as worded; their program: as their code behaves),
    how many verdicts of each state."""
    out: dict[str, dict[str, int]] = {}
    for basis in (COPYBENCH, THEIR_PROGRAM):
        rs = [r for r in results if r.basis == basis]
        if rs:
            out[basis] = {v: sum(r.verdict == v for r in rs) for v in VERDICTS}
    return out


def per_round_sds(results: Sequence[ClaimResult]) -> pd.Series:
    """The sd of the per-round log ratios of every paired claim comparison, each comparison
    once: two claims (or readings) that read the same pair of cells share its ratio, rounds
    and sd, and count once. The noise every paired CI of the run is made of."""
    rows = pd.DataFrame([d for r in results for d in r.details
                         if d.get("design") == "paired"
                         and math.isfinite(d.get("per-round sd", math.nan))])
    if rows.empty:
        return pd.Series(dtype=float)
    return rows.drop_duplicates(["ratio", "n", "per-round sd"])["per-round sd"]


def post_hoc(run: Run) -> bool:
    """Whether the run was made before the rules' last revision (:data:`REVISED`): its
    verdicts under the current rules are then re-decided after the run was seen, not
    pre-registered."""
    made = run.created_at
    return made is not None and made < instant(REVISED)


def by_claim(results: Sequence[ClaimResult]) -> dict[str, list[ClaimResult]]:
    out: dict[str, list[ClaimResult]] = {}
    for r in results:
        out.setdefault(r.claim, []).append(r)
    return out


def verdict_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    return pd.DataFrame([{"claim": r.claim, "for": r.part or "—", "source": r.source,
                          "basis": r.basis, "reading": r.reading or "—",
                          "placement": r.placement or "—",
                          "statement": r.statement, "verdict": r.verdict,
                          "direction": r.verdict, "magnitude": r.magnitude or "—",
                          "magnitude: published number against the CI": r.magnitude_text or "—",
                          "verdict (direction)": r.verdict_text,
                          "applicability": r.condition or "—",
                          "statistic": r.statistic,
                          "estimate [CI]": r.ci_text(), "design": r.design or "—",
                          "rounds/looks": r.rounds_text,
                          "sensitivity (other design)": r.sensitivity or "—",
                          "CI straddles": r.boundary or "—",
                          "configuration": r.configuration, "decision rule": r.rule,
                          "rule boundaries": r.boundaries,
                          "reason": r.reason, "published": r.published} for r in results])


def as_dict(r: ClaimResult) -> dict[str, Any]:
    return asdict(r)


def _stat(r: ClaimResult | None, size: float = math.nan) -> str:
    """A verdict's statistic with its CI (at ``size``, where that comparison exists, so the
    two columns of a row speak of one size)."""
    if r is None:
        return "—"
    if not math.isfinite(r.value):
        return r.verdict
    # a thread-count ratio says which thread counts it divides ("8/4 threads 1.84 [...]")
    pair = next((d["pair"] for d in r.details if d.get("pair") and d.get("ratio") == r.value),
                "")
    if pair:
        return f"{pair} {r.ci_text()}"
    many = len({d.get("size") for d in r.details}) > 1
    if math.isfinite(size) and many:
        d = next((d for d in r.details if d.get("size") == size and "ratio" in d), None)
        if d is not None:
            return (f"{fmt_ratio_ci(d['ratio'], d['lo'], d['hi'], times=False)} at "
                    f"{fmt_size(size)}")
    return r.ci_text() + (f" at {fmt_size(r.size)}" if many and math.isfinite(r.size) else "")


def _head(text: str) -> str:
    """A direction's words before its estimate: up to the first colon outside parentheses
    ("greater where the claim says less (a collapse): 8/4 threads 1.84 [...]" -> its words;
    "... not slower than 2 and 4 (8/2: greater, 8/4: greater)" stays whole)."""
    depth = 0
    for i, ch in enumerate(text or ""):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ":" and depth == 0:
            return text[:i]
    return text or ""


def short_reading(r: ClaimResult) -> str:
    """A verdict's reading in a few words: "report's words" or the rule's own reading for
    copybench's measurement ("copybench: S1's code" where that reading is what a source's
    code computes, so that it is not read as their program's row); "S<n>'s program" (and
    the rule's reading) for theirs."""
    own = r.rule_id.split(":", 1)[1] if ":" in r.rule_id else ""
    if r.basis == THEIR_PROGRAM:
        src = SOURCE_OF.get(r.claim, "their")
        return f"{src}'s program" + (f": {own.split(':')[0]}" if own else "")
    if own and "'s code" in own.split(":")[0]:
        return f"copybench: {own.split(':')[0]}"
    return own.split(":")[0] if own else ("report's words" if r.claim in ORIGINAL_CLAIMS
                                           else "—")


def rounds_looks(r: ClaimResult) -> str:
    """A verdict's rounds in a few words: "12 r, look 2/3" with the sequential top-up (its
    stopping look of the looks its block reached), "15 r" with the fixed design."""
    if not r.rounds:
        return "—"
    return f"{r.rounds} r, look {r.look}/{r.looks}" if r.looks else f"{r.rounds} r"


def decided_where_run(r: ClaimResult) -> str:
    """The sizes a verdict covers where its run's plan left out some of its rule's sizes: the
    verdict is read from the comparisons the run made (a claim of every size holds at the
    sizes run when each is decided as the claim says) and names its scope ("at 4 KiB, 64 KiB
    only; not run at 1 KiB, 16 KiB"). "" for a verdict over every size of its rule."""
    return r.scope


def rule_threads(r: ClaimResult) -> int:
    """The thread count of a verdict's rule (1 where its rule is not found)."""
    rule = next((x for x in RULES.get(r.claim, ()) if f"{x.claim}:{x.reading}" == r.rule_id),
                None)
    return rule.threads if rule is not None else 1


_SEQ_EXAMPLE = ClaimResult("C0", "", "", "", rounds=12, look=2, looks=3)


def rounds_example() -> str:
    """One verdict's rounds in brackets, as the tables print them (the key's example)."""
    return f"[{rounds_looks(_SEQ_EXAMPLE)}]"


def rounds_key() -> str:
    """The key to :func:`rounds_looks`'s brackets, written from the function itself."""
    seq = _SEQ_EXAMPLE
    fixed = ClaimResult("C0", "", "", "", rounds=15)
    return (f"[{rounds_looks(seq)}] after a verdict says that its CI rests on {seq.rounds} "
            f"paired rounds and that its block's sequential top-up stopped at look {seq.look} "
            f"of the {seq.looks} looks the block reached; [{rounds_looks(fixed)}] is a block "
            f"of the fixed design ({fixed.rounds} rounds, no interim look)")


def compact_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per verdict: claim, reading, placement, the published ratio (at the size
    shown), their program here and copybench here (each with its CI, at the rule's family
    level), the rule's boundaries in a few words and the verdict (with the direction of a
    refutation); the long reasons are in the claims section."""
    other = {COPYBENCH: THEIR_PROGRAM, THEIR_PROGRAM: COPYBENCH}
    by_key = {(r.rule_id, r.placement, r.basis): r for r in results}
    rows = []
    for r in results:
        twin = by_key.get((r.rule_id, r.placement, other[r.basis]))
        cb, th = (r, twin) if r.basis == COPYBENCH else (twin, r)
        pub = REPORTED.get((r.claim, int(r.size))) if math.isfinite(r.size) else None
        short = _head(r.direction) or decided_where_run(r)
        rows.append({"claim": r.claim, "reading": short_reading(r),
                     "placement": r.placement or "—",
                     "published": f"{pub[0] / pub[1]:.3g}" if pub else "—",
                     "their program here [CI]": _stat(th, r.size),
                     "copybench here [CI]": _stat(cb, r.size), "rule": r.rule_short or "—",
                     "verdict": r.verdict + (f" ({short})" if short else ""),
                     "direction": r.verdict, "magnitude": r.magnitude or "—",
                     "rounds/looks": rounds_looks(r),
                     "state": r.verdict, "basis": r.basis, "threads": rule_threads(r),
                     # a verdict decided at the sizes its plan ran, not at every size
                     "decided where run": bool(decided_where_run(r))})
    return pd.DataFrame(rows)

"""The "Results Reproduced" rule: whether a reviewer's run reproduces each verdict of the
reference run. One implementation: ``make compare`` applies it, and the artifact appendix
prints :func:`rule_text` (no second statement of the rule).

Per verdict (one claim, rule reading, placement and measurement), reference against run:

* **verdict** (a): the same verdict; or one of the two *inconclusive* and their CIs overlap
  (fewer rounds or a noisier machine leave a verdict open without contradicting it); never
  opposite decided verdicts (*holds* against *refuted*);
* **statistic** (b), for verdicts with an estimate: the run's statistic inside the
  reference CI widened by the practical threshold (±3 %), or its *speed-normalised* value
  inside that band: the statistic divided by how much faster the machine runs its numerator
  method than its denominator method over every configuration both runs measured (each
  method's factor is the geometric mean of its matched cells' run / reference speed ratios);
  a crossover size (a bootstrap interval of an interpolated crossing, not a ratio) is
  compared by its CI instead: the two CIs, each widened by ±3 %, overlap (no speed
  normalisation: a size is no throughput);
* a reproduced verdict needs both; a verdict that meets neither is *not reproduced*;
* **not comparable** (with the reason) where either side has no verdict to compare: not run
  in one of the profiles; not testable on one machine and decided on the other (on a machine
  that has what the other lacked, a decided verdict is a new result, not a failure); a *not
  testable here* on both sides is reproduced when both name the same missing condition.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis import stats as S
from analysis.claims.base import (HOLDS, INCONCLUSIVE, NOT_RUN, NOT_TESTABLE, REFUTED,
                                  ClaimResult)
from analysis.claims.rules import CROSSOVER, RULES
from analysis.run import Run, instant

REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE = "reproduced", "not reproduced", "not comparable"
#: the widening of the reference CI for the statistic, as the practical threshold
TOLERANCE = S.PRACTICAL_THRESHOLD
DECIDED = (HOLDS, REFUTED)


@dataclass(frozen=True)
class Judgement:
    status: str
    why: str


#: the rule as first stated compared a crossover size like a ratio and let only the
#: reviewer's verdict be the undecided one; both were mended after the reference machine's
#: own committed reruns had been judged by it, so those runs are not its test. MENDED is
#: when the mended rule was committed in this module (UTC, to the minute): a judgement of
#: two runs both made after it could not have been seen when the rule was written
MENDED = "2026-11-24T07:38Z"
REVISION = (f"The rule was mended on {instant(MENDED):%Y-%m-%d} (committed at "
            f"{instant(MENDED):%H:%M} UTC), after the reference "
            "machine's own committed reruns had been judged by it: as first stated it compared "
            "a crossover size like a ratio (two crossovers fell outside the widened CI although "
            "their CIs overlap) and let only the reviewer's verdict be the inconclusive one; a "
            "reviewer's run made after that, judged against a reference also made after it, is "
            "its real test.")


def tests_the_rule(run: Run, ref: Run) -> bool:
    """Whether judging ``run`` against ``ref`` is a real test of the rule as mended: both
    were made after :data:`MENDED`, so neither's verdicts were seen when it was written."""
    made = [run.created_at, ref.created_at]
    return all(t is not None and t > instant(MENDED) for t in made)


def rule_text(tolerance: float = TOLERANCE) -> str:
    """The rule in words (the artifact appendix glues this sentence)."""
    return (
        "A verdict of the reference run is reproduced by a reviewer's run when (a) both "
        "runs give the same verdict, or one of them is inconclusive and their CIs overlap "
        "— never opposite decided verdicts (holds against refuted) — and (b) the reviewer's "
        f"statistic lies inside the reference CI widened by ±{tolerance:.0%}, or its "
        "speed-normalised value does (the statistic divided by how much faster the "
        "reviewer's machine runs the numerator's method than the denominator's, over every "
        "configuration both runs measured); a crossover size is compared by its CI (the "
        f"two CIs, each widened by ±{tolerance:.0%}, overlap). A verdict not run in one of "
        "the two profiles, "
        "or not testable on one machine and decided on the other, is not comparable (on a "
        "machine that has what the other lacked, a decided verdict is a new result, not a "
        "failure); not testable on both machines for the same missing condition is "
        "reproduced. " + REVISION)


def _overlap(a: ClaimResult, b: ClaimResult) -> bool | None:
    if not all(math.isfinite(x) for x in (a.lo, a.hi, b.lo, b.hi)):
        return None
    return a.lo <= b.hi and b.lo <= a.hi


def _condition(r: ClaimResult) -> str:
    """The missing condition a not-testable verdict names (its reason up to the semicolon
    that says what the machine has)."""
    return r.reason.split(";")[0].strip()


def _within(value: float, ref: ClaimResult, tolerance: float) -> bool:
    return ref.lo * (1 - tolerance) <= value <= ref.hi * (1 + tolerance)


def judge(ref: ClaimResult, run: ClaimResult, speed: float | None = None,
          tolerance: float = TOLERANCE, size: bool = False) -> Judgement:
    """The rule on one verdict. ``speed``: the run's numerator/denominator machine factor
    for the statistic's methods (None where it does not apply or is unknown); ``size``: the
    statistic is a crossover size (compared by its CI)."""
    v_ref, v_run = ref.verdict, run.verdict
    if NOT_RUN in (v_ref, v_run):
        side = "the reference" if v_ref == NOT_RUN else "the reviewer's run"
        return Judgement(NOT_COMPARABLE, f"not run in {side}'s profile")
    if v_ref == NOT_TESTABLE or v_run == NOT_TESTABLE:
        if v_ref == v_run:
            same = _condition(ref) == _condition(run)
            return Judgement(REPRODUCED if same else NOT_COMPARABLE,
                             f"not testable on both machines: {_condition(ref)}" if same else
                             f"not testable on both, for different reasons: reference "
                             f"{_condition(ref)}; run {_condition(run)}")
        if v_ref == NOT_TESTABLE:
            return Judgement(NOT_COMPARABLE, "decided on the reviewer's machine, which has "
                             f"what the reference lacked ({_condition(ref)}): a new result")
        return Judgement(NOT_COMPARABLE, f"not testable on the reviewer's machine: "
                         f"{_condition(run)}")
    if {v_ref, v_run} == set(DECIDED):
        return Judgement(NOT_REPRODUCED, f"opposite verdicts: reference {v_ref}, run {v_run}")
    if v_ref != v_run:  # one inconclusive, one decided
        ov = _overlap(ref, run)
        if not ov:
            return Judgement(NOT_REPRODUCED, f"reference {v_ref}, run {v_run}, and their CIs "
                             + ("do not overlap" if ov is False else "cannot be compared"))
    if not (math.isfinite(run.value) and math.isfinite(ref.lo) and math.isfinite(ref.hi)):
        return Judgement(REPRODUCED if v_ref == v_run else NOT_REPRODUCED,
                         f"verdict {v_run} on both; no statistic to compare" if v_ref == v_run
                         else "no statistic to compare")
    band = f"[{ref.lo * (1 - tolerance):.3g}, {ref.hi * (1 + tolerance):.3g}]"
    verdict = "same verdict" if v_ref == v_run else "one inconclusive, CIs overlap"
    if size:
        ok = math.isfinite(run.lo) and math.isfinite(run.hi) and \
            run.lo * (1 - tolerance) <= ref.hi * (1 + tolerance) and \
            ref.lo * (1 - tolerance) <= run.hi * (1 + tolerance)
        return Judgement(REPRODUCED if ok else NOT_REPRODUCED,
                         f"{verdict}; crossover CI [{run.lo:.3g}, {run.hi:.3g}] "
                         + ("overlaps" if ok else "does not overlap")
                         + f" the reference's {band}")
    if _within(run.value, ref, tolerance):
        return Judgement(REPRODUCED, f"{verdict}; statistic {run.value:.3g} inside {band}")
    if speed and math.isfinite(speed) and speed > 0 and _within(run.value / speed, ref,
                                                                tolerance):
        return Judgement(REPRODUCED, f"{verdict}; speed-normalised statistic "
                         f"{run.value / speed:.3g} (÷{speed:.3g}) inside {band}")
    norm = f", speed-normalised {run.value / speed:.3g}" if speed else ""
    return Judgement(NOT_REPRODUCED, f"{verdict}, but statistic {run.value:.3g}{norm} "
                     f"outside {band}")


def key(r: ClaimResult) -> tuple[str, str, str, str]:
    return (r.claim, r.rule_id or r.part, r.placement, r.basis)


def method_factors(cells: pd.DataFrame) -> dict[str, float]:
    """Per method: the geometric mean of its matched cells' run / reference speed ratios
    (throughput cells; > 1: the reviewer's machine runs it faster)."""
    if cells.empty:
        return {}
    d = cells[(cells["metric"] == "gbit_per_s") & np.isfinite(cells["speed_ratio"])
              & (cells["speed_ratio"] > 0)]
    return {str(m): float(np.exp(np.log(g["speed_ratio"]).mean()))
            for m, g in d.groupby("method")}


def _speed(r: ClaimResult, factors: Mapping[str, float], methods: Mapping[str, tuple[str, str]]
           ) -> float | None:
    pair = methods.get(r.rule_id)
    if not pair or pair[0] not in factors or pair[1] not in factors:
        return None
    return factors[pair[0]] / factors[pair[1]]


def table(ref: Sequence[ClaimResult], run: Sequence[ClaimResult],
          cells: pd.DataFrame | None = None, tolerance: float = TOLERANCE) -> pd.DataFrame:
    """One row per verdict of the reference run: both verdicts, both statistics, the
    status under the rule and why."""
    methods = {f"{r.claim}:{r.reading}": (r.numerator, r.denominator)
               for rs in RULES.values() for r in rs if not r.numerator.isdigit()}
    sizes = {f"{r.claim}:{r.reading}" for rs in RULES.values() for r in rs
             if r.combine == CROSSOVER}
    factors = method_factors(cells) if cells is not None else {}
    by_run = {key(r): r for r in run}
    whole = {r.claim: r for r in run if not r.placement}
    rows: list[dict[str, Any]] = []
    for q in ref:
        r = by_run.get(key(q)) or whole.get(q.claim)
        if r is None:
            j = Judgement(NOT_COMPARABLE, "the run has no such verdict")
        else:
            j = judge(q, r, _speed(r, factors, methods), tolerance, q.rule_id in sizes)
        rows.append({"claim": q.claim, "reading": q.reading or "—",
                     "placement": q.placement or "—", "basis": q.basis,
                     "reference": q.verdict, "reference estimate": q.ci_text(),
                     "run": r.verdict if r is not None else "—",
                     "run estimate": r.ci_text() if r is not None else "—",
                     "status": j.status, "why": j.why})
    return pd.DataFrame(rows)


def total(t: pd.DataFrame) -> str:
    """The one-line total: reproduced of the comparable verdicts, and the rest."""
    if t.empty:
        return "no verdict to compare"
    n = t["status"].value_counts()
    comparable = int(n.get(REPRODUCED, 0) + n.get(NOT_REPRODUCED, 0))
    return (f"{int(n.get(REPRODUCED, 0))} of {comparable} comparable verdicts reproduced, "
            f"{int(n.get(NOT_REPRODUCED, 0))} not reproduced; {int(n.get(NOT_COMPARABLE, 0))} "
            f"of {len(t)} not comparable")


__all__ = ["REPRODUCED", "NOT_REPRODUCED", "NOT_COMPARABLE", "Judgement", "judge", "rule_text",
           "table", "total", "method_factors", "INCONCLUSIVE", "MENDED", "tests_the_rule",
           "reruns"]


def reruns(ref_dir: Path) -> list[Path]:
    """The committed runs beside the reference that rerun its claims (packed runs of the
    claims or paper profile), oldest first: the reproduction rule's own check."""
    out = []
    for d in sorted(Path(ref_dir).parent.iterdir()):
        if d.resolve() == Path(ref_dir).resolve() or not (d / "trials.jsonl.gz").is_file():
            continue
        plan = d / "plan.json"
        try:
            profile = json.loads(plan.read_text(encoding="utf-8")).get("profile")
        except (OSError, ValueError):
            continue
        if profile in ("claims", "paper"):
            out.append(d)
    return out

"""A run of a machine with more CPUs, in a sentence (:mod:`analysis.comparison.machines`).
"""

from __future__ import annotations

from typing import Sequence

from analysis.claims import ClaimResult, decided_where_run
from analysis.claims import post_hoc as run_post_hoc, short_reading
from analysis.comparison.machines import TESTED, Machine, cpus_per_side


def summary_text(machine: Machine, results: Sequence[ClaimResult]) -> str:
    """One machine's run in a sentence: which run, its profile and trials, the CPUs its
    largest thread count had, and each claim's verdicts there."""
    run = machine.run
    by = {}
    for r in results:
        if r.details or r.verdict in TESTED:
            by.setdefault(r.claim, []).append(r)

    def said(r: ClaimResult) -> str:
        return r.verdict + (f" ({decided_where_run(r)})" if decided_where_run(r) else "")

    def where(r: ClaimResult) -> str:
        reading = short_reading(r)
        return (r.placement or "all") + (f" ({reading})" if reading != "—" else "")

    parts = []
    for claim, rs in by.items():
        texts = {said(r) for r in rs}
        if len(texts) == 1:  # one verdict for every placement and reading: said once
            n = len(rs)
            parts.append(f"{claim}: {texts.pop()}" + (f" (all {n} verdicts)" if n > 1 else ""))
        else:
            parts.append(f"{claim}: " + ", ".join(f"{where(r)} {said(r)}" for r in rs))
    verdicts = "; ".join(parts)
    late = (" It was made before the decision rules in force, so its verdicts under them are "
            "post hoc." if run_post_hoc(run) else "")
    return (f"The {machine.label} ran {run.run_id} ({(run.plan or {}).get('profile')} "
            f"profile, {len(run.trials)} trials, {cpus_per_side(run)}). Its verdicts: "
            f"{verdicts or 'none'}.{late}")

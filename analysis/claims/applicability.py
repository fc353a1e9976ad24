"""Whether this run's testbed can test a rule at all, and what a rule without data means.

Two states that are not verdicts about the claim, kept apart in every table and count:

* **not testable here**: the testbed fails the rule's applicability condition
  (:class:`analysis.claims.rules.Applicability`: hardware counters, a CPU per thread and
  side, CPUs for a method's parallel threads), or the trials the plan made for the claim
  left no measurement (they failed); the reason names the condition and what the machine or
  the run has;
* **not run in this profile**: the run's plan has no cells for the claim there (a profile
  that leaves a placement or a claim out); the ``claims`` profile runs every claim.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

import pandas as pd

from analysis.claims.base import NOT_RUN, NOT_TESTABLE, claim_blocks, missing_reason
from analysis.loading.run import Run, pmu_status

if TYPE_CHECKING:
    from analysis.claims.rules import Applicability, Rule

THREAD_COMBINES = ("threads", "best thread count")


def machine_cpus(run: Run) -> int | None:
    """The CPUs the run's process could use (the manifest's affinity, else its CPU count)."""
    return manifest_cpus(run.manifest)


def manifest_cpus(manifest: dict) -> int | None:
    """:func:`machine_cpus` from a run's manifest alone."""
    cpu = manifest.get("cpu") or {}
    aff = cpu.get("affinity")
    if isinstance(aff, list) and aff:
        return len(aff)
    n = cpu.get("count")
    return int(n) if isinstance(n, int) else None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cpus_given(d: pd.DataFrame, cond: "Applicability") -> int | None:
    """The fewest CPUs the trials at the condition's thread count gave one side (their CPU
    lists), or None when the records do not say."""
    rows = d[d["threads"] == cond.threads] if cond.kind == "cpu_per_thread" else d
    cols = ["n_cpus_sender"] + (["n_cpus_sink"] if cond.kind == "cpu_per_thread" else [])
    if rows.empty or not all(c in rows for c in cols):
        return None
    vals = pd.concat([rows[c] for c in cols]).astype(float).dropna()
    return int(vals.min()) if len(vals) else None


def not_applicable(run: Run, rule: "Rule", placement: str | None,
                   d: pd.DataFrame | None = None) -> str | None:
    """Why the testbed cannot test ``rule`` at ``placement`` (its condition, and what the
    machine or the run's placement has), or None when it can. ``d``: the rule's cells, to
    check what the run's placement actually gave each thread."""
    for cond in rule.conditions:
        if cond.kind == "pmu":
            ok, why = pmu_status(run)
            if not ok:
                return f"{cond.text()}; this run has none: {why}"
            continue
        if cond.kind == "parallel" and placement == "same-core" and d is not None \
                and not d.empty:
            # a choice of the design, not a limit of the machine: same-core runs every
            # thread of a file copy on one CPU, so its parallel threads take turns
            return (f"{cond.text()}; the same-core placement puts all of the method's threads "
                    "on one CPU by definition, whatever the machine has (the cross-core "
                    "placement tests it)")
        need, have = cond.cpus_needed(placement), machine_cpus(run)
        if have is not None and have < need:
            return f"{cond.text()}; this machine has {_plural(have, 'CPU')}"
        got = _cpus_given(d, cond) if d is not None and not d.empty else None
        if got is not None and got < cond.threads:
            return (f"{cond.text()}; the run pinned {_plural(cond.threads, 'thread')} of a "
                    f"side to {_plural(got, 'CPU')} ({placement} placement)")
    return None


def absent(run: Run, rule: "Rule", placement: str | None,
           sizes: list[int] | None = None, why: str | None = None) -> tuple[str, str]:
    """(verdict, reason) for a rule that has no comparison here: *not testable here* when
    the plan made trials for it and none gave a measurement, else *not run in this
    profile*. ``why``: what is missing, when the caller knows it better."""
    why = why or missing_reason(run, rule, placement, sizes)
    t = run.trials
    blocks = claim_blocks(run, rule.claim)
    sel = t if blocks is None else t[t["block"].isin(blocks)]
    sel = sel[(sel["placement"] == placement) if placement else sel.index == sel.index]
    if rule.transport:
        sel = sel[sel["transport"] == rule.transport]
    if rule.combine not in THREAD_COMBINES:
        sel = sel[sel["method"].isin([rule.numerator, rule.denominator])]
    sel = sel[sel["repetition"].fillna(1) >= 1]
    if not sel.empty and not sel["trial_id"].isin(run.measured["trial_id"]).any():
        counts = Counter(sel["status"].astype(str))
        first = next((str(e).splitlines()[0] for e in sel["error"] if isinstance(e, str)
                      and e.strip()), "")
        return NOT_TESTABLE, (f"{why}: its {_plural(len(sel), 'planned trial')} gave no "
                              "measurement (" + ", ".join(f"{v} {k}" for k, v in
                                                          counts.items()) + ")"
                              + (f"; first error: {first}" if first else ""))
    run_hint = "its plan has no cells for it here; the claims profile runs every claim"
    return NOT_RUN, f"{why} ({run_hint})"


def finite(*xs: float) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in xs)

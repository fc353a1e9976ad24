"""Runs from other machines, read beside the reference run.

Some claims cannot be tested on the reference machine: the thread-count claims need a CPU for
every thread of each side (16 CPUs for 8 threads cross-core), and the reference machine has 2.
A run made on a machine with more CPUs (the ``threads`` profile, from the bundle) is
committed beside the reference run; its manifest says which machine made it (CPU model and
the CPUs the run could use). The replication chapter's verdict table then gets one column per
such machine, with each of its verdicts, CIs and the rule they were read by; a claim that is
not testable on the reference machine but decided on another says where it was decided.

A run counts as another machine's when it is committed (packed: ``trials.jsonl.gz``) in the
same directory as the reference and its machine offers more CPUs than the reference's: the
condition that makes claims testable there that are not testable here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from analysis.claims import (COPYBENCH, HOLDS, INCONCLUSIVE, NOT_TESTABLE, REFUTED,
                             ClaimResult, compact_table)
from analysis.claims.applicability import machine_cpus, manifest_cpus
from analysis.run import Run, load_run

#: the verdicts a machine reached for a claim (the others say it could not test it)
TESTED = (HOLDS, REFUTED, INCONCLUSIVE)


@dataclass(frozen=True)
class Machine:
    """One other machine's run and what the table calls it."""

    run: Run
    label: str  # "16-CPU Intel(R) Xeon(R) Processor"


def cpu_model(run: Run) -> str:
    return str((run.manifest.get("cpu") or {}).get("model") or "unknown CPU")


def label(run: Run) -> str:
    n = machine_cpus(run)
    return f"{n}-CPU {cpu_model(run)}" if n else cpu_model(run)


def beside(ref: Run) -> list[Machine]:
    """The committed runs of machines with more CPUs than the reference's, oldest first."""
    have = machine_cpus(ref) or 0
    out: list[Machine] = []
    for d in sorted(Path(ref.path).parent.iterdir()):
        if d.resolve() == Path(ref.path).resolve() or not (d / "trials.jsonl.gz").is_file():
            continue
        try:  # the manifest says which machine; only such a run's records are read
            n = manifest_cpus(json.loads((d / "manifest.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        if n is not None and n > have:
            other = load_run(d)
            out.append(Machine(other, label(other)))
    return out


def _cell(rows: pd.DataFrame) -> str:
    """One machine's verdicts for one claim row: each placement's verdict with its CI."""
    parts = []
    for _, r in rows.iterrows():
        ci = r["copybench here [CI]" if r["basis"] == COPYBENCH else "their program here [CI]"]
        where = f"{r['placement']}: " if r["placement"] != "—" else ""
        parts.append(f"{where}{r['verdict']} {ci}".strip())
    return "; ".join(parts) if parts else "—"


def _matching(other: pd.DataFrame, row: pd.Series) -> pd.DataFrame:
    m = ((other["claim"] == row["claim"]) & (other["reading"] == row["reading"])
         & (other["basis"] == row["basis"]) & other["state"].isin(TESTED))
    if row["placement"] != "—":
        m &= other["placement"] == row["placement"]
    return other[m]


def with_machines(compact: pd.DataFrame, machines: Sequence[tuple[str, Sequence[ClaimResult]]]
                  ) -> tuple[pd.DataFrame, list[str]]:
    """``compact`` (the reference's :func:`compact_table`) with one column per machine (its
    label), the machine's verdicts with their CIs where it tested the claim, "—" where it did
    not; a reference verdict *not testable here* that another machine decided says where.
    Returns the table and the new columns' names."""
    out = compact.copy()
    names: list[str] = []
    for name, results in machines:
        other = compact_table(results)
        col = f"{name} [CI]"
        cells, decided = [], []
        for _, row in out.iterrows():
            m = _matching(other, row)
            cells.append(_cell(m))
            decided.append(bool(m["state"].isin((HOLDS, REFUTED)).any()))
        out[col] = cells
        out["verdict"] = [
            f"{v}; decided on the {name}" if s == NOT_TESTABLE and d else v
            for v, s, d in zip(out["verdict"], out["state"], decided)]
        names.append(col)
    return out, names

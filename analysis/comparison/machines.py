"""Runs from other machines, read beside the reference run.

Some claims cannot be tested on the reference machine: the thread-count claims need a CPU for
every thread of each side (16 CPUs for 8 threads cross-core), and the reference machine has 2.
A run made on a machine with more CPUs (the ``threads`` profile, from the bundle) is
committed beside the reference run; its manifest says which machine made it (CPU model and
the CPUs the run could use). The replication chapter's verdict table then gets one column per
such machine, with each of its verdicts, CIs and the rule they were read by; a claim that is
not testable on the reference machine but decided on another says where it was decided.

A run counts as another machine's when it is committed (packed: ``trials.jsonl.gz``) in the
same directory as the reference; the runs and their machine classes come from the one catalog
(:mod:`rundir.catalog`), its damage a :class:`BadRun` line. :func:`beside` gives those whose machine offers more CPUs
than the reference's (the condition that makes claims testable there that are not testable
here); :func:`classes` gives one run of every other machine class (CPU count and model), so
that the verdict table shows each class's verdicts side by side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Sequence

import pandas as pd

from analysis.claims import (COPYBENCH, HOLDS, INCONCLUSIVE, NOT_TESTABLE, REFUTED, RULES,
                             ClaimResult, compact_table)
from analysis.claims.applicability import machine_cpus, manifest_cpus
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size
from analysis.loading.run import BadRun, Run, load_run
from rundir import catalog as CA

#: the verdicts a machine reached for a claim (the others say it could not test it)
TESTED = (HOLDS, REFUTED, INCONCLUSIVE)


@dataclass(frozen=True)
class Machine:
    """One other machine's run and what the table calls it."""

    run: Run
    label: str  # "16-CPU Intel(R) Xeon(R) Processor"


def label(run: Run) -> str:
    """The run's machine in the catalog's one wording: "16-CPU Intel Xeon"."""
    n, cls = machine_class(run.manifest)
    return f"{n}-CPU {cls}" if n else cls


#: the profiles whose runs test the claims (a noise study, a pilot or a smoke run does not)
CLAIM_PROFILES = CA.CLAIM_PROFILES


def machine_class(manifest: dict) -> tuple[int, str]:
    """A machine class: the CPUs a run could use and their class in the catalog's one
    wording (:func:`rundir.catalog.cpu_class`), from its manifest."""
    return (manifest_cpus(manifest) or 0,
            CA.cpu_class((manifest.get("cpu") or {}).get("model")))


def siblings(run_dir: str | Path) -> list[CA.Entry]:
    """The catalog's committed runs beside ``run_dir`` (packed), name order; a damaged plan
    or manifest is one :class:`BadRun` line naming it."""
    try:
        return [e for e in CA.beside(run_dir) if e.packed]
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None


def runs_in(raw: str | Path) -> list[CA.Entry]:
    """The catalog's runs in the directory ``raw``, name order (scripts read the catalog
    through here); a damaged plan or manifest is one :class:`BadRun` line naming it."""
    try:
        return CA.catalog(raw)
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None


def entry(run_dir: str | Path) -> CA.Entry:
    """The catalog entry of the run in ``run_dir``; damage: one :class:`BadRun` line."""
    try:
        return CA.entry(run_dir)
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None


def entry_of(name: str, beside: str | Path) -> CA.Entry | None:
    """The catalog entry of the run ``name`` in the directory ``beside`` (the book's run's),
    else in the repository's data/raw; None where neither holds it."""
    try:
        for raw in (Path(beside), CA.REPOSITORY_RAW):
            e = CA.find(raw, name)
            if e is not None:
                return e
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None
    return None


def newest_of(profile: str, beside: str | Path) -> Path | None:
    """The newest committed (packed) run of ``profile`` (the noise study, the shared-time
    validation) beside the run ``beside`` (the book's run), else in the repository's
    data/raw; None when neither holds one."""
    try:
        for raw in (Path(beside).resolve().parent, CA.REPOSITORY_RAW):
            if raw.is_dir():
                e = CA.newest((e for e in CA.catalog(raw) if e.packed), profile)
                if e is not None:
                    return e.path
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None
    return None


def _chosen(ref: Run) -> list[tuple[tuple[int, str], Path]]:
    """Each machine class other than the reference's with a run committed beside it (packed:
    ``trials.jsonl.gz``), and that class's run: its newest of the reference's profile, else
    its newest of another profile that tests the claims. Ordered by CPU count, then class.
    Only manifests and plans are read (:func:`siblings`)."""
    mine = machine_class(ref.manifest)
    own = (ref.plan or {}).get("profile")
    best: dict[tuple[int, str], tuple[tuple[bool, str], Path]] = {}
    for e in siblings(ref.path):  # a damaged plan or manifest: BadRun, one line
        if e.cpu_class == CA.UNKNOWN_CPU or e.machine_key == mine or not e.tests_claims:
            continue
        rank = (e.profile == own, e.run_id)  # the reference's profile first, then the newest
        if e.machine_key not in best or rank > best[e.machine_key][0]:
            best[e.machine_key] = (rank, e.path)
    return [(cls, best[cls][1]) for cls in sorted(best)]


def _load(chosen: Sequence[tuple[tuple[int, str], Path]],
          load: Callable[[Path], Run] = load_run) -> list[Machine]:
    out = []
    for _, d in chosen:
        other = load(d)
        out.append(Machine(other, label(other)))
    return out


def classes(ref: Run, load: Callable[[Path], Run] = load_run) -> list[Machine]:
    """One run for each machine class other than the reference's (:func:`_chosen`): the
    verdict table's columns, side by side (each read by ``load``)."""
    return _load(_chosen(ref), load)


def more_cpus(ref: Run, cls: tuple[int, str]) -> bool:
    """Whether a machine class offers more CPUs than the reference's machine: where the
    claims not testable here for want of CPUs are tested."""
    return cls[0] > (machine_cpus(ref) or 0)


def beside(ref: Run, load: Callable[[Path], Run] = load_run) -> list[Machine]:
    """The classes of :func:`classes` with more CPUs than the reference's (:func:`more_cpus`);
    only their runs are loaded (each by ``load``)."""
    return _load([(cls, d) for cls, d in _chosen(ref) if more_cpus(ref, cls)], load)


def _cell(rows: pd.DataFrame, post_hoc: bool = False) -> str:
    """One machine's verdicts for one claim row: each placement's verdict with its CI, the
    ratio labelled by its own thread counts (a ratio between thread counts already says
    which, "8/4 threads 1.84 [...]"; a ratio of two methods at one thread count says it,
    "0.598 [...] at 4 KiB, 4 threads")."""
    parts = []
    for _, r in rows.iterrows():
        ci = r["copybench here [CI]" if r["basis"] == COPYBENCH else "their program here [CI]"]
        n = int(r.get("threads", 1) or 1)
        if "[" in ci and "threads" not in ci and n > 1:
            ci += f", {n} threads"
        where = f"{r['placement']}: " if r["placement"] != "—" else ""
        verdict = r["verdict"] + (" (post hoc)" if post_hoc else "")
        parts.append(f"{where}{verdict} {ci}".strip())
    return "; ".join(parts) if parts else "—"


def _matching(other: pd.DataFrame, row: pd.Series) -> pd.DataFrame:
    m = ((other["claim"] == row["claim"]) & (other["reading"] == row["reading"])
         & (other["basis"] == row["basis"])
         & (other["state"].isin(TESTED) | other["decided where run"]))
    if row["placement"] != "—":
        m &= other["placement"] == row["placement"]
    return other[m]


def with_machines(compact: pd.DataFrame, machines: Sequence[tuple[str, Sequence[ClaimResult]]],
                  post_hoc: Collection[str] = ()) -> tuple[pd.DataFrame, list[str]]:
    """``compact`` (the reference's :func:`compact_table`) with one column per machine (its
    label), the machine's verdicts with their CIs where it tested the claim, "—" where it did
    not; a reference verdict *not testable here* that another machine decided says where.
    The verdicts of a machine named in ``post_hoc`` (its run made before the decision rules
    in force) say so. Returns the table and the new columns' names."""
    out = compact.copy()
    names: list[str] = []
    for name, results in machines:
        other = compact_table(results)
        col = f"{name} [CI]"
        cells, decided = [], []
        for _, row in out.iterrows():
            m = _matching(other, row)
            cells.append(_cell(m, name in post_hoc))
            decided.append(bool(m["state"].isin((HOLDS, REFUTED)).any()))
        out[col] = cells
        out["verdict"] = [
            f"{v}; decided on the {name}" if s == NOT_TESTABLE and d else v
            for v, s, d in zip(out["verdict"], out["state"], decided)]
        names.append(col)
    return out, names


def _comparison_label(r: ClaimResult, d: dict) -> str:
    """What one comparison of a verdict divides: its thread counts ("8/4 threads") for a
    thread-count claim; the methods, their thread count and the size for a claim that
    compares methods at one thread count ("zerocopy/send, 4 threads, 4 KiB")."""
    if d.get("pair"):
        return str(d["pair"])
    rule = next((x for x in RULES.get(r.claim, ()) if f"{x.claim}:{x.reading}" == r.rule_id),
                None)
    methods = f"{rule.numerator}/{rule.denominator}, " if rule is not None else ""
    threads = f"{rule.threads} thread{'s' if rule.threads != 1 else ''}, " \
        if rule is not None else ""
    return f"{methods}{threads}{fmt_size(d['size'])}"


def comparisons_table(results: Sequence[ClaimResult], post_hoc: bool = False) -> pd.DataFrame:
    """One machine's claim comparisons, one row each: the claim, its reading and placement,
    what the ratio divides (labelled by its own thread counts), the ratio with its CI (at its
    rule's family level), the rounds it rests on, the comparison's outcome and the claim's
    verdict (a verdict decided at only some of its rule's sizes names them; ``post_hoc``: the
    run was made before the decision rules in force, and each verdict says so)."""
    compact = compact_table(results)
    rows = []
    for r, (_, c) in zip(results, compact.iterrows()):
        for d in r.details:
            if not math.isfinite(d.get("ratio", math.nan)):
                continue
            rows.append({"claim": r.claim, "reading": c["reading"],
                         "placement": r.placement or "—",
                         "comparison": _comparison_label(r, d),
                         "ratio [CI]": fmt_ratio_ci(d["ratio"], d["lo"], d["hi"], times=False),
                         "CI level": f"{d['CI level']:.2%}" if "CI level" in d else "—",
                         "rounds": d.get("n", "—"), "outcome": d.get("outcome", "—"),
                         "verdict": c["verdict"] + (" (post hoc)" if post_hoc else "")})
    return pd.DataFrame(rows)


def cpus_per_side(run: Run) -> str:
    """The fewest CPUs a side's threads had at the run's largest thread count, in words."""
    t = run.trials
    t = t[t["kind"] == "copybench"] if "kind" in t else t
    if t.empty or "threads" not in t:
        return "no copybench trials"
    top = int(t["threads"].max())
    at = t[t["threads"] == top]
    sides = [c for c in ("n_cpus_sender", "n_cpus_sink") if c in at]
    if not sides or at[sides].isna().all().all():
        return f"{top} threads per side (the records do not say on how many CPUs)"
    least = int(at[sides].min().min())
    return f"{top} threads per side on {least} CPUs of their own at least"


def decided_elsewhere(machines: Sequence[tuple[str, Sequence[ClaimResult]]]) -> dict[str, str]:
    """Claim -> the label of the first machine (of ``machines``: label and its results) that
    decided it (held or refuted at some placement or reading)."""
    out: dict[str, str] = {}
    for name, results in machines:
        for r in results:
            if r.verdict in (HOLDS, REFUTED):
                out.setdefault(r.claim, name)
    return out

"""Each claim's stability across the committed runs and CPU classes (the replication
appendix): one row per verdict (claim, reading, placement, basis), its verdict in every run
that tested the claims, the runs grouped by CPU class, and a label:

* "the same on every class measured": every decided verdict (holds, refuted) is the same;
* "depends on the class": decided one way on one class and another way on another, the
  same way within each class;
* "unstable": decided differently within one class (in time, on the same class of machine);
* "never decided": no run decided it.

Undecided verdicts (inconclusive, not testable) agree and disagree with nothing. A run made
before the rules in force is marked post hoc in its cells; its verdicts count alike (the
label says what the data read under today's rules show, and the mark says which of them
were not pre-registered). Pure: the verdicts are given (:func:`rows` from each run's
results).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from analysis.claims import ClaimResult, short_reading
from decision.verdict import HOLDS, REFUTED
from rundir import catalog as CA

SAME = "the same on every class measured"
DEPENDS = "depends on the class"
UNSTABLE = "unstable"
NEVER = "never decided"
#: the labels, in the table's order
LABELS = (SAME, DEPENDS, UNSTABLE, NEVER)
DECIDED = (HOLDS, REFUTED)
#: what identifies one verdict across runs
KEY = ["claim", "reading", "placement", "basis"]
COLUMNS = KEY + ["run", "cpu_class", "post_hoc", "verdict"]


@dataclass(frozen=True)
class RunInfo:
    """One run of the table: its id, its CPU class's wording, and whether it was made before
    the rules in force (its verdicts under them post hoc)."""

    run: str
    cpu_class: str
    post_hoc: bool


def run_infos(entries: Iterable[CA.Entry], revised: datetime) -> list[RunInfo]:
    """The runs of the table from catalog entries that test the claims (:attr:`Entry.tests_claims`),
    oldest first; a run made before ``revised`` (the claim rules' last revision) is post hoc."""
    return [RunInfo(e.run_id, e.cpu_class, e.made is not None and e.made < revised)
            for e in sorted(entries, key=lambda e: e.run_id) if e.tests_claims]


def committed(raw: str | Path, results: Callable[[Path], Sequence[ClaimResult]],
              revised: datetime) -> tuple[pd.DataFrame, list[RunInfo]]:
    """The long table (:data:`COLUMNS`) and the runs of every committed (packed) run under
    ``raw`` that tests the claims (the catalog, :mod:`rundir.catalog`), each run's verdicts
    from ``results`` (its directory -> its claim results). A damaged plan or manifest is a
    :class:`rundir.catalog.BadCatalog` line."""
    return of_entries([e for e in CA.catalog(raw) if e.packed], results, revised)


def of_entries(entries: Sequence[CA.Entry], results: Callable[[Path], Sequence[ClaimResult]],
               revised: datetime) -> tuple[pd.DataFrame, list[RunInfo]]:
    """The long table and the runs of the catalog ``entries`` that test the claims (a book's
    run and the committed runs beside it), each run's verdicts from ``results``."""
    infos = run_infos(entries, revised)
    by_id = {e.run_id: e.path for e in entries}
    long: list[dict[str, object]] = []
    for i in infos:
        long += rows(i, results(by_id[i.run]))
    return pd.DataFrame(long, columns=COLUMNS), infos


def rows(info: RunInfo, results: Iterable[ClaimResult]) -> list[dict[str, object]]:
    """One run's verdicts as the table's long rows."""
    return [{"claim": r.claim, "reading": short_reading(r), "placement": r.placement or "—",
             "basis": r.basis, "run": info.run, "cpu_class": info.cpu_class,
             "post_hoc": info.post_hoc, "verdict": r.verdict} for r in results]


def label(verdicts: Iterable[tuple[str, str]]) -> str:
    """The label of one verdict's (CPU class, verdict) pairs, one per run."""
    by_class: dict[str, set[str]] = {}
    for cls, v in verdicts:
        if v in DECIDED:
            by_class.setdefault(cls, set()).add(v)
    if not by_class:
        return NEVER
    if any(len(vs) > 1 for vs in by_class.values()):
        return UNSTABLE
    return SAME if len(set().union(*by_class.values())) == 1 else DEPENDS


def _column(info: RunInfo) -> str:
    return f"{info.cpu_class}: {info.run}"


def table(long: pd.DataFrame, runs: Sequence[RunInfo]) -> pd.DataFrame:
    """One row per verdict (:data:`KEY`) with one column per run, grouped by CPU class (the
    classes in order of their first run, each class's runs oldest first), each cell the
    verdict ("(post hoc)" where the run was made before the rules in force, "—" where the
    run has no such verdict), and the row's :func:`label`."""
    order = sorted(runs, key=lambda i: (min(j.run for j in runs if j.cpu_class == i.cpu_class),
                                        i.run))
    cols = [_column(i) for i in order]
    if long.empty:
        return pd.DataFrame(columns=KEY + cols + ["label"])
    out = []
    for key, g in long.groupby(KEY, sort=False):
        row: dict[str, object] = dict(zip(KEY, key))
        for i in order:
            got = g[g["run"] == i.run]["verdict"].tolist()
            row[_column(i)] = ("; ".join(got) + (" (post hoc)" if i.post_hoc else "")
                               if got else "—")
        row["label"] = label(zip(g["cpu_class"], g["verdict"]))
        out.append(row)
    return pd.DataFrame(out, columns=KEY + cols + ["label"])


def holding_everywhere(t: pd.DataFrame) -> list[tuple[str, str]]:
    """The (claim, placement) pairs, in the table's order, that hold on every class
    measured: every run that decided any of their rows (readings, bases) decided it *holds*
    (each row :data:`SAME` or :data:`NEVER`, at least one decided, none decided *refuted*)."""
    if t.empty:
        return []
    runs = [c for c in t.columns if c not in KEY and c != "label"]
    verdicts = t[runs].apply(lambda r: {str(v).split(" (")[0] for v in r}, axis=1)
    out = []
    for (claim, placement), g in t.groupby(["claim", "placement"], sort=False):
        labels = set(g["label"])
        seen = set().union(*verdicts.loc[g.index])
        if labels <= {SAME, NEVER} and HOLDS in seen and REFUTED not in seen:
            out.append((claim, placement))
    return out


def keys_labelled(t: pd.DataFrame, lab: str) -> set[tuple[str, str, str, str]]:
    """The verdicts (:data:`KEY`: claim, short reading, placement, basis) of a :func:`table`
    that carry the label ``lab``."""
    if t.empty:
        return set()
    return {tuple(r) for r in t.loc[t["label"] == lab, KEY].itertuples(index=False)}


def key_of(r: ClaimResult) -> tuple[str, str, str, str]:
    """One verdict's :data:`KEY` as the table writes it."""
    return (r.claim, short_reading(r), r.placement or "—", r.basis)


def counts(t: pd.DataFrame) -> dict[str, int]:
    """How many verdicts carry each label (every label, zero where none)."""
    got = t["label"].value_counts() if len(t) else pd.Series(dtype=int)
    return {lab: int(got.get(lab, 0)) for lab in LABELS}


@dataclass(frozen=True)
class Agreement:
    """Pairs of runs that both decided one verdict, and how many of them decided it alike."""

    same: int
    pairs: int

    @property
    def share(self) -> float:
        return self.same / self.pairs if self.pairs else float("nan")


def agreement(long: pd.DataFrame, within: str | None = None,
              across: bool = False) -> Agreement:
    """Of the pairs of runs that both decided a verdict (holds or refuted), how many agree:
    pairs of runs of the class ``within``, or (``across``) pairs of runs of two classes."""
    same = pairs = 0
    if long.empty:
        return Agreement(0, 0)
    d = long[long["verdict"].isin(DECIDED)]
    for _, g in d.groupby(KEY, sort=False):
        for (_, a), (_, b) in combinations(g.iterrows(), 2):
            if across and a["cpu_class"] == b["cpu_class"]:
                continue
            if not across and (a["cpu_class"] != within or b["cpu_class"] != within):
                continue
            pairs += 1
            same += a["verdict"] == b["verdict"]
    return Agreement(same, pairs)

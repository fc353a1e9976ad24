#!/usr/bin/env python3
"""Today's design against shared time, in one run that holds both (the ``shared-time``
profile, or any run with ``procedure = "shared-time"`` experiments): per comparison X / send
at each size and placement (and the A/A, send against itself), each design's paired ratio
with its t CI (analysis.statistics.designs, on analysis.statistics.stats.paired_ratio),
its rounds and its per-round sd of the log ratio; whether the two CIs are disjoint; and the
median paired per-round sd of each design.

    PYTHONPATH=$PWD .venv/bin/python studies/shared_time.py data/raw/<run-id> [--family N]

With --criteria [FILE] (default runner/profiles/shared-time-criteria.toml) it judges the run
by the criteria declared before it (analysis.statistics.adoption): each criterion with the
readings it rests on, whether the criteria file was committed before the run's first record
(git log), and the adoption decision (adopt only if every criterion holds). Exit 0 once the
decision is printed (adopt or not); 2 for a run directory or criteria file it cannot read, or
a run without both designs.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import load  # noqa: E402
from analysis.loading import criteria as CL
from analysis.loading import run as A
from analysis.statistics import adoption as AD
from analysis.statistics import designs as D
from analysis.statistics.fmt import fmt_size


def _ci(r: float, lo: float, hi: float) -> str:
    if not math.isfinite(r):
        return "—"
    return f"{r:.3f} [{lo:.3f}, {hi:.3f}]" if math.isfinite(lo) else f"{r:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a run directory (data/raw/<run-id>)")
    ap.add_argument("--family", type=int, default=1,
                    help="the CIs' Bonferroni family: level 1 - 0.05/N (default 1: 95 %%)")
    ap.add_argument("--criteria", type=Path, nargs="?", const=CL.DEFAULT, default=None,
                    help="judge the run by the criteria file (default when given without a "
                         "file: %(const)s)")
    a = ap.parse_args()
    if a.family < 1:
        ap.error(f"--family: a count of comparisons, at least 1 (got {a.family})")
    crit = None
    if a.criteria is not None:
        try:
            crit = CL.read(a.criteria)
        except AD.CriteriaError as e:
            print(f"shared_time: {e}", file=sys.stderr)
            return 2
    run = load("shared_time", a.run)  # missing, damaged or empty: one line, exit 2
    table = D.compare(run.measured, run.shared, a.family)
    con = Console(width=160)
    if crit is not None:
        if table.empty:
            print(f"shared_time: {a.run}: no comparison measured under both designs "
                  f"({len(run.shared)} shared-time rows): the criteria judge a run of the "
                  f"{crit.profile} profile", file=sys.stderr)
            return 2
        judge(con, run, crit, a.criteria)
        return 0
    if table.empty:
        con.print(f"{a.run}: no comparison measured under both designs "
                  f"({len(run.shared)} shared-time rows, {len(run.measured)} of today's)")
        return 1
    t = Table(title=f"{run.run_id}: today's design against shared time (paired ratio, t CI "
                    f"at {1 - 0.05 / a.family:.4g})")
    for col in ("comparison", "size", "placement", "today", "sd today", "shared time",
                "sd shared", "rounds", "disjoint"):
        t.add_column(col)
    for r in table.itertuples():
        t.add_row(r.pair, fmt_size(int(r.size)), r.placement,
                  _ci(r.ratio_today, r.lo_today, r.hi_today), f"{r.sd_today:.3f}",
                  _ci(r.ratio_shared, r.lo_shared, r.hi_shared), f"{r.sd_shared:.3f}",
                  f"{r.rounds_today}/{r.rounds_shared}", "yes" if r.disjoint else "")
    con.print(t)
    for aa, what in ((False, "comparisons X/send"), (True, "A/A")):
        today, shared = D.median_sd(table, aa)
        if math.isfinite(today) or math.isfinite(shared):
            con.print(f"median paired per-round sd, {what}: today {today:.3f}, shared time "
                      f"{shared:.3f} (ratio {shared / today:.2f})")
    return 0


def judge(con: Console, run: A.Run, crit: AD.Criteria, path: Path) -> None:
    """Print each criterion's outcome, when the criteria were committed against the run's
    first record, and the adoption decision."""
    j = AD.judge(run.measured, run.shared, crit)
    con.print(f"{run.run_id}: the criteria of {path}")
    for o in j.outcomes:
        con.print(f"({o.key}) {o.title}: {'holds' if o.holds else 'DOES NOT HOLD'}")
        for line in o.lines:
            con.print(f"    {line}", highlight=False)
    con.print(CL.declared_before(path, run))
    con.print("adopt shared time: " + ("yes (every criterion holds)" if j.adopt else
              f"no (not holding: {', '.join(sorted(set(j.failed())))})"))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Where a run's noise comes from (analysis.statistics.noise_sources): per cell class (message size up
to 4 KiB or above, placement), the sd of log throughput between rounds and of a single trial
within its round, the round's share, and the paired per-round sd that follows; each recorded
mechanism's median R² within a cell; the cells whose trials screen as bimodal, with their
modes and shares; and, where the run holds controls (blocks of another window or of fixed
socket buffers), each against today's procedure: paired per-round sd, the change in the ratio,
the machine seconds a decided comparison needs.

    PYTHONPATH=$PWD .venv/bin/python studies/noise_sources.py data/raw/<run-id>
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import load  # noqa: E402
from analysis.statistics import noise_sources as N
from decision.band import SESOI


def table(title: str, df, fmt: str = "{:.3f}") -> Table:
    t = Table(title=title)
    for c in df.columns:
        t.add_column(str(c))
    for _, row in df.iterrows():
        t.add_row(*[fmt.format(v) if isinstance(v, float) else str(v) for v in row])
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a run directory (data/raw/<run-id>)")
    ap.add_argument("--comparisons", action="store_true",
                    help="also print every paired comparison (per block and pair)")
    a = ap.parse_args()
    # a missing, damaged or empty run: one line naming it (never a traceback)
    m = load("noise_sources", a.run).measured
    con = Console(width=140)
    comp = N.components(m)
    if comp.empty:
        print(f"noise_sources: {a.run} has no block with {N.MIN_ROUNDS} complete rounds of "
              "TCP stream cells", file=sys.stderr)
        return 2
    today = comp[comp["procedure"] == N.TODAY]
    con.print(table(f"variance of log throughput by cell class, {N.TODAY} (medians over "
                    "blocks)", N.by_class(today if len(today) else comp)))
    mech = N.mechanisms(m)
    if len(mech):
        med = mech.groupby(["mechanism", "class"])["r2"].median().unstack("class").reset_index()
        con.print(table("share of a cell's variance each mechanism explains (median R² over cells)",
                        med, "{:.2f}"))
    d = N.stream_trials(m)
    rows = []
    for cell, g in d.groupby("cell"):
        x = N.modes(g["gbit_per_s"].to_numpy())
        if x.bimodal:
            f = g.iloc[0]
            rows.append({"method": f["method"], "size": int(f["size"]), "transport": f["transport"],
                         "placement": f["placement"], "trials": x.n, "coefficient": x.coefficient,
                         "low mode": x.low, "high mode": x.high, "low share": x.share_low})
    n = d.groupby("cell").size()
    con.print(f"{len(rows)} of {int((n >= 6).sum())} stream cells with >= 6 trials screen as "
              f"bimodal (Sarle's coefficient > {N.BIMODAL_BC:.3f}); modes relative to the cell's median")
    if rows:
        import pandas as pd
        con.print(table("bimodal cells", pd.DataFrame(rows)))
    comp = N.comparisons(m)
    ctl = N.controls(comp)
    if len(ctl) > 1:
        con.print(table(
            "controls against today's procedure (1 s window, autotuned buffers) on the "
            "comparisons both measured: medians of the paired per-round sd of the log ratio, "
            "of the control's ratio over today's, and of the machine seconds a comparison "
            f"needs for a {N.DECIDE_LEVEL:.0%} CI of ±{SESOI:.0%}", ctl))
    if a.comparisons:
        con.print(table("every paired comparison", comp.drop(columns=["block"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Copies per transfer: claim C15 (S5's textbook table) against the measured CPU copies
per byte."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats as S
from analysis.claims.base import HOLDS, INCONCLUSIVE, REFUTED, ClaimResult, sizes_text
from analysis.run import Run, memcpy_gbit

#: Textbook CPU copies per transfer (claim C15, S5 table 1.1 citing Song & Alves-Foss).
TEXTBOOK_COPIES: dict[str, tuple[int, ...]] = {"read-write": (2,), "mmap-write": (1,),
                                                "sendfile": (1, 0), "splice": (0,)}
COPIES_TOL = 0.5



def copies_per_byte(run: Run) -> pd.DataFrame:
    """Measured CPU copies per byte for every profiled cell.

    copies = (copy-routine share of the busy CPU samples of the profiled trial, system-wide)
    x (CPU-seconds per byte of the cell's measured trials, sender + receiver) x (memcpy
    bytes per second). The CI covers the variation of CPU per byte over the measured trials
    (the share comes from the single profiled trial). For file→socket the count includes
    the receiver's one copy out of the socket into its user buffer, which the textbook
    table does not count; ``path_copies`` subtracts it."""
    prof = run.profiles.summary
    bw = memcpy_gbit(run.manifest)
    cols = ["method", "scenario", "transport", "size", "threads", "textbook", "copies", "lo",
            "hi", "path_copies", "path_lo", "path_hi", "copy_share_of_busy", "n", "cell"]
    if prof.empty or bw is None:
        return pd.DataFrame(columns=cols)
    m = run.measured
    rows = []
    for _, pr in prof.iterrows():
        trials = m[m["cell"] == pr["cell"]]
        if trials.empty or not math.isfinite(pr["copy_share_of_busy"]):
            continue
        cpu = (trials["sender_cpu_s"].astype(float)
               + trials["receiver_cpu_s"].astype(float).fillna(0.0)) / trials["bytes"].astype(float)
        e = S.median_ci(cpu.to_numpy())
        f = pr["copy_share_of_busy"] * bw / 8.0 * 1e9  # (1) x (s/B) x (B/s)
        first = trials.iloc[0]
        recv = 1.0 if first["scenario"] in ("file→socket", "message") and \
            first["receiver_cpu_s"] == first["receiver_cpu_s"] else 0.0
        allowed = TEXTBOOK_COPIES.get(first["method"])
        rows.append({"method": first["method"], "scenario": first["scenario"],
                     "transport": first["transport"], "size": first["size"],
                     "threads": first["threads"],
                     "textbook": "/".join(map(str, allowed)) if allowed else "—",
                     "copies": e.value * f, "lo": e.lo * f, "hi": e.hi * f,
                     "path_copies": e.value * f - recv, "path_lo": e.lo * f - recv,
                     "path_hi": e.hi * f - recv,
                     "copy_share_of_busy": pr["copy_share_of_busy"], "n": e.n,
                     "cell": pr["cell"]})
    return pd.DataFrame(rows, columns=cols) if rows else pd.DataFrame(columns=cols)


def c15(run: Run) -> ClaimResult:
    r = ClaimResult("C15", "S5", "CPU copies per technique: read+write 2, mmap+write 1, "
                    "sendfile 1 (0 with scatter-gather), splice 0 (context switches "
                    "4/4/2/2)", "table 1.1 (after Song & Alves-Foss 2012)")
    if memcpy_gbit(run.manifest) is None:
        r.reason = "no memcpy bandwidth in the manifest"
        return r
    if run.profiles.empty:
        r.reason = "no perf CPU profiles in this run"
        return r
    cp = copies_per_byte(run)
    cp = cp[(cp["scenario"] == "file→socket") & cp["method"].isin(list(TEXTBOOK_COPIES))]
    cp = cp[np.isfinite(cp["path_lo"].astype(float))] if len(cp) else cp
    if cp.empty:
        r.reason = ("no profiled file→socket cell of read-write, mmap-write, sendfile or "
                    "splice with repeated trials in this run")
        return r
    cp = cp.sort_values("size").groupby("method").tail(1)
    r.details = cp.to_dict("records")

    def dist(x: Any) -> float:
        return min(abs(x["path_copies"] - t) for t in TEXTBOOK_COPIES[x["method"]])

    def inside(x: Any) -> bool:
        return any(x["path_lo"] >= t - COPIES_TOL and x["path_hi"] <= t + COPIES_TOL
                   for t in TEXTBOOK_COPIES[x["method"]])

    def outside(x: Any) -> bool:
        return all(x["path_hi"] < t - COPIES_TOL or x["path_lo"] > t + COPIES_TOL
                   for t in TEXTBOOK_COPIES[x["method"]])

    worst = max(r.details, key=dist)
    r.value, r.lo, r.hi = worst["path_copies"], worst["path_lo"], worst["path_hi"]
    r.verdict = HOLDS if all(inside(x) for x in r.details) else \
        REFUTED if any(outside(x) for x in r.details) else INCONCLUSIVE
    r.statistic = (f"measured CPU copies per byte on the sending path, method farthest from "
                   f"the table: {worst['method']} (table: {worst['textbook']})")
    r.configuration = (f"file→socket, {worst['transport']}, sizes "
                       f"{sizes_text(sorted(set(cp['size'])))}")
    r.reason = ("measured vs table: " + "; ".join(
        f"{x['method']} {x['path_copies']:.2f} vs {x['textbook']}" for x in r.details)
        + f"; decision: within ±{COPIES_TOL} of the table; the receiver's copy out of the "
        "socket is subtracted; context switches are not tested")
    return r

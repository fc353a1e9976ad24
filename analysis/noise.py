"""How noisy a run was, against the measurement window: per kind of cell (stream, pingpong,
file), placement and window, the per-trial coefficient of variation of each method and the
standard deviation of the per-round log ratio of two methods of one block (measured back to
back). Computed for the primary metric (throughput, or the median RTT for pingpong) and for
CPU-seconds per GB on each side. The method chapter draws these curves; the runner plans
with the same quantity (``python -m runner noise``), computed from the raw records there.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

METRICS = {"primary": None, "sender CPU s/GB": "sender_cpu_s_per_gb",
           "receiver CPU s/GB": "receiver_cpu_s_per_gb"}


def _kind(row: pd.Series) -> str:
    if row["command"] == "copy" or pd.notna(row["cache"]):
        return "file"
    return row["mode"] or "stream"


def by_window(measured: pd.DataFrame) -> pd.DataFrame:
    """One row per (kind, placement, window, metric): trial_cv (median over the cells),
    log_ratio_sd (pooled over the blocks' method pairs), blocks, rounds."""
    cols = ["kind", "placement", "window_s", "metric", "trial_cv", "log_ratio_sd", "blocks",
            "rounds"]
    if measured.empty or "block" not in measured or measured["block"].isna().all():
        return pd.DataFrame(columns=cols)
    d = measured[(measured["kind"] == "copybench") & measured["block"].notna()
                 & (measured.get("twin", pd.Series(0, index=measured.index)).fillna(0) == 0)].copy()
    if d.empty:
        return pd.DataFrame(columns=cols)
    d["kind_of_cell"] = d.apply(_kind, axis=1)
    d["primary"] = np.where(d["mode"] == "pingpong", d["rtt_p50_us"], d["gbit_per_s"])
    acc: dict[tuple, dict] = {}
    for (kind, placement, window, block), g in d.groupby(
            ["kind_of_cell", "placement", "duration_s", "block"], dropna=False):
        for name, col in METRICS.items():
            col = col or "primary"
            a = acc.setdefault((kind, placement, float(window), name),
                               {"var": [], "cv": [], "blocks": 0, "rounds": 0})
            wide = g.pivot_table(index="repetition", columns="cell", values=col, aggfunc="first")
            used = False
            for c1, c2 in itertools.combinations(sorted(wide.columns), 2):
                pair = wide[[c1, c2]].astype(float).dropna()
                pair = pair[(pair[c1] > 0) & (pair[c2] > 0)]
                if len(pair) >= 3:
                    lr = np.log(pair[c1] / pair[c2])
                    a["var"].append((float(lr.var(ddof=1)), len(lr) - 1))
                    a["rounds"] = max(a["rounds"], len(lr))
                    used = True
            for c in wide.columns:
                x = wide[c].astype(float).dropna()
                if len(x) >= 2 and x.mean() > 0:
                    a["cv"].append(float(x.std(ddof=1) / x.mean()))
            a["blocks"] += int(used)
    rows = []
    for (kind, placement, window, name), a in sorted(acc.items()):
        dof = sum(k for _, k in a["var"])
        rows.append({"kind": kind, "placement": placement, "window_s": window, "metric": name,
                     "trial_cv": float(np.median(a["cv"])) if a["cv"] else math.nan,
                     "log_ratio_sd": math.sqrt(sum(v * k for v, k in a["var"]) / dof)
                     if dof else math.nan, "blocks": a["blocks"], "rounds": a["rounds"]})
    return pd.DataFrame(rows, columns=cols)

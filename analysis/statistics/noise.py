"""How noisy a run was, against the measurement window: per kind of cell (stream, pingpong,
file), placement and window, the per-trial coefficient of variation of each method and the
standard deviation of the per-round log ratio of two methods of one block (measured back to
back). Computed for the primary metric (throughput, or the median RTT for pingpong) and for
CPU-seconds per GB on each side. The method chapter draws these curves; the runner plans
with the same quantity (``python -m runner noise``): both take its definition from
:mod:`decision.quantities`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd

from decision import quantities as Q

#: metric name -> column of the tidy trials (analysis.loading.run); "primary" is the primary metric
#: of decision.quantities, the runner's
METRICS = {"primary": "primary_metric", "sender CPU s/GB": "sender_cpu_s_per_gb",
           "receiver CPU s/GB": "receiver_cpu_s_per_gb"}
COLUMNS = ["kind", "placement", "window_s", "metric", "trial_cv", "log_ratio_sd", "blocks",
           "rounds"]


def _value(v: Any) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


def _kind(row: pd.Series) -> str:
    mode, command, cache = (_text(row[k]) for k in ("mode", "command", "cache"))
    return Q.cell_kind(mode, command, cache)


def _text(v: Any) -> str | None:
    return None if v is None or pd.isna(v) else str(v)


def by_window(measured: pd.DataFrame) -> pd.DataFrame:
    """One row per (kind, placement, window, metric): trial_cv (median over the cells),
    log_ratio_sd (pooled over the blocks' method pairs), blocks, rounds: the noise quantity
    of :mod:`decision.quantities`, as the runner plans with it."""
    if measured.empty or "block" not in measured or measured["block"].isna().all():
        return pd.DataFrame(columns=COLUMNS)
    d = measured[(measured["kind"] == "copybench") & measured["block"].notna()
                 & (measured.get("twin", pd.Series(0, index=measured.index)).fillna(0) == 0)
                 # fixed socket buffers: the noise study's control, not a planned procedure
                 & (measured.get("sockbuf", pd.Series(0, index=measured.index)).fillna(0) == 0)
                 # ... and its kept sink and two methods alternating in one trial
                 & (measured.get("sink", pd.Series(None, index=measured.index)) != "kept")
                 & measured.get("alternate", pd.Series(None, index=measured.index)).isna()
                 ].copy()
    if d.empty:
        return pd.DataFrame(columns=COLUMNS)
    d["kind_of_cell"] = d.apply(_kind, axis=1)
    acc: dict[tuple[str, str, float, str], dict[str, Any]] = defaultdict(
        lambda: {"var": [], "cv": [], "blocks": 0, "rounds": 0})
    for (kind, placement, window, _block), g in d.groupby(
            ["kind_of_cell", "placement", "duration_s", "block"], dropna=False):
        for name, col in METRICS.items():
            a = acc[(kind, placement, float(window), name)]
            values = {cell: {int(r): _value(v) for r, v in zip(c["repetition"], c[col])}
                      for cell, c in g.groupby("cell")}
            Q.accumulate(a, values)
    rows = []
    for (kind, placement, window, name), a in sorted(acc.items()):
        sd = Q.pooled_sd(a["var"])
        rows.append({"kind": kind, "placement": placement, "window_s": window, "metric": name,
                     "trial_cv": float(np.median(a["cv"])) if a["cv"] else math.nan,
                     "log_ratio_sd": math.nan if sd is None else sd,
                     "blocks": a["blocks"], "rounds": a["rounds"]})
    return pd.DataFrame(rows, columns=COLUMNS)

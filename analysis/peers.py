"""What the peer tools (iperf3) reported beyond copybench's measures: each side's CPU
utilisation, as CPU-seconds per GB moved, from the run's tidy trials (``sender_cpu_util_pct``
and ``receiver_cpu_util_pct``: the records' ``result`` ``cpu_utilization_percent``, the
client's and the server's over the test)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis.run import Run


def _given(x: Any) -> bool:
    """A value the record holds, and not zero (a missing value is None or NaN in the table)."""
    return x is not None and not (isinstance(x, float) and math.isnan(x)) and x != 0


def _int(x: Any) -> Any:
    """A whole number the table holds as a float (a column with gaps) as the int it was."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def iperf3_cpu(run: Run) -> pd.DataFrame:
    """One row per ok iperf3 trial: its configuration and each side's CPU-s per GB."""
    rows = []
    t = run.trials
    for r in t[t["kind"] == "peer:iperf3"].to_dict("records"):
        if r["status"] != "ok" or not _given(r["bytes"]) or not _given(r["seconds"]):
            continue
        gb = r["bytes"] / 1e9
        rows.append({"transport": r["transport"], "placement": r["placement"],
                     "size": _int(r["size"]), "threads": _int(r["threads"]) or 1,
                     **{f"{side}_cpu_s_per_gb": (
                         r[f"{side}_cpu_util_pct"] if _given(r[f"{side}_cpu_util_pct"])
                         else math.nan) / 100 * r["seconds"] / gb
                        for side in ("sender", "receiver")}})
    return pd.DataFrame(rows)

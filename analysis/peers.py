"""What the peer tools (iperf3) reported beyond the tidy trial table: each side's CPU
utilisation, as CPU-seconds per GB moved, read from the run's records (``result``
``cpu_utilization_percent``: the client's and the server's over the test)."""

from __future__ import annotations

import math

import pandas as pd

from analysis.run import Run


def iperf3_cpu(run: Run) -> pd.DataFrame:
    """One row per ok iperf3 trial: its configuration and each side's CPU-s per GB."""
    rows = []
    for r in run.raw_records():
        cfg, res = r.get("config") or {}, r.get("result") or {}
        if (cfg.get("kind") != "peer:iperf3" or r.get("status") != "ok"
                or not res.get("bytes") or not res.get("seconds")):
            continue
        cu, gb = res.get("cpu_utilization_percent") or {}, res["bytes"] / 1e9
        rows.append({"transport": cfg.get("transport"), "placement": cfg.get("placement"),
                     "size": cfg.get("size"), "threads": cfg.get("threads") or 1,
                     **{f"{side}_cpu_s_per_gb": (cu.get(side) or math.nan) / 100
                        * res["seconds"] / gb for side in ("sender", "receiver")}})
    return pd.DataFrame(rows)

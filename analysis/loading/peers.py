"""What the peer tools (iperf3) reported beyond the tidy trial table: each side's CPU
utilisation, as CPU-seconds per GB moved, read from the run's records (``result``
``cpu_utilization_percent``: the client's and the server's over the test); and the
harness-fidelity bench's committed measurements (copybench against iperf3 over the whole
size range, :func:`bench_fidelity`)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Sequence

import pandas as pd

from analysis.loading.run import Run
from rundir import utf8


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


#: the harness-fidelity bench's committed measurements (``bench/fidelity --json``)
BENCH_FIDELITY = "bench/results/fidelity-*.json"
#: the level of the t interval bench/fidelity writes for each configuration's ratio (its
#: student_t.ppf(0.975)): the files do not record it
BENCH_CONFIDENCE = 0.95
_SIZES = {"64": 64, "4K": 4096, "16K": 16384, "64K": 65536, "256K": 262144, "1M": 1 << 20}


def bench_fidelity(paths: Sequence[str | Path]) -> pd.DataFrame:
    """The summaries of ``bench/fidelity`` runs (their ``--json`` files, named
    ``fidelity-YYYYMMDD-*.json``), one row per configuration measured, the newest
    measurement of each configuration (the later file; on the same day, the one with more
    rounds): copybench ``send`` / iperf3 throughput (geometric mean over interleaved rounds,
    95 % t CI), the receivers' CPU per GB (copybench's ÷ iperf3's), the CPU model and count
    it ran on ("" and 0 where the file names none: files written before the bench recorded
    its machine) and, where the file measured an older build beside it, that build's ratio."""
    cols = ["file", "day", "cpu_model", "cpu_count", "rounds", "transport", "placement",
            "size", "ratio", "lo", "hi",
            "receiver_cpu_ratio", "copybench_gbit", "iperf3_gbit", "baseline_ratio",
            "baseline_lo", "baseline_hi", "baseline_receiver_cpu_ratio"]
    rows = []
    for p in map(Path, paths):
        m = re.match(r"fidelity-(\d{8})-", p.name)
        try:  # read as any input file is (rundir.utf8.read: a regular file, bounded)
            doc = utf8.json_loads(utf8.read(p))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{p}: cannot be read as a bench/fidelity result "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
        if not isinstance(doc, dict):
            raise ValueError(f"{p}: a JSON {type(doc).__name__}, not a bench/fidelity "
                             "result (an object)")
        summary = doc.get("summary") or []
        cpu = (doc.get("machine") or {}).get("cpu") or {}
        for s in summary:
            cb, base = s.get("copybench/iperf3") or {}, s.get("baseline/iperf3") or {}
            if not cb.get("ratio"):
                continue
            rows.append({
                "file": p.name, "day": m.group(1) if m else "",
                "cpu_model": str(cpu.get("model") or ""), "cpu_count": cpu.get("count") or 0,
                "rounds": cb.get("rounds"),
                "transport": s["transport"], "placement": s["placement"],
                "size": _SIZES.get(str(s["size"]), math.nan),
                "ratio": cb["ratio"], "lo": cb["ci"][0], "hi": cb["ci"][1],
                "receiver_cpu_ratio": cb.get("receiver_cpu_ratio", math.nan),
                "copybench_gbit": (s.get("copybench") or {}).get("gbit_per_s", math.nan),
                "iperf3_gbit": (s.get("iperf3") or {}).get("gbit_per_s", math.nan),
                "baseline_ratio": base.get("ratio", math.nan),
                "baseline_lo": (base.get("ci") or [math.nan])[0],
                "baseline_hi": (base.get("ci") or [math.nan, math.nan])[1],
                "baseline_receiver_cpu_ratio": base.get("receiver_cpu_ratio", math.nan)})
    d = pd.DataFrame(rows, columns=cols)
    if d.empty:
        return d
    d = d.sort_values(["day", "rounds", "file"]).drop_duplicates(
        ["transport", "placement", "size"], keep="last")
    return d.sort_values(["transport", "placement", "size"]).reset_index(drop=True)


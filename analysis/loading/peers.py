"""What the peer tools (iperf3) reported beyond the tidy trial table: each side's CPU
utilisation, as CPU-seconds per GB moved, read from the run's records (``result``
``cpu_utilization_percent``: the client's and the server's over the test); and the
harness-fidelity bench's committed measurements (copybench against iperf3 over the whole
size range, :func:`bench_fidelity`)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from analysis.loading.run import Run
from rundir import utf8
from rundir.vocabulary import MESSAGE_METHODS


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


def _num(x: Any) -> float:
    """A bench file's number (NaN where it wrote NaN or null: a median of nothing)."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def _ci(x: dict[str, Any], i: int) -> float:
    ci = x.get("ci") or []
    return _num(ci[i]) if len(ci) > i else math.nan


def _methods(s: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(method, its key, its baseline's key) of each copybench method a summary row holds:
    ``<method>/iperf3`` since the bench measures each method beside iperf3; a file written
    before it holds ``copybench/iperf3``, which measured ``send`` alone."""
    if "copybench/iperf3" in s:
        return [("send", "copybench", "baseline")]
    return [(m, m, f"baseline-{m}") for m in MESSAGE_METHODS if f"{m}/iperf3" in s]


def bench_fidelity(paths: Sequence[str | Path]) -> pd.DataFrame:
    """The summaries of ``bench/fidelity`` runs (their ``--json`` files, named
    ``fidelity-YYYYMMDD-*.json``), one row per configuration and copybench method measured,
    the newest measurement of each (the later file; on the same day, the one with more
    rounds): the method / iperf3 throughput (geometric mean over interleaved rounds,
    95 % t CI), the receivers' CPU per GB (copybench's ÷ iperf3's), each side's sender CPU
    per GB, the CPU model and count it ran on ("" and 0 where the file names none: files
    written before the bench recorded its machine), where the file measured an older build
    beside it, that build's ratio, and on ``send``'s row where ``sendmsg`` was measured in
    the same rounds, ``send`` / ``sendmsg`` and ``send``'s extra sender CPU per GB (``gap_``:
    the cost of its memcpy). A file holds NaN where a median had nothing to take (iperf3's
    bytes per receive call)."""
    cols = ["file", "day", "cpu_model", "cpu_count", "method", "rounds", "transport",
            "placement", "size", "ratio", "lo", "hi",
            "receiver_cpu_ratio", "sender_s_per_gb", "iperf3_sender_s_per_gb",
            "copybench_gbit", "iperf3_gbit", "baseline_ratio",
            "baseline_lo", "baseline_hi", "baseline_receiver_cpu_ratio",
            "gap_ratio", "gap_lo", "gap_hi", "gap_rounds", "gap_extra_sender_s_per_gb"]
    rows = []
    for p in map(Path, paths):
        m = re.match(r"fidelity-(\d{8})-", p.name)
        try:  # a regular file, bounded (rundir.utf8.read); the bench writes NaN, so not strict
            doc = json.loads(utf8.read(p))
        except (OSError, ValueError, RecursionError) as exc:
            raise ValueError(f"{p}: cannot be read as a bench/fidelity result "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
        if not isinstance(doc, dict):
            raise ValueError(f"{p}: a JSON {type(doc).__name__}, not a bench/fidelity "
                             "result (an object)")
        summary = doc.get("summary") or []
        cpu = (doc.get("machine") or {}).get("cpu") or {}
        for s in summary:
            if not isinstance(s, dict):
                continue
            ip = s.get("iperf3") or {}
            for method, key, base_key in _methods(s):
                cb, base = s.get(f"{key}/iperf3") or {}, s.get(f"{base_key}/iperf3") or {}
                gap = (s.get("send/sendmsg") or {}) if method == "send" else {}
                if not _num(cb.get("ratio")) > 0:
                    continue
                rows.append({
                    "file": p.name, "day": m.group(1) if m else "",
                    "cpu_model": str(cpu.get("model") or ""), "cpu_count": cpu.get("count") or 0,
                    "method": method, "rounds": cb.get("rounds"),
                    "transport": s["transport"], "placement": s["placement"],
                    "size": _SIZES.get(str(s["size"]), math.nan),
                    "ratio": _num(cb["ratio"]), "lo": _ci(cb, 0), "hi": _ci(cb, 1),
                    "receiver_cpu_ratio": _num(cb.get("receiver_cpu_ratio")),
                    "sender_s_per_gb": _num((s.get(key) or {}).get("sender_s_per_gb")),
                    "iperf3_sender_s_per_gb": _num(ip.get("sender_s_per_gb")),
                    "copybench_gbit": _num((s.get(key) or {}).get("gbit_per_s")),
                    "iperf3_gbit": _num(ip.get("gbit_per_s")),
                    "baseline_ratio": _num(base.get("ratio")),
                    "baseline_lo": _ci(base, 0), "baseline_hi": _ci(base, 1),
                    "baseline_receiver_cpu_ratio": _num(base.get("receiver_cpu_ratio")),
                    "gap_ratio": _num(gap.get("ratio")), "gap_lo": _ci(gap, 0),
                    "gap_hi": _ci(gap, 1), "gap_rounds": gap.get("rounds") or 0,
                    "gap_extra_sender_s_per_gb": _num(gap.get("extra_sender_s_per_gb"))})
    d = pd.DataFrame(rows, columns=cols)
    if d.empty:
        return d
    d = d.sort_values(["day", "rounds", "file"]).drop_duplicates(
        ["transport", "placement", "size", "method"], keep="last")
    return d.sort_values(["transport", "placement", "size", "method"]).reset_index(drop=True)

"""The numbers the reports published, read from the CSVs in their own repositories.

Read at run time from the fetched, verified trees (their CSVs are never copied here). Each
row: claim, source, file, method, message size in bytes (8 fields), the size as the CSV
writes it, threads, metric, value, unit. Claims whose numbers the CSVs do not hold get a
row in ``missing`` with the reason. Where a CSV and the report's text disagree, both are
shown by the caller (CLAIMS.md holds the report's numbers).

What each CSV is (from the scripts that wrote it):

* S1 ``MT24147_Part_A_client_results.csv``: Implementation, MessageSize (bytes **per
  field**), Threads, Throughput(Gbps) and Latency(us) as the client prints them (see
  ``adapters``: nominal-duration "Gbps" over 2^20-byte MB; latency = window / messages).
* S2 ``MT25018_Part_C_Throughput_Metrics.csv`` / ``..._Latency_Metrics.csv`` /
  ``..._Perf_Metrics.csv``: the *first* client process's Throughput and Average latency,
  and ``perf stat`` of the server process; MessageSize per message. Every row's
  ``Duration_sec`` is about 2.00 although the script ran clients for 10 s: the server's
  early exit (see ``adapters``).
* S3 ``MT25043_Part_C_Results.csv``: only its header line is committed: no numbers.
"""

from __future__ import annotations

import csv
from pathlib import Path

S1_CSV = "MT24147_Part_A_client_results.csv"
S2_TPUT = "MT25018_Part_C_Throughput_Metrics.csv"
S2_LAT = "MT25018_Part_C_Latency_Metrics.csv"
S2_PERF = "MT25018_Part_C_Perf_Metrics.csv"
S3_CSV = "MT25043_Part_C_Results.csv"

_S1_METHOD = {"A1_TwoCopy": "two-copy", "A2_OneCopy": "one-copy", "A3_ZeroCopy": "zero-copy"}
_S2_METHOD = {"TwoCopy": "two-copy", "OneCopy": "one-copy", "ZeroCopy": "zero-copy"}
S2_SIZES = (512, 4096, 16384, 65536)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return [{k.strip(): (v or "").strip() for k, v in r.items() if k}
                for r in csv.DictReader(f)]


def _row(claim: str, source: str, file: str, method: str, size: int, size_as: str,
         threads: int, metric: str, value: float, unit: str) -> dict[str, object]:
    return {"claim": claim, "source": source, "file": file, "method": f"{source}:{method}",
            "message_bytes": size, "size_as_published": size_as, "threads": threads,
            "metric": metric, "value": value, "unit": unit}


def s1(tree: Path) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    out: list[dict[str, object]] = []
    missing = [{"claim": "C2", "source": "S1", "reason": "the perf CSVs are per-second "
                "samples of the server over the whole session, not per configuration"},
               {"claim": "C3", "source": "S1", "reason": "qualitative"}]
    for r in _rows(tree / S1_CSV):
        m = _S1_METHOD.get(r["Implementation"])
        if m is None:
            continue
        field, threads = int(r["MessageSize"]), int(r["Threads"])
        if field == 64 and threads == 1:
            out.append(_row("C1", "S1", S1_CSV, m, 8 * field, f"{field} B per field", threads,
                            "latency_us (window / messages received)",
                            float(r["Latency(us)"]), "us"))
    return out, missing


def s2(tree: Path) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    out: list[dict[str, object]] = []
    for r in _rows(tree / S2_TPUT):
        m = _S2_METHOD.get(r["Implementation"])
        size, threads = int(r["MessageSize"]), int(r["ThreadCount"])
        if m is None:
            continue
        val = float(r["Throughput_Gbps"])
        args = (S2_TPUT, m, size, f"{size} B per message", threads,
                "throughput_gbps (first client)", val, "Gbit/s")
        if threads == 1 and size in S2_SIZES and m in ("one-copy", "two-copy"):
            out.append(_row("C4", "S2", *args))
        if threads == 1 and size in S2_SIZES and m in ("zero-copy", "two-copy"):
            out.append(_row("C5", "S2", *args))
        if size == 65536 and m == "one-copy":
            out.append(_row("C6", "S2", *args))
    for r in _rows(tree / S2_PERF):
        m = _S2_METHOD.get(r["Implementation"])
        size, threads = int(r["MessageSize"]), int(r["ThreadCount"])
        if m in ("zero-copy", "two-copy") and size == 512 and threads == 1:
            out.append(_row("C7", "S2", S2_PERF, m, size, f"{size} B per message", threads,
                            "L1-dcache-load-misses (server, perf stat)",
                            float(r["L1_Misses"]), "count"))
    return out, []


def s3(tree: Path) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    rows = _rows(tree / S3_CSV)
    if rows:
        reason = f"{S3_CSV} has {len(rows)} rows; no reader for them yet"
    else:
        reason = f"{S3_CSV} holds only its header line: the report's numbers are not in it"
    return [], [{"claim": c, "source": "S3", "reason": reason}
                for c in ("C8", "C9", "C10", "C11", "C12")]


READERS = {"S1": s1, "S2": s2, "S3": s3}


def read(trees: dict[str, Path]) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    """Published numbers per claim from each fetched tree (``{"S1": path, ...}``)."""
    rows: list[dict[str, object]] = []
    missing: list[dict[str, str]] = []
    for sid, tree in trees.items():
        r, m = READERS[sid](tree)
        rows += r
        missing += m
    return rows, missing

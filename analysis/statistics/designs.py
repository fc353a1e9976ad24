"""Two designs of one comparison side by side: today's (each method in a trial of its own,
paired by round in its block) and shared time (the two methods in one trial, two connections
taking turns: src/README.md, "Shared time"). Per comparison X / send at a size and placement
(and the A/A: send against itself, today's twin and the shared-time trial's second
connection), each design's paired ratio with its t CI (:func:`analysis.statistics.stats.
paired_ratio`, the analysis's one paired reading) and its per-round sd of the log ratio.

A round's ratio: today's, the two cells' trials of the block in that round (the block's
median where a cell ran twice); shared time's, the two methods' rates in the one trial.
Pure: it reads the tidy tables (``Run.measured`` and ``Run.shared``), never a file.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis.statistics import stats as S

BASE = "send"
COLUMNS = ["pair", "size", "placement", "rounds_today", "ratio_today", "lo_today",
           "hi_today", "sd_today", "rounds_shared", "ratio_shared", "lo_shared", "hi_shared",
           "sd_shared", "disjoint"]


def _key(size: Any, placement: Any, pair: str) -> tuple[int, str, str]:
    return int(size), str(placement), pair


def stream_rows(d: pd.DataFrame) -> pd.DataFrame:
    """The rows both designs are read on: stream trials of a block, kept-sink trials left out
    (a variant of today's, read apart); no rows where the table lacks the columns."""
    need = {"block", "repetition", "method", "size", "placement", "gbit_per_s"}
    if d.empty or not need <= set(d):
        return d.iloc[0:0]
    d = d[d["block"].notna() & (d.get("mode", "stream") == "stream")
          & (d.get("sink").fillna("fresh") != "kept" if "sink" in d else True)]
    return d


def today_rounds(measured: pd.DataFrame) -> dict[tuple[int, str, str], pd.DataFrame]:
    """Today's pairs per comparison (``X/send`` and ``send (twin)/send``): per (block,
    round), columns ``a`` and ``b``; kept-sink blocks left out (a variant of today's, read
    apart)."""
    d = stream_rows(measured)
    out: dict[tuple[int, str, str], pd.DataFrame] = {}
    if d.empty:
        return out
    d = d.assign(who=np.where(d["twin"].fillna(0).astype(int) > 0, d["method"] + " (twin)",
                              d["method"]))
    for (size, placement), g in d.groupby(["size", "placement"]):
        piv = g.pivot_table(index=["block", "repetition"], columns="who", values="gbit_per_s",
                            aggfunc="median")
        if BASE not in piv:
            continue
        for who in piv.columns:
            if who == BASE:
                continue
            j = piv[[who, BASE]].dropna()
            j.columns = ["a", "b"]
            out[_key(size, placement, f"{who}/{BASE}")] = j
    return out


def shared_rounds(shared: pd.DataFrame) -> dict[tuple[int, str, str], pd.DataFrame]:
    """Shared time's pairs per comparison: per (block, round), ``a`` the rate of X (of the
    A/A's second connection, its twin) and ``b`` send's, from the same trial."""
    d = stream_rows(shared)
    out: dict[tuple[int, str, str], pd.DataFrame] = {}
    if d.empty:
        return out
    for (size, placement, _trial_cell), g in d.groupby(["size", "placement", "trial_cell"]):
        by = {int(c): x.set_index(["block", "repetition"]) for c, x in g.groupby("connection")}
        if set(by) != {0, 1}:
            continue
        m0, m1 = str(by[0]["method"].iloc[0]), str(by[1]["method"].iloc[0])
        if m1 != BASE:
            continue
        a, pair = (by[1], f"{BASE} (twin)/{BASE}") if m0 == BASE else (by[0], f"{m0}/{BASE}")
        b = by[0] if m0 == BASE else by[1]
        j = pd.concat([a["gbit_per_s"].rename("a"), b["gbit_per_s"].rename("b")], axis=1,
                      join="inner").astype(float).dropna()
        out[_key(size, placement, pair)] = j
    return out


def _reading(j: pd.DataFrame | None, family: int) -> dict[str, float]:
    if j is None or len(j) < 2:
        return {"rounds": 0, "ratio": math.nan, "lo": math.nan, "hi": math.nan,
                "sd": math.nan}
    t = S.paired_ratio(j["a"], j["b"], family)
    return {"rounds": t.ratio.n, "ratio": t.ratio.value, "lo": t.ratio.lo, "hi": t.ratio.hi,
            "sd": t.sd_log}


def compare(measured: pd.DataFrame, shared: pd.DataFrame, family: int = 1) -> pd.DataFrame:
    """Every comparison both designs measured: each one's rounds, paired ratio with its t CI
    at level 1 - 0.05/``family`` and per-round sd of the log ratio, and whether the two CIs
    are disjoint (the designs read different ratios there)."""
    today, sh = today_rounds(measured), shared_rounds(shared)
    rows = []
    for key in sorted(set(today) & set(sh)):
        t, s = _reading(today[key], family), _reading(sh[key], family)
        rows.append({"pair": key[2], "size": key[0], "placement": key[1],
                     **{f"{k}_today": v for k, v in t.items()},
                     **{f"{k}_shared": v for k, v in s.items()},
                     "disjoint": bool(t["hi"] < s["lo"] or s["hi"] < t["lo"])})
    out = pd.DataFrame(rows, columns=COLUMNS)
    return out


def median_sd(table: pd.DataFrame, aa: bool = False) -> tuple[float, float]:
    """The median per-round sd of today's and of shared time's comparisons in ``table``
    (:func:`compare`); the A/A's rows only with ``aa``, else the others."""
    is_aa = table["pair"].str.contains("(twin)", regex=False)
    t = table[is_aa] if aa else table[~is_aa]
    return float(t["sd_today"].median()), float(t["sd_shared"].median())

"""Compare a run (a reviewer's) with the reference run: cell by cell and claim by claim.

Cells are matched on the factors that define a configuration (:data:`KEY`), window length
(``duration_s``) included, not on the cell id: a run on another machine is compared with the
reference wherever both measured the same configuration with the same window. A cell that
matches on everything but its window is not compared (a 0.3 s window is not a 1 s window);
:func:`unmatched` counts those separately (its "other window only" column).

Per matched cell, the primary metric (throughput for streams and file transfers, p50
round trip for pingpong) gives the ratio run / reference of medians with a bootstrap CI,
oriented so that > 1 means the run was *faster*. The CI is classified against the
threshold *t* as the paper classifies its own comparisons: faster (CI above 1 + t),
slower (below 1 - t), same (inside [1 - t, 1 + t]) or inconclusive.

Two machines rarely run at the same speed, so each ratio is also divided by the
machine factor (the geometric mean of all matched ratios of its metric): a cell that
differs *after* that division is one whose shape, not just its scale, changed.

Claims: every claim is evaluated on both runs by :mod:`analysis.claims` and the
verdicts are set side by side.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from analysis import claims as C
from analysis.statistics import bottleneck as BN
from analysis.statistics import stats as S
from decision import rule as R
from decision.band import SESOI
from analysis.statistics.fmt import fmt_size
from analysis.loading.hosts import dig, sink_facts
from analysis.loading.run import Run, memcpy_gbit

#: Factors that identify the same configuration in two runs.
KEY = ("kind", "scenario", "command", "method", "mode", "protocol", "transport", "placement",
       "size", "threads", "cache", "duration_s")
#: The same without the window: what "matches but for the window" is judged on.
CONFIG = KEY[:-1]
FASTER, SLOWER, SAME, INCONCLUSIVE = "faster", "slower", "same", "inconclusive"
_FROM_DIRECTION = {"greater": FASTER, "less": SLOWER, "equivalent": SAME,
                   "inconclusive": INCONCLUSIVE}

MACHINE_FACTS = (
    ("run id", ("run_id",)),
    ("profile", None),
    ("git commit", ("git_commit",)),
    ("kernel", ("kernel", "release")),
    ("distribution", ("distribution", "pretty_name")),
    ("CPU model", ("cpu", "model")),
    ("CPUs", ("cpu", "count")),
    ("memory (bytes)", ("memory", "total_bytes")),
    ("virtualisation", ("virtualization", "detect_virt")),
    ("hardware PMU", ("pmu", "available")),
    ("clock source", ("clocksource",)),
    ("TCP congestion control", ("sysctls", "net.ipv4.tcp_congestion_control")),
    ("optmem_max", ("sysctls", "net.core.optmem_max")),
    ("compiler", ("compiler", "version")),
    ("Python", ("python", "version")),
)


def primary_metric(mode: Any) -> tuple[str, bool]:
    """(column, higher is better) of a cell's headline metric."""
    if mode == "pingpong":
        return "rtt_p50_us", False
    return "gbit_per_s", True


def _key_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The KEY columns with missing values as "" so None-valued factors group together
    (twin cells of an A/A control are left out: they repeat a cell of their block)."""
    out = df[df["twin"].fillna(0).astype(int) == 0].copy() if "twin" in df else df.copy()
    for k in KEY:
        out[k] = out[k].astype(object).where(out[k].notna(), "")
    return out


def _label(key: dict[str, Any]) -> str:
    name = key["method"] or key["kind"]
    parts = [name, fmt_size(key["size"]) if key["size"] != "" else ""]
    if key["command"] == "copy":
        parts.append("file→file")
    else:
        parts += [key["transport"], key["mode"]]
    parts.append(key["placement"])
    if key["threads"] not in ("", 1):
        parts.append(f"{int(key['threads'])} threads")
    if key["cache"]:
        parts.append(key["cache"])
    if key.get("duration_s") not in (None, ""):
        parts.append(f"{float(key['duration_s']):g} s window")
    return " ".join(str(p) for p in parts if p != "")


def compare_cells(run: Run, ref: Run, threshold: float = SESOI,
                  seed: int = 0) -> pd.DataFrame:
    """One row per configuration measured in both runs (see the module doc)."""
    a, b = _key_frame(run.measured), _key_frame(ref.measured)
    ref_groups = {k: g for k, g in b.groupby(list(KEY), sort=False)}
    rows: list[dict[str, Any]] = []
    for i, (k, g) in enumerate(a.groupby(list(KEY), sort=True)):
        h = ref_groups.get(k)
        if h is None:
            continue
        key = dict(zip(KEY, k))
        metric, higher_better = primary_metric(key["mode"])
        x = g[metric].astype(float).dropna().to_numpy()
        y = h[metric].astype(float).dropna().to_numpy()
        if x.size == 0 or y.size == 0:
            continue
        # oriented so that > 1 means the run did better (a shorter round trip is better)
        est = S.ratio_of_medians(x, y, seed=seed + i) if higher_better else \
            S.ratio_of_medians(y, x, seed=seed + i)
        rows.append({**key, "configuration": _label(key), "metric": metric,
                     "n_run": int(x.size), "n_ref": int(y.size),
                     "median_run": float(np.median(x)), "median_ref": float(np.median(y)),
                     "speed_ratio": est.value, "lo": est.lo, "hi": est.hi,
                     "verdict": _FROM_DIRECTION[R.band_outcome(est.lo, est.hi, threshold)]})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    # which side set each stream cell's rate in each run (decision.reading's bound)
    df["bound_run"] = [BN.cell_bound(run, r) for r in df.to_dict("records")]
    df["bound_ref"] = [BN.cell_bound(ref, r) for r in df.to_dict("records")]
    return _normalise(df, threshold)


def _normalise(df: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Divide each ratio (and its CI) by its metric's machine factor and classify again."""
    factors = machine_factors(df)
    f = df["metric"].map(factors).astype(float)
    df["machine_factor"] = f
    df["shape_ratio"], df["shape_lo"], df["shape_hi"] = (df["speed_ratio"] / f, df["lo"] / f,
                                                          df["hi"] / f)
    df["shape_verdict"] = [
        _FROM_DIRECTION[R.band_outcome(lo, hi, threshold)]
        for v, lo, hi in zip(df["shape_ratio"], df["shape_lo"], df["shape_hi"])]
    df["differs"] = df["verdict"].isin([FASTER, SLOWER])
    df["shape_differs"] = df["shape_verdict"].isin([FASTER, SLOWER])
    return df


def machine_factors(df: pd.DataFrame) -> dict[str, float]:
    """Per metric: the geometric mean of the matched cells' speed ratios."""
    out: dict[str, float] = {}
    for metric, g in df.groupby("metric"):
        r = g["speed_ratio"].astype(float)
        r = r[np.isfinite(r) & (r > 0)]
        out[str(metric)] = float(np.exp(np.log(r).mean())) if len(r) else math.nan
    return out


def _keys(df: pd.DataFrame) -> set[tuple[Any, ...]]:
    return set(map(tuple, df[list(KEY)].drop_duplicates().itertuples(index=False)))


def unmatched(run: Run, ref: Run) -> pd.DataFrame:
    """Per scenario: configurations in both runs (same window), only in one, and of those
    the ones that exist in the other run with another window ("other window only": not
    compared, since a window's length changes the noise and, for short windows, the mean)."""
    a, b = _key_frame(run.measured), _key_frame(ref.measured)
    ka, kb = _keys(a), _keys(b)
    ca, cb = {k[:-1] for k in ka}, {k[:-1] for k in kb}
    scen = KEY.index("scenario")
    rows = []
    for s in sorted({k[scen] for k in ka | kb}):
        rows.append({"scenario": s,
                     "in both": sum(1 for k in ka & kb if k[scen] == s),
                     "only in run": sum(1 for k in ka - kb if k[scen] == s),
                     "only in reference": sum(1 for k in kb - ka if k[scen] == s),
                     "other window only": sum(1 for k in ka - kb if k[scen] == s
                                              and k[:-1] in cb)
                     + sum(1 for k in kb - ka if k[scen] == s and k[:-1] in ca)})
    return pd.DataFrame(rows)


def unmatched_cells(run: Run, ref: Run) -> pd.DataFrame:
    """Every configuration of the run that the reference did not measure with the same
    window, each with the reason: another window there, or the factor(s) the nearest
    reference configurations differ in (the ones that differ in a single factor)."""
    a, b = _key_frame(run.measured), _key_frame(ref.measured)
    ka, kb = _keys(a), _keys(b)
    windows: dict[tuple[Any, ...], set[Any]] = {}
    for k in kb:
        windows.setdefault(k[:-1], set()).add(k[-1])
    rows = []
    for k in sorted(ka - kb, key=str):
        key = dict(zip(KEY, k))
        if k[:-1] in windows:
            there = ", ".join(f"{float(w):g}" for w in sorted(windows[k[:-1]]) if w != "")
            reason = (f"the reference measured it with a {there} s window, not "
                      f"{float(key['duration_s']):g} s")
        else:
            near: set[str] = set()
            for kk in kb:
                diff = [n for n, x, y in zip(KEY, k, kk) if x != y]
                if len(diff) == 1:
                    near.add(diff[0])
            near = sorted(near)
            reason = "the reference has no such configuration" + (
                f" (it has one differing only in {' or '.join(near)})" if near else "")
        rows.append({"scenario": key["scenario"], "configuration": _label(key),
                     "reason": reason})
    return pd.DataFrame(rows, columns=["scenario", "configuration", "reason"])


def verdict_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """Cells per scenario and verdict, raw and after the machine factor."""
    if cells.empty:
        return pd.DataFrame(columns=["scenario", "metric", "cells", FASTER, SAME, SLOWER,
                                     INCONCLUSIVE, "differ after machine factor"])
    rows = []
    for (scen, metric), g in cells.groupby(["scenario", "metric"]):
        counts = g["verdict"].value_counts()
        rows.append({"scenario": scen, "metric": metric, "cells": len(g),
                     **{v: int(counts.get(v, 0)) for v in (FASTER, SAME, SLOWER, INCONCLUSIVE)},
                     "differ after machine factor": int(g["shape_differs"].sum())})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- claims

BOTH_HOLD = "holds on both"
BOTH_REFUTED = "refuted on both"
SAME_VERDICT = "same verdict"
BOTH_UNDECIDED = "both undecided"  # inconclusive on both: no agreement shown
ONE_SIDE = "testable on one only"
NEITHER = "testable on neither"
DISAGREE = "verdicts differ"


def agreement(v_run: str, v_ref: str) -> str:
    testable = [v != C.NOT_TESTABLE for v in (v_run, v_ref)]
    if not any(testable):
        return NEITHER
    if not all(testable):
        return ONE_SIDE
    if v_run == v_ref == C.HOLDS:
        return BOTH_HOLD
    if v_run == v_ref == C.REFUTED:
        return BOTH_REFUTED
    if v_run == v_ref == C.INCONCLUSIVE:
        return BOTH_UNDECIDED
    if v_run == v_ref:
        return SAME_VERDICT
    return DISAGREE


def compare_claims(run_results: Sequence[C.ClaimResult],
                   ref_results: Sequence[C.ClaimResult]) -> pd.DataFrame:
    """Claim verdicts of both runs side by side, per claim and part (placement, reading);
    a part one run could not test at all (one row for the claim) is set against each of the
    other run's parts."""
    by_ref = {r.key: r for r in ref_results}
    whole_ref = {r.claim: r for r in ref_results if not r.part}
    whole_run = {r.claim: r for r in run_results if not r.part}
    rows = []
    pairs = []
    for r in run_results:
        q = by_ref.get(r.key) or whole_ref.get(r.claim)
        if q is not None:
            pairs.append((r, q))
    seen = {q.key for _, q in pairs}
    for q in ref_results:
        if q.key not in seen and q.claim in whole_run:
            pairs.append((whole_run[q.claim], q))
    for r, q in pairs:
        rows.append({"claim": r.claim, "for": r.part or q.part or "—",
                     "statement": r.statement,
                     "reference": q.verdict, "reference estimate": q.ci_text(),
                     "run": r.verdict, "run estimate": r.ci_text(),
                     "agreement": agreement(r.verdict, q.verdict),
                     "reference configuration": q.configuration or q.reason,
                     "run configuration": r.configuration or r.reason})
    rows.sort(key=lambda x: int(str(x["claim"]).lstrip("CP") or 0))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- machines

def machines(run: Run, ref: Run) -> pd.DataFrame:
    """The facts that explain a difference, for both runs; `differs` marks unequal rows."""
    rows = []
    for label, path in MACHINE_FACTS:
        if path is None:  # the profile lives in plan.json
            vals = [(x.plan or {}).get("profile") for x in (ref, run)]
        else:
            vals = [dig(x.manifest, path) for x in (ref, run)]
        rows.append({"fact": label, "reference": _fmt(vals[0]), "run": _fmt(vals[1]),
                     "differs": "yes" if vals[0] != vals[1] else ""})
    mb = [memcpy_gbit(x.manifest) for x in (ref, run)]
    rows.append({"fact": "memcpy bound (Gbit/s)", "reference": _fmt(mb[0]), "run": _fmt(mb[1]),
                 "differs": "yes" if mb[0] != mb[1] else ""})
    # a run over two hosts (the remote transport): the sink host and both data interfaces
    sinks = [sink_facts(x.manifest) for x in (ref, run)]
    for label in dict.fromkeys([*sinks[0], *sinks[1]]):
        vals = [s.get(label) for s in sinks]
        rows.append({"fact": label, "reference": _fmt(vals[0]), "run": _fmt(vals[1]),
                     "differs": "yes" if vals[0] != vals[1] else ""})
    return pd.DataFrame(rows)


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)

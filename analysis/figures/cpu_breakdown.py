"""Where the CPU goes, per method and side: CPU-seconds per GB moved in each category of
Cai et al., "Understanding Host Network Stack Overheads" (SIGCOMM 2021): data copy,
TCP/IP, netdevice/driver, skb alloc/free, memory management, locks, scheduling/wakeups,
system-call entry/exit, the error-queue/io_uring completion path, user space, other.

Per configuration and side (sending threads, receiving threads; by thread name)::

    CPU-s/GB in category = (samples of the side in the category / all samples of the side)
                           x median CPU-s/GB of the side over the measured trials

The symbol -> category map is :data:`rundir.perf.CATEGORY_EXACT` (exact names first) and
:data:`rundir.perf.CATEGORY_PATTERNS` (first matching pattern); :func:`category_map_table`
prints it for the book.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rundir.perf import (CATEGORIES, CATEGORY_EXACT, CATEGORY_LABELS, CATEGORY_PATTERNS,
                         USER_COPY)

from analysis.statistics.copycount import CONFIG_KEY, SIDES_OF, config_keys

#: colours per category (colour-blind-safe-ish qualitative palette, fixed order)
COLOURS = {"data_copy": "#d62728", "tcp_ip": "#1f77b4", "netdev": "#aec7e8",
           "skb": "#ff7f0e", "mm": "#9467bd", "lock": "#8c564b", "sched": "#e377c2",
           "syscall": "#7f7f7f", "completion": "#bcbd22", "user": "#17becf",
           "other": "#c7c7c7"}


def category_map_table() -> pd.DataFrame:
    rows = [{"category": CATEGORY_LABELS["data_copy"], "rule": "user space",
             "symbols": ", ".join(USER_COPY)},
            {"category": CATEGORY_LABELS["user"], "rule": "user space",
             "symbols": "every other user-space symbol"}]
    by_cat: dict[str, list[str]] = {}
    for sym, cat in CATEGORY_EXACT.items():
        by_cat.setdefault(cat, []).append(sym)
    for cat in CATEGORIES:
        if by_cat.get(cat):
            rows.append({"category": CATEGORY_LABELS[cat], "rule": "kernel, exact name (first)",
                         "symbols": ", ".join(sorted(by_cat[cat]))})
    for cat, pats in CATEGORY_PATTERNS:
        rows.append({"category": CATEGORY_LABELS[cat], "rule": "kernel, pattern (in this order)",
                     "symbols": ", ".join(pats)})
    rows.append({"category": CATEGORY_LABELS["other"], "rule": "kernel",
                 "symbols": "anything else (VFS, splice/pipe, file systems, timers...)"})
    return pd.DataFrame(rows)


def breakdown(run: Any) -> pd.DataFrame:
    """One row per (configuration, side, category): CPU-s per GB, share, samples."""
    prof = run.profiles
    sides = getattr(prof, "sides", None)
    if sides is None or sides.empty:
        return pd.DataFrame(columns=[*CONFIG_KEY, "side", "category", "cpu_s_per_gb",
                                     "share", "samples", "side_samples", "profiled_trials"])
    t = run.trials
    ok = t[(t["status"] == "ok") & (t["kind"].fillna("copybench") == "copybench")]
    prof_t = ok[(ok["repetition"] <= 0) & ok["trial_id"].isin(set(sides["trial_id"]))]
    meas = ok[ok["repetition"].fillna(1) >= 1]
    prof_t = prof_t.assign(_k=config_keys(prof_t))
    meas = meas.assign(_k=config_keys(meas))
    rows = []
    for key, grp in prof_t.groupby("_k"):
        first = grp.iloc[0]
        scen = first["scenario"]
        want = SIDES_OF.get(scen, ())
        if first["transport"] == "udp-forward":
            want = ("sender",)
        m = meas[meas["_k"] == key]
        for side in want:
            s = sides[(sides["trial_id"].isin(grp["trial_id"])) & (sides["side"] == side)]
            total = int(s["samples"].sum())
            cpu = (m[f"{side}_cpu_s"].astype(float) / (m["bytes"].astype(float) / 1e9))
            cpu = cpu[np.isfinite(cpu) & (cpu > 0)]
            if not total or cpu.empty:
                continue
            per_gb = float(cpu.median())
            for cat in CATEGORIES:
                n = int(s[f"cat_{cat}"].sum())
                rows.append({**{c: first[c] for c in CONFIG_KEY}, "side": side,
                             "category": cat, "cpu_s_per_gb": n / total * per_gb,
                             "share": n / total, "samples": n, "side_samples": total,
                             "profiled_trials": len(grp), "side_cpu_s_per_gb": per_gb})
    return pd.DataFrame(rows)


def wide(bd: pd.DataFrame) -> pd.DataFrame:
    """CPU-s/GB per category as columns, one row per (configuration, side)."""
    if bd.empty:
        return bd
    idx = ["scenario", "transport", "size", "method", "side"]
    d = bd.assign(transport=bd["transport"].fillna("—"))
    w = (d.groupby([*idx, "category"], sort=True)["cpu_s_per_gb"].sum()
         .unstack("category").reindex(columns=list(CATEGORIES)).fillna(0.0))
    w["total"] = w.sum(axis=1)
    w["samples"] = d.groupby(idx)["side_samples"].first()
    w["profiled trials"] = d.groupby(idx)["profiled_trials"].first()
    return w.reset_index()


def plot(bd: pd.DataFrame, title: str = "", method_order: list[str] | None = None) -> Any:
    """Stacked horizontal bars: one row per method, sender and receiver side by side; one bar
    segment per category (CPU-seconds per GB, as the module says), both panels on one scale.
    Drawn at the PDF's text width, so the PDF shows it at its own size (fonts as set), with
    the legend (the categories this figure has) below the panels, off the bars."""
    import matplotlib.pyplot as plt

    from analysis.figures.plots import PDF_TEXT_WIDTH_IN

    if bd.empty:
        return None
    sides = [s for s in ("sender", "receiver") if s in set(bd["side"])]
    methods = method_order or sorted(set(bd["method"]))
    methods = [m for m in methods if m in set(bd["method"])]
    cats = [c for c in CATEGORIES if bd.loc[bd["category"] == c, "cpu_s_per_gb"].sum() > 0]
    ncol = 2
    fig, axes = plt.subplots(1, len(sides), sharey=True, squeeze=False, layout="constrained",
                             figsize=(0.97 * PDF_TEXT_WIDTH_IN,
                                      0.32 * len(methods) + 1.3 + 0.2 * -(-len(cats) // ncol)))
    xmax = bd.groupby(["method", "side"])["cpu_s_per_gb"].sum().max() * 1.05
    for ax, side in zip(axes[0], sides):
        d = bd[bd["side"] == side]
        left = np.zeros(len(methods))
        for cat in cats:
            vals = np.array([d[(d["method"] == m) & (d["category"] == cat)]["cpu_s_per_gb"].sum()
                             for m in methods])
            ax.barh(range(len(methods)), vals, left=left, color=COLOURS[cat],
                    label=CATEGORY_LABELS[cat], height=0.7, edgecolor="white", linewidth=0.3)
            left += vals
        ax.set_yticks(range(len(methods)))
        ax.set_yticklabels(methods)
        ax.set_xlim(0, xmax)
        ax.set_title(side)
        ax.set_xlabel("CPU-seconds per GB")
        ax.grid(axis="x", alpha=0.3)
        ax.grid(axis="y", visible=False)
    axes[0][0].set_ylim(len(methods) - 0.5, -0.5)  # first method on top (axes share y)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False)
    if title:
        fig.suptitle(title, fontsize=plt.rcParams["axes.titlesize"])
    return fig

"""The replication chapter's forest plot: every claim comparison (one ratio with its CI at
its rule's family level, per size, placement and measurement) on a log axis against its
rule's band, coloured by the verdict it feeds. One panel per claim; the band is what the
rule reads the CI against (grey: the "no difference" band of a direction rule, 1 ± the
smallest effect of interest; blue: the "~R" tolerance of an approximate claim; a dashed line: a one-sided threshold)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from analysis.claims.base import (HOLDS, INCONCLUSIVE, NOT_RUN, NOT_TESTABLE, REFUTED,
                                  THEIR_PROGRAM, UNDETERMINED, ClaimResult)
from analysis.statistics.fmt import fmt_size
from decision import band as B

VERDICT_COLORS = {HOLDS: "#1b9e77", REFUTED: "#d95f02", INCONCLUSIVE: "#7570b3"}
MARKERS = {"copybench": "o", THEIR_PROGRAM: "s"}


def rows(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per comparison of every decided-or-inconclusive ratio verdict."""
    out: list[dict[str, Any]] = []
    for r in results:
        if r.verdict in (NOT_TESTABLE, NOT_RUN, UNDETERMINED):
            continue
        crossover = "crossover" in r.statistic
        for d in r.details:
            if "ratio" not in d or not all(math.isfinite(float(d.get(k, math.nan)))
                                           for k in ("ratio", "lo", "hi")):
                continue
            band = B.band() if crossover else tuple(r.band)
            what = d.get("pair") or fmt_size(int(d["size"]))
            label = " ".join(x for x in (r.placement.replace("-core", ""), what,
                                         _short(r), "theirs" if r.basis == THEIR_PROGRAM
                                         else "") if x)
            out.append({"claim": r.claim, "label": label, "ratio": float(d["ratio"]),
                        "lo": float(d["lo"]), "hi": float(d["hi"]), "verdict": r.verdict,
                        "basis": r.basis, "reading": r.reading, "placement": r.placement,
                        "band_lo": band[0] if band else math.nan,
                        "band_hi": band[-1] if band else math.nan,
                        "band_kind": "threshold" if len(band) == 1 else
                        "direction" if len(band) == 2 and all(
                            math.isclose(a, b) for a, b in zip(band, B.band()))
                        else "approx"})
    return pd.DataFrame(out)


def _short(r: ClaimResult) -> str:
    """The rule's own reading in a word or two (a claim with two readings), for a label."""
    own = r.rule_id.split(":", 1)[1] if ":" in r.rule_id else ""
    return {"S1's code: window/messages, 8 x 64 B": "S1 code", "report's words: round trip, "
            "64 B": "RTT", "report's words: 32 KB message": "words",
            "S1's code: 32 KB per field": "S1 code", "never beats": "never",
            "at best ~52 %": "at best", "report's words: round trip": "RTT",
            "S3's code: stream": "S3 code"}.get(own, own[:10])


def _panel(ax: Any, d: pd.DataFrame, claim: str) -> None:
    y = np.arange(len(d))[::-1]
    for yi, (_, r) in zip(y, d.iterrows()):
        if r["band_kind"] == "threshold":
            ax.plot([r["band_lo"]] * 2, [yi - 0.45, yi + 0.45], color="0.35", linestyle="--",
                    linewidth=1)
        elif math.isfinite(r["band_lo"]):
            ax.fill_betweenx([yi - 0.45, yi + 0.45], r["band_lo"], r["band_hi"],
                             color="0.85" if r["band_kind"] == "direction" else "#c6dbef",
                             linewidth=0, zorder=0)
        c = VERDICT_COLORS.get(r["verdict"], "0.5")
        ax.plot([r["lo"], r["hi"]], [yi, yi], color=c, linewidth=1.6)
        ax.plot([r["ratio"]], [yi], marker=MARKERS.get(r["basis"], "o"), color=c,
                markersize=5, linestyle="none")
    ax.axvline(1.0, color="0.2", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(d["label"], fontsize=8)
    ax.set_ylim(-0.7, len(d) - 0.3)
    ax.set_xscale("log")
    lo = min(d["lo"].min(), d["band_lo"].min(skipna=True) if d["band_lo"].notna().any() else 1)
    hi = max(d["hi"].max(), d["band_hi"].max(skipna=True) if d["band_hi"].notna().any() else 1)
    lo, hi = min(lo, 0.9), max(hi, 1.1)
    ax.set_xlim(lo / 1.2, hi * 1.3)
    # readable ticks on short log ranges: 1, 2, 5 per decade (and more inside one decade),
    # chosen by the range the axis shows (its limits, not the data's)
    subs = (1.0, 2.0, 5.0) if (hi * 1.3) / (lo / 1.2) > 8 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(claim, fontsize=9, loc="left")


def forest(df: pd.DataFrame, ncols: int = 2) -> Figure:
    """One figure of up to ``ncols`` claims side by side, a panel per claim, panel heights by
    their number of comparisons (constrained layout: the labels of one panel never run into
    the next). :func:`forests` cuts every claim into such figures, so each stays readable on
    a printed page."""
    claims = list(dict.fromkeys(df["claim"]))
    nrows = math.ceil(len(claims) / ncols)
    grid = [claims[i * ncols:(i + 1) * ncols] for i in range(nrows)]
    heights = [max(int((df["claim"] == c).sum()) for c in row) for row in grid]
    fig = plt.figure(figsize=(9, 0.21 * sum(heights) + 1.1 * nrows + 0.7), layout="constrained")
    gs = fig.add_gridspec(nrows, ncols, height_ratios=[h + 2.5 for h in heights])
    for i, row in enumerate(grid):
        for j, claim in enumerate(row):
            _panel(fig.add_subplot(gs[i, j]), df[df["claim"] == claim], claim)
    handles = [Line2D([], [], color=c, marker="o", linestyle="-", label=v)
               for v, c in VERDICT_COLORS.items() if (df["verdict"] == v).any()]
    handles += [Line2D([], [], color="0.3", marker=m, linestyle="none", label=b)
                for b, m in MARKERS.items() if (df["basis"] == b).any()]
    fig.legend(handles=handles, loc="outside upper center", ncol=len(handles), fontsize=8,
               frameon=False)
    fig.supxlabel("ratio with its CI (log scale; the rule's band shaded)", fontsize=9)
    fig._copybench = {"kind": "point", "data": df, "x": "ratio", "y": "label",
                      "hue": "verdict", "col": "claim", "row": None,
                      "extra": ["lo", "hi", "band_lo", "band_hi", "basis", "placement"]}
    return fig


def forests(df: pd.DataFrame, per_figure: int = 2) -> list[Figure]:
    """Every claim's panel, ``per_figure`` claims to a figure, in claim order."""
    claims = list(dict.fromkeys(df["claim"]))
    return [forest(df[df["claim"].isin(claims[i:i + per_figure])])
            for i in range(0, len(claims), per_figure)]


def empty(text: str) -> Figure:
    """The figure a run without any claim comparison shows in the forest plot's place."""
    fig = plt.figure(figsize=(8, 0.8))
    fig.text(0.5, 0.5, text, ha="center", va="center", fontsize=9, wrap=True)
    return fig

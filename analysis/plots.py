"""Figures for the notebooks: seaborn, medians with 95 % bootstrap CIs (seaborn's
``errorbar=("ci", 95)`` around ``estimator="median"``), labelled axes with units, the memcpy
bound drawn where it applies. Plotting only; no statistics decisions here."""

from __future__ import annotations

from typing import Any, Sequence

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from analysis.fmt import fmt_size  # noqa: E402

N_BOOT = 1000
SEED = 0



def _bound_line(ax: Any, bound: float | None, label: str) -> None:
    """The memcpy bound as a dashed line, labelled at the left edge."""
    if bound is not None and np.isfinite(bound):
        ax.axhline(bound, color="0.3", linestyle="--", linewidth=1)
        ax.annotate(label, (0.01, bound), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize=8, color="0.3")


def _finish(g: sns.FacetGrid, xlabel: str, ylabel: str, title: str | None) -> sns.FacetGrid:
    """Facet titles, axis labels with units, an optional figure title."""
    g.set_titles(col_template="{col_name}", row_template="{row_name}")
    g.set_axis_labels(xlabel, ylabel)
    if title:
        g.figure.suptitle(title, y=1.02)
    return g

def setup() -> None:
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "figure.max_open_warning": 0})


def _size_axis(ax: Any) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_size(v)))
    for lab in ax.get_xticklabels():
        lab.set_rotation(30)


def lines(df: pd.DataFrame, x: str, y: str, hue: str, xlabel: str, ylabel: str,
          col: str | None = None, row: str | None = None, bound: float | None = None,
          bound_label: str = "memcpy bound", logx: bool = True, logy: bool = False,
          title: str | None = None, style: str | None = None) -> sns.FacetGrid:
    """Median of y per x with its 95 % bootstrap CI band, one line per hue."""
    wrap = 2 if col is not None and row is None and df[col].nunique() > 2 else None
    g = sns.relplot(data=df, x=x, y=y, hue=hue, style=style, col=col, row=row, kind="line",
                    col_wrap=wrap,
                    estimator="median", errorbar=("ci", 95), n_boot=N_BOOT, seed=SEED,
                    marker="o", height=3.2, aspect=1.25, facet_kws={"sharey": False})
    for ax in g.axes.flat:
        if logx:
            _size_axis(ax)
        if logy:
            ax.set_yscale("log")
        _bound_line(ax, bound, bound_label)
    return _finish(g, xlabel, ylabel, title)


def bars(df: pd.DataFrame, x: str, y: str, hue: str | None, xlabel: str, ylabel: str,
         col: str | None = None, order: Sequence[str] | None = None,
         bound: float | None = None, bound_label: str = "memcpy bound",
         title: str | None = None) -> sns.FacetGrid:
    """Median of y per category with its 95 % bootstrap CI as error bars."""
    wrap = 2 if col is not None and df[col].nunique() > 2 else None
    g = sns.catplot(data=df, x=x, y=y, hue=hue, col=col, col_wrap=wrap, kind="bar",
                    estimator="median",
                    errorbar=("ci", 95), n_boot=N_BOOT, seed=SEED, order=order, height=3.2,
                    aspect=1.3, sharey=False)
    for ax in g.axes.flat:
        for lab in ax.get_xticklabels():
            lab.set_rotation(30)
        _bound_line(ax, bound, bound_label)
    return _finish(g, xlabel, ylabel, title)


def show(g: Any) -> None:
    """Render the figure into the notebook output and release it."""
    fig = g.figure if hasattr(g, "figure") else g
    from IPython.display import display

    if isinstance(g, sns.FacetGrid):
        g.tight_layout()  # keeps the legend outside the axes
    else:
        fig.tight_layout()
    display(fig)
    plt.close(fig)


def estimates(df: pd.DataFrame, x: str, y: str, lo: str, hi: str, hue: str, xlabel: str,
              ylabel: str, col: str | None = None, logx: bool = True, logy: bool = False,
              ref: float | None = None, title: str | None = None) -> sns.FacetGrid:
    """Precomputed estimates with their CIs (e.g. bootstrap ratios from analysis.stats) as
    points with error bars, one series per hue."""
    g = sns.FacetGrid(df, col=col, hue=hue, height=3.2, aspect=1.25, sharey=False)

    def draw(data: pd.DataFrame, color: Any = None, label: str | None = None, **_: Any) -> None:
        d = data.sort_values(x)
        yerr = np.vstack([d[y] - d[lo], d[hi] - d[y]]).clip(min=0)
        plt.errorbar(d[x], d[y], yerr=yerr, fmt="o-", color=color, label=label, capsize=3)

    g.map_dataframe(draw)
    g.add_legend()
    for ax in g.axes.flat:
        if logx:
            _size_axis(ax)
        if logy:
            ax.set_yscale("log")
        if ref is not None:
            ax.axhline(ref, color="0.3", linewidth=1)
    return _finish(g, xlabel, ylabel, title)

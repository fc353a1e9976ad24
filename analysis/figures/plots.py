"""Figures for the notebooks: seaborn, medians with 95 % bootstrap CIs
(:func:`median_errorbar`, the interval seaborn's ``errorbar=("ci", 95)`` draws around
``estimator="median"``), labelled axes with units. Plotting only; no statistics decisions
here.

Every figure shown with :func:`show` is also

* **kept with its data**: the rows it was drawn from (facet, hue, x and y columns, and the
  trial or cell they came from) are written as a CSV beside the notebook
  (``$COPYBENCH_FIGDATA/<notebook>-NN.csv``, set by ``make book``; the notebook links it), so
  a reader can replot it;
* **checked against the data it claims to show** (:func:`check_figure`): not drawn from an
  empty selection; a line figure has series of two or more points where its source has them;
  every x-value and facet of the source appears in the figure; no two labels overlap (text
  extents measured with matplotlib's renderer, rotated labels as rotated rectangles);
  as a reader sees it (:func:`legend_problems`, :func:`off_axis_problems`,
  :func:`font_problems`): no legend over plotted points, no line with a point outside its
  axis, no font under 7 pt in the PDF at 100 %; no panel of a facet grid under 200 px high
  in the HTML book (:func:`panel_problems`; :func:`facet_figures` splits a grid of many
  facets into figures of one row).
  The problems are written beside the CSV (``NN.check.json``) and ``tests/test_figures.py``
  fails on any.

One colour per method (and per cache state, side, tool) across the whole book
(:data:`COLORS`); sizes are ordered by value and labelled as the sources name them
(:func:`analysis.statistics.fmt.fmt_size`); an upper-bound line is drawn only where it is one: a memcpy
bandwidth measured at the working-set size of the point it bounds (:func:`memcpy_bounds`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402
from seaborn.algorithms import bootstrap as sns_bootstrap  # noqa: E402

from analysis.statistics.fmt import fmt_band, fmt_pct, fmt_size  # noqa: E402
from decision.band import SESOI  # noqa: E402
from decision import reading as RD  # noqa: E402
from decision import rule as R  # noqa: E402
from decision.band import band  # noqa: E402

N_BOOT = 1000
SEED = 0
CI_LEVEL = 95.0


def median_errorbar(vals: Any) -> tuple[float, float]:
    """The error bar of a figure's median: the percentile interval (:data:`CI_LEVEL`) of
    :data:`N_BOOT` bootstrap medians, the resamples drawn as seaborn's ``errorbar=("ci",
    95)`` draws them (a generator seeded :data:`SEED` for each point, one resample after the
    other), so the figure is the one seaborn would draw; the medians are taken all at once
    where seaborn takes them one resample at a time. Data with a NaN (seaborn's NaN-aware
    median) and more than 10,000 values are left to seaborn's own bootstrap."""
    a = np.asarray(vals)
    if np.isnan(np.sum(a)) or len(a) > 10_000:  # (all resamples at once: N_BOOT x n values)
        boots = sns_bootstrap(a, func="median", n_boot=N_BOOT, seed=SEED)
    else:
        rng = np.random.default_rng(SEED)
        n = len(a)
        resamples = np.stack([rng.integers(0, n, n, dtype=np.intp) for _ in range(N_BOOT)])
        boots = np.median(a.take(resamples), axis=1)
    edge = (100 - CI_LEVEL) / 2
    lo, hi = np.nanpercentile(boots, (edge, 100 - edge))
    return float(lo), float(hi)

# --- one colour per method across the book ---------------------------------------------------

_CB = sns.color_palette("colorblind", 10).as_hex()
#: Fixed colours: a method (or tool, cache state, side, percentile) has the same colour in
#: every figure of the book, whichever subset of methods a figure shows.
COLORS: dict[str, str] = {
    # message methods
    "send": _CB[0], "sendmsg": _CB[1], "zerocopy": _CB[2], "uring-zc": _CB[3],
    "vmsplice": _CB[4],
    # file methods
    "read-write": _CB[5], "mmap-write": _CB[6], "sendfile": _CB[7], "splice": _CB[8],
    "splice2": _CB[9], "copy_file_range": "#000000",
    # peer tools (never in one figure with each other)
    "iperf3": "#444444", "sockperf": "#444444",
    # other hue variables
    "warm": "#d55e00", "cold": "#0072b2", "n/a": "#999999",
    "sender": "#cc79a7", "receiver": "#009e73", "total": "#555555",
    "p50": "#0072b2", "p99": "#e69f00", "p99.9": "#d55e00",
    "same-core": "#e69f00", "cross-core": "#56b4e9", "unpinned": "#999999",
    "loopback": "#0072b2", "veth": "#009e73", "udp-forward": "#d55e00",
}
_FALLBACK = sns.color_palette("dark", 10).as_hex()


def color(value: Any) -> str:
    """The book-wide colour of a method/tool/state; ``copybench send`` is ``send``'s."""
    v = str(value)
    if v in COLORS:
        return COLORS[v]
    if v.startswith("copybench ") and v.split(" ", 1)[1] in COLORS:
        return COLORS[v.split(" ", 1)[1]]
    return _FALLBACK[sum(map(ord, v)) % len(_FALLBACK)]


def palette(values: Iterable[Any]) -> dict[Any, str]:
    return {v: color(v) for v in values}


# --- memcpy bounds -----------------------------------------------------------------------------

def memcpy_bounds(manifest: Mapping[str, Any]) -> dict[int, float]:
    """memcpy bandwidth (Gbit/s) by the working-set size it was measured at, from the run's
    manifest: ``memcpy`` is one measurement ``{memcpy_gbit_per_s, size}`` (every manifest
    has the 64 MiB one; older ones only that), optionally with ``at_sizes``, one measurement
    per working-set size of the plan, or a list of them. A line drawn from it bounds only a
    point of the same size."""
    m = manifest.get("memcpy")
    items: list[Any] = list(m) if isinstance(m, list) else [m] if isinstance(m, dict) else []
    if isinstance(m, dict) and isinstance(m.get("at_sizes"), list):
        items += m["at_sizes"]
    out: dict[int, float] = {}
    for it in items:
        if not isinstance(it, dict):
            continue
        v = it.get("bound_gbit_per_s", it.get("memcpy_gbit_per_s", it.get("gbit_per_s")))
        s = it.get("size")
        if isinstance(v, (int, float)) and isinstance(s, (int, float)) and math.isfinite(v):
            out[int(s)] = float(v)
    return dict(sorted(out.items()))


def memcpy_dst_offsets(manifest: Mapping[str, Any]) -> list[int]:
    """The offsets (bytes, modulo 4096) of the destination past the source that the run's
    memcpy measurements state (``dst_offset_mod_4096``, printed by copybench memcpy since it
    page-aligns its buffers); empty for runs written before, whose two buffers were consecutive
    mallocs (16 bytes apart modulo 4096 below glibc's mmap threshold), so their placement is
    not known from the manifest."""
    m = manifest.get("memcpy")
    items: list[Any] = list(m) if isinstance(m, list) else [m] if isinstance(m, dict) else []
    if isinstance(m, dict) and isinstance(m.get("at_sizes"), list):
        items += m["at_sizes"]
    return sorted({int(it["dst_offset_mod_4096"]) for it in items if isinstance(it, dict)
                   and isinstance(it.get("dst_offset_mod_4096"), int)
                   and not isinstance(it.get("dst_offset_mod_4096"), bool)})


#: what the dashed memcpy line is, under a bar figure that draws it: one measurement of memcpy
#: per working-set size (before the sweep), a reference a copy of that size can exceed, no bound
MEMCPY_NOTE = "dashed: memcpy measured at this size (not a bound)"


def _bound_marks(ax: Any, bound: Mapping[int, float] | None, xs: Iterable[Any]) -> int:
    """memcpy bandwidth as a short dashed mark at each x whose working-set size it was
    measured at; nothing where no measurement matches (then it is no bound)."""
    if not bound:
        return 0
    hits = sorted({int(x) for x in xs if pd.notna(x) and int(x) in bound})
    for i, x in enumerate(hits):
        ax.plot([x / 1.4, x * 1.4], [bound[x]] * 2, color="0.2", linestyle="--", linewidth=1.2,
                label="memcpy measured at this size" if i == 0 else None)
    return len(hits)


# --- selections -------------------------------------------------------------------------------

# --- axes, facets, titles ----------------------------------------------------------------------

def setup(name: str | None = None) -> None:
    """Theme, and which notebook the figures belong to (``$COPYBENCH_NOTEBOOK`` from
    ``make book``, or ``name``); removes that notebook's old figure data."""
    # "paper": fonts of 8.8 to 9.6 pt, which a figure fitted to the PDF's text block shows at
    # that size (the "notebook" sizes, 11 to 12 pt, crowded a fitted figure's labels)
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind")
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "figure.max_open_warning": 0})
    _STATE["name"] = name or os.environ.get("COPYBENCH_NOTEBOOK") or "figure"
    _STATE["n"] = 0
    d = _figdata_dir()
    if d is not None and d.is_dir():
        for f in d.glob(f"{_STATE['name']}-[0-9][0-9]*"):
            f.unlink()


_STATE: dict[str, Any] = {"name": "figure", "n": 0}


def _figdata_dir() -> Path | None:
    d = os.environ.get("COPYBENCH_FIGDATA")
    return Path(d) if d else None


def _size_ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """Powers of two between lo and hi, every k-th, at most ``most`` of them."""
    if not (lo > 0 and hi > 0):
        return []
    a, b = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    exps = list(range(a, b + 1))
    k = 1
    while len(exps[::k]) > most:
        k += 1
    # prefer ticks on powers of 4/16 (64 B, 1 KiB, 16 KiB...) when thinning
    start = next((e for e in exps[:k] if e % k == 0), exps[0])
    return [2.0 ** e for e in range(start, b + 1, k) if lo / 1.01 <= 2.0 ** e <= hi * 1.01]


def _size_axis(ax: Any, values: Sequence[float] | None = None) -> None:
    ax.set_xscale("log", base=2)
    if values is not None and len(values):
        ticks = _size_ticks(min(values), max(values))
        if ticks:
            ax.xaxis.set_major_locator(FixedLocator(ticks))
            ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_size(v)))
    ax._copybench_size_axis = True


def _draw(fig: Any) -> None:
    """Lay the figure out as a draw does (ticks chosen, texts sized, legends placed) without
    rasterizing it: the layout passes and checks read sizes and positions only, and the
    notebook's savefig renders the final figure. The canvas's own renderer is used, so the
    text sizes it has measured are kept for the next pass (matplotlib caches them per
    renderer)."""
    renderer = fig.canvas.get_renderer()
    # (matplotlib's own savefig lays a figure out this way; without it, a full draw)
    with getattr(renderer, "_draw_disabled", contextlib.nullcontext)():
        fig.draw(renderer)


def _thin_size_ticks(fig: Any, gap: float = 4.0) -> None:
    """Size ticks whose labels would touch: every second one dropped until they clear."""
    _draw(fig)
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        if not getattr(ax, "_copybench_size_axis", False):
            continue
        for _ in range(4):
            lo, hi = sorted(ax.get_xlim())
            ticks = [v for v in ax.get_xticks() if lo <= v <= hi]
            labs = [t for t in ax.get_xticklabels() if t.get_text()
                    and lo <= t.get_position()[0] <= hi]
            boxes = sorted((t.get_window_extent(r) for t in labs), key=lambda b: b.x0)
            if len(ticks) < 3 or not any(b.x0 - a.x1 < gap for a, b in zip(boxes, boxes[1:])):
                break
            ax.xaxis.set_major_locator(FixedLocator(ticks[::2]))
            _draw(fig)


def _plain(v: float, _: Any = None) -> str:
    """Tick numbers as numbers (20, 0.5), not 2×10^1."""
    if v == 0 or not math.isfinite(v):
        return "0"
    return f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2g}" if abs(v) >= 1 else f"{v:.3g}"


def log_ticks(lo: float, hi: float, most: int = 8) -> list[float]:
    """Tick values a reader can read a log axis by: decades where the range spans several,
    else the 1-2-5 series, else finer steps, so an axis spanning less than a decade still
    has three labelled ticks or more."""
    if not (lo > 0 and hi > lo and math.isfinite(lo) and math.isfinite(hi)):
        return []
    e0, e1 = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    for mant in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [m * 10.0 ** e for e in range(e0, e1 + 1) for m in mant]
        ticks = sorted(t for t in ticks if lo <= t * (1 + 1e-9) and t <= hi * (1 + 1e-9))
        if len(ticks) >= 3:
            while len(ticks) > most:
                ticks = ticks[::2]
            return ticks
    return ticks


def _log_axis(ax: Any, which: str) -> None:
    """A log ``which`` ("x" or "y") axis with readable ticks (:func:`log_ticks`) over the
    axis's current range."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    getattr(ax, f"set_{which}scale")("log")
    lo, hi = getattr(ax, f"get_{which}lim")()
    ticks = log_ticks(lo, hi)
    if ticks:
        axis.set_major_locator(FixedLocator(ticks))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(_plain))
    getattr(ax, f"set_{which}lim")(lo, hi)


def _log_y(ax: Any) -> None:
    """A log y axis with readable ticks (:func:`log_ticks`) over the axis's current range."""
    _log_axis(ax, "y")


def _is_size(col: str | None) -> bool:
    return bool(col) and "size" in str(col)


def _facet_label(var: str | None, value: Any) -> str:
    if var is None:
        return ""
    if _is_size(var) and isinstance(value, (int, float, np.integer, np.floating)):
        return fmt_size(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = int(value) if float(value).is_integer() else value
        return f"{var} = {v}"
    return str(value)


def _order(df: pd.DataFrame, col: str | None, given: Sequence[Any] | None = None
           ) -> list[Any] | None:
    """Facet order: by value for numbers (sizes 4 KiB < 1 MiB < 100 MB), as given or in
    the book's method order otherwise."""
    if col is None or col not in df:
        return None
    if given is not None:
        return [v for v in given if v in set(df[col])]
    vals = list(pd.unique(df[col].dropna()))
    if all(isinstance(v, (int, float, np.integer, np.floating)) for v in vals):
        return sorted(vals)
    known = list(COLORS)
    return sorted(vals, key=lambda v: (known.index(v) if v in known else len(known), str(v)))


def _finish(g: sns.FacetGrid, xlabel: str, ylabel: str, title: str | None,
            row: str | None = None, col: str | None = None) -> sns.FacetGrid:
    """Facet titles (sizes as sizes, numbers with their variable: "threads = 4"), axis
    labels with units, an optional figure title."""
    g.set_axis_labels(xlabel, ylabel)
    _shared_labels(g, xlabel, ylabel)
    for key, ax in _axes(g):
        if row is not None and col is not None:
            r, c = key
            ax.set_title(f"{_facet_label(row, r)}, {_facet_label(col, c)}", fontsize=10)
        elif col is not None or row is not None:
            ax.set_title(_facet_label(col or row, key), fontsize=10)
        elif key is not None:
            ax.set_title("")
    if title:
        g.figure.suptitle(title, y=1.02)
    return g


def _shared_labels(g: sns.FacetGrid, xlabel: str, ylabel: str) -> None:
    """One x label under a grid of several columns, one y label beside a grid of several
    rows, instead of one per panel (a long label repeated under narrow panels ran into its
    neighbour)."""
    axes = [ax for _, ax in _axes(g) if ax.get_visible()]
    if len(axes) < 2:
        return
    lefts = {round(ax.get_position().x0, 3) for ax in axes}
    bottoms = {round(ax.get_position().y0, 3) for ax in axes}
    if len(lefts) > 1 and xlabel:
        for ax in axes:
            ax.set_xlabel("")
        g.figure.supxlabel(xlabel, fontsize=plt.rcParams["axes.labelsize"])
    if len(bottoms) > 1 and ylabel:
        for ax in axes:
            ax.set_ylabel("")
        g.figure.supylabel(ylabel, fontsize=plt.rcParams["axes.labelsize"])


def _axes(g: sns.FacetGrid) -> list[tuple[Any, Any]]:
    """(facet key, axes) pairs; one pair with key None for an unfaceted figure."""
    return list(g.axes_dict.items()) or [(None, g.ax)]


def _meta(g: Any, **kw: Any) -> Any:
    g._copybench = kw
    return g


def _hue_kws(df: pd.DataFrame, hue: str | None, hue_order: Sequence[Any] | None = None
             ) -> dict[str, Any]:
    if hue is None or hue not in df:
        return {}
    order = list(hue_order) if hue_order is not None else _order(df, hue)
    return {"hue_order": order, "palette": palette(order or [])}


# --- figure kinds ------------------------------------------------------------------------------

#: a facet grid's panel height as drawn, inches (seaborn's height: the panel with its title
#: and tick labels), the least at which a row of panels under a figure title and a shared x
#: label is :data:`MIN_PANEL_PX` high in the HTML book (at 3.0 in it was about 170 px)
FACET_PANEL_IN = 3.6
#: facets of one figure at most (one row of two): a grid of more rows, fitted under the PDF's
#: height cap, shows each panel under :data:`MIN_PANEL_PX` (two rows: about 190 px; three:
#: about 110 px), so more go to further figures (:func:`facet_figures`)
FACETS_PER_FIGURE = 2
#: a bar grid's panel height as drawn, inches: its category labels, set at 30° where they
#: touch (:func:`_declutter_xticks`), take more of it (at 3.6 in such a row was 180 px)
BAR_PANEL_IN = 4.0


def lines(df: pd.DataFrame, x: str, y: str, hue: str, xlabel: str, ylabel: str,
          col: str | None = None, row: str | None = None,
          bound: Mapping[int, float] | None = None, logx: bool = True, logy: bool = False,
          title: str | None = None, style: str | None = None,
          source: pd.DataFrame | None = None, col_wrap: int | None = None,
          **_: Any) -> sns.FacetGrid:
    """Median of y per x with its 95 % bootstrap CI band, one line per hue. ``bound``
    (from :func:`memcpy_bounds`) is drawn only at x-values of its own size. ``source``: the
    part of the run the figure claims to show (default: ``df``), checked by :func:`show`."""
    df = df.reset_index(drop=True)  # seaborn aligns columns by label: repeated labels fail
    ncol = df[col].nunique() if col is not None and col in df else 0
    wrap = col_wrap or (2 if col is not None and row is None and ncol > 2 else None)
    g = sns.relplot(data=df, x=x, y=y, hue=hue, style=style, col=col, row=row, kind="line",
                    col_wrap=wrap, col_order=_order(df, col), row_order=_order(df, row),
                    estimator="median", errorbar=median_errorbar,
                    marker="o", height=FACET_PANEL_IN, aspect=1.3, facet_kws={"sharey": False},
                    **_hue_kws(df, hue))
    drawn = 0
    for key, ax in _axes(g):
        sub = _facet_rows(df, key, row, col)
        if logx:
            _size_axis(ax, sorted(sub[x].dropna().unique()) if len(sub) else None)
        if x == "size" or _is_size(x):  # before the log axis fixes the limits: the axis
            drawn += _bound_marks(ax, bound, sub[x])  # reaches up to every bound it shows
        if logy:
            _log_y(ax)
    if drawn and g.legend is not None:  # show() makes room for the longer title
        g.legend.set_title(f"{hue}\n(dashes: memcpy\nmeasured at that\nsize, a reference)")
    return _meta(_finish(g, xlabel, ylabel, title, row, col), kind="line", data=df, x=x,
                 y=y, hue=hue, col=col, row=row, style=style, source=source)


def points(df: pd.DataFrame, x: str, y: str, hue: str, xlabel: str, ylabel: str,
           col: str | None = None, logx: bool = True, logy: bool = True,
           title: str | None = None, source: pd.DataFrame | None = None,
           style: str | None = None, **_: Any) -> sns.FacetGrid:
    """One point per row (a trial), coloured by ``hue`` (and marked by ``style``): a relation
    between two of a trial's quantities, not an estimate (no CI drawn). Log axes by default,
    for ratios."""
    df = df.reset_index(drop=True)  # seaborn aligns columns by label: repeated labels fail
    g = sns.relplot(data=df, x=x, y=y, hue=hue, style=style, col=col, kind="scatter",
                    col_order=_order(df, col), height=FACET_PANEL_IN, aspect=1.3, s=18,
                    alpha=0.75,
                    facet_kws={"sharey": True, "sharex": True}, **_hue_kws(df, hue))
    for _, ax in _axes(g):
        if logx:
            _log_axis(ax, "x")
        if logy:
            _log_y(ax)
    return _meta(_finish(g, xlabel, ylabel, title, None, col), kind="scatter", data=df, x=x,
                 y=y, hue=hue, col=col, row=None, style=style, source=source)


def _facet_rows(df: pd.DataFrame, key: Any, row: str | None, col: str | None) -> pd.DataFrame:
    if row is not None and col is not None:
        return df[(df[row] == key[0]) & (df[col] == key[1])]
    if row is not None or col is not None:
        return df[df[row or col] == key]
    return df


def bars(df: pd.DataFrame, x: str, y: str, hue: str | None, xlabel: str, ylabel: str,
         col: str | None = None, order: Sequence[str] | None = None,
         bound: Mapping[int, float] | None = None, title: str | None = None,
         source: pd.DataFrame | None = None, col_wrap: int | None = None,
         **_: Any) -> sns.FacetGrid:
    """Median of y per category with its 95 % bootstrap CI as error bars. Each facet
    lists only the categories it has (no empty slots, no labels for absent methods);
    category labels are horizontal and the check fails if they collide."""
    df = df.reset_index(drop=True)  # seaborn aligns columns by label: repeated labels fail
    ncol = df[col].nunique() if col is not None and col in df else 0
    wrap = col_wrap or (2 if col is not None and ncol > 2 else None)
    order = list(order) if order is not None else _order(df, x)
    hk = _hue_kws(df, hue)
    if hue is None or hue == x:
        hk = {"hue": x, "hue_order": order, "palette": palette(order or []), "legend": False}
    g = sns.catplot(data=df, x=x, y=y, col=col, col_wrap=wrap, kind="bar",
                    col_order=_order(df, col), estimator="median", errorbar=median_errorbar,
                    order=order, height=BAR_PANEL_IN, aspect=1.4,
                    sharey=False, sharex=False, **({"hue": hue} if hue and hue != x else {}),
                    **hk)
    _finish(g, xlabel, ylabel, title, None, col)
    drawn = 0
    if bound and col is not None and _is_size(col):  # a facet per size: its own bound only
        for key, ax in _axes(g):
            if key is not None and pd.notna(key) and int(key) in bound:
                ax.axhline(bound[int(key)], color="0.2", linestyle="--", linewidth=1.2)
                drawn += 1
    if drawn:  # below the figure's lower edge, so below its shared x label whatever its height
        from matplotlib.transforms import ScaledTranslation

        g.figure.text(0.5, 0.0, MEMCPY_NOTE, ha="center", va="top", fontsize=9,
                      transform=g.figure.transFigure
                      + ScaledTranslation(0, -0.04, g.figure.dpi_scale_trans))
    _draw(g.figure)
    for ax in g.axes.flat:
        _declutter_xticks(ax)
    return _meta(g, kind="bar", data=df, x=x,
                 y=y, hue=hue, col=col, row=None, source=source)


def _declutter_xticks(ax: Any, gap: float = 4.0) -> bool:
    """Category labels that would touch their neighbours are set smaller and at 30°; whether
    any were (labels already at 30° are left as they are)."""
    r = ax.figure.canvas.get_renderer()
    labs = [t for t in ax.get_xticklabels() if t.get_text()]
    if not labs or all(t.get_rotation() == 30 for t in labs):
        return False
    boxes = sorted((t.get_window_extent(r) for t in labs), key=lambda b: b.x0)
    if not any(b.x0 - a.x1 < gap for a, b in zip(boxes, boxes[1:])):
        return False
    for t in labs:
        t.set_rotation(30)
        t.set_ha("right")
        t.set_rotation_mode("anchor")
        t.set_fontsize(9)
    return True


def estimates(df: pd.DataFrame, x: str, y: str, lo: str, hi: str, hue: str, xlabel: str,
              ylabel: str, col: str | None = None, logx: bool = True, logy: bool = False,
              ref: float | None = None, title: str | None = None,
              source: pd.DataFrame | None = None) -> sns.FacetGrid:
    """Precomputed estimates with their CIs (e.g. bootstrap ratios from analysis.statistics.stats) as
    points with error bars, one series per hue."""
    hk = _hue_kws(df, hue)
    g = sns.FacetGrid(df, col=col, hue=hue, height=FACET_PANEL_IN, aspect=1.3, sharey=False,
                      col_order=_order(df, col), **hk)

    def draw(data: pd.DataFrame, color: Any = None, label: str | None = None, **_: Any) -> None:
        d = data.sort_values(x)
        yerr = np.vstack([d[y] - d[lo], d[hi] - d[y]]).clip(min=0)
        plt.errorbar(d[x], d[y], yerr=yerr, fmt="o-", color=color, label=label, capsize=3)

    g.map_dataframe(draw)
    g.add_legend()
    for key, ax in _axes(g):
        sub = _facet_rows(df, key, None, col)
        if logx:
            _size_axis(ax, sorted(sub[x].dropna().unique()) if len(sub) else None)
        if ref is not None:  # before the log axis fixes the limits
            ax.axhline(ref, color="0.3", linewidth=1)
        if logy:
            _log_y(ax)
    return _meta(_finish(g, xlabel, ylabel, title, None, col), kind="line", data=df, x=x,
                 y=y, hue=hue, col=col, row=None, extra=[lo, hi], source=source)


#: colours of the decision maps, one per reading of a comparison with direction and size
#: apart (decision.rule.direction_and_size): beyond the band dark, its size open light
MAP_COLORS = {"faster_beyond": "#1b9e77", "faster_open": "#b2df8a", "equivalent": "#cfcfcf",
              "slower_open": "#fdbf6f", "slower_beyond": "#d95f02", "undecided": "#ffffff"}


def map_key(lo: float, hi: float) -> str:
    """A comparison's square on the maps (a key of :data:`MAP_COLORS`) from its CI."""
    r = R.direction_and_size(lo, hi)
    if r.size == R.WITHIN:
        return "equivalent"
    if r.direction == R.UNDECIDED:
        return "undecided"
    return f"{r.direction}_{'beyond' if r.size == R.BEYOND else 'open'}"


def map_words(baseline: str) -> dict[str, str]:
    """The one legend of both maps, in words."""
    pct = fmt_pct(SESOI, 0)
    return {"faster_beyond": f"faster than {baseline} by > {pct}",
            "faster_open": "faster, size open", "equivalent": f"equivalent ({fmt_band()})",
            "slower_open": "slower, size open",
            "slower_beyond": f"slower than {baseline} by > {pct}", "undecided": "undecided"}


#: the marks of a square not read as a decision (decision.reading): its colour kept under a
#: hatching, its ratio in grey
UNREAD_HATCH = {RD.NOT_READ: "..", RD.RECEIVER_BOUND: "xxx"}
UNREAD_WORDS = {RD.NOT_READ: "not read: under the minimum rounds",
                RD.RECEIVER_BOUND: RD.RECEIVER_BOUND}
#: the height of the legend's line of marks, inches
UNREAD_LINE_IN = 0.22


def _map_legend(fig: Any, baseline: str, fontsize: float,
                unread: Sequence[str] = ()) -> None:
    """The maps' one legend, below the panels: every reading, in words, and the marks of the
    readings ``unread`` that the map draws (:data:`UNREAD_HATCH`)."""
    from matplotlib.patches import Patch

    words = map_words(baseline)
    handles = [Patch(facecolor=c, edgecolor="0.6", label=words[k]) for k, c in MAP_COLORS.items()]
    marks = [Patch(facecolor="white", edgecolor="0.4", hatch=UNREAD_HATCH[k],
                   label=UNREAD_WORDS[k]) for k in UNREAD_HATCH if k in unread]
    # the marks on a line of their own below the readings' colours
    up = UNREAD_LINE_IN / fig.get_size_inches()[1] if marks else 0.0
    fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False, fontsize=fontsize,
               bbox_to_anchor=(0.5, up))
    if marks:
        fig.legend(handles=marks, loc="lower center", ncol=len(marks), frameon=False,
                   fontsize=fontsize, bbox_to_anchor=(0.5, 0.0))


def _unread(df: pd.DataFrame) -> list[str]:
    """The readings of ``df``'s comparisons that are not decisions (its ``read`` column)."""
    return [k for k in UNREAD_HATCH if "read" in df and (df["read"] == k).any()]


#: the least height of a facet grid's panel as the HTML book shows it, in pixels: the
#: book shows a PNG at its own size (``savefig.dpi`` = 100 px per inch) up to the width of its
#: content column (:data:`HTML_CONTENT_PX`), so a grid fitted to the PDF's height cap with
#: many rows of panels showed each about 40 px high
MIN_PANEL_PX = 200
#: the HTML book's content column at a 1280 px window (the figures' widest display), px
HTML_CONTENT_PX = 800
#: facets of one ratio figure at most (one row of two): more go to further figures
#: (:func:`ratio_figures`). Two rows of panels fitted under the PDF's height cap (with the
#: title, the legend above and the size labels) leave each about 150 px
RATIO_FACETS_PER_FIGURE = 2
#: the room left around the y-range that comparisons of at least the design's minimum rounds
#: need, in decades of a log axis, when a comparison of fewer rounds would stretch it
CLIP_MARGIN_DECADES = 0.08
#: a ratio panel's height as drawn, inches (seaborn's height: the panel with its title, the
#: legend above and its labels), the least at which the panel itself is :data:`MIN_PANEL_PX`
#: high in the HTML book
RATIO_PANEL_IN = 3.8


def _clip_limits(sub: pd.DataFrame, rounds_min: int | None,
                 threshold: float) -> tuple[float, float] | None:
    """The y-limits of one ratio panel when a comparison of fewer than ``rounds_min`` rounds
    (its ``n``) would stretch them: the range the others' ratios and CIs, the band and 1.0
    need, with :data:`CLIP_MARGIN_DECADES` of room (where every comparison of the panel has
    fewer rounds: what their estimates and the band need); None where no such comparison
    reaches beyond it."""
    if rounds_min is None or "n" not in sub or sub.empty:
        return None
    n = pd.to_numeric(sub["n"], errors="coerce")
    few = n < rounds_min
    if not few.any():
        return None
    ok = sub[~few]
    # no comparison of enough rounds in the panel: its estimates and the band set the axis
    vals = (pd.concat([ok["lo"], ok["hi"], ok["ratio"]]) if len(ok) else sub["ratio"]).astype(float)
    vals = vals[np.isfinite(vals) & (vals > 0)]
    if vals.empty:
        return None
    b_lo, b_hi = band(threshold)
    m = 10 ** CLIP_MARGIN_DECADES
    lo, hi = min(float(vals.min()), b_lo, 1.0) / m, max(float(vals.max()), b_hi, 1.0) * m
    other = pd.concat([sub.loc[few, c] for c in ("lo", "hi", "ratio")]).astype(float)
    other = other[np.isfinite(other)]
    if other.empty or (other.min() >= lo and other.max() <= hi):
        return None
    return lo, hi


def crossover_span(at: float, lo: float, hi: float,
                   measured: Iterable[float]) -> tuple[float, float, bool] | None:
    """What a ratio figure draws of a crossover at ``at`` with CI [``lo``, ``hi``]: the CI and
    True (the crossover is placed) where a measured size lies within it; else the gap between
    the measured sizes around it and False (a CI narrower than that gap is the
    interpolation's, not the data's: the figure shades the gap and draws no crossover line,
    as :func:`analysis.words.phrases.crossover_phrase` says "between the measured sizes");
    None when ``at`` lies outside the measured sizes and its CI holds none of them."""
    sizes = sorted({float(x) for x in measured})
    if math.isfinite(lo) and math.isfinite(hi) and any(lo <= x <= hi for x in sizes):
        return lo, hi, True
    below = [x for x in sizes if x <= at]
    above = [x for x in sizes if x >= at]
    if below and above:
        return below[-1], above[0], False
    return None


def clip_note(rounds_min: int) -> str:
    """The ratio figures' words for a clipped CI."""
    return f"▲▼: CI clipped, fewer than {rounds_min} rounds"


def ratios(df: pd.DataFrame, hue: str, xlabel: str, ylabel: str, row: str | None = None,
           col: str | None = None, threshold: float = SESOI,
           crossovers: pd.DataFrame | None = None, title: str | None = None,
           source: pd.DataFrame | None = None, col_wrap: int | None = None,
           rounds_min: int | None = None) -> sns.FacetGrid:
    """Ratios against a baseline (columns ``size``, ``ratio``, ``lo``, ``hi``: the decided
    comparisons of :mod:`analysis.claims.baselines`) against size: one line per method with
    its CI as a band, the 1.0 line, the ±threshold band grey (by default the claims' band), and each crossover size (where
    the method starts to beat the baseline) as a dotted vertical line with its CI shaded.

    ``rounds_min`` (the run's design minimum, :attr:`analysis.loading.run.Run.rounds_min`):
    a comparison of fewer rounds (column ``n``) does not set a panel's y-limits; the panel
    keeps the range the others need (:func:`_clip_limits`), that comparison's CI is cut at
    the panel's edge and marked there (▲ above, ▼ below), and the legend says so
    (:func:`clip_note`)."""
    hk = _hue_kws(df, hue)
    limits: dict[Any, tuple[float, float]] = {}
    facets = [c for c in (row, col) if c is not None]
    if rounds_min is not None and "n" in df:
        groups = df.groupby(facets, sort=False) if facets else [((), df)]
        for k, sub in groups:
            lim = _clip_limits(sub, rounds_min, threshold)
            if lim is not None:
                limits[k if not isinstance(k, tuple) or len(k) != 1 else k[0]] = lim
    drawn = df
    if limits:
        key_of = (df[facets].apply(tuple, axis=1).map(lambda t: t[0] if len(t) == 1 else t)
                  if facets else pd.Series([()] * len(df), index=df.index))
        lim_of = key_of.map(lambda k: limits.get(k, (math.nan, math.nan)))
        drawn = df.assign(_clip_lo=[a for a, _ in lim_of], _clip_hi=[b for _, b in lim_of],
                          _few=pd.to_numeric(df["n"], errors="coerce") < rounds_min)
    g = sns.FacetGrid(drawn, row=row, col=col, hue=hue, height=RATIO_PANEL_IN, aspect=1.35,
                      sharey=False,
                      sharex=False,
                      row_order=_order(df, row), col_order=_order(df, col),
                      col_wrap=col_wrap if row is None else None, **hk)

    def draw(data: pd.DataFrame, color: Any = None, label: str | None = None, **_: Any) -> None:
        d = data.sort_values("size")
        ax = plt.gca()
        lo, hi, ratio = d["lo"].astype(float), d["hi"].astype(float), d["ratio"].astype(float)
        if "_clip_lo" in d and d["_clip_lo"].notna().any():
            c_lo, c_hi = float(d["_clip_lo"].iloc[0]), float(d["_clip_hi"].iloc[0])
            few = d["_few"].astype(bool)
            top, bottom = few & (hi > c_hi), few & (lo < c_lo)
            hi = hi.where(~few, hi.clip(upper=c_hi))
            lo = lo.where(~few, lo.clip(lower=c_lo))
            ratio = ratio.where(~few, ratio.clip(c_lo, c_hi))
            for sel, y, mk in ((top, c_hi, "^"), (bottom, c_lo, "v")):
                if sel.any():
                    ax.plot(d.loc[sel, "size"], [y] * int(sel.sum()), marker=mk,
                            linestyle="none", color=color, markersize=6, clip_on=False,
                            zorder=4)
        ax.fill_between(d["size"], lo, hi, color=color, alpha=0.22, linewidth=0)
        ax.plot(d["size"], ratio, "o-", color=color, label=label, markersize=4)
        if d["size"].nunique() == 1:  # one size: a band over one x is empty, so an error bar
            ax.vlines(d["size"], lo, hi, color=color, linewidth=1.5)

    g.map_dataframe(draw)
    for key, ax in _axes(g):
        sub = _facet_rows(df, key, row, col)
        ax.axhspan(*band(threshold), color="0.85", zorder=0, linewidth=0)
        ax.axhline(1.0, color="0.2", linewidth=1, zorder=1)
        _size_axis(ax, sorted(sub["size"].dropna().unique()) if len(sub) else None)
        lim = limits.get(key if not isinstance(key, tuple) or len(key) != 1 else key[0])
        if lim is not None:
            ax.set_ylim(*lim)
        _log_y(ax)
        if crossovers is None or crossovers.empty or sub.empty:
            continue
        for _, r in _facet_rows(crossovers, key, row, col).iterrows():
            if not math.isfinite(r["crossover"]):
                continue
            col_ = color(r[hue])
            measured = sub.loc[sub[hue] == r[hue], "size"] if hue in sub else sub["size"]
            span = crossover_span(r["crossover"], r["lo"], r["hi"], measured.dropna())
            if span is None:
                continue
            lo_, hi_, placed = span
            if placed:  # a measured size lies within its CI: the crossover and its CI
                ax.axvline(r["crossover"], color=col_, linestyle=":", linewidth=1.5)
            ax.axvspan(lo_, hi_, color=col_, alpha=0.08, linewidth=0)
    # the legend in one row above the panels (to their right it took a third of the width
    # the PDF gives the figure, and the panels fitted beside it were too small to read)
    names = [h for h in (g.hue_names or []) if h in g._legend_data]
    note = f"; {clip_note(rounds_min)}" if limits and rounds_min is not None else ""
    leg = g.figure.legend([g._legend_data[h] for h in names], names, loc="lower center",
                          bbox_to_anchor=(0.5, 1.0), ncol=max(len(names), 1), frameon=False,
                          borderaxespad=0,
                          title=f"{hue}  (dotted: crossover; grey: {fmt_band(threshold)}{note})")
    g._copybench_top_legend = leg
    return _meta(_finish(g, xlabel, ylabel, title, row, col), kind="line", data=df, x="size",
                 y="ratio", hue=hue, col=col, row=row, extra=["lo", "hi", "decision"],
                 source=source)


def facet_values(df: pd.DataFrame, col: str) -> list[Any]:
    """The values of ``col`` in the order the figures give its facets (sizes by size,
    methods and placements in the book's order)."""
    return _order(df, col) or []


def facet_figures(draw: Any, df: pd.DataFrame, *args: Any, col: str,
                  title: str | None = None, per_figure: int = FACETS_PER_FIGURE,
                  source: pd.DataFrame | None = None, **kw: Any) -> list[Any]:
    """A facet figure (``draw``: :func:`lines`, :func:`bars`, :func:`points`,
    :func:`estimates`, :func:`ratios`, called with ``df, *args, col=col, **kw``) in parts of
    at most ``per_figure`` panels (``col`` values, in the figure's order;
    :data:`FACETS_PER_FIGURE`: one row of two), each part its own image ("title (1 of 3)"):
    one grid of many panels fitted under the PDF's height cap showed each panel a few tens of
    pixels high in the HTML book; each of these keeps :data:`MIN_PANEL_PX`. ``source`` (the
    data the figure claims to show) is cut the same way, so each part is checked against its
    own facets."""
    values = facet_values(df, col)
    parts = [values[i:i + per_figure] for i in range(0, len(values), per_figure)] or [[]]
    out = []
    for k, part in enumerate(parts, 1):
        sub = df[df[col].isin(part)] if part else df
        src = (source[source[col].isin(part)]
               if source is not None and part and col in source else source)
        t = (f"{title} ({k} of {len(parts)})" if title and len(parts) > 1 else title)
        g = draw(sub, *args, col=col, title=t, source=src, **kw)
        if len(parts) > 1 and getattr(g, "_copybench", None) is not None:
            g._copybench["whole"] = df  # the data of every part (data_problems)
        out.append(g)
    return out


def ratio_figures(df: pd.DataFrame, hue: str, xlabel: str, ylabel: str, col: str,
                  title: str | None = None,
                  per_figure: int = RATIO_FACETS_PER_FIGURE, **kw: Any) -> list[sns.FacetGrid]:
    """:func:`ratios` in rows of two panels, at most ``per_figure`` panels (``col`` values)
    per figure (:data:`RATIO_FACETS_PER_FIGURE`: one row), each figure its own image
    (:func:`facet_figures`)."""
    return facet_figures(ratios, df, hue, xlabel, ylabel, col=col, title=title,
                         per_figure=per_figure, col_wrap=2, **kw)


def panel_heights_px(fig: Any) -> list[float]:
    """Each visible panel's height as the HTML book shows it, in pixels: the figure's PNG
    (its tight box at ``savefig.dpi``) is shown at its own size, shrunk to the content column
    (:data:`HTML_CONTENT_PX`) when wider."""
    _draw(fig)
    r = fig.canvas.get_renderer()
    box = fig.get_tightbbox(r)
    dpi = float(plt.rcParams["savefig.dpi"]) if plt.rcParams["savefig.dpi"] != "figure" \
        else float(fig.dpi)
    width_px = box.width * dpi
    shrink = min(1.0, HTML_CONTENT_PX / width_px) if width_px > 0 else 1.0
    return [ax.get_window_extent(r).height / fig.dpi * dpi * shrink
            for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]


def min_panel_px(g: Any) -> float | None:
    """The least height a figure's panels must keep in the HTML book: :data:`MIN_PANEL_PX`
    for every facet grid (:func:`lines`, :func:`points`, :func:`bars`, :func:`estimates`,
    :func:`ratios`: panels that a grid of many facets, fitted under the PDF's height cap,
    showed a few tens of pixels high), or what a figure declares
    (``g._copybench_min_panel_px``); None for a bare :class:`Figure` that declares none (a
    map or a forest sizes its panels by the rows it holds)."""
    least = getattr(g, "_copybench_min_panel_px", None)
    if least is None and isinstance(g, sns.FacetGrid):
        return MIN_PANEL_PX
    return least


def panel_problems(g: Any) -> list[str]:
    """A panel shown under its figure's least height (:func:`min_panel_px`)."""
    least = min_panel_px(g)
    if least is None:
        return []
    fig = g.figure if hasattr(g, "figure") else g
    short = [h for h in panel_heights_px(fig) if h < least - 0.5]
    return [f"{len(short)} panel(s) shown {min(short):.0f} px high in the HTML book (under "
            f"{least} px)"] if short else []


def _decision_square(ax: Any, j: int, i: int, r: pd.DataFrame, fontsize: float) -> None:
    """One square of a decision grid at column j, row i: coloured by the comparison's
    decision with its ratio printed, or hatched where ``r`` (its rows) is empty."""
    if r.empty:
        ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor="0.97", edgecolor="white",
                                   hatch="//", linewidth=0))
        return
    c = r.iloc[0]
    mark = UNREAD_HATCH.get(str(c.get("read", "")))
    ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor="white" if mark else
                               MAP_COLORS[map_key(c["lo"], c["hi"])], edgecolor="0.6",
                               linewidth=0.6))
    if mark:  # not read as a decision: hatched, never coloured as one
        ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor="none", edgecolor="0.75",
                                   hatch=mark, linewidth=0))
    ax.text(j + 0.5, i + 0.5, f"{c['ratio']:.2f}", ha="center", va="center", fontsize=fontsize,
            color="0.45" if mark else "black")

def decision_map(df: pd.DataFrame, group: str, methods: Sequence[str], baseline: str,
                 title: str | None = None) -> Any:
    """One grid: a row per (``group``, method), a column per size (every size any row has),
    each square coloured by its decision against the baseline and printed with its ratio;
    hatched where that method was not compared at that size. The answer to "where does
    avoiding a copy pay?" at a glance. Sized so that, scaled to a PDF page's width, its
    numbers stay readable (about 7 pt): draw one map per placement rather than one wide map.
    Its legend is the front page map's (:func:`_map_legend`)."""

    groups = list(dict.fromkeys(df[group]))
    rows = [(gv, m) for gv in groups for m in methods
            if ((df[group] == gv) & (df["method"] == m)).any()]
    sizes = sorted(df["size"].unique())
    cw, rh = 0.56, 0.30
    label_w = 0.075 * max((len(f"{gv} · {m}") for gv, m in rows), default=10) + 0.4
    fig, ax = plt.subplots(figsize=(label_w + cw * max(len(sizes), 3) + 0.3,
                                    rh * max(len(rows), 1) + 1.5))
    for i, (gv, m) in enumerate(rows):
        for j, sz in enumerate(sizes):
            _decision_square(ax, j, i, df[(df[group] == gv) & (df["method"] == m)
                                          & (df["size"] == sz)], 9)
    for i in range(1, len(rows)):  # a rule between groups
        if rows[i][0] != rows[i - 1][0]:
            ax.axhline(i, color="0.2", linewidth=1.2)
    ax.set_xlim(0, max(len(sizes), 1))
    ax.set_ylim(max(len(rows), 1), 0)
    ax.set_xticks([j + 0.5 for j in range(len(sizes))])
    ax.set_xticklabels([fmt_size(x) for x in sizes], fontsize=9, rotation=45, ha="right")
    ax.set_yticks([i + 0.5 for i in range(len(rows))])
    ax.set_yticklabels([f"{gv} · {m}" for gv, m in rows], fontsize=9)
    ax.set_xlabel("message size", fontsize=9)
    ax.grid(False)
    for sp in ax.spines.values():
        sp.set_visible(False)
    _map_legend(fig, baseline, 9, _unread(df))
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout(rect=(0, (0.75 + UNREAD_LINE_IN * bool(_unread(df))) / fig.get_size_inches()[1], 1, 1))
    return _meta(Figure(fig), kind="map", data=df, x="size", y="ratio", hue="method", col=group,
                 row=None, extra=["lo", "hi", "decision"], source=None)


def decision_panels(df: pd.DataFrame, methods: Sequence[str], baseline: str,
                    title: str | None = None) -> Any:
    """The front page's decision map: one panel per transport x placement (``panel``), in
    each a row per method and a column per size measured there, each square coloured by its
    decision against ``baseline`` and printed with its ratio; hatched where the method was
    not compared at that size; white, marked and said in the legend where the comparison is
    not read as a decision (its ``read``: under the design's minimum rounds, or
    receiver-bound, :mod:`decision.reading`). ``df``: one comparison per panel, method and
    size."""

    panels = list(dict.fromkeys(df["panel"]))
    rows = [m for m in methods if (df["method"] == m).any()]
    ncol = 2 if len(panels) > 1 else 1
    nrow = math.ceil(len(panels) / ncol)
    rh = 0.26
    fig, axes = plt.subplots(nrow, ncol, figsize=(PDF_TEXT_WIDTH_IN * 0.98,
                                                  nrow * (rh * len(rows) + 0.95) + 0.45),
                             squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(panels):
            ax.set_visible(False)
            continue
        d = df[df["panel"] == panels[k]]
        sizes = sorted(d["size"].unique())
        for i, m in enumerate(rows):
            for j, sz in enumerate(sizes):
                _decision_square(ax, j, i, d[(d["method"] == m) & (d["size"] == sz)], 8)
        ax.set_xlim(0, max(len(sizes), 1))
        ax.set_ylim(max(len(rows), 1), 0)
        ax.set_xticks([j + 0.5 for j in range(len(sizes))])
        ax.set_xticklabels([fmt_size(x) for x in sizes], fontsize=8, rotation=90)
        ax.set_yticks([i + 0.5 for i in range(len(rows))])
        ax.set_yticklabels(rows if k % ncol == 0 else [""] * len(rows),
                           fontsize=8)
        ax.tick_params(length=0)
        ax.set_title(str(panels[k]), fontsize=9)
        ax.grid(False)
        for sp in ax.spines.values():
            sp.set_visible(False)
    unread = _unread(df)
    _map_legend(fig, baseline, 8, unread)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, (0.6 + UNREAD_LINE_IN * bool(unread)) / fig.get_size_inches()[1], 1, 1))
    return _meta(Figure(fig), kind="map", data=df, x="size", y="ratio", hue="method",
                 col="panel", row=None, extra=["lo", "hi", "n", "decision"], source=None)


class Figure:
    """A bare matplotlib figure for :func:`show` (checked for overlapping labels, and against
    its data when it carries the metadata :func:`show` reads)."""

    def __init__(self, fig: Any) -> None:
        self.figure = fig


# --- checks ------------------------------------------------------------------------------------

def _texts(fig: Any) -> list[tuple[str, Any]]:
    """Every visible, non-empty text of the figure, named for the report."""
    out: list[tuple[str, Any]] = []

    def add(kind: str, t: Any) -> None:
        if t is not None and t.get_visible() and t.get_text().strip():
            out.append((f"{kind} {t.get_text()!r}", t))

    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        add(f"axes {i} title", ax.title)
        add(f"axes {i} x label", ax.xaxis.label)
        add(f"axes {i} y label", ax.yaxis.label)
        for axis, lim, pos in ((ax.xaxis, ax.get_xlim(), 0), (ax.yaxis, ax.get_ylim(), 1)):
            lo, hi = sorted(lim)
            for t in [*axis.get_ticklabels(), *axis.get_ticklabels(minor=True)]:
                p = t.get_position()[pos]
                if lo - 1e-9 * abs(hi - lo) <= p <= hi + 1e-9 * abs(hi - lo):
                    add(f"axes {i} tick", t)
        for t in ax.texts:
            add(f"axes {i} text", t)
        leg = ax.get_legend()
        if leg is not None:
            for t in leg.get_texts():
                add(f"axes {i} legend", t)
    for leg in getattr(fig, "legends", []):
        for t in leg.get_texts():
            add("legend", t)
        add("legend title", leg.get_title())
    if getattr(fig, "_suptitle", None) is not None:
        add("figure title", fig._suptitle)
    for t in fig.texts:
        if t is not getattr(fig, "_suptitle", None):
            add("figure text", t)
    return out


def _quad(t: Any, renderer: Any) -> np.ndarray:
    """The four corners (display pixels) of a text's own rectangle, rotated with it: the
    axis-aligned window extent of a rotated text is larger than the text."""
    bb = t.get_window_extent(renderer)
    th = math.radians(t.get_rotation() % 180)
    c, s = abs(math.cos(th)), abs(math.sin(th))
    cx, cy = (bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2
    W, H = bb.width, bb.height
    det = c * c - s * s
    if s < 1e-6 or abs(det) < 1e-3:  # unrotated, or 45 degrees (fall back to the box)
        w, h, th = W, H, 0.0
    else:
        w, h = (c * W - s * H) / det, (c * H - s * W) / det
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    return corners @ rot.T + [cx, cy]


def _overlap(a: np.ndarray, b: np.ndarray, slack: float = -1.5) -> bool:
    """Two convex quadrilaterals overlap, or come closer than ``-slack`` pixels (a label
    touching its neighbour reads as one word), by separating axes."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            norm = np.hypot(*n)
            if norm == 0:
                continue
            n = n / norm
            pa, pb = a @ n, b @ n
            if pa.max() - slack <= pb.min() or pb.max() - slack <= pa.min():
                return False
    return True


def label_problems(fig: Any) -> list[str]:
    """Overlapping labels, measured with the figure's renderer after layout (the notebook
    saves figures with a tight bounding box, so nothing at the edge is cut off)."""
    _draw(fig)
    renderer = fig.canvas.get_renderer()
    texts = [(n, t, _quad(t, renderer)) for n, t in _texts(fig)]
    probs = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if _overlap(texts[i][2], texts[j][2]):
                probs.append(f"labels overlap: {texts[i][0]} and {texts[j][0]}")
    return probs


#: The PDF's text block (Sphinx's manual class on A4 paper with its 1 in side margins; the
#: preamble of book/_config.yml caps a figure's height at 0.6 of the text height), in inches:
#: a figure wider or taller is scaled down to fit, and its fonts with it. tests/book/test_pdf.py
#: checks these against the built PDF.
PDF_TEXT_WIDTH_IN = 6.27
PDF_FIGURE_MAX_HEIGHT_IN = 5.82  # 0.6 of the A4 text height (9.69 in)
#: the smallest font a reader of the PDF at 100 % is asked to read
MIN_FONT_PT = 7.0


def pdf_scale(fig: Any) -> float:
    """How much the PDF shrinks the figure (1 when it fits): the notebook saves it with a tight
    bounding box at ``savefig.dpi``, the PNG carries that dpi, and LaTeX shows it at that size
    unless it is wider than the text or taller than the cap."""
    _draw(fig)
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    w, h = box.width, box.height  # inches
    return min(1.0, PDF_TEXT_WIDTH_IN / w if w > 0 else 1.0,
               PDF_FIGURE_MAX_HEIGHT_IN / h if h > 0 else 1.0)


def font_problems(fig: Any) -> list[str]:
    """Every text of the figure that the PDF shows under :data:`MIN_FONT_PT` (its size times
    :func:`pdf_scale`), one problem per size."""
    scale = pdf_scale(fig)
    small: dict[float, list[str]] = {}
    for name, t in _texts(fig):
        pt = float(t.get_fontsize()) * scale
        if pt < MIN_FONT_PT - 1e-6:
            small.setdefault(round(pt, 1), []).append(name)
    return [f"font {pt:g} pt in the PDF (under {MIN_FONT_PT:g} pt; the figure is shown at "
            f"{scale:.0%} of its size): {', '.join(names[:3])}"
            + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            for pt, names in sorted(small.items())]


def _data_points(ax: Any) -> np.ndarray:
    """Display coordinates (pixels) of every plotted point of the axes that the reader sees:
    line vertices and markers, scatter and error-bar points, bar tops; only those inside the
    axes (a clipped point is not shown)."""
    pts: list[np.ndarray] = []
    for line in ax.lines:
        if not line.get_visible() or line.get_transform() != ax.transData:
            continue  # reference lines (axhline, axvline) span the axes by design
        xy = np.column_stack([np.asarray(line.get_xdata(), float),
                              np.asarray(line.get_ydata(), float)])
        if len(xy):
            pts.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        offsets = coll.get_offsets()
        if len(offsets) and coll.get_offset_transform() == ax.transData:
            pts.append(ax.transData.transform(np.asarray(offsets, float)))
        if hasattr(coll, "get_segments"):  # error bars (LineCollection)
            for seg in coll.get_segments():
                if len(seg):
                    pts.append(coll.get_transform().transform(np.asarray(seg, float)))
    for patch in ax.patches:
        if patch.get_visible() and hasattr(patch, "get_height") and hasattr(patch, "get_x"):
            x, y, h, w = patch.get_x(), patch.get_y(), patch.get_height(), patch.get_width()
            if np.isfinite([x, y, h, w]).all() and h != 0:
                pts.append(ax.transData.transform([[x + w / 2, y + h]]))
    if not pts:
        return np.empty((0, 2))
    allp = np.vstack(pts)
    allp = allp[np.isfinite(allp).all(axis=1)]
    box = ax.get_window_extent()
    inside = ((allp[:, 0] >= box.x0 - 0.5) & (allp[:, 0] <= box.x1 + 0.5)
              & (allp[:, 1] >= box.y0 - 0.5) & (allp[:, 1] <= box.y1 + 0.5))
    return allp[inside]


def legend_problems(fig: Any) -> list[str]:
    """A legend (of the figure or of an axes) drawn over plotted points."""
    _draw(fig)
    r = fig.canvas.get_renderer()
    legends = [*getattr(fig, "legends", []),
               *[ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]]
    probs = []
    for leg in legends:
        if not leg.get_visible():
            continue
        box = leg.get_window_extent(r)
        for i, ax in enumerate(fig.axes):
            pts = _data_points(ax)
            hit = ((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1)
                   & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1))
            if hit.any():
                title = ax.get_title() or f"axes {i}"
                probs.append(f"legend over {int(hit.sum())} plotted points of {title!r}")
    return probs


def off_axis_problems(fig: Any) -> list[str]:
    """A drawn line with a vertex outside its axes' limits (a bound mark above the axis is
    cut off, so a reader never sees it): data lines in both coordinates, horizontal and
    vertical reference lines in the one they are placed by."""
    probs = []
    for i, ax in enumerate(fig.axes):
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        tol_x, tol_y = 1e-6 * (abs(x1) + abs(x0)), 1e-6 * (abs(y1) + abs(y0))
        for line in ax.lines:
            if not line.get_visible():
                continue
            xs = np.asarray(line.get_xdata(), float)
            ys = np.asarray(line.get_ydata(), float)
            tr = line.get_transform()
            checks = []
            if tr == ax.transData:
                if len(xs) == len(ys):  # a vertex with a NaN coordinate is never drawn
                    drawn = np.isfinite(xs) & np.isfinite(ys)
                    xs, ys = xs[drawn], ys[drawn]
                checks = [("x", xs, x0, x1, tol_x), ("y", ys, y0, y1, tol_y)]
            elif tr == ax.get_yaxis_transform():  # axhline: x in axes units
                checks = [("y", ys, y0, y1, tol_y)]
            elif tr == ax.get_xaxis_transform():  # axvline
                checks = [("x", xs, x0, x1, tol_x)]
            for axis, v, lo, hi, tol in checks:
                v = v[np.isfinite(v)]
                out = v[(v < lo - tol) | (v > hi + tol)]
                if len(out):
                    label = line.get_label()
                    name = label if label and not label.startswith("_") else "a line"
                    title = ax.get_title() or f"axes {i}"
                    probs.append(f"{name} off the axis in {title!r}: {axis} = {out[0]:.4g} "
                                 f"outside [{lo:.4g}, {hi:.4g}]")
                    break
    return probs


def _key(v: Any) -> Any:
    if isinstance(v, (np.integer, np.floating)):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return v


def data_problems(meta: Mapping[str, Any]) -> list[str]:
    """The figure against the data it claims to show (``meta['source']``, default the
    figure's own data)."""
    df: pd.DataFrame = meta["data"]
    src: pd.DataFrame = meta.get("source") if meta.get("source") is not None else df
    x, y = meta["x"], meta["y"]
    facets = [c for c in (meta.get("row"), meta.get("col")) if c is not None]
    hue = meta.get("hue")
    probs: list[str] = []
    d = df.dropna(subset=[y]) if y in df else df
    if d.empty:
        return ["drawn from an empty selection"]
    s = src.dropna(subset=[y]) if y in src else src
    for c in [x, *facets, hue]:
        if c is None or c not in s or c not in d:
            continue
        missing = sorted({_key(v) for v in s[c].dropna()} - {_key(v) for v in d[c].dropna()},
                         key=str)
        if missing:
            what = "x-values" if c == x else f"{c} values"
            probs.append(f"{what} in the data the figure claims to show but not in the "
                         f"figure: {', '.join(_facet_label(c, v) if c != x else str(v) for v in missing)}")
    if meta.get("kind") == "line":
        groups = [c for c in (*facets, hue) if c is not None and c in d]
        series = d.groupby(groups, dropna=False)[x].nunique() if groups else \
            pd.Series({(): d[x].nunique()})
        have = s.groupby(groups, dropna=False)[x].nunique() if groups and \
            all(g in s for g in groups) else None
        # one part of a figure split by facet_figures whose facets each have one x-value,
        # where the whole figure has lines: the figure kind fits the data
        whole = meta.get("whole")
        lines_elsewhere = (whole is not None and x in whole and all(g in whole for g in groups)
                           and (whole.groupby(groups, dropna=False)[x].nunique() > 1).any()
                           if groups else False)
        if (series <= 1).all() and not lines_elsewhere:
            probs.append("a line figure whose every series is a single point "
                         f"(x = {', '.join(map(str, sorted(d[x].unique())))})")
        elif have is not None:
            for k, n in series.items():
                if n <= 1 and have.get(k, 0) > 1:
                    probs.append(f"series {k} drawn from one point where the data have {have[k]}")
    return probs


def check_figure(g: Any) -> list[str]:
    """Every problem of a figure: its data against its source, and its labels."""
    fig = g.figure if hasattr(g, "figure") else g
    meta = getattr(g, "_copybench", None)
    probs = data_problems(meta) if meta else []
    return (probs + label_problems(fig) + legend_problems(fig) + off_axis_problems(fig)
            + font_problems(fig) + panel_problems(g))


def _figure_frame(g: Any) -> pd.DataFrame | None:
    meta = getattr(g, "_copybench", None)
    if meta:
        df = meta["data"]
        cols = [c for c in (meta.get("row"), meta.get("col"), meta.get("hue"), meta.get("style"),
                            meta["x"], meta["y"], *(meta.get("extra") or []),
                            "trial_id", "cell") if c is not None and c in df]
        return df[list(dict.fromkeys(cols))]
    data = getattr(g, "data", None)
    return data if isinstance(data, pd.DataFrame) else None


def _layout(g: Any, fig: Any) -> None:
    """tight_layout, leaving a facet grid's legend the room it takes now (seaborn measures it
    once, when it is made: a title set later, or a narrower figure, would put it over the
    axes); a legend above the panels (:func:`ratios`) is set just above them."""
    if isinstance(g, sns.FacetGrid):
        leg = getattr(g, "_legend", None)
        top = getattr(g, "_copybench_top_legend", None)
        if top is not None:  # a legend above the panels: the panels below it
            _draw(fig)
            height = top.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi
            H = fig.get_size_inches()[1]
            g._tight_layout_rect = [0, 0, 1, 1 - (height + 0.05) / H]
            top.set_bbox_to_anchor((0.5, g._tight_layout_rect[3]), transform=fig.transFigure)
            if getattr(fig, "_suptitle", None) is not None:  # the figure's title above it
                fig._suptitle.set_y(g._tight_layout_rect[3] + (height + 0.05) / H)
                fig._suptitle.set_va("bottom")
        elif leg is not None and leg in getattr(fig, "legends", []):
            _draw(fig)
            width = leg.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
            g._tight_layout_rect = [0, 0, 1 - (width + 0.1) / fig.get_size_inches()[0], 1]
        g.tight_layout()
    elif not isinstance(g, Figure) and fig.get_layout_engine() is None:
        fig.tight_layout()  # (a Figure, or a figure with a layout engine, is laid out)


def _fit_for_pdf(g: Any, fig: Any) -> None:
    """Lay the figure out no wider than the PDF's text block and no taller than its figure
    cap, so that LaTeX shows it at its own size and its fonts at the sizes they were set in
    (a wider figure is scaled down, fonts and all). A bare :class:`Figure` is sized by the
    function that drew it."""
    _layout(g, fig)
    if isinstance(g, Figure):
        return  # laid out by the function that drew it (a rect of its own, say)
    for _ in range(5):
        _draw(fig)
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        over_w = box.width - 0.98 * PDF_TEXT_WIDTH_IN
        over_h = box.height - 0.98 * PDF_FIGURE_MAX_HEIGHT_IN
        if over_w <= 0 and over_h <= 0:
            return
        w, h = fig.get_size_inches()
        fig.set_size_inches(max(w - max(over_w, 0), 2.5), max(h - max(over_h, 0), 2.0))
        _layout(g, fig)


def _wrap_titles(g: Any, fig: Any) -> bool:
    """A panel title wider than its panel is broken at the ", " nearest its middle (facet
    titles such as "file→socket, cross-core, warm cache" ran into the next panel's);
    whether any was."""
    _draw(fig)
    r = fig.canvas.get_renderer()
    wrapped = False
    for ax in fig.axes:
        t = ax.title
        text = t.get_text()
        if not text or "\n" in text or ", " not in text:
            continue
        if t.get_window_extent(r).width <= ax.get_window_extent(r).width:
            continue
        cuts = [i for i in range(len(text)) if text.startswith(", ", i)]
        cut = min(cuts, key=lambda i: abs(i - len(text) / 2))
        t.set_text(text[:cut + 1] + "\n" + text[cut + 2:])
        wrapped = True
    return wrapped


def _thin_log_y_ticks(fig: Any, gap: float = 1.0) -> None:
    """Fixed y ticks whose labels would touch (a log axis of a short panel): every second one
    dropped until they clear."""
    _draw(fig)
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        if not isinstance(ax.yaxis.get_major_locator(), FixedLocator):
            continue
        for _ in range(3):
            lo, hi = sorted(ax.get_ylim())
            ticks = [v for v in ax.get_yticks() if lo <= v <= hi]
            labs = [t for t in ax.get_yticklabels() if t.get_text()
                    and lo <= t.get_position()[1] <= hi]
            boxes = sorted((t.get_window_extent(r) for t in labs), key=lambda b: b.y0)
            if len(ticks) < 3 or not any(b.y0 - a.y1 < gap for a, b in zip(boxes, boxes[1:])):
                break
            # the decades first where there are two or more (0.1, 1, 10 read best), else
            # every second tick
            decades = [v for v in ticks if abs(math.log10(v) - round(math.log10(v))) < 1e-9]
            ax.yaxis.set_major_locator(FixedLocator(
                decades if 2 <= len(decades) < len(ticks) else ticks[::2]))
            ax.set_ylim(lo, hi)
            _draw(fig)


def lay_out(g: Any) -> Any:
    """The layout :func:`show` gives a figure before it checks it: fitted to the PDF's text
    block (:func:`_fit_for_pdf`), panel titles wrapped where wider than their panel, size
    ticks and log-axis ticks thinned until their labels clear, bar labels that touch set at
    30°. Returns g."""
    fig = g.figure if hasattr(g, "figure") else g
    _fit_for_pdf(g, fig)
    if _wrap_titles(g, fig):
        _fit_for_pdf(g, fig)
    _thin_size_ticks(fig)
    _thin_log_y_ticks(fig)
    if (getattr(g, "_copybench", None) or {}).get("kind") == "bar":
        for _ in range(3):  # the fitted panels are narrower than the ones drawn
            _draw(fig)
            if not any([_declutter_xticks(ax) for ax in fig.axes]):
                break
            # labels set at 30° are taller: laid out again, they clear the panel below
            _fit_for_pdf(g, fig)
    return g


def show(g: Any, source: pd.DataFrame | None = None) -> list[str]:
    """Lay out and check the figure, write its data (CSV) and check result beside the
    notebook, render it into the notebook output with a link to its data, release it.
    ``source`` overrides the data the figure claims to show. Returns the problems."""
    from IPython.display import Markdown, display

    fig = g.figure if hasattr(g, "figure") else g
    if source is not None and getattr(g, "_copybench", None) is not None:
        g._copybench["source"] = source
    lay_out(g)
    probs = check_figure(g)
    _STATE["n"] += 1
    base = f"{_STATE['name']}-{_STATE['n']:02d}"
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    d = _figdata_dir()
    frame = _figure_frame(g)
    display(fig)
    if d is not None:
        d.mkdir(parents=True, exist_ok=True)
        if frame is not None:
            frame.to_csv(d / f"{base}.csv", index=False)
        (d / f"{base}.check.json").write_text(json.dumps(
            {"figure": base, "title": title, "csv": f"{base}.csv" if frame is not None else None,
             "rows": None if frame is None else len(frame), "problems": probs}, indent=1))
        if frame is not None:
            display(Markdown(f"Data of this figure: [{base}.csv]({d.name}/{base}.csv) "
                             f"({len(frame)} rows)."))
    plt.close(fig)
    return probs

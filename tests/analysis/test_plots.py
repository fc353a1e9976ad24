"""analysis/figures/plots.py's figure checks on synthetic data (make test): the defects they exist
for are caught, and a sound figure passes. Fast; no run or book needed."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from analysis.figures import plots as P  # noqa: E402
from decision.band import SESOI  # noqa: E402
from analysis.loading import run as A  # noqa: E402
from analysis.statistics.fmt import fmt_size  # noqa: E402
import pytest  # noqa: E402

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def thread_run() -> pd.DataFrame:
    """Like the reference run: sizes 64 B..1 MiB at 1 thread; 1 KiB and 64 KiB at 1-8."""
    rng = np.random.default_rng(1)
    rows = []
    for m in ("send", "sendmsg"):
        for s in (64, 1024, 16384, 65536, 1 << 20):
            for th in ((1, 2, 4, 8) if s in (1024, 65536) else (1,)):
                for r in range(3):
                    rows.append(dict(method=m, size=s, threads=th, trial_id=f"{m}{s}{th}{r}",
                                     gbit_per_s=float(rng.uniform(1, 10))))
    return pd.DataFrame(rows)


def test_the_old_thread_scaling_selection_is_caught() -> None:
    P.setup()
    d = thread_run()
    sizes = sorted(d["size"].unique())
    pick = sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]})  # 64 B, 16 KiB, 1 MiB
    g = P.lines(d[d["size"].isin(pick)], "threads", "gbit_per_s", "method", "threads",
                "Gbit/s", col="size", logx=False, source=d)
    probs = P.check_figure(P.lay_out(g))
    plt.close(g.figure)
    assert any("single point" in p for p in probs), probs
    assert any("x-values" in p and "8" in p for p in probs), probs
    assert any("size values" in p and "1 KiB" in p for p in probs), probs


def test_the_thread_experiment_passes() -> None:
    P.setup()
    d = thread_run()
    multi = d.groupby("size")["threads"].nunique().loc[lambda s: s > 1].index
    dd = d[d["size"].isin(multi)]
    g = P.lines(dd, "threads", "gbit_per_s", "method", "threads", "Gbit/s", col="size",
                logx=False)
    assert P.check_figure(P.lay_out(g)) == []
    assert [ax.get_title() for ax in g.axes.flat] == ["1 KiB", "64 KiB"]
    plt.close(g.figure)


def test_overlapping_labels_are_caught() -> None:
    fig, ax = plt.subplots(figsize=(3, 2))
    names = ["read-write", "mmap-write", "sendfile", "splice", "splice2", "copy_file_range"]
    ax.bar(range(6), range(1, 7))
    ax.set_xticks(range(6), names)  # horizontal, far too long for the width
    probs = P.label_problems(fig)
    plt.close(fig)
    assert any("labels overlap" in p and "copy_file_range" in p for p in probs), probs


def test_rotated_labels_that_clear_each_other_pass() -> None:
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(range(3), [1, 2, 3])
    ax.set_xticks(range(3), ["send", "sendmsg", "zerocopy"], rotation=30, ha="right")
    fig.tight_layout()
    assert P.label_problems(fig) == []
    plt.close(fig)


def test_bars_declutter_long_category_labels() -> None:
    P.setup()
    rows = [dict(method=m, size=s, cache=c, gbit_per_s=float(v))
            for v, m in enumerate(["read-write", "sendfile", "splice", "splice2",
                                   "copy_file_range"]) for s in (4096, 10 ** 8, 1 << 20)
            for c in ("warm", "cold") for _ in range(3)]
    titles = []
    for g in P.facet_figures(P.bars, pd.DataFrame(rows), "method", "gbit_per_s", "cache",
                             "method", "Gbit/s", col="size"):
        assert P.check_figure(P.lay_out(g)) == []
        titles += [ax.get_title() for ax in g.axes.flat]
        plt.close(g.figure)
    # facets by value, labelled as the sources name the sizes
    assert titles == ["4 KiB", "1 MiB", "100 MB"]


def test_bars_and_lines_draw_a_frame_whose_index_repeats() -> None:
    """Two frames concatenated keep their row labels: seaborn cannot align a column on an
    index with repeated labels, so the helpers must draw from the rows, not the labels (the
    fidelity page's copybench-vs-iperf3 frame repeats labels in some runs)."""
    P.setup()
    a = pd.DataFrame([dict(tool="iperf3", size=s, transport="veth", gbit_per_s=10.0 + i)
                      for i, s in enumerate((4096, 65536) * 3)])
    b = a.assign(tool="copybench send", gbit_per_s=a["gbit_per_s"] * 2)
    both = pd.concat([a, b])
    assert both.index.has_duplicates
    g = P.bars(both, "transport", "gbit_per_s", "tool", "transport", "Gbit/s", col="size")
    assert P.check_figure(P.lay_out(g)) == []
    plt.close(g.figure)
    g = P.lines(both, "size", "gbit_per_s", "tool", "size", "Gbit/s")
    assert P.check_figure(P.lay_out(g)) == []
    plt.close(g.figure)


def test_one_colour_per_method() -> None:
    assert P.color("send") == P.color("copybench send")
    assert len({P.color(m) for m in ("send", "sendmsg", "zerocopy", "uring-zc", "vmsplice")}) == 5
    files = ("read-write", "mmap-write", "sendfile", "splice", "splice2", "copy_file_range")
    assert len({P.color(m) for m in files}) == 6


def test_memcpy_dst_offsets_read_new_and_old_manifests() -> None:
    """The offset copybench memcpy states is read from the headline and from each
    size; a manifest from before it states none, and a bare number is no error."""
    new = {"memcpy": {"memcpy_gbit_per_s": 40.0, "size": 1 << 26, "dst_offset_mod_4096": 0,
                      "at_sizes": [{"memcpy_gbit_per_s": 300.0, "size": 65536,
                                    "dst_offset_mod_4096": 0},
                                   {"memcpy_gbit_per_s": None, "size": 64}]}}
    assert P.memcpy_dst_offsets(new) == [0]
    new["memcpy"]["at_sizes"][0]["dst_offset_mod_4096"] = 16
    assert P.memcpy_dst_offsets(new) == [0, 16]
    assert P.memcpy_bounds(new) == {65536: 300.0, 1 << 26: 40.0}
    old = {"memcpy": {"memcpy_gbit_per_s": 55.884, "size": 67108864, "seconds": 1.0}}
    assert P.memcpy_dst_offsets(old) == []
    assert P.memcpy_dst_offsets({"memcpy": 55.9}) == [] == P.memcpy_dst_offsets({})


def test_memcpy_is_drawn_only_at_its_own_size() -> None:
    P.setup()
    b = P.memcpy_bounds({"memcpy": {"memcpy_gbit_per_s": 63.1, "size": 1 << 26}})
    assert b == {1 << 26: 63.1}
    d = thread_run()
    g = P.lines(d[d["threads"] == 1], "size", "gbit_per_s", "method", "size", "Gbit/s",
                bound=b)
    assert not [ln for ln in g.ax.lines if ln.get_linestyle() == "--"]
    plt.close(g.figure)
    g = P.lines(d[d["threads"] == 1], "size", "gbit_per_s", "method", "size", "Gbit/s",
                bound={1 << 20: 60.0})
    assert [ln for ln in g.ax.lines if ln.get_linestyle() == "--"]
    plt.close(g.figure)


def test_sizes_as_the_sources_name_them() -> None:
    assert fmt_size(100_000_000) == "100 MB"
    assert fmt_size(1 << 26) == "64 MiB"
    assert fmt_size(4096) == "4 KiB"
    assert fmt_size(64) == "64 B"


def comparisons() -> pd.DataFrame:
    """A decided comparison table like the findings notebook's: 4 methods x 8 sizes in two
    configurations, every decision present."""
    rows = []
    sizes = [64, 512, 4096, 16384, 32768, 65536, 262144, 1 << 20]
    for conf in ("loopback, cross-core", "veth (UDP), same-core"):
        for k, m in enumerate(("sendmsg", "zerocopy", "uring-zc", "vmsplice")):
            for j, s in enumerate(sizes):
                r = 0.6 + 0.12 * j - 0.1 * k
                dec = ["less", "equivalent", "greater", "inconclusive"][(j + k) % 4]
                rows.append(dict(configuration=conf, method=m, size=s, ratio=r, lo=r * 0.95,
                                 hi=r * 1.05, decision=dec))
    return pd.DataFrame(rows)


def test_both_maps_share_one_legend_of_direction_and_size() -> None:
    """The front page's panels and the per-placement maps colour a square by its CI with
    direction and size apart, and say so with one legend: a CI wholly below 1 that crosses
    1 - t is "slower, size open", not "undecided"."""
    P.setup()
    d = comparisons().assign(panel=lambda x: x["configuration"])
    legends = []
    for fig in (P.decision_map(d, "configuration", ["sendmsg"], "send").figure,
                P.decision_panels(d, ["sendmsg"], "send").figure):
        legends.append([t.get_text() for leg in fig.legends for t in leg.get_texts()])
        plt.close(fig)
    assert legends[0] == legends[1] == list(P.map_words("send").values())
    assert P.map_key(0.80, 0.95) == "slower_open" and P.map_key(0.70, 0.85) == "slower_beyond"
    assert P.map_key(0.80, 1.05) == "undecided" and P.map_key(0.95, 1.05) == "equivalent"
    assert P.map_key(1.05, 1.30) == "faster_open"


def test_decision_map_shows_every_cell_without_overlap() -> None:
    P.setup()
    d = comparisons()
    g = P.decision_map(d, "configuration", ["sendmsg", "zerocopy", "uring-zc", "vmsplice"],
                       "send")
    assert P.check_figure(P.lay_out(g)) == []
    texts = [t.get_text() for ax in g.figure.axes for t in ax.texts]
    assert len(texts) == len(d)  # one printed ratio per comparison
    plt.close(g.figure)
    # a configuration that is missing from the figure is caught
    g = P.decision_map(d[d["configuration"] == "loopback, cross-core"], "configuration",
                       ["sendmsg"], "send")
    g._copybench["source"] = d
    probs = P.check_figure(P.lay_out(g))
    plt.close(g.figure)
    assert any("configuration values" in p for p in probs), probs


def test_ratio_figure_has_the_one_line_and_crossovers() -> None:
    P.setup()
    d = comparisons()
    xo = pd.DataFrame([dict(configuration="loopback, cross-core", method="sendmsg",
                            crossover=20000.0, lo=9000.0, hi=40000.0)])
    g = P.ratios(d, "method", "size", "ratio", col="configuration", col_wrap=2,
                 crossovers=xo)
    g.tight_layout()
    P._thin_size_ticks(g.figure)  # as P.show lays the figure out before checking it
    assert P.check_figure(P.lay_out(g)) == []
    ax = g.axes_dict["loopback, cross-core"]
    ys = [ln.get_ydata()[0] for ln in ax.get_lines() if len(set(ln.get_ydata())) == 1]
    assert 1.0 in ys  # the 1.0 line
    xs = [ln.get_xdata()[0] for ln in ax.get_lines() if len(set(ln.get_xdata())) == 1]
    assert 20000.0 in xs  # the crossover, in its facet only
    other = g.axes_dict["veth (UDP), same-core"]
    assert 20000.0 not in [ln.get_xdata()[0] for ln in other.get_lines()
                           if len(set(ln.get_xdata())) == 1]
    plt.close(g.figure)


def test_a_log_axis_under_a_decade_has_readable_ticks() -> None:
    assert P.log_ticks(0.5, 2.0) == [0.5, 1.0, 2.0]
    assert len(P.log_ticks(0.8, 1.3)) >= 3  # finer steps where 1-2-5 gives fewer than three
    assert P.log_ticks(1, 10_000) == [1, 10, 100, 1000, 10000]
    P.setup()
    d = comparisons()
    g = P.ratios(d[d["configuration"] == "loopback, cross-core"], "method", "size", "ratio")
    ax = g.axes.flat[0]
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) >= 3, labels
    plt.close(g.figure)


def test_one_window_per_configuration() -> None:
    rows = [dict(method="send", size=16384, placement="cross-core", duration_s=w, gbit_per_s=v)
            for w, n in ((0.5, 3), (1.0, 12), (3.0, 3)) for v in range(n)]
    rows += [dict(method="send", size=65536, placement="cross-core", duration_s=3.0,
                  gbit_per_s=1.0)] * 3
    d = A.one_window(pd.DataFrame(rows))
    assert set(d.loc[d["size"] == 16384, "duration_s"]) == {1.0}
    assert set(d.loc[d["size"] == 65536, "duration_s"]) == {3.0}


def test_file_bars_draw_memcpy_only_in_a_measured_sizes_panel() -> None:
    P.setup()
    rows = [dict(method=m, size=s, gbit_per_s=v, cache="warm") for m in ("splice", "sendfile")
            for s in (1 << 20, 1 << 26) for v in (10.0, 11.0, 12.0)]
    g = P.bars(pd.DataFrame(rows), "method", "gbit_per_s", "cache", "method", "Gbit/s",
               col="size", bound={1 << 26: 55.9})
    dashed = {k: [ln for ln in ax.lines if ln.get_linestyle() == "--"]
              for k, ax in g.axes_dict.items()}
    assert dashed[1 << 26] and not dashed[1 << 20]
    plt.close(g.figure)
    # the line is what it is: one measurement of memcpy at that size, which a copy of the
    # same size can exceed (16 MiB file-to-file trials did), not a bound
    words = " ".join(t.get_text() for t in g.figure.texts)
    assert "memcpy measured at this size" in words and "not a bound" in words


def test_memcpy_marks_in_a_line_figure_say_they_are_a_measured_reference() -> None:
    P.setup()
    rows = [dict(method=m, size=s, gbit_per_s=v) for m in ("send", "zerocopy")
            for s in (1 << 16, 1 << 20) for v in (10.0, 11.0, 12.0)]
    g = P.lines(pd.DataFrame(rows), "size", "gbit_per_s", "method", "size", "Gbit/s",
                bound={1 << 20: 80.0})
    title = g.legend.get_title().get_text()
    plt.close(g.figure)
    assert "measured" in title and "reference" in title and "bound" not in title, title


def test_a_single_size_ratio_panel_shows_its_ci() -> None:
    """A panel with one size has no band to fill (fill_between over one x is empty): its CI
    is drawn as an error bar from lo to hi (the file-ratio figure's 100 MB panels had none)."""
    P.setup()
    df = pd.DataFrame([
        dict(method="sendfile", path="file→socket, same-core, warm", size=100_000_000,
             ratio=1.9, lo=1.8, hi=2.1, decision="greater"),
        dict(method="splice", path="file→file, cross-core, warm", size=1 << 20,
             ratio=0.9, lo=0.8, hi=1.0, decision="inconclusive"),
        dict(method="splice", path="file→file, cross-core, warm", size=1 << 24,
             ratio=0.95, lo=0.85, hi=1.05, decision="inconclusive")])
    g = P.ratios(df, "method", "size", "ratio", col="path", col_wrap=2)
    one = g.axes_dict["file→socket, same-core, warm"]
    spans = [seg for coll in one.collections for seg in getattr(coll, "get_segments",
                                                                lambda: [])()]
    plt.close(g.figure)
    ys = sorted({round(float(y), 6) for seg in spans for _, y in seg})
    assert 1.8 in ys and 2.1 in ys, f"no vertical CI from 1.8 to 2.1 in the one-size panel: {ys}"


# --- as a reader sees it: legends, lines off the axis, fonts in the PDF -----------------------

def message_like(placements: tuple[str, ...] = ("same-core", "cross-core")) -> pd.DataFrame:
    """Like the message-throughput figure: four methods, sizes 64 B..1 MiB, two placements."""
    rng = np.random.default_rng(2)
    rows = [dict(method=m, size=s, placement=p, transport="loopback", trial_id=f"{m}{s}{p}{r}",
                 gbit_per_s=float(rng.uniform(1, 30)) * (1 + np.log2(s) / 4))
            for m in ("send", "sendmsg", "zerocopy", "vmsplice")
            for s in (64, 1024, 16384, 65536, 1 << 20)
            for p in placements for r in range(3)]
    return pd.DataFrame(rows)


def test_a_legend_over_plotted_points_is_caught() -> None:
    P.setup()
    fig, ax = plt.subplots(figsize=(4, 3))
    xs = np.linspace(1, 4, 31)
    ax.plot(xs, xs, "o-", label="send")
    ax.legend(loc="center")  # over the middle of the line
    probs = P.legend_problems(fig)
    assert probs and "legend over" in probs[0], probs
    plt.close(fig)


def test_the_message_figure_keeps_its_legend_off_the_data() -> None:
    """The legend's title grows after seaborn placed it (the memcpy note): laid out as
    seaborn left it, the legend covers the right-hand column's data; lay_out gives it room."""
    P.setup()
    d = message_like()
    bound = {1 << 20: 80.0}
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", col="placement",
                bound=bound)
    g.legend.set_title("method  (dashes: memcpy at that size)")  # as the figure once did
    g.tight_layout()
    assert P.legend_problems(g.figure), "the old layout should put the legend over data"
    plt.close(g.figure)
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", col="placement",
                bound=bound)
    assert P.check_figure(P.lay_out(g)) == []
    plt.close(g.figure)


def test_a_line_off_the_axis_is_caught_and_bounds_stay_on_it() -> None:
    P.setup()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3], [1, 2, 3], "o-")
    ax.plot([1.5, 2.5], [9, 9], "--", label="memcpy at this size")
    ax.set_ylim(0, 4)
    probs = P.off_axis_problems(fig)
    assert probs and probs[0].startswith("memcpy at this size off the axis"), probs
    plt.close(fig)
    # a vertex with one NaN coordinate is never drawn: no problem, however far its other one
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3], [1, 2, 3], "o-")
    ax.plot([np.nan, 2.0], [9.0, 2.5], "o", label="receiver")
    ax.set_ylim(0, 4)
    assert P.off_axis_problems(fig) == []
    plt.close(fig)
    # a bound far above the data on a log axis: the axis reaches up to it
    d = message_like()
    d = d[d["placement"] == "cross-core"]
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", logy=True,
                bound={1 << 20: 2000.0, 64: 500.0})
    assert [ln for ln in g.ax.lines if ln.get_linestyle() == "--"]
    assert P.off_axis_problems(g.figure) == []
    assert P.check_figure(P.lay_out(g)) == []
    plt.close(g.figure)


def test_a_font_under_7pt_in_the_pdf_is_caught_and_lay_out_avoids_it() -> None:
    P.setup()
    fig, ax = plt.subplots(figsize=(12, 3))  # twice the text block: shown at about half size
    ax.plot([1, 2], [1, 2])
    ax.set_title("a title", fontsize=10)
    probs = P.font_problems(fig)
    assert probs and "under 7 pt" in probs[0], probs
    plt.close(fig)
    d = message_like(("same-core", "cross-core", "unpinned"))
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", col="placement",
                col_wrap=3)  # three panels in a row and a legend: 13 in wide as drawn
    assert P.font_problems(g.figure)
    assert P.font_problems(P.lay_out(g).figure) == []
    assert P.pdf_scale(g.figure) == 1.0
    plt.close(g.figure)


def test_long_panel_titles_are_wrapped_not_run_into_each_other() -> None:
    P.setup()
    d = message_like()
    d["configuration"] = d["placement"].map({"same-core": "file→socket, same-core, warm cache",
                                             "cross-core": "file→socket, cross-core, cold cache"})
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", col="configuration",
                logy=True)
    P._fit_for_pdf(g, g.figure)  # fitted to the text width, titles not wrapped
    assert any(p.startswith("labels overlap") for p in P.label_problems(g.figure))
    plt.close(g.figure)
    g = P.lines(d, "size", "gbit_per_s", "method", "size", "Gbit/s", col="configuration",
                logy=True)
    assert P.check_figure(P.lay_out(g)) == []
    assert all("\n" in ax.get_title() for ax in g.axes.flat)
    plt.close(g.figure)


# --- the figures that failed these checks on the reference run ---------------------------------

def test_the_cpu_breakdown_is_drawn_at_the_pdfs_width() -> None:
    """The copies chapter's breakdown (two panels, a legend of eleven categories) was drawn
    10.4 in wide, so the PDF showed it at 62 %: fonts of 5 to 6.2 pt."""
    from analysis.figures import cpu_breakdown as BD
    from rundir.perf import CATEGORIES

    P.setup()
    rng = np.random.default_rng(3)
    methods = ["read-write", "mmap-write", "sendfile", "splice", "splice2"]
    bd = pd.DataFrame([dict(method=m, side=s, category=c, cpu_s_per_gb=float(rng.uniform(0, .05)))
                       for m in methods for s in ("sender", "receiver") for c in CATEGORIES])
    fig = BD.plot(bd, "file→socket, loopback, 16 MiB", methods)
    g = P.lay_out(P.Figure(fig))
    assert P.check_figure(g) == []
    assert P.pdf_scale(fig) == 1.0
    assert len(fig.legends[0].get_texts()) == len(CATEGORIES)
    plt.close(fig)


def test_rotated_bar_labels_clear_the_panel_below() -> None:
    """Five file sizes in rows of two panels, five methods each: the labels set at 30° after
    the grid was laid out reached into the titles of the panels below (files-01)."""
    P.setup()
    rng = np.random.default_rng(4)
    methods = ["read-write", "mmap-write", "sendfile", "splice", "splice2"]
    rows = [dict(method=m, size=s, cache="warm", gbit_per_s=float(rng.uniform(10, 40)))
            for m in methods for s in (1 << 16, 1 << 20, 1 << 24, 1 << 26, 100_000_000)
            for _ in range(3)]
    g = P.bars(pd.DataFrame(rows), "method", "gbit_per_s", "cache", "method",
               "throughput (Gbit/s)", col="size", order=methods, title="file → socket")
    # (three rows of panels are too short for the HTML book: the notebooks draw them with
    # facet_figures; the labels clear each other all the same)
    assert [p for p in P.check_figure(P.lay_out(g)) if "px high" not in p] == []
    assert all(t.get_rotation() == 30 for ax in g.axes.flat for t in ax.get_xticklabels()
               if t.get_text())
    plt.close(g.figure)


def test_a_ratio_figure_of_seven_panels_reads_at_the_pdfs_size() -> None:
    """Seven configurations in rows of two (findings-05): beside a legend a third of the
    figure's width, the panels fitted to the page were too short for their ticks and their
    wrapped titles; the legend goes above the panels, off them and off the title."""
    P.setup()
    for g in P.ratio_figures(seven_configurations(), "method", "message size",
                             "ratio to send (log scale)", col="configuration",
                             title="throughput relative to send"):
        assert P.check_figure(P.lay_out(g)) == []
        fig = g.figure
        r = fig.canvas.get_renderer()
        leg = fig.legends[0].get_window_extent(r)
        assert all(leg.y0 >= ax.get_tightbbox(r).y1 for ax in fig.axes)  # above every panel
        plt.close(fig)


def seven_configurations(n: int = 10) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    confs = ["loopback, cross-core, 1 s", "loopback, cross-core, 2 s",
             "loopback, same-core, 1 s", "udp-forward (UDP), same-core, 1 s",
             "udp-forward (UDP), same-core, 2 s", "veth, cross-core, 1 s",
             "veth, same-core, 1 s"]
    rows = []
    for c in confs:
        for m in ("sendmsg", "zerocopy", "uring-zc", "vmsplice"):
            for s in (64, 1024, 4096, 16384, 65536, 262144):
                r = float(np.exp(rng.normal(-1 + np.log2(s) / 10, 0.5)))
                rows.append(dict(configuration=c, method=m, size=s, ratio=r, lo=r * 0.8,
                                 hi=r * 1.2, n=n, decision="greater"))
    return pd.DataFrame(rows)


def test_every_ratio_panel_is_at_least_200_px_high_in_the_html() -> None:
    """Seven configurations (the message ratio figure): in one grid fitted under the PDF's
    height cap each panel was a few tens of pixels high in the HTML; the figures of
    ratio_figures keep every panel at least P.MIN_PANEL_PX (200) px, every configuration
    shown once."""
    P.setup()
    d = seven_configurations()
    figs = P.ratio_figures(d, "method", "message size", "ratio to send (log scale)",
                           col="configuration", title="throughput relative to send")
    shown = []
    for g in figs:
        P.lay_out(g)
        assert P.check_figure(g) == []
        heights = P.panel_heights_px(g.figure)
        assert heights and min(heights) >= 200, heights
        shown += list(g.axes_dict)
        plt.close(g.figure)
    assert sorted(shown) == sorted(d["configuration"].unique())
    # the check sees a grid of short panels (what one grid of seven made)
    g = P.ratios(d, "method", "message size", "ratio to send (log scale)",
                 col="configuration", col_wrap=2)
    P.lay_out(g)
    assert min(P.panel_heights_px(g.figure)) < 200
    assert any("px high" in p for p in P.check_figure(g))
    plt.close(g.figure)


def test_a_comparison_of_too_few_rounds_does_not_set_the_y_axis() -> None:
    """One comparison of 2 rounds with its CI [0.001, 1000] beside comparisons of the
    design's minimum: the panel's y-limits stay within what the others need (with a margin),
    the clipped CI is marked at the edge, and the legend says so; rounds_min is the run
    plan's (here the reference run's), not typed."""
    import json

    from rundir.planfile import Declared

    plan = json.loads((ROOT / "data" / "raw" / "20261127T121419Z-paper-ebfc" / "plan.json")
                      .read_text())
    rmin = Declared.of(plan).rounds_min
    assert isinstance(rmin, int) and rmin > 2
    P.setup()
    d = seven_configurations(n=rmin)
    d = d[d["configuration"] == "loopback, cross-core, 1 s"].reset_index(drop=True)
    d.loc[0, ["ratio", "lo", "hi", "n"]] = [1.0, 0.001, 1000.0, 2]
    others = d.iloc[1:]
    g = P.ratios(d, "method", "message size", "ratio", col="configuration", col_wrap=2,
                 rounds_min=rmin)
    P.lay_out(g)
    lo, hi = g.axes.flat[0].get_ylim()
    need_lo = min(others["lo"].min(), 1 - SESOI, 1.0)
    need_hi = max(others["hi"].max(), 1 + SESOI, 1.0)
    assert need_lo / 1.5 <= lo <= need_lo and need_hi <= hi <= need_hi * 1.5, (lo, hi)
    marks = [ln for ln in g.axes.flat[0].lines if ln.get_marker() in ("^", "v")]
    assert {ln.get_marker() for ln in marks} == {"^", "v"}
    assert P.clip_note(rmin) in g.figure.legends[0].get_title().get_text()
    assert P.check_figure(g) == []
    plt.close(g.figure)
    # without the design's minimum the 2-round CI sets the axis (what the figure did)
    g = P.ratios(d, "method", "message size", "ratio", col="configuration", col_wrap=2)
    assert g.axes.flat[0].get_ylim()[1] >= 1000
    plt.close(g.figure)


def test_a_panel_of_only_too_few_rounds_is_set_by_its_estimates() -> None:
    """A panel whose every comparison has fewer rounds than the design's minimum (the
    profiled 16 and 64 MiB cells: 2 rounds, CIs [0.0005, 900]) keeps the range its
    estimates and the band need; the CIs are clipped and marked."""
    P.setup()
    d = pd.DataFrame([dict(configuration="loopback, cross-core, 2 s", method=m, size=s,
                           ratio=r, lo=r / 1500, hi=r * 1500, n=2, decision="inconclusive")
                      for m, r in (("zerocopy", 0.65), ("sendmsg", 0.9))
                      for s in (1 << 24, 1 << 26)])
    g = P.ratios(d, "method", "message size", "ratio", col="configuration", col_wrap=2,
                 rounds_min=6)
    P.lay_out(g)
    lo, hi = g.axes.flat[0].get_ylim()
    assert 0.4 <= lo <= 0.65 and 1.12 <= hi <= 2, (lo, hi)
    assert P.check_figure(g) == []
    plt.close(g.figure)


def six_paths() -> pd.DataFrame:
    """Like the syscall and file-CPU figures: six paths, three methods, four sizes; the last
    path measured at one size only (the 100 MB file)."""
    rng = np.random.default_rng(6)
    rows = [dict(method=m, size=s, path=f"file→socket, path {k}", trial_id=f"{m}{s}{k}{r}",
                 value=float(rng.uniform(1, 10)), other=float(rng.uniform(0.5, 2)),
                 lo=0.5, hi=12.0)
            for m in ("read-write", "sendfile", "splice") for k in range(6)
            for s in ((100_000_000,) if k == 5 else (65536, 1 << 20, 1 << 24, 100_000_000))
            for r in range(3)]
    return pd.DataFrame(rows)


def test_every_facet_grid_reports_panels_under_200_px_in_the_html() -> None:
    """The check runs on every facet grid, not only the ratio figures: a lines() grid of six
    paths in rows of two, fitted under the PDF's height cap, showed each panel about 100 px
    high (copies-10) and no check said so; a one-panel lines() figure was 197 px
    (zerocopy-01)."""
    P.setup()
    d = six_paths()
    for g in (P.lines(d, "size", "value", "method", "size", "syscalls per MiB", col="path",
                      logy=True, title="system calls per MiB"),
              P.bars(d, "method", "value", None, "method", "CPU-s/GB", col="path")):
        P.lay_out(g)
        assert min(P.panel_heights_px(g.figure)) < 200
        assert any("px high in the HTML book" in p for p in P.check_figure(g)), \
            P.check_figure(g)
        plt.close(g.figure)
    g = P.lay_out(P.lines(d[d["path"] == "file→socket, path 0"], "size", "value", "method",
                          "size", "syscalls per MiB", logy=True, title="one path"))
    assert P.check_figure(g) == [] and min(P.panel_heights_px(g.figure)) >= 200
    plt.close(g.figure)


def test_facet_figures_keep_every_panel_at_least_200_px_high() -> None:
    """Every facet figure function split by facet_figures into rows of two panels: each
    part passes every check (a part whose facets each have one size, where the whole figure
    has lines, is no single-point line figure), each panel is at least P.MIN_PANEL_PX high
    in the HTML, every facet is shown once and the parts are numbered in their titles."""
    P.setup()
    d = six_paths()
    kinds = [(P.lines, ("size", "value", "method", "size", "syscalls per MiB"),
              {"logy": True}),
             (P.bars, ("method", "value", None, "method", "CPU-s/GB"), {}),
             (P.points, ("other", "value", "method", "batch", "ratio"), {}),
             (P.estimates, ("size", "value", "lo", "hi", "method", "size", "ratio"),
              {"logy": True, "ref": 1.0})]
    for draw, args, kw in kinds:
        figs = P.facet_figures(draw, d, *args, col="path", title="by path", **kw)
        assert len(figs) == 3
        shown = []
        for k, g in enumerate(figs, 1):
            P.lay_out(g)
            assert P.check_figure(g) == [], (draw.__name__, P.check_figure(g))
            assert min(P.panel_heights_px(g.figure)) >= P.MIN_PANEL_PX
            assert g.figure._suptitle.get_text() == f"by path ({k} of 3)"
            shown += list(g.axes_dict)
            plt.close(g.figure)
        assert sorted(shown) == sorted(d["path"].unique())


@pytest.mark.parametrize("n", [2, 3, 7, 20, 51])
def test_the_median_errorbar_is_the_interval_seaborn_draws(n: int) -> None:
    """The figures' error bar is seaborn's ``errorbar=("ci", 95)`` around the median, value
    for value: the same resamples, their medians taken at once; with a NaN, seaborn's own."""
    from seaborn._statistics import EstimateAggregator

    rng = np.random.default_rng(n)
    for vals in (rng.lognormal(size=n) * 10.0 ** rng.integers(-3, 6),
                 np.r_[rng.normal(size=n), np.nan]):
        frame = pd.DataFrame({"y": vals})
        theirs = EstimateAggregator("median", ("ci", 95), n_boot=P.N_BOOT, seed=P.SEED)(frame, "y")
        ours = EstimateAggregator("median", P.median_errorbar)(frame, "y")
        assert (ours["ymin"], ours["ymax"]) == (theirs["ymin"], theirs["ymax"])
        assert ours["ymin"] < ours["y"] < ours["ymax"] or n == 2

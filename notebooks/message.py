# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Message methods: throughput
#
# Stream throughput of the five message methods (`send` = "two-copy", `sendmsg` =
# "one-copy", `zerocopy` = `MSG_ZEROCOPY`, `uring-zc`, `vmsplice`) against message size, by
# threads, CPU placement and transport. Lines are medians over trials with their
# {glue:text}`ci_level:s` bootstrap CI as a band. The run's memcpy bandwidth is drawn (a dashed mark) only at a
# message size it was measured at: a memcpy of another working-set size runs from another
# level of the memory hierarchy and bounds nothing here.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
from fractions import Fraction

import pandas as pd

from analysis.words import revisions as RV
from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.words import counts as CN
from analysis.statistics import bottleneck as BN
from analysis.words import headlines as H
from analysis.claims import baselines as BL
from analysis.statistics.fmt import fmt_pct, fmt_size
from analysis.statistics import noise_sources as N
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR
from analysis.words import modes as MO
from analysis.words import sides as SI

P.setup("message")
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
st = m[(m["scenario"] == "message") & (m["mode"] == "stream")].copy()
bounds = P.memcpy_bounds(run.manifest)
# one window per configuration: a point never pools the window curves' other windows
tcp = A.one_window(st[st["protocol"] != "udp"])
t_ref, p_ref = A.reference(tcp)
glue_text("band", RV.band_label(run.created_at))
# the constants the prose names: the CIs' levels, the bimodality screen, "saturated"
glue_text("ci_level", PR.ci_level())
glue_text("family_level", PR.family_level())
glue_text("bimodal_bc", str(Fraction(N.BIMODAL_BC).limit_denominator(100)))
glue_text("busy_level", fmt_pct(BN.BUSY, 0))
glue_text("msg_ref_config", f"{t_ref}, {p_ref}" if t_ref else "none (no stream cells)")
glue_text("msg_methods", ", ".join(f"`{x}`" for x in A.method_order(st)) or "none")
glue_text("msg_sizes", ", ".join(fmt_size(s) for s in sorted(st["size"].dropna().unique()))
          or "none")
glue_text("msg_threads", ", ".join(str(int(t)) for t in sorted(st["threads"].dropna().unique()))
          or "none")
if tcp.empty:
    note("This run has no message stream cells.")

# %% [markdown]
# ## Throughput against size, by placement

# %% tags=["remove-input"]
if len(tcp):
    th0 = int(tcp["threads"].min())
    d = tcp[(tcp["transport"] == t_ref) & (tcp["threads"] == th0)]
    g = P.lines(d, "size", "gbit_per_s", "method", "message size (bytes, log scale)",
                "throughput (Gbit/s, log scale)", col="placement", bound=bounds, logy=True,
                title=f"{t_ref}, {th0} thread(s)")
    P.show(g)

# %% [markdown]
# ## Thread scaling
#
# The run's thread experiment: the sizes measured at more than one thread count, each
# with every thread count it was measured at, per placement.

# %% tags=["remove-input"]
d = tcp[tcp["transport"] == t_ref] if len(tcp) else tcp
# only (placement, size) pairs measured at several thread counts belong to the experiment
multi = (d.groupby(["placement", "size"])["threads"].nunique().loc[lambda s: s > 1]
         if len(d) else pd.Series(dtype=int))
if len(multi):
    keep = d.set_index(["placement", "size"]).index.isin(multi.index)
    dd = d[keep]
    # a figure per placement, its sizes in one row (panels at least 200 px high in the HTML)
    for pl in P.facet_values(dd, "placement"):
        for g in P.facet_figures(P.lines, dd[dd["placement"] == pl], "threads", "gbit_per_s",
                                 "method", "threads (connections)", "throughput (Gbit/s)",
                                 col="size", logx=False, per_figure=3, col_wrap=3,
                                 title=f"{t_ref}, {pl}: thread scaling"):
            for ax in g.axes.flat:
                ax.set_xticks(sorted(dd["threads"].unique()))
            P.show(g)
    glue_text("msg_thread_sizes", ", ".join(fmt_size(s) for s in sorted(
        multi.index.get_level_values("size").unique())))
else:
    note("No size of this run was measured at more than one thread count: no "
         "thread-scaling figure.")
    glue_text("msg_thread_sizes", "none")

# %% [markdown]
# ## Transports

# %% tags=["remove-input"]
if len(tcp) and tcp["transport"].nunique() > 1:
    th0 = int(tcp["threads"].min())
    d = tcp[(tcp["placement"] == p_ref) & (tcp["threads"] == th0)]
    g = P.lines(d, "size", "gbit_per_s", "method", "message size (bytes, log scale)",
                "throughput (Gbit/s, log scale)", col="transport", bound=bounds, logy=True,
                title=f"{p_ref}, {th0} thread(s)")
    P.show(g)
else:
    note("Only one TCP transport in this run: no transport comparison.")

# %% [markdown]
# ## Medians with their CIs (reference transport and placement)
#
# A cell whose trials run at two speeds (Sarle's bimodality coefficient above
# {glue:text}`bimodal_bc:s`, a screen)
# gives both, each relative to the cell's median, with how many of its trials each holds (a
# single trial below the gap is named as one slow trial, not a second speed).

# %% tags=["remove-input"]
d = tcp[(tcp["transport"] == t_ref) & (tcp["placement"] == p_ref)] if len(tcp) else tcp
tab = A.summarize_cells(d, "gbit_per_s", ["method", "threads", "size"])
if len(tab):
    # a cell whose trials fall into two groups says so: its median is one speed of two
    two = {k: MO.modes_text(A.values(g, "gbit_per_s"))
           for k, g in d.groupby(["method", "threads", "size"])}
    tab["two speeds"] = [two.get((r.method, r.threads, r.size), "") for r in tab.itertuples()]
    if not tab["two speeds"].any():
        tab = tab.drop(columns=["two speeds"])
    tab["size"] = tab["size"].map(fmt_size)
    tab = tab.rename(columns={"median": "Gbit/s (median)", "lo": "CI low", "hi": "CI high",
                              "ci_half_width_rel": "CI half-width (rel.)"})
    show_table(tab.drop(columns=["shapiro_p"]))

# %% [markdown]
# ## Which side set the rate (reference transport and placement)
#
# The side that could not have gone faster: the method's sender, or copybench's own receiver,
# from each side's CPU time over the window (busy: CPU-seconds per window second per CPU the
# side had, medians over the cell's trials; saturated at {glue:text}`busy_level:s`; same-core, where both share one
# CPU, the side with the larger share). Where the receiver set the rate, the cell measures
# copybench's receiver, not the method.

# %% tags=["remove-input"]
lim = BN.cell_limits(d, ["method", "threads", "size", "placement"]).drop(columns="placement")
if len(lim):
    lim["size"] = lim["size"].map(fmt_size)
    show_table(lim.round({"sender_busy": 2, "receiver_busy": 2}).rename(columns={
        "sender_busy": "sender busy", "receiver_busy": "receiver busy", "limit": "rate set by"}))
glue_text("msg_limit", SI.receiver_limit_text(tcp[tcp["mode"] == "stream"], fmt_size)
          if len(tcp) else "This run has no TCP stream cells.")

# %% [markdown]
# ## Each method against two-copy `send`
#
# Each method / `send`, size by size, under the run's declared design (paired by block and
# round when the run has blocks; t CI at level {glue:text}`family_level:s` over the m sizes of
# one method,
# thread count and configuration), read against the band {glue:text}`band:s` (the claims' band): *greater* / *less* when the CI
# lies beyond it, *equivalent* when inside, otherwise *inconclusive* (the CI straddles the
# boundary named in "why"); the *reading* column gives direction and size apart (a CI that
# excludes 1 but crosses the band's edge: faster or slower, its size open). The unpaired
# reading is the sensitivity column. The decision map
# and ratio figures of {doc}`findings` show the same comparisons for every transport and
# placement.

# %% tags=["remove-input"]
# the set and its count come from the book's one owner of counts (analysis.words.counts)
cmp_tab, ref_config = CN.reference_comparisons(run)
assert ref_config == (f"{t_ref}, {p_ref}" if t_ref else "")
if len(cmp_tab):
    show_table(cmp_tab.assign(size=cmp_tab["size"].map(fmt_size))[
        ["method", "threads", "duration_s", "size", "design", "n", "ratio", "lo", "hi",
         "decision", "why", "sensitivity"]].rename(columns={
             "ratio": "ratio vs send", "lo": "CI low", "hi": "CI high",
             "duration_s": "window (s)"}))
    glue_text("msg_cmp_summary", CN.Tally.of(cmp_tab).text() + f" at {ref_config}")
else:
    note("No method was measured beside `send` at the reference configuration.")
    glue_text("msg_cmp_summary", "no comparison possible in this run")

# %% tags=["remove-input"]
if len(d):
    s_max = d["size"].max()
    th0 = int(d["threads"].min())
    best = (A.summarize_cells(A.select(d, size=s_max, threads=th0), "gbit_per_s", ["method"])
            .sort_values("median", ascending=False))
    top = best.iloc[0]
    # "fastest" only from decided comparisons: every pair of methods at that size, by the
    # same code and families as the comparisons against send above
    pairs = BL.pairwise(run, d[d["threads"] == th0], A.MESSAGE_METHODS, CN.REF_FACTORS)
    glue_text("msg_best", H.leader_text(
        f"{fmt_size(s_max)} ({t_ref}, {p_ref}, {th0} thread{'s' if th0 != 1 else ''})", best,
        A.select(pairs, size=s_max) if len(pairs) else pairs, "Gbit/s"))
    # a ratio to memcpy only against memcpy of the same working-set size
    glue_text("msg_best_vs_memcpy",
              f"{fmt_pct(top['median'] / bounds[int(s_max)])} of memcpy at that size"
              if int(s_max) in bounds else
              "not set against memcpy: the run measured memcpy at "
              + (", ".join(fmt_size(s) for s in sorted(bounds)) or "no size")
              + " only, which bounds no message size")
else:
    glue_text("msg_best", "n/a (no stream cells)")
    glue_text("msg_best_vs_memcpy", "n/a")

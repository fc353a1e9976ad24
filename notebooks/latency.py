# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Latency
#
# Ping-pong round-trip time (RTT) per method and message size: one message out, one back,
# on one connection. Each trial reports percentiles of its RTT histogram; the figures show
# the median over trials of each per-trial percentile with its {glue:text}`ci_level:s` bootstrap CI.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.words import headlines as H
from analysis.claims import baselines as BL
from analysis.statistics.fmt import fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR
from analysis.words.phrases import ratio_ci

P.setup("latency")
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
pp = m[(m["scenario"] == "message") & (m["mode"] == "pingpong") & m["rtt_p50_us"].notna()]
t_ref, p_ref = A.reference(pp)
glue_text("ci_level", PR.ci_level())
glue_text("lat_ref_config", f"{t_ref}, {p_ref}" if t_ref else "none")
if pp.empty:
    note("This run has no ping-pong (latency) cells.")

# %% [markdown]
# ## RTT percentiles against size

# %% tags=["remove-input"]
if len(pp):
    d = pp[(pp["transport"] == t_ref) & (pp["placement"] == p_ref)]
    long = d.melt(id_vars=["method", "size", "cell"],
                  value_vars=["rtt_p50_us", "rtt_p99_us", "rtt_p999_us"],
                  var_name="percentile", value_name="rtt_us")
    long["percentile"] = long["percentile"].map(
        {"rtt_p50_us": "p50", "rtt_p99_us": "p99", "rtt_p999_us": "p99.9"})
    long = long.dropna(subset=["rtt_us"])
    for g in P.facet_figures(P.lines, long, "size", "rtt_us", "method",
                             "message size (bytes, log scale)",
                             "round-trip time (µs, log scale)", col="percentile", logy=True,
                             title=f"{t_ref}, {p_ref}, 1 connection"):
        P.show(g)

# %% [markdown]
# ## By placement and transport (median RTT)

# %% tags=["remove-input"]
if len(pp) and (pp["placement"].nunique() > 1 or pp["transport"].nunique() > 1):
    # one panel per (transport, placement) the run measured: no empty panel for a pair it
    # did not
    d = pp.assign(where=pp["transport"] + ", " + pp["placement"])
    for g in P.facet_figures(P.lines, d, "size", "rtt_p50_us", "method",
                             "message size (bytes, log scale)", "median RTT (µs, log scale)",
                             col="where", logy=True):
        P.show(g)
elif len(pp):
    note("Only one placement and transport with ping-pong cells in this run.")

# %% tags=["remove-input"]
tab = A.summarize_cells(pp, "rtt_p50_us", ["transport", "placement", "method", "size"])
if len(tab):
    tab["size"] = tab["size"].map(fmt_size)
    show_table(tab.rename(columns={"median": "p50 RTT µs (median)", "lo": "CI low",
                                     "hi": "CI high"}).drop(columns=["shapiro_p"]))
    d = pp[(pp["transport"] == t_ref) & (pp["placement"] == p_ref)]
    s0 = d["size"].min()
    rows = A.summarize_cells(A.select(d, size=s0), "rtt_p50_us", ["method"])
    # "lowest" only from decided comparisons: every pair of methods in this configuration
    # (families: the sizes of one method, as the comparisons against send)
    pairs = BL.pairwise(run, d, A.MESSAGE_METHODS, ("transport", "placement", "threads"),
                        metric="rtt_p50_us")
    glue_text("lat_fastest", H.leader_text(
        f"{fmt_size(s0)} ({t_ref}, {p_ref})", rows,
        A.select(pairs, size=s0) if len(pairs) else pairs, "µs",
        what="median round-trip time", lower=True))
    zc = H.pair_of(A.select(pairs, size=s0), "zerocopy", "send") if len(pairs) else None
    if zc is not None:  # the comparison the sentence before is decided from
        glue_text("lat_zc_vs_send", f"{ratio_ci(zc)} at {fmt_size(s0)} "
                  f"({H.RANK_WORDS[True][zc['decision']]})")
    else:
        glue_text("lat_zc_vs_send", "n/a (zero-copy or two-copy missing)")
else:
    glue_text("lat_fastest", "n/a (no ping-pong cells)")
    glue_text("lat_zc_vs_send", "n/a (no ping-pong cells)")

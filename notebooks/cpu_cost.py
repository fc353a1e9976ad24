# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # CPU cost per byte
#
# CPU time (user + system, from `getrusage` over the measured window) per gigabyte moved,
# for the sending and the receiving side separately, and cycles per byte where the hardware
# PMU exists. A method that is faster only because it burns more CPU shows up here.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis.loading import run as A
from analysis import study as SD
from analysis.words import counts as CN
from analysis.words import headlines as H
from analysis.figures import plots as P
from analysis.claims import baselines as BL
from analysis.statistics.fmt import fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR
from analysis.words import sides as SI

P.setup("cpu_cost")
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
m = m[m["bytes"].fillna(0) > 0]
pmu_ok, pmu_why = A.pmu_status(run)
glue_text("ci_level", PR.ci_level())
glue_text("cpu_pmu", "available" if pmu_ok else f"not available ({pmu_why})")

def sides(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    long = df.melt(id_vars=["method", "size", "threads", "cell", "scenario"],
                   value_vars=[f"sender_{metric}", f"receiver_{metric}"], var_name="side",
                   value_name=metric)
    long["side"] = long["side"].str.split("_").str[0]
    return long.dropna(subset=[metric])

# %% [markdown]
# ## Message methods (stream)

# %% tags=["remove-input"]
# one window per configuration: a point never pools the window curves' other windows
st = A.one_window(m[(m["scenario"] == "message") & (m["mode"] == "stream")
                    & (m["protocol"] != "udp")])
t_ref, p_ref = A.reference(st)
if len(st):
    d = st[(st["transport"] == t_ref) & (st["placement"] == p_ref)
           & (st["threads"] == st["threads"].min())]
    long = sides(d, "cpu_s_per_gb")
    g = P.lines(long, "size", "cpu_s_per_gb", "method", "message size (bytes, log scale)",
                "CPU time per GB moved (CPU-s/GB, log scale)", col="side", logy=True,
                title=f"{t_ref}, {p_ref}")
    P.show(g)
    s_max = d["size"].max()
    tab = A.summarize_cells(A.select(d, size=s_max), "sender_cpu_s_per_gb", ["method"])
    if len(tab):
        # "cheapest" only from decided comparisons: every pair of methods at that size
        pairs = BL.pairwise(run, d, A.MESSAGE_METHODS, CN.REF_FACTORS,
                            metric="sender_cpu_s_per_gb")
        th0 = int(d["threads"].min())
        glue_text("cpu_cheapest_sender", H.leader_text(
            f"{fmt_size(s_max)} ({t_ref}, {p_ref}, {th0} thread{'s' if th0 != 1 else ''})",
            tab, A.select(pairs, size=s_max) if len(pairs) else pairs, "CPU-s/GB",
            what="median sender CPU per byte", lower=True))
    else:
        glue_text("cpu_cheapest_sender", "n/a")
else:
    note("No message stream cells in this run.")
    glue_text("cpu_cheapest_sender", "n/a (no message stream cells)")

# %% [markdown]
# ## File methods

# %% tags=["remove-input"]
fm = A.one_window(m[m["scenario"].isin(["file→socket", "file→file"])]).copy()
if len(fm):
    # one panel per path, placement and cache state: no CI pools those, or sizes
    fm["path"] = (fm["scenario"] + ", " + fm["placement"].astype(str) + ", "
                  + fm["cache"].fillna("n/a").astype(str) + " cache")
    long = fm.melt(id_vars=["method", "size", "cell", "path"],
                   value_vars=["sender_cpu_s_per_gb", "receiver_cpu_s_per_gb"],
                   var_name="side", value_name="cpu_s_per_gb").dropna(subset=["cpu_s_per_gb"])
    long["side"] = long["side"].str.split("_").str[0]
    for side, d in long.groupby("side", sort=False):
        for g in P.facet_figures(P.lines, d, "size", "cpu_s_per_gb", "method",
                                 "file size (bytes, log scale)", "CPU-s per GB (log)",
                                 col="path", logy=True,
                                 title=f"file methods: {side} CPU time per GB moved"):
            P.show(g)
else:
    note("No file-method cells in this run.")

# %% [markdown]
# ## Cycles per byte

# %% tags=["remove-input"]
if pmu_ok:
    d = st if len(st) else m
    long = sides(d, "cycles_per_byte")
    if len(long):
        g = P.lines(long, "size", "cycles_per_byte", "method",
                    "message size (bytes, log scale)", "cycles per byte (cycles/B, log scale)",
                    col="side", logy=True)
        P.show(g)
else:
    note(f"Cycles per byte need the hardware PMU, which this testbed lacks: {pmu_why}. "
           "The same cell computes them on a machine that has it.")

# %% [markdown]
# ## Sender CPU per GB, cell by cell
#
# The median and its {glue:text}`ci_level:s` bootstrap CI of each cell (one method at one size, path,
# transport, placement, thread count and cache state; never pooled over any of them): the
# message methods at the figures' transport and placement, every file cell.

# %% tags=["remove-input"]
if len(st):
    one = st[(st["transport"] == t_ref) & (st["placement"] == p_ref)]
    tab = A.summarize_cells(one, "sender_cpu_s_per_gb", ["method", "threads", "size"])
    tab.insert(0, "configuration", f"message, {t_ref}, {p_ref}")
    tab["size"] = tab["size"].map(fmt_size)
    show_table(tab.rename(columns={"median": "sender CPU-s/GB (median)", "lo": "CI low",
                                   "hi": "CI high"}).drop(columns=["shapiro_p"]))
if len(fm):
    tab = A.summarize_cells(fm, "sender_cpu_s_per_gb", ["path", "method", "size"])
    tab["size"] = tab["size"].map(fmt_size)
    show_table(tab.rename(columns={"median": "sender CPU-s/GB (median)", "lo": "CI low",
                                   "hi": "CI high"}).drop(columns=["shapiro_p"]))

# %% [markdown]
# (cpu-cost-c13)=
# ## C13: what sendfile's sender spends its CPU on
#
# C13 compares sendfile with read + send for a {glue:text}`c13_size:s` file over loopback TCP.
# sendfile never copies the file's bytes on the sender (the pages go to the socket by
# reference), so its sender should need less CPU per GB than read + send's, which copies
# every byte twice. The
# table gives each method's median CPU-seconds per GB on each side, each side's median busy
# fraction (CPU time over the window, per CPU it had), the receiver's bytes per receive call,
# and the side that set the rate, for {glue:text}`c13_runs` (the CPU class of each from its
# manifest). {glue:text}`c13_reading`
#
# The sender profile ({glue:text}`c13_profile_file`, `bench/sender-profile`: `perf record -e
# cpu-clock -g` of copybench's sending thread, {glue:text}`c13_profile_setup:s`, warm
# cache) says where that CPU goes. {glue:text}`c13_profile` Same-core, for contrast:
# {glue:text}`c13_profile_same`. {glue:text}`c13_profile_note`

# %% tags=["remove-input"]
from analysis.loading.run import packed_siblings
from analysis.comparison import senders as SN

glue_text("c13_size", ", ".join(fmt_size(n) for n in SN.RULE.sizes))
sibs = [(s.path, s.plan) for s in packed_siblings(run.path)]
c13_runs = [run if p == run.path else SD.open(p, tables=False).run
            for p in SN.chosen(run.path, run.plan, sibs)]
c13 = SN.table(c13_runs)
if len(c13):
    named = sorted(set(c13["run"]), key=list(c13["run"]).index)
    glue_text("c13_runs", "the runs " + ", ".join(f"{r} ({c13.loc[c13['run'] == r, 'cpu class'].iloc[0]})"
                                                  for r in named))
    glue_text("c13_reading", SI.c13_reading(c13))
    show_table(c13.rename(columns={"gbit_per_s": "Gbit/s (median)",
                                "sender_cpu_s_per_gb": "sender CPU-s/GB",
                                "receiver_cpu_s_per_gb": "receiver CPU-s/GB",
                                "receiver_bytes_per_call": "receiver bytes per call",
                                "limit": "rate set by", "n": "trials"}))
else:
    note("This run and the runs beside it hold no C13 cells.")
    glue_text("c13_runs", "no run (none holds C13's cells)")
    glue_text("c13_reading", "")

prof_path = SN.newest_profile()
if prof_path is not None:
    prof = SN.read_profile(prof_path)  # a mangled profile is one line, BadProfile
    glue_text("c13_profile_file", str(prof_path))
    glue_text("c13_profile_setup", SI.setup_text(prof))
    glue_text("c13_profile", SI.profile_text(prof, "cross-core"))
    glue_text("c13_profile_same", SI.profile_text(prof, "same-core"))
    glue_text("c13_profile_note", prof.note and f"({prof.note}.)")
    rows = [{"placement": m.placement, "method": m.method, "stage": s.stage,
             "share of samples": s.share, "CPU-s/GB (profiled)": s.cpu_s_per_gb}
            for m in prof.methods for s in m.stages if s.share > 0]
    show_table(pd.DataFrame(rows))
else:
    note(f"No sender profile is committed ({SN.PROFILES}).")
    for k in ("c13_profile_file", "c13_profile", "c13_profile_same", "c13_profile_setup"):
        glue_text(k, "not measured")
    glue_text("c13_profile_note", "")

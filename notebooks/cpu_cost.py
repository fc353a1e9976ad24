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
from analysis.words import counts as CN
from analysis.words import headlines as H
from analysis.figures import plots as P
from analysis.claims import baselines as BL
from analysis.statistics.fmt import fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR

P.setup("cpu_cost")
run = A.load_run(run_dir)
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

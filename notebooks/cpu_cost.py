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

from analysis import run as A
from analysis import plots as P
from analysis import stats as S
from analysis.fmt import fmt_est, fmt_size
from analysis.output import glue_text, note, show_table

P.setup("cpu_cost")
run = A.load_run(run_dir)
m = run.measured
m = m[m["bytes"].fillna(0) > 0]
pmu_ok, pmu_why = A.pmu_status(run)
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
st = m[(m["scenario"] == "message") & (m["mode"] == "stream") & (m["protocol"] != "udp")]
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
        cheap = tab.sort_values("median").iloc[0]
        glue_text("cpu_cheapest_sender",
                  f"`{cheap['method']}` at {fmt_size(s_max)}: "
                  + fmt_est(S.Estimate(cheap["median"], cheap["lo"], cheap["hi"],
                                         int(cheap["n"])), "CPU-s/GB"))
    else:
        glue_text("cpu_cheapest_sender", "n/a")
else:
    note("No message stream cells in this run.")
    glue_text("cpu_cheapest_sender", "n/a (no message stream cells)")

# %% [markdown]
# ## File methods

# %% tags=["remove-input"]
fm = m[m["scenario"].isin(["file→socket", "file→file"])]
if len(fm):
    long = sides(fm, "cpu_s_per_gb")
    long["path"] = long["scenario"]
    g = P.bars(long, "method", "cpu_s_per_gb", "side", "method",
               "CPU time per GB moved (CPU-s/GB)", col="path", order=None)
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

# %% tags=["remove-input"]
tab = A.summarize_cells(m, "sender_cpu_s_per_gb", ["scenario", "method"])
show_table(tab.rename(columns={"median": "sender CPU-s/GB (median)", "lo": "CI low",
                                 "hi": "CI high"}).drop(columns=["shapiro_p"]))

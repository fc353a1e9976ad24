# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where the copies happen: profiles
#
# One extra trial per profiled cell ran under `perf record -a -e cpu-clock` (system-wide);
# the runner reduced its samples to the share of all samples per symbol (self time) and per
# group of kernel symbols. The kernel's and libc's copy routines (`copy_user_*`,
# `rep_movs*`, `_copy_{to,from}_iter`, `skb_copy_datagram_iter`, `memcpy`/`memmove`
# variants, and the kernel's `__pi_memcpy` alias) give each method's *copy share*: copy
# samples relative to the samples of the copybench processes (the profile is
# system-wide; samples of other processes are left out, and all copy samples are
# attributed to copybench). Multiplied by the
# cell's CPU time per byte (sender + receiver, measured trials) and by the memcpy
# bandwidth, it gives a **measured number of CPU copies per byte**, set against the
# textbook table of claim C15. Syscalls per MiB come from the `raw_syscalls:sys_enter`
# count of every measured trial.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis import run as A
from analysis import claims as C
from analysis import plots as P
from analysis.fmt import fmt_size
from analysis.output import glue_text, note, show_table

P.setup()
run = A.load_run(run_dir)
m = run.measured
prof = run.profiles
bw = A.memcpy_gbit(run.manifest)
glue_text("copies_n_profiles", str(prof.summary["cell"].nunique()) if not prof.empty else "0")

# %% [markdown]
# ## Copy-routine share of copybench's CPU samples, per method

# %% tags=["remove-input"]
if not prof.empty:
    info = m.drop_duplicates("cell").set_index("cell")[["method", "scenario", "size",
                                                        "transport"]]
    share = prof.summary.join(info, on="cell").dropna(subset=["method"])
    share["copy share (%)"] = 100 * share["copy_share_of_busy"]
    share["label"] = share["method"] + " " + share["size"].map(fmt_size)
    g = P.bars(share, "label", "copy share (%)", None, "method and size",
               "samples in copy routines (% of copybench samples)", col="scenario")
    P.show(g)
    top = (prof.symbols.groupby(["symbol", "kernel", "copy_routine"])["share"].mean()
           .sort_values(ascending=False).head(15).rename("mean share of all samples")
           .reset_index())
    show_table(top)
else:
    note("This run has no perf CPU profiles (perf unavailable, or no profiled cells).")

# %% [markdown]
# ## Measured CPU copies per byte against the textbook table (claim C15)
#
# *copies* counts every CPU copy on the machine per byte moved; *path copies* subtracts
# the receiver's one copy out of the socket (which the textbook table, counting up to the
# NIC, leaves out).

# %% tags=["remove-input"]
cp = C.copies_per_byte(run)
book = pd.DataFrame([{"method": k, "textbook CPU copies": "/".join(map(str, v))}
                     for k, v in C.TEXTBOOK_COPIES.items()])
if len(cp):
    show = cp.assign(size=cp["size"].map(fmt_size))
    show_table(show[["scenario", "method", "transport", "size", "textbook", "copies",
                       "path_copies", "path_lo", "path_hi", "copy_share_of_busy", "n"]]
                 .rename(columns={"path_copies": "path copies", "path_lo": "CI low",
                                  "path_hi": "CI high"}))
    plot = cp.rename(columns={"path_copies": "CPU copies per byte"})
    plot["label"] = plot["method"] + " " + plot["size"].map(fmt_size)
    g = P.bars(plot, "label", "CPU copies per byte", None, "method and size",
               "CPU copies per byte, sending path (1)", col="scenario")
    P.show(g)
else:
    note("No measured copies per byte: "
           + ("no memcpy bandwidth in the manifest" if bw is None else "no CPU profiles"))
    show_table(book)

# %% [markdown]
# ## System calls per MiB moved

# %% tags=["remove-input"]
sc = m[m["sender_syscalls_per_mib"].notna() & (m["sender_syscalls_per_mib"] > 0)]
if len(sc):
    sc = sc.assign(label=sc["method"] + " " + sc["size"].map(fmt_size))
    g = P.bars(sc, "method", "sender_syscalls_per_mib", None, "method",
               "sender system calls per MiB (1/MiB, log scale)", col="scenario")
    for ax in g.axes.flat:
        ax.set_yscale("log")
    P.show(g)
else:
    note("No syscall counts in this run (the tracepoint needs root and perf).")

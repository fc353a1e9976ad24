# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Zero-copy: what is really not copied
#
# `MSG_ZEROCOPY` reports, per completion, whether the kernel had to copy the data after all
# (`SO_EE_CODE_ZEROCOPY_COPIED`). Over loopback and veth the data is delivered to a local
# socket and is copied; in the `udp-forward` topology the datagrams are forwarded to a
# blackhole route, nothing is delivered locally, and the pages need not be copied. The
# copied fraction decides how any zero-copy number must be read.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.statistics import stats as S
from analysis.statistics.fmt import fmt_est, fmt_size
from analysis.words.output import glue_text, note, show_table

P.setup("zerocopy")
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
zc = m[m["method"].isin(["zerocopy", "uring-zc"]) & m["zc_completions"].fillna(0).gt(0)]

# %% [markdown]
# ## Copied fraction of completions, per transport

# %% tags=["remove-input"]
rows = []
for (t, meth), g in zc.groupby(["transport", "method"]):
    # counts summed over the transport's cells; per-trial fractions as their range only (a
    # CI would pool sizes, placements and thread counts)
    rows.append({"transport": t, "method": meth, "trials": len(g),
                 "completions": int(g["zc_completions"].sum()),
                 "copied": int(g["zc_copied"].sum()),
                 "copied fraction (all completions)":
                     g["zc_copied"].sum() / g["zc_completions"].sum(),
                 "lowest per trial": g["zc_copied_fraction"].min(),
                 "highest per trial": g["zc_copied_fraction"].max(),
                 "ENOBUFS": int(g["zc_enobufs"].fillna(0).sum())})
frac = pd.DataFrame(rows)
show_table(frac)
if len(frac):
    # per configuration: the range of the per-trial fraction (no CI pools sizes or
    # placements; where every trial gives the same fraction a figure would add nothing)
    per = (zc.groupby(["transport", "placement", "mode", "threads", "method"])
           .agg(sizes=("size", lambda s: ", ".join(fmt_size(x) for x in sorted(s.unique()))),
                trials=("trial_id", "size"),
                lowest=("zc_copied_fraction", "min"), highest=("zc_copied_fraction", "max"))
           .reset_index().rename(columns={"lowest": "lowest per trial",
                                          "highest": "highest per trial"}))
    show_table(per)
    for t in ("loopback", "veth", "udp-forward", "remote"):
        r = frac[(frac["transport"] == t) & (frac["method"] == "zerocopy")]
        glue_text(f"zc_copied_{t.replace('-', '_')}",
                  f"{r['copied fraction (all completions)'].iloc[0]:.3f} "
                  f"({int(r['copied'].iloc[0])} of "
                  f"{int(r['completions'].iloc[0])} completions)" if len(r) else
                  f"not measured ({t} has no zero-copy cells in this run)")
else:
    note("No zero-copy completions recorded in this run.")
    for t in ("loopback", "veth", "udp_forward", "remote"):
        glue_text(f"zc_copied_{t}", "not measured (no zero-copy cells in this run)")

# %% [markdown]
# ## udp-forward: the sender's throughput and CPU time when nothing is delivered
#
# UDP datagrams forwarded to a blackhole route. There is no receiver, so only sender
# throughput and sender CPU per byte are meaningful.

# %% tags=["remove-input"]
# one window per configuration: a point never pools two blocks' windows
uf = A.one_window(m[(m["transport"] == "udp-forward") & (m["scenario"] == "message")])
if len(uf):
    g = P.lines(uf, "size", "gbit_per_s", "method", "datagram size (bytes, log scale)",
                "sender throughput (Gbit/s)", bound=P.memcpy_bounds(run.manifest),
                title="udp-forward (nothing delivered)")
    P.show(g)
    g = P.lines(uf, "size", "sender_cpu_s_per_gb", "method", "datagram size (bytes, log scale)",
                "sender CPU time per GB (CPU-s/GB, log scale)", logy=True,
                title="udp-forward: sender CPU cost")
    P.show(g)
    s_max = uf["size"].max()
    a = A.values(A.select(uf, method="zerocopy", size=s_max), "sender_cpu_s_per_gb")
    b = A.values(A.select(uf, method="send", size=s_max), "sender_cpu_s_per_gb")
    if a.size >= 2 and b.size >= 2:
        e = S.ratio_of_medians(a, b)
        glue_text("zc_udp_cpu_ratio", f"{fmt_est(e)} at {fmt_size(s_max)}")
    else:
        glue_text("zc_udp_cpu_ratio", "n/a (zero-copy or send missing in udp-forward)")
else:
    note("This run has no udp-forward cells.")
    glue_text("zc_udp_cpu_ratio", "n/a (no udp-forward cells in this run)")

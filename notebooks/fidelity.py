# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Harness fidelity
#
# Does copybench measure what established tools measure? In the same run and the same
# topology, `iperf3` (TCP stream throughput) and `sockperf` (ping-pong latency) run beside
# copybench's closest equivalents: `send` streams of the same size, and `send` ping-pong.
# A ratio near 1 says the harness adds no artefact of its own.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis import run as A
from analysis import plots as P
from analysis import stats as S
from analysis.fmt import fmt_est, fmt_size
from analysis.output import glue_text, note, show_table

P.setup("fidelity")
run = A.load_run(run_dir)
m = run.measured
peers = m[m["scenario"] == "peer"]
cb_all = m[(m["scenario"] == "message") & m["method"].isin(["send", "sendmsg"])]
if peers.empty:
    note("This run has no peer-tool (iperf3, sockperf) trials.")

# %% tags=["remove-input"]
rows = []
keys = ["transport", "placement", "size", "threads"]
for kind, metric, mode, unit in (("peer:iperf3", "gbit_per_s", "stream", "Gbit/s"),
                                 ("peer:sockperf", "rtt_p50_us", "pingpong", "µs")):
    pk = peers[peers["kind"] == kind]
    for key, g in pk.groupby(keys):
        f = dict(zip(keys, key))
        # copybench's closest equivalent: send, else sendmsg, same topology and size
        cand = A.select(cb_all, mode=mode, **f)
        meth = next((x for x in ("send", "sendmsg") if (cand["method"] == x).any()), None)
        mine = cand[cand["method"] == meth]
        a, b = A.values(mine, metric), A.values(g, metric)
        if b.size == 0:
            continue
        e = S.ratio_of_medians(a, b)
        pe, ce = S.median_ci(b), S.median_ci(a)
        rows.append({"peer": kind.split(":")[1], "copybench method": meth or "—",
                     "transport": f["transport"],
                     "placement": f["placement"], "size": fmt_size(f["size"]),
                     "threads": f["threads"], "metric": f"{metric} ({unit})",
                     "peer median": pe.value, "copybench median": ce.value,
                     "copybench / peer": e.value, "CI low": e.lo, "CI high": e.hi,
                     "decision (±3 %)": S.classify_ratio(e) if a.size else "no copybench cell"})
fid = pd.DataFrame(rows)
show_table(fid)
for peer, what in (("iperf3", "throughput"), ("sockperf", "latency")):
    r = fid[(fid["peer"] == peer) & fid["copybench / peer"].notna()] if len(fid) else fid
    if len(r):
        x = r.iloc[0]
        glue_text(f"fid_{peer}", f"copybench/{peer} {what} ratio "
                  + fmt_est(S.Estimate(x["copybench / peer"], x["CI low"], x["CI high"],
                                         0)).replace(", n=0", "")
                  + f" ({x['transport']}, {x['placement']}, {x['size']}, copybench "
                  f"`{x['copybench method']}`)")
    else:
        glue_text(f"fid_{peer}", f"not measured ({peer} trials with a matching copybench "
                  "cell are absent from this run)")

# %% tags=["remove-input"]
if len(peers):
    both = pd.concat([
        peers.assign(tool=peers["kind"].str.split(":").str[1]),
        cb_all.assign(tool="copybench " + cb_all["method"]),
    ])
    st = both[both["gbit_per_s"].notna() & (both["mode"] == "stream")
              & both["size"].isin(peers.loc[peers["kind"] == "peer:iperf3", "size"])]
    if len(st):
        g = P.bars(st, "transport", "gbit_per_s", "tool", "transport", "throughput (Gbit/s)",
                   title="stream: copybench vs iperf3")
        P.show(g)
    lt = both[both["rtt_p50_us"].notna()
              & both["size"].isin(peers.loc[peers["kind"] == "peer:sockperf", "size"])]
    if len(lt):
        g = P.bars(lt, "transport", "rtt_p50_us", "tool", "transport",
                   "median round-trip time (µs)", title="ping-pong: copybench vs sockperf")
        P.show(g)

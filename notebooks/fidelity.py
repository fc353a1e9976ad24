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
# copybench's equivalents: `send` and `sendmsg` streams of the same size, and `send`
# ping-pong. A ratio near 1 says the harness adds no artefact of its own. `send` copies the
# message's eight fields into one buffer before the kernel's copy; iperf3 writes one buffer it
# never fills again, so its write is the kernel's copy alone, as `sendmsg`'s is. Each row is
# the ratio of medians copybench / peer with its {glue:text}`ci_level:s` bootstrap CI (unpaired: the two sets
# of trials resampled independently), read against {glue:text}`band:s`; every row is shown, decided or not.
# Where the two differ, the second table says which side costs more: each side's CPU time
# per GB moved (copybench from getrusage; iperf3 from the CPU utilisation it reports for its
# client and server), medians over the trials of the configuration.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import math

import pandas as pd

from analysis.words import findings as F
from analysis.loading import peers as PEERS
from analysis.words import noise_verdicts as NV
from analysis.words import revisions as RV
from analysis.loading import run as A
from analysis.figures import plots as P
from analysis.statistics import stats as S
from decision import rule as R
from analysis.statistics.fmt import fmt_est, fmt_pct, fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR
from analysis.words.phrases import size_span

P.setup("fidelity")
glue_text("ci_level", PR.ci_level())
run = A.load_run(run_dir)
m = run.measured
peers = m[m["scenario"] == "peer"]
cb_all = A.one_window(m[(m["scenario"] == "message") & m["method"].isin(["send", "sendmsg"])])
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
        # copybench's equivalents in the same topology and size: send (a user-space memcpy
        # of the fields, then the kernel's copy) and sendmsg (the kernel's copy only, as a
        # peer tool's write of one buffer)
        cand = A.select(cb_all, mode=mode, **f)
        # the peer's own blocks where the run has blocks (the same window and warm-up: a
        # configuration may be measured in another block too, with another warm-up)
        if "block" in g and g["block"].notna().any() \
                and cand["block"].isin(g["block"].dropna()).any():
            cand = cand[cand["block"].isin(g["block"].dropna())]
        b = A.values(g, metric)
        if b.size == 0:
            continue
        for meth in [x for x in ("send", "sendmsg") if (cand["method"] == x).any()] or [None]:
            a = A.values(cand[cand["method"] == meth], metric) if meth else b[:0]
            e = S.ratio_of_medians(a, b)
            pe, ce = S.median_ci(b), S.median_ci(a)
            rows.append({"peer": kind.split(":")[1], "copybench method": meth or "—",
                         "transport": f["transport"], "placement": f["placement"],
                         "size": fmt_size(f["size"]), "threads": f["threads"],
                         "metric": f"{metric} ({unit})", "peer median": pe.value,
                         "copybench median": ce.value, "copybench / peer": e.value,
                         "CI low": e.lo, "CI high": e.hi,
                         "decision": R.band_outcome(e.lo, e.hi) if a.size
                         else "no copybench cell"})
fid = pd.DataFrame(rows)
show_table(fid)


def row_text(x: pd.Series) -> str:
    est = S.Estimate(x["copybench / peer"], x["CI low"], x["CI high"], 0)
    return (f"{fmt_est(est).replace(', n=0', '')} at {x['size']} "
            f"({x['decision']})")


for peer, what in (("iperf3", "throughput"), ("sockperf", "latency")):
    r = fid[(fid["peer"] == peer) & (fid["copybench method"] == "send")
            & fid["copybench / peer"].notna()] if len(fid) else fid
    if len(r):
        x = r.iloc[0]
        glue_text(f"fid_{peer}", f"copybench `send` / {peer} {what} ratio, "
                  f"{x['transport']}, {x['placement']}: "
                  + "; ".join(row_text(y) for _, y in r.iterrows()))
    else:
        glue_text(f"fid_{peer}", f"not measured ({peer} trials with a matching copybench "
                  "cell are absent from this run)")
# CPU per GB of each side: copybench's from getrusage (the tidy table), iperf3's from the
# CPU utilisation it reports for its client and server over the test (analysis/loading/peers.py)
ipc = PEERS.iperf3_cpu(run)
cpu_rows = []
for key, g in (ipc.groupby(keys) if len(ipc) else []):
    f = dict(zip(keys, key))
    cand = A.select(cb_all, mode="stream", **f)
    for tool, d in [("iperf3", g)] + [(f"copybench {x}", cand[cand["method"] == x])
                                      for x in ("send", "sendmsg") if (cand["method"] == x).any()]:
        cpu_rows.append({**f, "size": fmt_size(f["size"]), "tool": tool, "trials": len(d),
                         "sender CPU-s/GB": d["sender_cpu_s_per_gb"].median(),
                         "receiver CPU-s/GB": d["receiver_cpu_s_per_gb"].median(),
                         "receiver CPU-s per window second": (
                             (d["receiver_cpu_s"] / d["seconds"]).median()
                             if "receiver_cpu_s" in d else math.nan)})
cpu = pd.DataFrame(cpu_rows)
if len(cpu):
    show_table(cpu)
glue_text("band", RV.band_label(run.created_at))
glue_text("fid_why", F.fidelity_why(fid, cpu))

# %% tags=["remove-input"]
if len(peers):
    # copybench's cells of the peers' own configurations only (a bar never pools
    # placements, thread counts or windows), one window per configuration
    cfg = ["transport", "placement", "size", "threads", "mode"]
    mine = A.one_window(cb_all.merge(peers[cfg].drop_duplicates(), on=cfg))
    both = pd.concat([
        peers.assign(tool=peers["kind"].str.split(":").str[1]),
        mine.assign(tool="copybench " + mine["method"]),
    ])
    st = both[both["gbit_per_s"].notna() & (both["mode"] == "stream")
              & both["size"].isin(peers.loc[peers["kind"] == "peer:iperf3", "size"])]
    if len(st):
        for g in P.facet_figures(P.bars, st, "transport", "gbit_per_s", "tool", "transport",
                                 "throughput (Gbit/s)", col="size",
                                 title="stream: copybench vs iperf3, by message size"):
            P.show(g)
    lt = both[both["rtt_p50_us"].notna()
              & both["size"].isin(peers.loc[peers["kind"] == "peer:sockperf", "size"])]
    if len(lt):
        for g in P.facet_figures(P.bars, lt, "transport", "rtt_p50_us", "tool", "transport",
                                 "median round-trip time (µs)", col="size",
                                 title="ping-pong: copybench vs sockperf, by message size"):
            P.show(g)

# %% [markdown]
# ## Parity with iperf3
#
# Is copybench `send` at parity with iperf3? The rule was fixed before the run: at each size
# from {glue:text}`fid_parity_sizes`, on {glue:text}`fid_parity_config`, the ratio copybench
# `send` / iperf3 is paired by round in the block the two share (geometric mean of the
# per-round ratios, {glue:text}`fid_parity_level:s` t CI, one comparison per size) and read
# against a parity margin of
# {glue:text}`fid_parity_margin`, the claims' band: "at parity" where the CI lies inside it,
# "not at parity" where it lies wholly outside, "undecided" where it crosses an edge; over the
# range, copybench is at parity only where every size is. Each size runs the rounds a CI of
# {glue:text}`fid_parity_planned` needs at the noise model's sd, so that parity can be read.
# Here: {glue:text}`fid_parity`.

# %% tags=["remove-input"]
from analysis.claims import baselines as BL
from analysis.words import phrases as PH
from decision import parity as PA

glue_text("fid_parity_level", PR.ci_level(PA.CONFIDENCE))

par = BL.parity(run)
post = " (post hoc)" if RV.post_hoc(RV.PARITY_RULE, run.created_at) else ""
glue_text("fid_parity_sizes", f"{fmt_size(PA.SIZES[0])} to {fmt_size(PA.SIZES[-1])}")
glue_text("fid_parity_config", f"{PA.TRANSPORT}, {PA.PLACEMENT}")
glue_text("fid_parity_margin", f"±{fmt_pct(PA.MARGIN, 0)}{post}")
glue_text("fid_parity_planned", f"±{fmt_pct(PA.PLANNED_HALF_WIDTH, 0)}")
if len(par):
    show_table(pd.DataFrame({
        "size": par["size"].map(fmt_size), "rounds": par["rounds"],
        "copybench send / iperf3 [95 % CI]": [PH.ratio_ci(r) for r in par.to_dict("records")],
        "CI half-width": par["half_width"].map(lambda x: f"±{fmt_pct(x, 1)}"),
        "reading": par["reading"] + post}))
    glue_text("fid_parity", "; ".join(
        f"at {fmt_size(r['size'])} {PH.ratio_ci(r)} over {r['rounds']} rounds, "
        f"{r['reading']}" for r in par.to_dict("records"))
        + f"; over the range: {PA.overall(list(par['reading']))}"
        + ("" if len(par) == len(PA.SIZES) else
           f" (only {len(par)} of its {len(PA.SIZES)} sizes were measured beside iperf3)")
        + post)
else:
    note("This run has no copybench `send` cells beside iperf3 at the parity rule's sizes.")
    glue_text("fid_parity", "not measured (this run has no copybench `send` cells beside "
              "iperf3 at these sizes)")

# %% [markdown]
# ## Across the whole size range
#
# A run measures iperf3 beside copybench at the sizes its profile lists. A separate bench
# measures the harness alone against iperf3 over the whole range
# ({glue:text}`fid_bench_sizes:s`), on loopback and veth, both placements, one connection: copybench `send` with the claims' own arguments (eight
# fields, sampled verification, autotuned socket buffers) and `iperf3 -l SIZE`, back to back
# in every round under the same pinning, rounds interleaved. Each row is the geometric mean
# over rounds of the ratio copybench / iperf3 with its {glue:text}`fid_bench_level:s` t interval (rounds are the
# pairing unit), and copybench's receiver CPU per GB over iperf3's; where the bench also
# measured the receiver as it was before it asked for less per receive call, that column
# (headed by its earlier receive size) is beside it. Each configuration shows its newest measurement; the files are committed under
# `bench/results/`.

# %% tags=["remove-input"]
import glob
from typing import Any

bench = PEERS.bench_fidelity(sorted(glob.glob(PEERS.BENCH_FIDELITY)))
glue_text("fid_bench_level", PR.ci_level(PEERS.BENCH_CONFIDENCE))
glue_text("fid_bench_sizes", size_span(bench["size"].min(), bench["size"].max()) if len(bench)
          else "no bench measurement is committed")
def _day(d: str) -> str:
    return f"{d[:4]}-{d[4:6]}-{d[6:]}"


def _machine(model: str, n: int) -> str:
    """A bench row's machine in words ("" where its file records none)."""
    return NV.machine({"cpu": {"model": model, "count": n}}) if model else ""


if len(bench):
    show_table(pd.DataFrame({
        "transport": bench["transport"], "placement": bench["placement"],
        "size": bench["size"].map(fmt_size), "rounds": bench["rounds"],
        "copybench / iperf3": [fmt_est(S.Estimate(r.ratio, r.lo, r.hi, 0)).replace(", n=0", "")
                               for r in bench.itertuples()],
        "receiver CPU/GB ÷ iperf3's": bench["receiver_cpu_ratio"],
        "256 KiB receive calls / iperf3": [
            fmt_est(S.Estimate(r.baseline_ratio, r.baseline_lo, r.baseline_hi, 0)).replace(
                ", n=0", "") if r.baseline_ratio == r.baseline_ratio else "—"
            for r in bench.itertuples()],
        "measured on": [", ".join(filter(None, (_day(d), _machine(m, n))))
                        for d, m, n in zip(bench["day"], bench["cpu_model"], bench["cpu_count"])]}),
        floatfmt="{:.2f}")
    for g in P.facet_figures(P.estimates, bench.assign(ratio=bench["ratio"]), "size",
                             "ratio", "lo", "hi", "placement", "message size",
                             "copybench send / iperf3", col="transport", logy=True, ref=1.0,
                             title="copybench's receiver against iperf3's, over the size "
                             "range"):
        P.show(g)
    lc = bench[(bench["transport"] == "loopback") & (bench["placement"] == "cross-core")
               & (bench["size"] >= 16384)]
    def _est(r: Any, pre: str = "") -> str:
        e = S.Estimate(getattr(r, pre + "ratio"), getattr(r, pre + "lo"), getattr(r, pre + "hi"), 0)
        return fmt_est(e).replace(", n=0", "")

    def _rounds_text(rows: pd.DataFrame) -> str:
        lo, hi = int(rows["rounds"].min()), int(rows["rounds"].max())
        return f"{lo} interleaved rounds" if lo == hi else f"{lo}–{hi} interleaved rounds"

    def _when_text(rows: pd.DataFrame) -> str:
        """Each measuring day with its sizes and machine: the sizes' newest measurements
        may come from different days and CPU classes, and the ratio differs between them."""
        parts = []
        for (day, model, n), g in rows.groupby(["day", "cpu_model", "cpu_count"], sort=True):
            where = (f"on a {_machine(model, n)}" if model
                     else "on a machine the file does not record")
            parts.append(f"{_day(day)} at {size_span(g['size'].min(), g['size'].max())} {where}")
        return "; ".join(parts)

    old = lc[lc["baseline_ratio"].notna()]
    glue_text("fid_bench", (
        "on loopback, cross-core, at 16 KiB–1 MiB, copybench `send` / iperf3 is "
        + "; ".join(f"{fmt_size(r.size)} {_est(r)}" for r in lc.itertuples())
        + f" ({_rounds_text(lc)}; measured {_when_text(lc)}), and copybench's receiver uses "
        f"{lc['receiver_cpu_ratio'].min():.2f}–{lc['receiver_cpu_ratio'].max():.2f}× "
        "iperf3's CPU per GB"
        + (f"; in the same rounds, the receiver as it was when it asked for 256 KiB per "
           f"receive call reached {old['baseline_ratio'].min():.2f}–"
           f"{old['baseline_ratio'].max():.2f}× iperf3 at "
           f"{old['baseline_receiver_cpu_ratio'].min():.2f}–"
           f"{old['baseline_receiver_cpu_ratio'].max():.2f}× its CPU per GB" if len(old) else ""))
        if len(lc) else "not measured on loopback cross-core")
else:
    note("No harness-fidelity bench measurement is committed (bench/results/fidelity-*.json).")
    glue_text("fid_bench", "not measured (no bench measurement committed)")

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
from analysis import study as SD
from analysis.figures import plots as P
from analysis.statistics import stats as S
from decision import rule as R
from analysis.statistics.fmt import fmt_est, fmt_pct, fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR
from analysis.words.phrases import size_span

P.setup("fidelity")
glue_text("ci_level", PR.ci_level())
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
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


for peer, what in (("iperf3", "throughput"), ("sockperf", "latency")):
    r = fid[(fid["peer"] == peer) & (fid["copybench method"] == "send")
            & fid["copybench / peer"].notna()] if len(fid) else fid
    if len(r):
        x = r.iloc[0]
        glue_text(f"fid_{peer}", f"copybench `send` / {peer} {what} ratio, "
                  f"{x['transport']}, {x['placement']}: "
                  + "; ".join(F.fidelity_row_text(y) for _, y in r.iterrows()))
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
# Is copybench at parity with iperf3? iperf3 writes one buffer it never fills again, so each
# of its writes is the kernel's copy alone, as copybench `sendmsg`'s is (its iovecs point at
# the message's fields); copybench `send` copies the fields into one buffer first, a copy
# iperf3 does not make. The rule was fixed before the run: at each size from
# {glue:text}`fid_parity_sizes`, on {glue:text}`fid_parity_config`, the ratio
# {glue:text}`fid_parity_read` is paired by round in the block the two share (geometric mean
# of the per-round ratios, {glue:text}`fid_parity_level:s` t CI, one comparison per size) and
# read against a parity margin of
# {glue:text}`fid_parity_margin`, the claims' band: "at parity" where the CI lies inside it,
# "not at parity" where it lies wholly outside, "undecided" where it crosses an edge; over the
# range, copybench is at parity only where every size is. Each size runs the rounds a CI of
# {glue:text}`fid_parity_planned` needs at the noise model's sd, so that parity can be read.
# Here: {glue:text}`fid_parity`. {glue:text}`fid_parity_gap`

# %% tags=["remove-input"]
from analysis.claims import baselines as BL
from analysis.words import phrases as PH
from decision import parity as PA

glue_text("fid_parity_level", PR.ci_level(PA.CONFIDENCE))

par = BL.parity(run)
decl = BL.parity_declaration(run)
meth = decl.method
post = " (post hoc)" if RV.parity_post_hoc(decl, run.created_at) else ""
earlier = decl is not PA.IN_FORCE
glue_text("fid_parity_sizes", f"{fmt_size(PA.SIZES[0])} to {fmt_size(PA.SIZES[-1])}")
glue_text("fid_parity_config", f"{PA.TRANSPORT}, {PA.PLACEMENT}")
glue_text("fid_parity_margin", f"±{fmt_pct(PA.MARGIN, 0)}{post}")
glue_text("fid_parity_planned", f"±{fmt_pct(PA.PLANNED_HALF_WIDTH, 0)}")
glue_text("fid_parity_read", (
    f"copybench `{PA.METHOD}` / iperf3" if not earlier else
    f"copybench `{meth}` / iperf3 (the rule's earlier declaration, under which this run is "
    f"read: it holds `{meth}` beside iperf3 and no `{PA.METHOD}`; the rule in force reads "
    f"`{PA.METHOD}`)"))
what = f"copybench `{meth}` / iperf3" + (" (the earlier declaration)" if earlier else "")
if len(par):
    show_table(pd.DataFrame({
        "size": par["size"].map(fmt_size), "rounds": par["rounds"],
        f"copybench {meth} / iperf3 [95 % CI]": [PH.ratio_ci(r) for r in par.to_dict("records")],
        "CI half-width": par["half_width"].map(lambda x: f"±{fmt_pct(x, 1)}"),
        "reading": par["reading"] + post}))
    glue_text("fid_parity", f"{what}: " + "; ".join(
        f"at {fmt_size(r['size'])} {PH.ratio_ci(r)} over {r['rounds']} rounds, "
        f"{r['reading']}" for r in par.to_dict("records"))
        + f"; over the range: {PA.overall(list(par['reading']))}"
        + ("" if len(par) == len(PA.SIZES) else
           f" (only {len(par)} of its {len(PA.SIZES)} sizes were measured beside iperf3)")
        + post)
else:
    note(f"This run has no copybench `{PA.METHOD}` or `{PA.EARLIER.method}` cells beside "
         "iperf3 at the parity rule's sizes.")
    glue_text("fid_parity", f"not measured (this run has no copybench `{PA.METHOD}` or "
              f"`{PA.EARLIER.method}` cells beside iperf3 at these sizes)")

# what send's copy of the fields into one buffer costs: send / sendmsg in the same rounds of
# the same blocks, and each one's sender CPU per GB
gap = BL.memcpy_gap(run)
g_, o_ = PA.GAP_METHOD, PA.METHOD
if len(gap):
    show_table(pd.DataFrame({
        "size": gap["size"].map(fmt_size), "rounds": gap["rounds"],
        f"{g_} / {o_} [95 % CI]": [PH.ratio_ci(r) for r in gap.to_dict("records")],
        f"{g_} sender CPU-s/GB": gap[f"{g_}_sender_s_per_gb"],
        f"{o_} sender CPU-s/GB": gap[f"{o_}_sender_s_per_gb"],
        f"{g_}'s extra (median per round)": gap["extra_sender_s_per_gb"]}), floatfmt="{:.3f}")
    glue_text("fid_parity_gap", (
        f"`{g_}`'s gap, in the same rounds: `{g_}` / `{o_}` (the only difference between the "
        f"two is `{g_}`'s copy of the fields into one buffer against `{o_}`'s iovecs) is "
        + "; ".join(f"{PH.ratio_ci(r)} at {fmt_size(r['size'])}, its sender "
                    f"{r['extra_sender_s_per_gb']:+.3f} CPU-s/GB against `{o_}`'s "
                    f"{r[f'{o_}_sender_s_per_gb']:.3f}" for r in gap.to_dict("records"))
        + "."))
elif earlier and len(par):
    glue_text("fid_parity_gap", (
        f"This run holds `{g_}` only beside iperf3: how much of its gap is `{g_}`'s own copy "
        f"of the fields cannot be told apart here (the bench below measures `{o_}` and "
        f"`{g_}` in the same rounds where it has)."))
else:
    glue_text("fid_parity_gap", "")

# %% [markdown]
# ## Across the whole size range
#
# A run measures iperf3 beside copybench at the sizes its profile lists. A separate bench
# measures the harness alone against iperf3 over the whole range
# ({glue:text}`fid_bench_sizes:s`), on loopback and veth, both placements, one connection:
# copybench with the claims' own arguments (eight fields, sampled verification, autotuned
# socket buffers), `sendmsg` and `send` (files written before the bench measured both hold
# `send` alone), and `iperf3 -l SIZE`, back to back in every round under the same pinning,
# rounds interleaved, each method paired with the round's iperf3. Each row is the geometric
# mean over rounds of the ratio method / iperf3 with its {glue:text}`fid_bench_level:s` t
# interval (rounds are the pairing unit), and copybench's receiver CPU per GB over iperf3's;
# where the bench also measured the receiver as it was before it asked for less per receive
# call, that column (headed by its earlier receive size) is beside it. Each configuration and
# method shows its newest measurement, with the day and machine it was measured on; the files
# are committed under `bench/results/`.

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


def _est(r: Any, pre: str = "") -> str:
    e = S.Estimate(getattr(r, pre + "ratio"), getattr(r, pre + "lo"), getattr(r, pre + "hi"), 0)
    return fmt_est(e).replace(", n=0", "")


if len(bench):
    show_table(pd.DataFrame({
        "transport": bench["transport"], "placement": bench["placement"],
        "size": bench["size"].map(fmt_size), "copybench method": bench["method"],
        "rounds": bench["rounds"],
        "method / iperf3": [_est(r) for r in bench.itertuples()],
        "receiver CPU/GB ÷ iperf3's": bench["receiver_cpu_ratio"],
        "256 KiB receive calls / iperf3": [
            _est(r, "baseline_") if r.baseline_ratio == r.baseline_ratio else "—"
            for r in bench.itertuples()],
        "measured on": [", ".join(filter(None, (_day(d), _machine(m, n))))
                        for d, m, n in zip(bench["day"], bench["cpu_model"], bench["cpu_count"])]}),
        floatfmt="{:.2f}")
    for g in P.facet_figures(P.estimates, bench.assign(
            series=bench["method"] + ", " + bench["placement"]), "size",
                             "ratio", "lo", "hi", "series", "message size",
                             "copybench / iperf3", col="transport", logy=True, ref=1.0,
                             title="copybench against iperf3, over the size range"):
        P.show(g)
    lc = bench[(bench["transport"] == "loopback") & (bench["placement"] == "cross-core")
               & (bench["size"] >= 16384)]

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

    def _method_text(meth: str) -> str:
        rows = lc[lc["method"] == meth]
        if rows.empty:
            return ""
        old = rows[rows["baseline_ratio"].notna()]
        return (f"copybench `{meth}` / iperf3 is "
                + "; ".join(f"{fmt_size(r.size)} {_est(r)}" for r in rows.itertuples())
                + f" ({_rounds_text(rows)}; measured {_when_text(rows)}), its receiver at "
                f"{rows['receiver_cpu_ratio'].min():.2f}–{rows['receiver_cpu_ratio'].max():.2f}× "
                "iperf3's CPU per GB"
                + (f"; in the same rounds, the receiver as it was when it asked for 256 KiB per "
                   f"receive call reached {old['baseline_ratio'].min():.2f}–"
                   f"{old['baseline_ratio'].max():.2f}× iperf3 at "
                   f"{old['baseline_receiver_cpu_ratio'].min():.2f}–"
                   f"{old['baseline_receiver_cpu_ratio'].max():.2f}× its CPU per GB"
                   if len(old) else ""))

    gap_rows = lc[(lc["method"] == PA.GAP_METHOD) & lc["gap_ratio"].notna()]
    texts = [t for t in (_method_text(PA.METHOD), _method_text(PA.GAP_METHOD)) if t]
    glue_text("fid_bench", (
        "on loopback, cross-core, at 16 KiB–1 MiB, " + "; and ".join(texts)
        + ("" if (lc["method"] == PA.METHOD).any() else
           f"; no `{PA.METHOD}` measurement of the bench is committed, so `{PA.GAP_METHOD}`'s "
           "ratio there includes its own copy of the fields, which iperf3 does not make")
        + ("" if gap_rows.empty else
           f"; `{PA.GAP_METHOD}` / `{PA.METHOD}` in the same rounds (the cost of "
           f"`{PA.GAP_METHOD}`'s copy of the fields into one buffer) is "
           + "; ".join(f"{fmt_size(r.size)} {_est(r, 'gap_')}, its sender "
                       f"{r.gap_extra_sender_s_per_gb:+.3f} CPU-s/GB"
                       for r in gap_rows.itertuples())))
        if texts else "not measured on loopback cross-core")
else:
    note("No harness-fidelity bench measurement is committed (bench/results/fidelity-*.json).")
    glue_text("fid_bench", "not measured (no bench measurement committed)")

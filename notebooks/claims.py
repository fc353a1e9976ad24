# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Claims: tests and verdicts
#
# Each claim of the five sources (C1–C15) gets an operational test, a statistic with its
# CI, the configuration it was tested at, and a verdict computed from this run:
# **holds**, **refuted** (with the direction the data contradict it), **inconclusive** (the
# CI straddles the claim's own edge, named in the table), **undetermined** (this study's
# own measurement failed to give a number: C15's copy count did not validate), **not
# testable here** (this
# testbed fails the rule's declared applicability condition — hardware counters, a CPU per
# thread and side, CPUs for a method's parallel threads — or the run's trials for it gave
# no measurement; the reason is stated) or **not run in this profile** (the run's plan has
# no cells for it; the `claims` profile runs every claim). The decision rules are declared
# once, each verdict's rule is printed beside it, and a rule
# reads only the cells the run's plan declares for its claim. Where a source does not say
# whether sender and receiver shared a CPU, the verdict is given for each placement; where a
# source's code and its report's words disagree, both readings get a verdict: the claim as
# the report words it, measured by copybench, and the claim as the report's own program
# behaves, that program run here. Runs made with the block design compare the methods of a
# configuration round by round (paired: geometric-mean ratio of the per-round values, t CI
# at level {glue:text}`family_level:s` over the rule's family of m comparisons, or a larger family's where
# the placement question or the findings read the same comparison: each comparison has one
# CI, at the largest family that reads it, wherever it is printed); runs without blocks use
# the ratio of medians with a bootstrap CI at the same level. The design the run declared
# decides; the other is shown beside it as a sensitivity check.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import math

import pandas as pd

from analysis import study as SD
from analysis import claims as C
from analysis.figures import plots as P
from analysis.statistics import stats as S
from analysis.statistics.fmt import fmt_size
from decision.band import band
from analysis.claims import magnitude as MAG
from analysis.words.output import glue_text, key, note, show_table
from analysis.words import prose as PR
from analysis.claims import why as WHY
from analysis.words import reproduction as RW
from analysis.words import verdicts as VW

P.setup()
study = SD.open(run_dir)  # the run and its verdicts, computed once per build
run, results = study.run, study.results
table = C.verdict_table(results)
for claim, rs in C.by_claim(results).items():
    cb = [r for r in rs if r.basis == C.COPYBENCH]  # the claim as its report words it
    # a verdict of a run made before the rules in force carries its label beside it
    glue_text(f"verdict_{claim}", VW.claim_verdict_text(cb)
              + (" (post hoc)" if C.post_hoc(run) else ""))
    # the appendix's expected results: direction and published number, as compare scores them
    glue_text(f"expected_{claim}", RW.expected_text(cb)
              + (" (post hoc)" if C.post_hoc(run) else ""))
    glue_text(f"stat_{claim}", "; ".join(
        (f"{r.part}: " if r.part else "")
        + (f"{r.statistic}: {r.ci_text()}" + (f" ({r.boundary})" if r.boundary else "")
           if math.isfinite(r.value) else r.reason) for r in cb))
    glue_text(f"config_{claim}", " | ".join(dict.fromkeys(r.configuration or "—" for r in cb)))
    glue_text(f"rule_{claim}", " | ".join(dict.fromkeys(r.boundaries for r in cb)) or "—")
# the appendix's run-level criterion: when a reviewer's run reproduces the study as a whole
glue_text("reproduce_criterion", RW.criterion_text())
# every count this book prints comes from one owner (analysis.words.counts), here and elsewhere
book_counts = study.counts  # analysis.words.counts.book_counts, counted once in the Study
for name, text in study.facts["counts"].items():
    glue_text(name, text)
# the constants the prose names: the CI level of a family, the tolerance of "reproduced",
# the thread counts C6 compares
glue_text("family_level", PR.family_level())
glue_text("reproduced_tol", f"x/÷{WHY.REPRODUCED_TOL:g}")
_c6 = C.RULES["C6"][0]
glue_text("c6_threads", f"{_c6.numerator}/{_c6.denominator}-thread")

# %% [markdown]
# (claims-verdicts)=
# ## Verdicts, sensitivity and what keeps each undecided
#
# One row per claim, reading and placement (the compact table of the chapter shows the same
# verdicts beside the published numbers). *CI straddles* names the rule's boundary that
# keeps an inconclusive verdict from deciding; the other design (paired or unpaired) is the
# sensitivity check; *applicability* is the condition the rule declares for a testbed;
# *rounds/looks* the rounds the shown CI rests on (with the sequential top-up: the look it
# stopped at, of the looks its block reached; {doc}`../method`).
# {glue:text}`decided_elsewhere:s` ({ref}`replication-threads`).
# C13's two methods, each side's CPU per GB and the side that set the rate on each CPU class,
# with a profile of what sendfile's sender spends its CPU on, are in {ref}`cpu-cost-c13`.

# %% tags=["remove-input", "full-width"]
# a claim not testable on this machine that a committed run of a machine with more CPUs
# decided says where (the replication chapter's thread-count section has its comparisons)
from analysis.comparison import machines as MA

elsewhere = MA.decided_elsewhere([(m.label, s.results) for m, s in SD.beside(study)])
table["verdict (direction)"] = [
    f"{v}; decided on the {elsewhere[c]}" if s == C.NOT_TESTABLE and c in elsewhere else v
    for v, s, c in zip(table["verdict (direction)"], table["verdict"], table["claim"])]
_here = sorted({c for c, s in zip(table["claim"], table["verdict"])
                if s == C.NOT_TESTABLE and c in elsewhere}, key=lambda c: int(c[1:]))
glue_text("band_lo", f"{band()[0]:.2f}")
glue_text("band_hi", f"{band()[1]:.2f}")
glue_text("decided_elsewhere", (
    f"{' and '.join(_here)} {'are' if len(_here) > 1 else 'is'} not testable on this "
    f"machine and decided on the {', '.join(sorted({elsewhere[c] for c in _here}))}: its "
    "verdicts and every comparison behind them are in the replication chapter's "
    "thread-count section") if _here else (
    "No claim not testable here was decided by a run of a machine with more CPUs committed "
    "beside this one; the replication chapter's thread-count section says what such a run "
    "would decide"))
show_table(table[["claim", "for", "verdict (direction)", "magnitude", "estimate [CI]",
                  "rounds/looks", "CI straddles", "design", "sensitivity (other design)",
                  "applicability"]])
key(MAG.verdict_key())
show_table(table.loc[table["magnitude"] != "—",
                     ["claim", "for", "magnitude", "magnitude: published number against the CI"]])

# %% [markdown]
# ## What each test computed, where, and why this verdict

# %% tags=["remove-input"]
show_table(table[["claim", "for", "statement", "statistic", "configuration", "reason"]])

# %% [markdown]
# ## The decision rules
#
# Every rule: its statistic, the configuration the source describes, how each comparison's
# CI is read, how the comparisons of one verdict combine, and its family (the Bonferroni
# correction's m; the CI level is {glue:text}`family_level:s`, so the paired t-test adjusted over the family
# and the CI cannot disagree).

# %% tags=["remove-input"]
show_table(pd.DataFrame(C.rules_table()))

# %% [markdown]
# ## Every claim comparison
#
# Per comparison: the design, the rounds or trials, the ratio and its CI (at the rule's
# Bonferroni level), the adjusted p of the test beside it, the rule's reading, and the other
# design's result, the per-round sd of the log ratio a paired CI rests on, and the CI
# half-width relative to the ratio over these comparisons.

# %% tags=["remove-input"]
rows = [dict(claim=r.claim, part=r.part, **d) for r in results for d in r.details]
if rows:
    det = pd.DataFrame(rows)
    hw = ((det["hi"] - det["lo"]) / 2 / det["ratio"]).dropna()
    hw_text = (f"median {hw.median():.1%}, 90th percentile {hw.quantile(0.9):.1%} over "
               f"{len(hw)} claim comparisons") if len(hw) else "no CI"
    glue_text("claim_hw", hw_text)
    sd = C.per_round_sds(results)  # the noise those CIs are made of
    sd_text = (f"median {sd.median():.3f} over {len(sd)} distinct paired claim comparisons"
               if len(sd) else "no paired claim comparison")
    glue_text("claim_sd", sd_text)
    note(f"CI half-width relative to the ratio: {hw_text}. Per-round sd of the log ratio: "
         f"{sd_text}.")
    det["size"] = det["size"].map(fmt_size)
    show_table(det)
else:
    glue_text("claim_hw", "no claim comparison in this run")
    glue_text("claim_sd", "no paired claim comparison")
    note("No claim comparison was computed in this run.")

# %% [markdown]
# (claims-originals)=
# ## The reports' own programs on this testbed
#
# S1, S2 and S3 published their programs. Runs that carry them (the `claims` and `paper`
# profiles' `originals`) run each of their programs in the block of the copybench cell it
# replicates, so the two are paired by round like every comparison. Per claim, placement and
# size: the ratio the report published, the same ratio from **their program here** and from
# **copybench here** (each with its CI at the rule's Bonferroni level), and the claim's
# verdict under the claim's own rule for each. Their program is read by the metric it
# prints, as its code defines it (S1's "latency": the window over the messages received;
# S3's: the mean time of one `recv()`); none of their programs answers a ping-pong, so only
# the stream readings have a counterpart. Their programs do not report the steal time of their
# window, so the run's interference rule cannot exclude one of their trials.

# %% tags=["remove-input"]
from analysis.claims import originals as O

orig = O.rows(run)
n_theirs = int(orig["theirs_n"].gt(0).sum()) if len(orig) else 0
glue_text("originals_rows", f"{n_theirs} of {len(orig)}")
if n_theirs == 0:
    note("This run did not run the reports' own programs (its profile has no `originals`, "
         "or their code could not be fetched or built: the manifest's `originals` says "
         "which); copybench's side is shown alone.")


def _ci(r: pd.Series, side: str) -> str:
    v, lo, hi = r[f"{side}_ratio"], r[f"{side}_lo"], r[f"{side}_hi"]
    if not math.isfinite(v):
        return "—"
    return f"{v:.3g} [{lo:.3g}, {hi:.3g}]"


theirs_m = run.measured[run.measured["scenario"] == "original"]
if len(theirs_m):
    # what their programs did with the window they were given: a program that stops
    # sending early, or measures another window than it was asked for, shows here
    win = theirs_m.groupby("kind").agg(
        trials=("seconds", "size"), asked=("duration_s", "median"),
        measured_median=("seconds", "median"), measured_min=("seconds", "min"),
        stopped_early=("their_stopped_early", lambda x: int((x == True).sum())),  # noqa: E712
        MB=("bytes", lambda x: x.astype(float).median() / 1e6)).reset_index()
    win.columns = ["program", "trials", "window asked (s)", "window measured (s), median",
                   "window measured (s), min", "stopped early", "MB received, median"]
    show_table(win)

if len(orig):
    show_table(pd.DataFrame({
        "claim": orig["claim"], "reading": orig["reading"].replace("", "—"),
        "placement": orig["placement"], "size": orig["size"].map(fmt_size),
        "published": orig["published"].map(lambda x: f"{x:.3g}" if math.isfinite(x) else "—"),
        "their program here [CI]": orig.apply(_ci, axis=1, side="theirs"),
        "copybench here [CI]": orig.apply(_ci, axis=1, side="copybench"),
        "verdict (their program)": orig["verdict_theirs"],
        "verdict (copybench)": orig["verdict_copybench"]}))

# %% [markdown]
# (claims-why)=
# ### Why they differ
#
# Each row above is read by written rules. The **report gap**: *reproduced* when the
# published ratio lies inside their program's CI here and that CI lies within
# {glue:text}`reproduced_tol:s` of it; *not distinguishable* when the CI holds it but is wider; *not reproduced* when the CI
# does not hold it. The **program gap**: their ratio over copybench's, paired over the
# rounds in which all four cells ran, splits exactly into one factor per method (their
# program over copybench's counterpart). A ratio *differs* when its CI lies wholly outside
# the claims' band, [{glue:text}`band_lo:s`, {glue:text}`band_hi:s`]. A gap that does not differ: *no gap shown* (not equivalence: its CI may be
# wide; where both factors differ the same way, a factor common to both methods cancels).
# A gap that differs is carried by the factor that differs and pushes the ratio the gap's
# way, the most. It is *explained* only when a fact read from their code predicts that
# direction for that method (S2's two-copy: one `send()` call per field of a message,
# slower; S3's two-copy: one copy before the loop, none per message, faster) *and* the
# carrier's factor,
# divided by the factor of their one-copy (the same `sendmsg` as copybench's, so the
# yardstick of their program as a whole), still differs that way: otherwise the gap is
# common to their program and *not explained*. A fact that fits either direction (S3's
# latency is the mean time of one `recv()`, another quantity) only *labels* a row. For C6,
# S2's script wrote only the first client's throughput to its CSV: that *partly explains*
# the report gap when the first client's {glue:text}`c6_threads:s` ratio and the summed one
# have disjoint CIs and the published value is nearer the first client's.

# %% tags=["remove-input"]
from analysis.claims import why as WHY

expl = WHY.table(run, orig)
if expl.empty:
    glue_text("why_summary", "their programs did not run in this run")
    for c in O.SOURCE_OF:
        glue_text(f"why_{c}", "their programs did not run in this run")
    note("Their programs did not run in this run: nothing to explain.")
else:
    per = WHY.per_claim(expl)
    counts = expl["status"].value_counts()
    glue_text("why_summary", "program gap " + ", ".join(f"{k} {v}" for k, v in counts.items())
              + "; report gap " + ", ".join(f"{k} {v}" for k, v in
                                            expl["report"].value_counts().items())
              + f" (of {len(expl)} rows)")
    by_claim = per.set_index("claim")
    for c in O.SOURCE_OF:
        r = by_claim.loc[c] if c in by_claim.index else None
        glue_text(f"why_{c}", "no row of their program for this claim in this run" if r is None
                  else f"{r['why they differ (example)']} (report gap: {r['report gap']}; "
                  f"program gap: {r['program gap']})")
    show_table(per)
    show_table(pd.DataFrame({
        "claim": expl["claim"], "placement": expl["placement"],
        "size": expl["size"].map(fmt_size), "report gap": expl["report"],
        "program gap": expl["status"], "their ratio / copybench's [CI]": expl["gap"],
        "why they differ": expl["why"]}))

# %% [markdown]
# ## Message methods against two-copy `send`: how many comparisons decide
#
# Each message method against `send` at every size, under the run's declared design
# (Bonferroni-level CI over a method's sizes, the CI decides), counted in the two sets the
# book prints: the message chapter's reference configuration (every thread count) and the
# abstract's set (every transport, placement and window measured at two sizes or more, at the
# lowest thread count).

# %% tags=["remove-input"]
cmp_rows = [{"set": label, "comparisons": t.n, "greater": t.greater, "less": t.less,
             "equivalent": t.equivalent, "undecided": t.undecided}
            for label, t in ((f"{book_counts.reference_config or 'none'}, every thread count",
                              book_counts.reference),
                             ("every configuration at two sizes or more, "
                              + ", ".join(map(str, book_counts.threads)) + " thread(s)",
                              book_counts.message))]
show_table(pd.DataFrame(cmp_rows))

# %% [markdown]
# ## Does CPU placement explain why two reports on the same assignment disagree?
#
# S2 finds one-copy and zero-copy ahead of two-copy (C4, C5); S3 finds two-copy ahead
# (C8, C9). If sender and receiver sharing a CPU changes the ranking, the two reports can
# both be right, each for its placement. For every size and thread count measured under
# both same-core and cross-core placement: the ratio of the two methods under each placement
# with its CI and the ordering that CI decides (greater, less, equivalent or inconclusive),
# and the ratio of ratios (same-core / cross-core) with its bootstrap CI.

# %% tags=["remove-input"]
p1, ptab = C.placement_hypothesis(run)
glue_text("verdict_P1", p1.verdict)
glue_text("stat_P1", f"{p1.statistic}: {p1.ci_text()}"
          + (f" ({p1.boundary})" if p1.boundary else "") + f"; {p1.reason}"
          if math.isfinite(p1.value) else p1.reason)
show_table(C.verdict_table([p1])[["claim", "verdict", "estimate [CI]", "statistic",
                                    "configuration", "reason", "CI straddles"]])
if len(ptab):
    from analysis.claims.placement import placement_view

    show_table(placement_view(ptab))
    plot = ptab.assign(size=ptab["size"].astype(float))
    g = P.estimates(plot, "size", "ratio_of_ratios", "lo", "hi", "pair",
                    "message size (bytes, log scale)",
                    "ratio same-core / cross-core (1, 95% CI)", col="threads", logy=True,
                    ref=1.0)
    P.show(g)
else:
    note(p1.reason)

# %% [markdown]
# ## How small can a p-value be in this run?
#
# A rule must be reachable at the run's sample size. With *n* trials per cell and no
# blocks, the smallest two-sided Mann-Whitney p-value is $2 / \binom{2n}{n}$, and Bonferroni over
# a family of *m* comparisons multiplies it by *m*: above α, the rank test can never call a
# difference. That is why the CI decides (at level $1 - \alpha/m$); the rank test is shown beside
# it. With blocks, the paired t interval decides, which has no such floor; its Wilcoxon
# sensitivity p cannot fall below $2 / 2^n$ with *n* rounds.

# %% tags=["remove-input"]
from math import comb

st = run.measured[(run.measured["scenario"] == "message")]
n_cell = st.groupby("cell").size()
if len(n_cell):
    n = int(n_cell.median())
    k = 4  # the claims' families of sizes (C4, C8, C9)
    if run.has_blocks:
        p_min = 2 / 2 ** n
        glue_text("p_floor", f"with the median of {n} rounds per cell the paired t interval "
                  f"decides; the Wilcoxon sensitivity p is at least {p_min:.3g}, "
                  f"{min(1.0, k * p_min):.3g} after Bonferroni over {k} sizes")
    else:
        p_min = 2 / comb(2 * n, n)
        glue_text("p_floor", f"with the median of {n} trials per cell the smallest two-sided "
                  f"Mann-Whitney p is {p_min:.3g}; after Bonferroni over a family of {k} "
                  f"sizes it is {min(1.0, k * p_min):.3g}, "
                  + ("above" if k * p_min > S.ALPHA else "below")
                  + f" α = {S.ALPHA:g}, so the bootstrap CI at level 1 − α/{k} decides")
    show_table(pd.DataFrame([{"trials per cell (median)": n, "min p (two-sided)": p_min,
                              "family size": k, "min Bonferroni-adjusted p": k * p_min}]))
else:
    glue_text("p_floor", "no message cells in this run")

# %% [markdown]
# ## The receiver's receive size
#
# copybench's sink reads a TCP stream in calls of a set size ({glue:text}`recv_default:s` per
# `recv()` unless a trial asks for another). `tcp_recvmsg()` keeps copying while segments
# are queued, so the size sets the receiver's cost per byte, and a comparison whose sender
# is not the bottleneck measures the receiver. A profile's `[receiver]` factor measures the
# throughput cells at several sizes, in blocks of their own in the same rounds; the verdicts
# above are read at {glue:text}`recv_default:s`, and each claim's verdict under every size is
# below: *robust to the receiver* (one verdict under every size) or *depends on the
# receiver* (each reading given);
# a claim with a verdict under one size only (latency, file copies) or none is left out.

# %% tags=["remove-input"]
from analysis.claims import robustness as RB

glue_text("recv_default", fmt_size(RB.receive_sizes(run)[0]))  # the sink's default
_rx = [r for r in study.receiver if r.label in (RB.ROBUST, RB.DEPENDS)]  # read once, in the Study
if _rx:
    show_table(RB.table(_rx, RB.records_receive_size(run)))
else:
    note("This run measured its claims under one receive size"
         + ("" if RB.records_receive_size(run) else
            " (its records do not say which: the sink read 256 KiB per call before it read "
            "64 KiB)")
         + "; a profile with a [receiver] table (the claims profile) measures two.")

# %% tags=["remove-input"]
# The A/A control over every committed run that tests the claims (the catalog), each pair
# judged by its one rule; the verdict table's key prints the rate beside the verdict counts
from analysis.claims import baselines as BL
from analysis.words import aa_control as AAW

_aa_runs = SD.claim_runs(study)
_aa = BL.committed_aa(_aa_runs, lambda d: SD.open(d, tables=False).aa)
glue_text("aa_rate", AAW.rate_text(BL.aa_rate_by_class(_aa), len(_aa_runs)))
glue_text("aa_failed", AAW.failed_text(_aa))

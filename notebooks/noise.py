# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where the noise comes from
#
# What a comparison can decide is set by how much a trial's throughput moves from one trial
# to the next. A study of its own, on {glue:text}`noise_machine:s`, measures that spread and
# takes it apart: a fixed set of TCP stream cells on veth (`send`, `sendmsg` and
# `zerocopy` at {glue:text}`noise_sizes:s`, both placements, one connection), the A/A pair, and
# controls (other procedures) in the same randomised rounds. The variance of a cell's log
# throughput splits into three parts: **between rounds** (common to every cell measured in the
# same round: the machine's state over time, which a paired comparison cancels), **between
# trials** (a single trial's own state: its connection, its buffers, its processes), and
# **within the window** (the spread of the ten slices a trial's window is cut into, divided by
# ten: a lower bound, since a slow stretch lasts longer than a slice). The paired per-round sd
# of a comparison's log ratio is $\sqrt{2}$ × the between-trials sd: it, not the total, sets how many
# rounds a comparison needs.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import math
from fractions import Fraction

from pathlib import Path

import pandas as pd

from analysis.comparison import machines as MA
from analysis.statistics import noise_sources as N
from analysis.figures import plots as P
from analysis import study as SD
from analysis.loading import runnotes as RN
from analysis.statistics.fmt import fmt_size
from analysis.words import counts as CN
from analysis.words import noise_verdicts as NV
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR

P.setup("noise")
# the procedure's constants the prose names
glue_text("noise_today", N.TODAY)
glue_text("noise_slow", f"{N.SLOW:g}×")
glue_text("noise_small", fmt_size(N.SMALL))
glue_text("bimodal_bc", str(Fraction(N.BIMODAL_BC).limit_denominator(100)))
glue_text("noise_decide_level", PR.ci_level(N.DECIDE_LEVEL))
where = MA.newest_of("noise-study", run_dir)
study = SD.open(where, tables=False).run if where is not None else None
m = study.measured if study is not None else pd.DataFrame()
comp = N.components(m) if study is not None else pd.DataFrame()
today = comp[comp["procedure"] == N.TODAY] if len(comp) else comp
overlap = RN.overlap(where.name) if where is not None else None
if study is None or today.empty:
    note("No noise-study run is committed beside this run or in the repository's data/raw/, "
         "or it has no block with enough complete rounds of today's procedure.")
    for key in ("noise_run", "noise_paired_sd", "noise_rounds", "noise_share_round",
                "noise_share_within", "noise_mech", "noise_bimodal", "noise_controls", "noise_adopt",
                "noise_target", "noise_clause", "noise_verdicts", "noise_band_sd"):
        # noise_factors is glued by its own cell
        glue_text(key, "not measured (no noise-study run)")
    glue_text("noise_sizes", "the study's sizes")
else:
    rounds = int(today["rounds"].median())
    # what the run's records do not carry (overlap, above): rounds that overlapped other
    # activity, a note written by hand beside the committed runs (data/raw/run-notes.toml)
    busy = (f"; its rounds {overlap.first} to {overlap.last} overlapped {overlap.what}, by "
            "the operator's account, which the runner does not record" if overlap else "")
    _sizes = [fmt_size(x) for x in sorted(m.loc[m["block"].isin(today["block"]), "size"]
                                          .dropna().unique())]
    glue_text("noise_sizes", ", ".join(_sizes[:-1]) + " and " + _sizes[-1] if len(_sizes) > 1
              else "".join(_sizes) or "the study's sizes")
    glue_text("noise_run", f"{where.name} ({MA.label(study)} virtual machine, {rounds} rounds, "
              f"{len(m)} trials{busy})")
# the study's machine against the book's run's, each in the catalog's one wording
_book = MA.entry_of(Path(run_dir).name, Path(run_dir).parent)
_book_machine = _book.machine if _book is not None else "an unrecorded machine"
if study is None:
    glue_text("noise_machine", "no machine (no noise-study run is committed)")
else:
    _same = MA.machine_class(study.manifest)[1] == (_book.cpu_class if _book else None)
    glue_text("noise_machine", f"a {MA.label(study)}, "
              + ("the same CPU class as this run's" if _same else
                 "another CPU class than this run's") + f" ({_book_machine})")

# %% [markdown]
# ## The parts of the variance
#
# Per block of today's procedure ({glue:text}`noise_today:s` by the kernel):
# the sd of log throughput between rounds, between trials within a round, and within a
# trial's window; the round's share of the variance that is not within a window; and the paired
# per-round sd of a comparison in that block.

# %% tags=["remove-input"]
if len(today):
    t = today.assign(size=today["block"].map(
        m.groupby("block")["size"].first())).sort_values(["placement", "size"])
    show_table(pd.DataFrame({
        "placement": t["placement"], "size": t["size"].map(fmt_size),
        "rounds": t["rounds"], "cells": t["cells"],
        "sd between rounds": t["sd_round"], "sd between trials": t["sd_trial"],
        "sd within the window": t["sd_within"], "round's share": t["share_round"],
        "paired per-round sd": t["paired_sd"]}), floatfmt="{:.3f}")
    long = t.melt(id_vars=["placement", "size"],
                  value_vars=["sd_round", "sd_trial", "sd_within"],
                  var_name="part", value_name="sd")
    long["part"] = long["part"].map({"sd_round": "between rounds",
                                     "sd_trial": "between trials",
                                     "sd_within": "within the window"})
    long["message size"] = long["size"].map(fmt_size)
    for g in P.facet_figures(P.bars, long, "message size", "sd", "part", "message size",
                             "sd of log throughput", col="placement",
                             order=[fmt_size(s) for s in sorted(t["size"].unique())],
                             title="The parts of a trial's spread (noise study, 1 s windows)"):
        P.show(g)
    # the direct figure: each comparison's per-round log ratios (not the block's model)
    pairs = N.comparisons(m)
    pairs = pairs[(pairs["procedure"] == N.TODAY)
                  & ~pairs["pair"].str.contains("twin", regex=False)]
    paired = float(pairs["paired_sd"].median())
    glue_text("noise_paired_sd", f"{paired:.3f} over its {len(pairs)} comparisons")
    glue_text("noise_share_round",
              f"{today['share_round'].min():.0%} to {today['share_round'].max():.0%}")
    lo_w, hi_w = today["share_within"].min(), today["share_within"].max()
    glue_text("noise_share_within", (
        f"{lo_w:.0%} to {hi_w:.0%} (a lower bound), so most of it is the state each trial "
        "starts with, which a longer window cannot average away" if hi_w < 0.5 else
        f"{lo_w:.0%} to {hi_w:.0%} (a lower bound): in some blocks, noise within the window "
        "is a large part, which a longer window averages"))
    glue_text("noise_target", "met" if paired <= 0.08 else "not met")

# %% [markdown]
# ## What the noise means for the verdicts
#
# The median paired per-round sd above, read the way the claims' band is derived (the
# reference profile's looks, each CI at the level of the band's family, the power the band is
# derived for): the rounds at which a comparison's CI reads "equivalent" when its
# true ratio is 1, and decides its direction when its true ratio lies past the band's edge by the band's
# width, then a half, a quarter and an eighth of it (the rounds grow as the inverse square of
# that distance; past the design's last look, at the last look's quantile). Below the table:
# the A/A control's plan at that sd, this run's map comparisons that stay undecided against
# the band and why, and which sd the band itself is derived for.

# %% tags=["remove-input"]
from IPython.display import Markdown, display

book_study = SD.open(run_dir)
book = book_study.run
if len(today) and math.isfinite(paired) and paired > 0:
    needs = NV.band_needs(paired)
    show_table(NV.needs_table(needs), floatfmt="{:,.0f}")
    glue_text("noise_rounds", NV.rounds_text(needs))
    aa = NV.aa_plan(book.plan, paired)
    und = NV.undecided(CN.map_comparisons(book, book_study.readings))
    glue_text("noise_verdicts", NV.verdicts_text(needs, aa, und))
    bs = NV.band_sigma(run_dir)
    band_sd = NV.band_sigma_text(bs, NV.machine(book.manifest))
    glue_text("noise_band_sd", band_sd)
    words = [f"At the noise study's median paired per-round sd of {paired:.3f}, a comparison "
             f"needs about {NV.rounds_text(needs)}.",
             (NV.aa_text(aa)[0].upper() + NV.aa_text(aa)[1:] + "." if aa is not None else
              "This run's plan has no A/A control."),
             NV.undecided_text(und)[0].upper() + NV.undecided_text(und)[1:] + ".",
             band_sd[0].upper() + band_sd[1:] + "."]
    display(Markdown(" ".join(words)))
else:
    note("No noise-study sd to read the verdicts' rounds with.")
    for key in ("noise_rounds", "noise_verdicts", "noise_band_sd"):
        glue_text(key, "not measured (no noise-study run)")

# %% [markdown]
# ## The spread over the run's time
#
# Each trial's throughput relative to its cell's median, on the run's clock (every cell of the
# run, controls included, since they share the rounds), and per round how many trials ran
# slower than {glue:text}`noise_slow:s` their cell's median (a descriptive mark, no rule reads it). Slow trials
# that bunch in a stretch of rounds, across cells and methods alike, are an episode of the
# machine: they reach single trials rather than whole rounds, so pairing by round does not
# cancel them.

# %% tags=["remove-input"]
ot = N.over_time(m) if study is not None else pd.DataFrame()
if len(ot):
    g = P.points(ot, "minutes", "throughput_rel", "class",
                 "minutes from the run's first trial", "throughput (÷ the cell's median)",
                 logx=False, logy=True,
                 title="Every trial of the study on the run's clock")
    P.show(g)
    ep = N.episodes(m)
    show_table(pd.DataFrame({"round": ep["round"], "starts at (min)": ep["minutes"],
                             "trials": ep["trials"], f"slower than {N.SLOW:g}×": ep["slow"],
                             "sd of log throughput (÷ cell median)": ep["sd_rel"]}),
               floatfmt="{:.3g}")
    total = int(ep["slow"].sum())
    busiest = ep.sort_values(["slow", "round"], ascending=[False, True], kind="stable")
    k = next((i + 1 for i in range(len(busiest))
              if busiest["slow"].iloc[:i + 1].sum() >= 0.8 * total), len(busiest))
    top = sorted(busiest["round"].iloc[:k])
    text = (f"{total} of {int(ep['trials'].sum())} trials ran slower than {N.SLOW:g}× their "
            f"cell's median" + (f"; {int(busiest['slow'].iloc[:k].sum())} of them in {k} of "
                                f"the {len(ep)} rounds (rounds {', '.join(map(str, top))})"
                                if total else ""))
    quiet = ep.loc[ep["slow"] <= 1, "round"]
    if N.MIN_ROUNDS <= len(quiet) < len(ep):
        qp = N.comparisons(m[m["repetition"].isin(set(quiet))])
        qp = qp[(qp["procedure"] == N.TODAY) & ~qp["pair"].str.contains("twin", regex=False)]
        if len(qp):
            text += (f". Over the {len(quiet)} rounds with at most one slow trial (a subset "
                     f"picked after the run was seen, so a description, not a test), the "
                     f"median paired per-round sd is {qp['paired_sd'].median():.3f}")
    if overlap is not None:
        inside = ep["round"].isin(list(overlap.rounds))
        text += (f". Rounds {overlap.first} to {overlap.last} (about {overlap.minutes:g} min) "
                 f"overlapped {overlap.what}, by the operator's account, not by the runner's "
                 f"records: {int(ep.loc[inside, 'slow'].sum())} of the {total} slow trials "
                 f"fall in them")
    glue_text("noise_episodes", text)
else:
    glue_text("noise_episodes", "not measured")

# %% [markdown]
# ## What moves with it
#
# Each trial records what its two processes did: bytes and calls per receive, context
# switches, retransmissions, the receive buffer at the window's end, the NET_RX softirqs. For
# each cell, the share of its trials' log-throughput variance that a straight line in one of
# these explains (R², median over the cells of a class; "small" is up to
# {glue:text}`noise_small:s`). Rates per byte
# are read as factors of throughput: throughput is receive calls per second × bytes per call,
# so a high R² for bytes per call says that what varies from trial to trial is how much each
# receive call finds waiting, not how often the receiver runs.

# %% tags=["remove-input"]
mech = N.mechanisms(m[m["block"].isin(today["block"])]) if len(today) else pd.DataFrame()
if len(mech):
    med = mech.groupby(["mechanism", "class"])["r2"].median().unstack("class")
    show_table(med.reset_index().rename(columns={"mechanism": "mechanism (R², median)"}),
               floatfmt="{:.2f}")
    best = med.idxmax()
    glue_text("noise_mech", "; ".join(
        f"{cls}: {best[cls]} (R² {med.loc[best[cls], cls]:.2f})" for cls in med.columns))
    pts = N.mechanism_points(m)
    if len(pts):
        pts = pts.assign(**{"message size": pts["size"].map(fmt_size)})
        for g in P.facet_figures(
                P.points, pts, "bytes_per_call_rel", "throughput_rel", "mode",
                "bytes per receive call (÷ the cell's median)",
                "throughput (÷ the cell's median)", col="placement", style="message size",
                title="A trial's throughput against its receiver's batch, by mode"):
            P.show(g)

# %% [markdown]
# The same split, read as the receiver's two factors: a trial's log throughput is log(receive
# calls per second) + log(bytes per call). Per class (medians over its cells): each factor's
# sd over a cell's trials, the throughput's, and the factors' correlation. Factors that move
# against each other (a negative correlation) leave the throughput steadier than either: the
# receiver runs more often when it finds less, so the rate is set elsewhere. Factors that move
# together make the throughput spread more than either: the receiver's batch is the mode.

# %% tags=["remove-input"]
fac = N.receive_factors(m) if study is not None else pd.DataFrame()
if len(fac):
    med = fac.groupby(["placement", "size"])[["var_throughput", "var_calls",
                                              "var_bytes_per_call", "corr"]].median()
    med = med.reset_index()
    show_table(pd.DataFrame({
        "placement": med["placement"], "size": med["size"].map(fmt_size),
        "sd of throughput": med["var_throughput"] ** 0.5,
        "sd of calls per second": med["var_calls"] ** 0.5,
        "sd of bytes per call": med["var_bytes_per_call"] ** 0.5,
        "correlation of the two": med["corr"]}), floatfmt="{:.3f}")
    glue_text("noise_factors", "; ".join(
        f"{r.placement} {fmt_size(r.size)}: correlation {r.corr:+.2f}"
        for r in med.itertuples()))
else:
    glue_text("noise_factors", "not measured")

# %% [markdown]
# ## Cells that run at two speeds
#
# A cell whose trials fall into two groups with few between them (Sarle's bimodality
# coefficient above a uniform distribution's, {glue:text}`bimodal_bc:s`; a screen, stated with its modes) has no
# single typical speed: its median sits in one mode or between them. The screen also fires
# on a single trial far from the rest; the table counts the trials in the low mode, and one
# trial on either side of the gap is an outlier, not a second speed.

# %% tags=["remove-input"]
if study is not None:
    d = N.stream_trials(m)
    d = d[d["block"].isin(today["block"])]
    rows = []
    for cell, g in d.groupby("cell"):
        x = N.modes(g["gbit_per_s"].to_numpy())
        if x.bimodal:
            f = g.iloc[0]
            rows.append({"method": f["method"], "size": fmt_size(f["size"]),
                         "placement": f["placement"], "trials": x.n,
                         "coefficient": x.coefficient, "low mode (÷ median)": x.low,
                         "high mode (÷ median)": x.high,
                         "trials in the low mode": round(x.share_low * x.n)})
    n = int((d.groupby("cell").size() >= N.MIN_ROUNDS).sum())
    single = sum(min(r["trials in the low mode"], r["trials"] - r["trials in the low mode"]) == 1
                 for r in rows)
    glue_text("noise_bimodal", f"{len(rows)} of {n} cells" + (
        f", {single} of them with a single trial on one side of the gap (one outlier, not a "
        "second speed)" if single else ""))
    if rows:
        show_table(pd.DataFrame(rows), floatfmt="{:.2f}")
    else:
        note(f"None of the study's {n} cells screens as bimodal.")

# %% [markdown]
# ## Other procedures, side by side
#
# Each control ran in the same rounds as today's procedure. For the comparisons both measured
# (the same size, placement and pair of methods): the median paired per-round sd of each, the
# median ratio of the control's estimate to today's (a control that moves it measures
# something else), and the machine time a comparison needs for its {glue:text}`noise_decide_level:s` CI to be as narrow
# as the claims' band, the smallest effect of interest of the method chapter (rounds from the
# t interval at that sd, times the wall time of a round of its block, shared
# by the block's comparisons). Where two methods alternate inside one trial, the per-round
# ratio is theirs within that trial's window (each sends in five of its ten slices), and a
# round is that one trial.

# %% tags=["remove-input"]
ctl = N.controls(N.comparisons(m)) if study is not None else pd.DataFrame()
ctl = ctl[ctl["procedure"] != N.TODAY] if len(ctl) else ctl
if len(ctl):
    show_table(pd.DataFrame({
        "procedure": ctl["procedure"], "comparisons": ctl["comparisons"],
        "paired sd": ctl["paired_sd"], "paired sd, today's": ctl["paired_sd_today"],
        "estimate ÷ today's": ctl["ratio_change"],
        "s per decided comparison": ctl["seconds_to_decide"],
        "s, today's": ctl["seconds_to_decide_today"]}), floatfmt="{:.3g}")
    glue_text("noise_controls", "; ".join(
        f"{r.procedure}: paired sd {r.paired_sd:.3f} against {r.paired_sd_today:.3f}, "
        f"{r.seconds_to_decide:.0f} s against {r.seconds_to_decide_today:.0f} s per decided "
        "comparison" for r in ctl.itertuples()))
    stated = N.adopt(ctl, mended=False)
    ad = N.adopt(ctl)
    after = where.name == N.ADOPT_CLAUSE_AFTER
    glue_text("noise_clause", "after this run was read (so not yet tested by a run)" if after
              else f"after the study {N.ADOPT_CLAUSE_AFTER} was read (this run is its first test)")
    note(f"The rule, stated before the run {N.ADOPT_CLAUSE_AFTER} was read: a control is "
         f"{N.ADOPT_RULE}. A clause was added after that run was read, and "
         + ("so this run does not test it (the next study does)" if after else
            "this run is its first test")
         + f": {N.ADOPT_CLAUSE_MENDED}.")
    yes = {True: "yes", False: "no"}
    show_table(pd.DataFrame({"procedure": ad["procedure"],
                             "adopted by the rule as stated": stated["adopt"].map(yes),
                             "why (as stated)": stated["why"],
                             "adopted with the added clause": ad["adopt"].map(yes),
                             "why (with the clause)": ad["why"]}))
    chosen, chosen0 = ad[ad["adopt"]], stated[stated["adopt"]]
    first = ("by the rule as stated, " + ("adopted: " + " and ".join(chosen0["procedure"])
                                          if len(chosen0) else "no control met it"))
    if set(chosen0["procedure"]) != set(chosen["procedure"]):
        changed = stated.merge(ad, on="procedure", suffixes=("", "_m"))
        changed = changed[changed["adopt"] != changed["adopt_m"]]
        first += ("; with the clause added after this run was read" if after else
                  "; with the clause added later") + " (" + "; ".join(
            f"{r.procedure}: {r.why_m}" for r in changed.itertuples()) + ")"
    glue_text("noise_adopt", first + (
        ", so adopted: " + " and ".join(chosen["procedure"]) if len(chosen) else
        f", so the procedure in use ({N.TODAY}) stays"))
elif study is not None:
    note("The study's run holds no control beside today's procedure.")
    glue_text("noise_controls", "none in this run")
    glue_text("noise_clause", "later (this run has no control for it to read)")
    glue_text("noise_adopt", f"no control was measured, so the procedure in use ({N.TODAY}) stays")

# %% [markdown]
# ## Two connections sharing a trial's time
#
# A design that keeps the quantity and takes the trial's own state out of a comparison: the two
# methods in one trial, one connection each to one sink, taking short turns of a fixed length
# (only one sends at a time, from the warm-up on; the order of the turns alternates by round);
# each method's rate is its own connection's bytes at the sink over its own turns. It is worth
# using only if it measures the same ratio as the procedure in use, so a validation run put both
# designs of each comparison (`sendmsg` and `zerocopy` against `send`, small messages to large,
# both placements, on veth) in the same blocks and rounds, with the A/A under each, and judged
# them by criteria declared for it (below, as declared, with when they were committed); the
# design is adopted only if every criterion holds. The first table gives each comparison's
# paired ratio under both designs with its t CI at the level of criterion (a), the second the
# A/A's at the level of (c), the third each criterion with the readings that decide it.

# %% tags=["remove-input"]
from analysis.loading import criteria as CL
from analysis.statistics import adoption as AD
from analysis.statistics import designs as D
from analysis.statistics.fmt import fmt_pct
from analysis.words.phrases import ratio_ci
from IPython.display import Markdown, display

vwhere = MA.newest_of("shared-time", run_dir)
vrun = SD.open(vwhere, tables=False).run if vwhere is not None else None
crit = CL.read() if vrun is not None else None
# the comparisons' CIs at the level of their family (criterion a), the A/A's at its own (c)
vtable = (D.compare(vrun.measured, vrun.shared, crit.overlap_family)
          if vrun is not None else pd.DataFrame())
if vrun is None or vtable.empty:
    note("No validation run of the shared-time design is committed beside this run or in the "
         "repository's data/raw/." if vrun is None else
         f"The validation run {vwhere.name} holds no comparison measured under both designs.")
    for key in ("shared_run", "shared_sd", "shared_adopt"):
        glue_text(key, "not measured (no validation run)")
else:
    dv = crit.derivation
    tol = "; ".join(f"{AD.MECHANISMS[q][0]} ±{fmt_pct(t, 0)}" for q, t in crit.tolerances.items())
    display(Markdown(
        f"The criteria: (a) no comparison's two CIs disjoint, each at {crit.overlap_level:.4g} "
        f"(1 − {crit.alpha:g}/m over its m = {crit.overlap_family} comparisons); (b) the pooled "
        f"ratio shared time / today's over them (per round the mean of the two designs' "
        f"log-ratio differences) inside ±{fmt_pct(crit.margin, 0)} at {crit.tost_level:.2f} (two "
        f"one-sided tests at {crit.alpha:g}); (c) each shared-time A/A's CI at "
        f"{crit.aa_level:.2f} inside the band (±{fmt_pct(crit.aa_band, 0)}); (d) shared time's "
        f"median paired per-round sd at most {crit.sd_at_most:g}× today's in the same run; (e) "
        f"per quantity, each shared-time connection against today's trial of its method in the "
        f"same round: no connection's CI (at {crit.mechanism_level:.4g}) wholly beyond the "
        f"quantity's tolerance, and the pooled ratio over the connections (at "
        f"{crit.tost_level:.2f}) inside it ({tol}). The margin of (b) and the tolerances of (e) "
        f"were derived by simulation before the run, each so that it holds with probability "
        f"{fmt_pct(dv.pass_each, 0)} when the two designs measure the same ratio (the "
        f"tolerances from the trials of run {dv.reference_run}); how often (d) holds depends on "
        f"shared time's true per-round sd ({dv.sd_shared:g} was predicted for it)."))
    j = AD.judge(vrun.measured, vrun.shared, crit)
    both = pd.concat([vtable["rounds_today"], vtable["rounds_shared"]]).astype(int)
    rounds = (f"{both.min()} rounds" if both.min() == both.max() else
              f"{both.min()} to {both.max()} rounds")
    run_words = (f"{vwhere.name} ({MA.label(vrun)} virtual machine, {rounds} of every comparison under both designs, "
                 f"{len(vrun.trials)} trials); {CL.declared_before(CL.DEFAULT, vrun)}")
    glue_text("shared_run", run_words)

    display(Markdown(f"The run: {run_words}."))

    def _ratio_cell(r, lo, hi):
        return ratio_ci({"ratio": r, "lo": lo, "hi": hi}) if math.isfinite(lo) else "no CI"

    aa_table = D.compare(vrun.measured, vrun.shared, crit.aa_family)
    is_aa = vtable["pair"].str.contains("(twin)", regex=False)
    for t, what in (
            (vtable[~is_aa], "comparison"),
            (aa_table[aa_table["pair"].str.contains("(twin)", regex=False)],
             "A/A (send against itself)")):
        t = t.sort_values(["pair", "placement", "size"])
        show_table(pd.DataFrame({
            what: t["pair"].str.replace(" (twin)", "", regex=False),
            "size": t["size"].map(fmt_size), "placement": t["placement"],
            "today's design": [_ratio_cell(r.ratio_today, r.lo_today, r.hi_today)
                               for r in t.itertuples()],
            "shared time": [_ratio_cell(r.ratio_shared, r.lo_shared, r.hi_shared)
                            for r in t.itertuples()],
            "CIs disjoint": t["disjoint"].map({True: "yes", False: "no"}),
            "paired sd, today's / shared time": [f"{a:.3f} / {b:.3f}" for a, b in
                                                 zip(t["sd_today"], t["sd_shared"])]}))
    sd_t, sd_s = D.median_sd(vtable)
    study_sd = ""
    if len(today) and math.isfinite(paired) and paired > 0:
        other, mine = MA.label(study), MA.label(vrun)
        if MA.machine_class(study.manifest)[1] != MA.machine_class(vrun.manifest)[1]:
            where_sd = (f"on another class of CPU (the study's {other}, this run's {mine}), so "
                        "what this run shows of the two designs' spread says nothing of that "
                        "class's")
        else:
            where_sd = (f"on the same class of CPU (both {MA.machine_class(vrun.manifest)[1]}), "
                        "so the machine was " + (
                "quieter on the day of this run" if sd_t < 0.8 * paired else
                "noisier on the day of this run" if sd_t > 1.25 * paired else
                "about as noisy as on the study's day"))
        study_sd = (f"; the procedure in use had {paired:.3f} in the noise study's run, "
                    f"{where_sd}; the two designs are compared only within one run")
    times = f" ({sd_s / sd_t:.2f}×)" if sd_t > 0 and math.isfinite(sd_s / sd_t) else ""
    shared_sd_words = (f"{sd_s:.3f} under shared time against {sd_t:.3f} under the procedure "
                       f"in use in the same rounds{times}{study_sd}")
    glue_text("shared_sd", shared_sd_words)
    # each criterion with the readings that decide it: the pooled or median reading, and
    # every comparison or connection that fails it (the ones that pass are in the tables)
    shown = ("DISJOINT", "NOT inside", "BEYOND", "pooled", "median", "missing", "no connection")

    def _decisive(o):
        lines = [x for x in o.lines if any(w in x for w in shown)]
        lines = lines or [f"every one of {len(o.lines)} holds (the tables above)"]
        return "; ".join(lines).replace("DISJOINT", "disjoint").replace(
            "NOT inside", "not inside").replace("BEYOND", "beyond")

    show_table(pd.DataFrame({
        "criterion": [f"({o.key}) {o.title}" for o in j.outcomes],
        "holds": ["yes" if o.holds else "no" for o in j.outcomes],
        "reading": [_decisive(o) for o in j.outcomes]}))
    failed = [o for o in j.outcomes if not o.holds]
    adopt_words = ("every criterion holds, so the design is adopted" if j.adopt else
                   "not adopted: " + "; ".join(f"({o.key}) {o.title} does not hold"
                                               for o in failed) + "; the procedure in use stays")
    glue_text("shared_adopt", adopt_words)
    display(Markdown(f"The median paired per-round sd of the {len(vtable[~is_aa])} comparisons: "
                     f"{shared_sd_words}. The decision by the criteria: {adopt_words}."))

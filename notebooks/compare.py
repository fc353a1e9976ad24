# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Your run against the reference run
#
# This notebook is not a chapter of the book: `make compare RUN=<your run> REF=<reference>`
# executes it. It sets a run, usually a reviewer's on another machine, beside the reference
# run committed in `data/raw/`. It answers four questions:
#
# 0. **Does the run reproduce the reference's verdicts?** Each verdict of the reference
#    (claim, reading, placement) is judged by the artifact appendix's "Results Reproduced"
#    rule, which puts it in one category (with why): reproduced (the same decided verdict, in
#    verdict and magnitude or in verdict only), the same verdict not reproduced in size, not
#    reproduced, newly decided, both undecided, both not testable, or not comparable.
#    Then the study as a whole, by the run-level criterion stated in the artifact appendix:
#    reproduced or not reproduced, with why.
# 1. **Which machine facts differ?** The kernel, CPU, PMU, memcpy bound and sysctls, taken
#    from both manifests.
# 2. **Which cells differ beyond the threshold?** Cells are the configurations measured in
#    both runs, matched on their factors. Each gets the ratio of medians run / reference,
#    with a 95 % bootstrap CI, oriented so that > 1 means *your run was faster* (for
#    pingpong, a shorter p50 round trip). The ratio is classified against the threshold
#    *t*: **faster** or **slower** when the CI lies beyond 1 ± *t*, **same** when it lies
#    inside, **inconclusive** otherwise. Machines differ in speed overall, so each ratio is
#    also divided by the *machine factor*, the geometric mean of all matched ratios of its
#    metric. A cell that still differs after that division changed *shape*, not only
#    scale. (The division treats the factor as a constant; its own uncertainty is not
#    propagated.)
# 3. **Which claims hold on both machines?** Every claim C1–C15 is evaluated on both runs
#    with the book's tests, and the verdicts are shown side by side.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"
ref_dir = "../build/smoke-run"
threshold = None  # None: the band the paper reads its own comparisons against
out_dir = ""

# %% tags=["remove-input"]
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.comparison import compare as K
from analysis.comparison import reproduce as RP
from analysis.words.output import note, show_table
from analysis.words import reproduction as RW
from decision.band import SESOI, band

P.setup()
if threshold is None:
    threshold = SESOI
run_study, ref_study = SD.open(run_dir), SD.open(ref_dir)  # each computed once
run, ref = run_study.run, ref_study.run
note(f"run **{run.run_id}** ({run.path}) against reference **{ref.run_id}** ({ref.path}); "
       f"threshold t = {threshold:g}")
cells = K.compare_cells(run, ref, threshold=threshold)
run_results, ref_results = run_study.results, ref_study.results

# %% [markdown]
# ## Are the reference's verdicts reproduced?
#
# The rule, as the artifact appendix states it (the same code writes both):

# %% tags=["remove-input"]
note(RP.rule_text())
reproduced = RP.table(ref_results, run_results)
note(f"**{RP.total(reproduced)}.**")
if not RP.tests_the_rule(run, ref):
    early = [r.run_id for r in (run, ref)
             if r.created_at is None or r.created_at <= A.instant(RP.MENDED)]
    note(f"**Post hoc**: {' and '.join(early)} {'was' if len(early) == 1 else 'were'} made "
         "before the rule in force (its date is in the artifact appendix's table of rules), "
         "so verdicts judged here could have been seen when it was written: this judgement "
         "is not a test of the rule.")
# the study as a whole, by the run-level criterion declared before any rerun it judges
study = RP.judge_runs(reproduced, ref.path, run.path)  # same-class or cross-class, from the catalog
note(f"**{study.status.capitalize()}** (the run-level criterion"
     + ("" if RP.tests_the_rule(run, ref) else ", post hoc") + f"): {study.why}. "
     + RW.criterion_text())
show_table(reproduced[["claim", "reading", "placement", "reference", "reference magnitude",
                       "reference estimate", "run", "run magnitude", "run estimate", "status",
                       "why"]])

# %% [markdown]
# ## The two machines

# %% tags=["remove-input"]
show_table(K.machines(run, ref))

# %% [markdown]
# ## Which configurations both runs measured
#
# Only configurations in both runs can be compared, and only with the same window length
# (`duration_s`): a 0.3 s window is not compared with a 1 s one. *Other window only* counts
# the configurations the other run measured with another window; they are listed below.

# %% tags=["remove-input"]
show_table(K.unmatched(run, ref))
why_not = K.unmatched_cells(run, ref)
if len(why_not):
    note(f"{len(why_not)} configuration(s) of the run have no counterpart in the reference; "
         "each with the reason:")
    show_table(why_not)
if cells.empty:
    note("The runs share no configuration: nothing to compare cell by cell.")

# %% [markdown]
# ## Verdicts per scenario
#
# The machine factor of each metric comes first: the typical speed of your run relative to
# the reference (> 1: faster).

# %% tags=["remove-input"]
if not cells.empty:
    show_table(cells.groupby("metric", as_index=False).agg(
        **{"machine factor (run / reference, > 1 faster)": ("machine_factor", "first"),
           "cells": ("configuration", "size")}))
    show_table(K.verdict_counts(cells))

# %% [markdown]
# ## Every matched cell
#
# Each dot is a speed ratio with its 95 % CI. The shaded band is 1 ± *t*, and the dashed
# line is the metric's machine factor.

# %% tags=["remove-input"]
if not cells.empty:
    order = cells.sort_values(["scenario", "metric", "configuration"]).reset_index(drop=True)
    colours = {K.FASTER: "tab:green", K.SLOWER: "tab:red", K.SAME: "tab:blue",
               K.INCONCLUSIVE: "tab:gray"}
    height = max(3.0, 0.22 * len(order) + 1.0)
    fig, ax = plt.subplots(figsize=(8, min(height, 60)))
    y = np.arange(len(order))[::-1]
    for verdict, colour in colours.items():
        sel = (order["verdict"] == verdict).to_numpy()
        if not sel.any():
            continue
        v, lo, hi = (order.loc[sel, c].to_numpy(float) for c in ("speed_ratio", "lo", "hi"))
        err = np.vstack([np.where(np.isfinite(lo), v - lo, 0), np.where(np.isfinite(hi), hi - v, 0)])
        ax.errorbar(v, y[sel], xerr=err, fmt="o", ms=3, color=colour, label=verdict,
                    capsize=2, lw=1)
    ax.axvspan(*band(threshold), color="0.9", zorder=0)
    ax.axvline(1.0, color="0.4", lw=0.8)
    for f in order["machine_factor"].unique():
        ax.axvline(f, ls="--", lw=0.8, color="tab:purple")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{s}: {c}" for s, c in zip(order["scenario"], order["configuration"])],
                       fontsize=6 if len(order) > 40 else 8)
    ax.set_xscale("log")
    ax.set_xlabel("speed ratio run / reference (> 1: run faster; 95% CI; log scale)")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    plt.show()

# %% [markdown]
# ### Cells that differ after the machine factor
#
# These are where your machine behaves differently, not just faster or slower. Kernel
# version, placement and the memcpy bound in the first table are the usual reasons.

# %% tags=["remove-input"]
if not cells.empty:
    shape = cells[cells["shape_differs"]]
    cols = ["scenario", "configuration", "metric", "median_ref", "median_run", "speed_ratio",
            "lo", "hi", "machine_factor", "shape_ratio", "shape_verdict"]
    if shape.empty:
        note("No cell differs beyond the threshold once the machine factor is divided out.")
    else:
        show_table(shape[cols])

# %% [markdown]
# ### All matched cells

# %% tags=["remove-input"]
if not cells.empty:
    show_table(cells[["scenario", "configuration", "metric", "n_ref", "n_run", "median_ref",
                        "median_run", "speed_ratio", "lo", "hi", "verdict", "shape_verdict"]])

# %% [markdown]
# ## Claims on both machines
#
# The agreement column reads: **holds on both**, **refuted on both**, **both undecided**
# (inconclusive on both: nothing agrees), **same verdict** (not run on both), **verdicts
# differ**, or **testable on one only** (for example, a smoke run lacks the cells, or one
# machine has no hardware PMU).

# %% tags=["remove-input"]
claims = K.compare_claims(run_results, ref_results)
show_table(claims[["claim", "statement", "reference", "reference estimate", "run",
                     "run estimate", "agreement"]])
both = claims.loc[claims["agreement"] == K.BOTH_HOLD, "claim"].tolist()
note("Claims that hold on both machines: " + (", ".join(both) if both else "none") + ".")
show_table(claims[["claim", "reference configuration", "run configuration"]])

# %% tags=["remove-input"]
if out_dir:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cells.to_csv(out / "cells.csv", index=False)
    claims.to_csv(out / "claims.csv", index=False)
    reproduced.to_csv(out / "reproduced.csv", index=False)
    why_not.to_csv(out / "unmatched.csv", index=False)

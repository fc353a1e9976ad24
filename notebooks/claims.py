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
# 95 % CI, the configuration it was tested at, and a verdict computed from this run:
# **holds**, **refuted**, **inconclusive** (the CI spans the decision boundary) or
# **not testable here** (the run lacks the cells or the hardware the test needs — the
# reason is stated). The decision rule of each claim is in its row.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import math

import pandas as pd

from analysis import run as A
from analysis import claims as C
from analysis import plots as P
from analysis import stats as S
from analysis.fmt import fmt_size
from analysis.output import glue_text, note, show_table

P.setup()
run = A.load_run(run_dir)
results = C.evaluate(run)
table = C.verdict_table(results)
for r in results:
    glue_text(f"verdict_{r.claim}", r.verdict)
    glue_text(f"stat_{r.claim}", f"{r.statistic}: {r.ci_text()}" if math.isfinite(r.value)
              else r.reason)
    glue_text(f"config_{r.claim}", r.configuration or "—")
counts = table["verdict"].value_counts()
for v in (C.HOLDS, C.REFUTED, C.INCONCLUSIVE, C.NOT_TESTABLE):
    glue_text(f"n_{v.replace(' ', '_')}", str(int(counts.get(v, 0))))

# %% [markdown]
# ## Verdicts

# %% tags=["remove-input"]
show_table(table[["claim", "source", "statement", "verdict", "estimate [95% CI]"]])

# %% [markdown]
# ## What each test computed, where, and why this verdict

# %% tags=["remove-input"]
show_table(table[["claim", "statistic", "configuration", "reason"]])

# %% [markdown]
# ## Per-size detail of the family claims (C4, C8, C9)

# %% tags=["remove-input"]
rows = [dict(claim=r.claim, **d) for r in results if r.claim in ("C4", "C8", "C9")
        for d in r.details]
if rows:
    det = pd.DataFrame(rows)
    det["size"] = det["size"].map(fmt_size)
    show_table(det)
else:
    note("No family claim was testable in this run.")

# %% [markdown]
# ## Does CPU placement explain why the PA02 reports disagree?
#
# S2 finds one-copy and zero-copy ahead of two-copy (C4, C5); S3 finds two-copy ahead
# (C8, C9). If sender and receiver sharing a CPU changes the ranking, the two reports can
# both be right, each for its placement. For every size and thread count measured under
# both same-core and cross-core placement: the ranking under each, and the ratio of
# ratios (same-core / cross-core) with its bootstrap CI.

# %% tags=["remove-input"]
p1, ptab = C.placement_hypothesis(run)
glue_text("verdict_P1", p1.verdict)
glue_text("stat_P1", f"{p1.statistic}: {p1.ci_text()}; {p1.reason}"
          if math.isfinite(p1.value) else p1.reason)
show_table(C.verdict_table([p1])[["claim", "verdict", "estimate [95% CI]", "statistic",
                                    "configuration", "reason"]])
if len(ptab):
    show = ptab.copy()
    show["size"] = show["size"].map(fmt_size)
    show_table(show)
    by_pl = []
    for pl in ("same-core", "cross-core"):
        by_pl += [dict(placement=pl, claim=r.claim, verdict=r.verdict, estimate=r.ci_text(),
                       configuration=r.configuration)
                  for r in (C.c8(run, placements=(pl,)), C.c9(run, placements=(pl,)))]
    show_table(pd.DataFrame(by_pl))
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
# With *n* trials per cell, the smallest two-sided Mann-Whitney p-value is
# 2 / C(2n, n); Holm multiplies the smallest p of a family of *k* comparisons by *k*.
# When that product exceeds α, no comparison of the family can be declared a difference,
# however far apart the medians are, and it is reported *inconclusive*.

# %% tags=["remove-input"]
from math import comb

st = run.measured[(run.measured["scenario"] == "message")]
n_cell = st.groupby("cell").size()
if len(n_cell):
    n = int(n_cell.median())
    p_min = 2 / comb(2 * n, n)
    k = max(1, int(st["size"].nunique()))
    glue_text("p_floor", f"with the median of {n} trials per cell the smallest two-sided "
              f"Mann-Whitney p is {p_min:.3g}; after Holm over a family of {k} sizes it is "
              f"{min(1.0, k * p_min):.3g}, "
              + ("above" if k * p_min > S.ALPHA else "below")
              + f" α = {S.ALPHA:g}")
    show_table(pd.DataFrame([{"trials per cell (median)": n, "min p (two-sided)": p_min,
                                "family size (sizes)": k, "min Holm-adjusted p": k * p_min}]))
else:
    glue_text("p_floor", "no message cells in this run")

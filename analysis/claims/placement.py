"""The placement hypothesis P1: does CPU placement explain why S2 and S3 disagree?

Rule (revised on the date :data:`analysis.claims.rules.REVISED` says): every (method pair,
size, threads) cell the plan declares for P1 and measured under both same-core and
cross-core is searched; the two orderings of each cell (one per placement) are all one
family, m = 2 x the cells searched, so each ordering's CI is at level 1 - 0.05/m (paired by
round in a block-design run; the ratio of medians with a bootstrap CI otherwise) and read
against the claims' band (1 +- SESOI, decision.band): P1 is read on the band, not on the
direction alone. A *flip* is a cell where both orderings are decided and opposite (greater
under one placement, less under the other); each ordering's direction (its CI against 1)
is reported beside it.

* holds: at least one flip;
* refuted: every ordering decided and none flips (the ranking is the same under both);
* inconclusive otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.statistics import stats as S
from analysis.claims.base import (HOLDS, INCONCLUSIVE, NOT_RUN, REFUTED, TRANSPORT_PREF,
                                  ClaimResult, block_seconds_per_round, claim_blocks,
                                  design_looks, distance_text, one_family, paired_rounds,
                                  paired_test, rounds_to_decide, stream_cells)
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size
from analysis.loading.run import Run, select, values
from decision import families
from decision import rule as R
from decision import sequential as sq
from rundir.vocabulary import PINNED_PLACEMENTS

PAIRS = (("zerocopy", "send"), ("sendmsg", "send"))
PLACEMENTS = PINNED_PLACEMENTS
#: each ordering is read against the claims' band (greater / less / equivalent): P1 asks for a
#: flip beyond the band, not only of the direction (the direction, the CI against 1, stands
#: beside it in the table)
DIRECTION = R.DIRECTION
STATEMENT = ("P1", "S2 vs S3", "CPU placement (same core vs different cores) explains why the "
             "two PA02 reports rank the methods oppositely", "—")


def _cells(run: Run) -> pd.DataFrame:
    st = stream_cells(run)
    blocks = claim_blocks(run, "P1")
    return st if blocks is None else st[st["block"].isin(blocks)]


def _searched(dt: pd.DataFrame) -> list[tuple[str, str, int, int]]:
    """Every (a, b, threads, size) with both methods under both placements (2 values each)."""
    out = []
    for a, b in PAIRS:
        for th in sorted(dt["threads"].dropna().unique()):
            for s in sorted(dt["size"].dropna().unique()):
                f = dict(size=s, threads=th)
                if all(values(select(dt, placement=pl, method=m, **f), "gbit_per_s").size >= 2
                       for pl in PLACEMENTS for m in (a, b)):
                    out.append((a, b, int(th), int(s)))
    return out


def _ordering(run: Run, dt: pd.DataFrame, a: str, b: str, f: dict, pl: str,
              family: int, seed: int) -> tuple[S.RatioTest, float, tuple]:
    """a/b under one placement at the family's level: paired by round where the run has
    blocks, else the ratio of medians; the seconds per round of the pairs' block (NaN
    where they are not one block's) and the looks and spending that read it
    (:func:`analysis.claims.base.design_looks`; None: the fixed design)."""
    sa, sb = dict(placement=pl, method=a, **f), dict(placement=pl, method=b, **f)
    one = one_family(run, dt, sa, sb, family)  # the family every reader reads it at
    family = one.family
    if run.has_blocks:
        j = paired_rounds(dt, sa, sb, "gbit_per_s")
        if len(j) >= 2:  # at its stopping look where the run has the top-up
            t = paired_test(run, j, family, DIRECTION, one.stop)
            ids = {str(x) for x in j.index.get_level_values(0)}
            looks = design_looks(run, ids.pop(), t) if len(ids) == 1 else (None, sq.POCOCK)
            return t, block_seconds_per_round(run, j), looks
    return S.unpaired_ratio(values(select(dt, placement=pl, method=a, **f), "gbit_per_s"),
                            values(select(dt, placement=pl, method=b, **f), "gbit_per_s"),
                            family=family, seed=seed), math.nan, (None, sq.POCOCK)


def _distance(t: S.RatioTest, spr: float, looks: tuple) -> tuple[float, str]:
    """An undecided ordering's distance from a decision (the one text every inconclusive
    comparison states: :func:`analysis.claims.base.distance_text`) and its rounds (for
    naming the farthest); (0, "") where the ordering is decided."""
    d = R.decide(DIRECTION, t.ratio.lo, t.ratio.hi)
    if d.outcome != "inconclusive":
        return 0.0, ""
    n = (rounds_to_decide(math.log(t.ratio.value), t.sd_log, d.straddles, t.family, t.alpha,
                          *looks)
         if t.kind == S.PAIRED and t.ratio.value > 0 else math.nan)
    return (math.inf if math.isnan(n) else n), distance_text(t, d.straddles, spr, *looks)


def placement_hypothesis(run: Run) -> tuple[ClaimResult, pd.DataFrame]:
    """P1's verdict and its table: one row per cell searched, each placement's ordering
    (ratio, CI, decision at the family's level) and the ratio of ratios."""
    r = ClaimResult(*STATEMENT)
    st = _cells(run)
    rows = []
    for t in TRANSPORT_PREF:
        dt = st[st["transport"] == t]
        cells = _searched(dt)
        family = families.p1_family(len(cells))  # the table the runner reads too
        for i, (a, b, th, s) in enumerate(cells):
            f = dict(size=s, threads=th)
            tests = {pl: _ordering(run, dt, a, b, f, pl, family, seed=2 * i + k)
                     for k, pl in enumerate(PLACEMENTS)}
            est = {pl: t.ratio for pl, (t, _, _) in tests.items()}
            far = max(((*_distance(t, spr, lk), pl) for pl, (t, spr, lk) in tests.items()),
                      key=lambda x: x[0])
            x = {pl: (values(select(dt, placement=pl, method=a, **f), "gbit_per_s"),
                      values(select(dt, placement=pl, method=b, **f), "gbit_per_s"))
                 for pl in PLACEMENTS}
            rr = S.ratio_of_ratios(*x["same-core"], *x["cross-core"], seed=i)
            rows.append({"transport": t, "pair": f"{a}/{b}", "threads": th, "size": s,
                         "family": max(x.family for x, _, _ in tests.values()),
                         **{f"{pl.replace('-', '_')}{k}": v for pl in PLACEMENTS for k, v in (
                             ("", R.band_outcome(est[pl].lo, est[pl].hi)),
                             ("_direction", R.direction_and_size(est[pl].lo,
                                                                 est[pl].hi).direction),
                             ("_ratio", est[pl].value),
                             ("_lo", est[pl].lo), ("_hi", est[pl].hi))},
                         "ratio_of_ratios": rr.value, "lo": rr.lo, "hi": rr.hi,
                         "distance_rounds": far[0], "distance": (f"{far[2]}: {far[1]}"
                                                                 if far[1] else "")})
        if rows:
            break
    table = pd.DataFrame(rows)
    if table.empty:
        r.verdict = NOT_RUN
        r.reason = ("needs the same cells under both same-core and cross-core placement in "
                    "the blocks the plan declares for P1; this run has none (the claims "
                    "profile runs them)")
        return r, table
    sc, cc = table["same_core"], table["cross_core"]
    flips = table[((sc == "greater") & (cc == "less")) | ((sc == "less") & (cc == "greater"))]
    decided = sc.isin(["greater", "less", "equivalent"]) & cc.isin(["greater", "less",
                                                                     "equivalent"])
    r.verdict = HOLDS if len(flips) else REFUTED if decided.all() else INCONCLUSIVE
    pick = flips if len(flips) else table
    row = pick.loc[(np.log(pick["ratio_of_ratios"].astype(float))).abs().idxmax()]
    r.value, r.lo, r.hi = row["ratio_of_ratios"], row["lo"], row["hi"]
    level = S.family_confidence(int(row["family"]))
    r.statistic = (f"ratio of ratios same-core / cross-core, {row['pair']} at "
                   f"{fmt_size(row['size'])}, {row['threads']} thread(s); orderings decided "
                   f"at CI level {level:.2%} (family of {int(row['family'])})")
    r.configuration = f"{row['transport']}, TCP stream, same-core vs cross-core"
    r.rule = (f"a flip = both orderings decided and opposite, each at CI level {level:.2%} "
              f"over the {len(table)} cells searched x 2 placements; holds if a cell flips, "
              "refuted if every ordering is decided and none flips, else inconclusive")
    r.boundaries = r.rule
    undecided = int((~decided).sum())
    r.reason = (f"ranking flips with placement in {len(flips)} of {len(table)} (pair, size, "
                f"threads) cells; {undecided} cell(s) with an undecided ordering")
    if r.verdict == INCONCLUSIVE:
        # its distance: every ordering decided (what a refutation needs), so the farthest
        # undecided ordering's (a flip could come sooner, from any of them)
        far = table.loc[table["distance_rounds"].astype(float).idxmax()]
        r.boundary = (f"{undecided} of {len(table)} cells have an undecided ordering; none "
                      f"flips; the farthest from a decision, {far['pair']} at "
                      f"{fmt_size(far['size'])}, {far['threads']} thread(s), "
                      f"{far['distance']}")
    return r, table


def placement_view(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`placement_hypothesis`'s table as a reader reads it (the book's HTML and PDF):
    one row per cell searched, each placement's ratio with its CI and the ordering it
    decides, and the ratio of ratios with its CI; words for column names (the PDF once
    printed ``same_core_ratio`` and its neighbours over each other)."""
    def at(pl: str) -> list[str]:
        k = pl.replace("-", "_")
        return [f"{fmt_ratio_ci(v, lo, hi, times=False)} {o}" for v, lo, hi, o in
                zip(table[f"{k}_ratio"], table[f"{k}_lo"], table[f"{k}_hi"], table[k])]

    return pd.DataFrame({
        "transport": table["transport"], "methods": table["pair"],
        "threads": table["threads"], "size": table["size"].map(fmt_size),
        **{f"{pl} [CI], ordering": at(pl) for pl in PLACEMENTS},
        "same-core / cross-core [CI]": [fmt_ratio_ci(v, lo, hi, times=False) for v, lo, hi in
                                        zip(table["ratio_of_ratios"], table["lo"],
                                            table["hi"])]})

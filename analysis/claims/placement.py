"""The placement hypothesis: does CPU placement explain why S2 and S3 disagree?"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats as S
from analysis.claims.base import (HOLDS, INCONCLUSIVE, REFUTED, TRANSPORT_PREF, ClaimResult,
                                  paired_values, stream_cells)
from analysis.fmt import fmt_size
from analysis.run import Run, select, values


class _Dir:
    """One placement's ranking of a pair: its ratio estimate and direction."""

    def __init__(self, ratio: S.Estimate, direction: str) -> None:
        self.ratio, self.direction = ratio, direction


def _directions(run: Run, dt: pd.DataFrame, a: str, b: str, f: dict,
                x: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[_Dir]:
    """The ranking under same-core and under cross-core: in a block-design run the per-round
    paired ratio (the two placements are one family of two), else the unpaired ratio of
    medians with Mann-Whitney and Holm, as before blocks existed."""
    if run.has_blocks:
        out = []
        for pl in ("same-core", "cross-core"):
            xa, yb = paired_values(dt, dict(placement=pl, method=a, **f),
                                   dict(placement=pl, method=b, **f), "gbit_per_s")
            if xa.size >= 2:
                t = S.paired_ratio(xa, yb, family=2)
                out.append(_Dir(t.ratio, S.classify_ratio(t.ratio)))
            else:
                out.append(_Dir(S.Estimate(np.nan, np.nan, np.nan, 0), "inconclusive"))
        return out
    return [_Dir(c.ratio, c.direction)
            for c in S.compare_family([x["same-core"], x["cross-core"]])]


def placement_hypothesis(run: Run) -> tuple[ClaimResult, pd.DataFrame]:
    """Does CPU placement explain why S2 (C4, C5) and S3 (C8, C9) disagree?

    For each method pair (zero-copy vs two-copy, one-copy vs two-copy), each size and thread
    count present under both same-core and cross-core placement: the ranking under each
    placement (paired per-round ratios in a block-design run) and the ratio of ratios
    (same-core / cross-core) with a bootstrap CI.
    Holds if the ranking flips with placement somewhere; refuted if every ranking is
    determinate and the same under both placements; inconclusive otherwise."""
    r = ClaimResult("P1", "S2 vs S3", "CPU placement (same core vs different cores) explains "
                    "why the two PA02 reports rank the methods oppositely", "—")
    st = stream_cells(run)
    rows = []
    for t in TRANSPORT_PREF:
        dt = st[st["transport"] == t]
        for a, b in (("zerocopy", "send"), ("sendmsg", "send")):
            for th in sorted(dt["threads"].dropna().unique()):
                for s in sorted(dt["size"].dropna().unique()):
                    f = dict(size=s, threads=th)
                    x = {pl: (values(select(dt, placement=pl, method=a, **f), "gbit_per_s"),
                              values(select(dt, placement=pl, method=b, **f), "gbit_per_s"))
                         for pl in ("same-core", "cross-core")}
                    if any(v[0].size < 2 or v[1].size < 2 for v in x.values()):
                        continue
                    fam = _directions(run, dt, a, b, f, x)
                    rr = S.ratio_of_ratios(*x["same-core"], *x["cross-core"])
                    rows.append({"transport": t, "pair": f"{a}/{b}", "threads": int(th),
                                 "size": int(s), "same_core": fam[0].direction,
                                 "same_core_ratio": fam[0].ratio.value,
                                 "cross_core": fam[1].direction,
                                 "cross_core_ratio": fam[1].ratio.value,
                                 "ratio_of_ratios": rr.value, "lo": rr.lo, "hi": rr.hi})
        if rows:
            break
    table = pd.DataFrame(rows)
    if table.empty:
        r.reason = ("needs the same cells under both same-core and cross-core placement; "
                    "placements in this run: " + ", ".join(map(str, sorted(
                        st["placement"].dropna().unique()))) if not st.empty else
                    "no message stream cells in this run")
        return r, table
    flips = table[((table["same_core"] == "greater") & (table["cross_core"] == "less"))
                  | ((table["same_core"] == "less") & (table["cross_core"] == "greater"))]
    determinate = table[["same_core", "cross_core"]].isin(["greater", "less", "equivalent"]).all(axis=1)
    same = (table["same_core"] == table["cross_core"]) & determinate
    r.verdict = HOLDS if len(flips) else REFUTED if same.all() else INCONCLUSIVE
    pick = flips if len(flips) else table
    row = pick.loc[(np.log(pick["ratio_of_ratios"].astype(float))).abs().idxmax()]
    r.value, r.lo, r.hi = row["ratio_of_ratios"], row["lo"], row["hi"]
    r.statistic = (f"ratio of ratios same-core / cross-core, {row['pair']} at "
                   f"{fmt_size(row['size'])}, {row['threads']} thread(s)")
    r.configuration = f"{row['transport']}, TCP stream, same-core vs cross-core"
    r.reason = (f"ranking flips with placement in {len(flips)} of {len(table)} "
                "(pair, size, threads) cells")
    return r, table

"""The PA02 reports' throughput families over sizes and threads: C4, C6 (S2) and C8, C9,
C11 (S3). A family of sizes is one Holm family."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from analysis import stats as S
from analysis.claims.base import (HOLDS, INCONCLUSIVE, PLACEMENT_PREF, REFUTED, S2_SIZES, S3_SIZES,
                                  ClaimResult, KiB, config_text, has_data, pick_config,
                                  set_estimate, sizes_text, stream_cells, why_missing)
from analysis.fmt import fmt_size
from analysis.run import Run, select, values


def _family(d: pd.DataFrame, a: str, b: str, sizes: Sequence[int], threads: int,
            metric: str = "gbit_per_s") -> list[dict[str, Any]]:
    """Ratio a/b at each size (one Holm family)."""
    pairs, used = [], []
    for s in sizes:
        x = values(select(d, method=a, size=s, threads=threads), metric)
        y = values(select(d, method=b, size=s, threads=threads), metric)
        if x.size >= 2 and y.size >= 2:
            pairs.append((x, y))
            used.append(s)
    res = S.compare_family(pairs)
    return [{"size": s, "ratio": c.ratio.value, "lo": c.ratio.lo, "hi": c.ratio.hi,
             "p_holm": c.p_holm, "direction": c.direction} for s, c in zip(used, res)]


def _family_pick(run: Run, a: str, b: str, sizes: Sequence[int], threads: int,
                 placements: Sequence[str] = PLACEMENT_PREF
                 ) -> tuple[list[dict[str, Any]], str, str] | None:
    st = stream_cells(run)
    got = pick_config(st, lambda d: any(has_data(d, method=a, size=s, threads=threads)
                                  and has_data(d, method=b, size=s, threads=threads) for s in sizes),
                placements=placements)
    if got is None:
        return None
    d, t, p = got
    return _family(d, a, b, sizes, threads), t, p


def _family_reason(run: Run, a: str, b: str, sizes: Sequence[int], threads: int) -> str:
    st = stream_cells(run)
    return why_missing(st, "stream", threads=threads, size=list(sizes), method=[a]) \
        if not has_data(st, threads=threads, method=a) else \
        f"no size with both {a} and {b} at {threads} thread(s) in this run"


def _extreme(r: ClaimResult, fam: list[dict[str, Any]], pick: str = "min") -> None:
    row = (min if pick == "min" else max)(fam, key=lambda x: x["ratio"])
    r.value, r.lo, r.hi = row["ratio"], row["lo"], row["hi"]


def c4(run: Run) -> ClaimResult:
    r = ClaimResult("C4", "S2", "One-copy beats two-copy at every size tested",
                    "one vs two-copy Gbit/s: 512 B 5.44 vs 1.14 … 64 KB 66.42 vs 17.80")
    got = _family_pick(run, "sendmsg", "send", S2_SIZES, 1)
    if got is None:
        r.reason = _family_reason(run, "sendmsg", "send", S2_SIZES, 1)
        return r
    fam, t, p = got
    r.details = fam
    _extreme(r, fam, "min")
    dirs = [x["direction"] for x in fam]
    r.verdict = HOLDS if all(d == "greater" for d in dirs) else \
        REFUTED if any(d in ("less", "equivalent") for d in dirs) else INCONCLUSIVE
    r.statistic = "smallest throughput ratio one-copy / two-copy over the sizes (Holm family)"
    r.configuration = config_text(t, p, 1, f"TCP stream, sizes {sizes_text([x['size'] for x in fam])}")
    r.reason = "per size: " + "; ".join(f"{fmt_size(x['size'])} {x['direction']}" for x in fam)
    return r


def c6(run: Run) -> ClaimResult:
    r = ClaimResult("C6", "S2", "One-copy at 64 KB collapses from 4 to 8 threads",
                    "1/2/4/8 threads: 66.42, 62.95, 58.63, 23.73 Gbit/s")
    st = stream_cells(run)
    f = dict(method="sendmsg", size=64 * KiB)
    got = pick_config(st, lambda d: has_data(d, threads=8, **f) and has_data(d, threads=4, **f))
    if got is None:
        r.reason = why_missing(st, "stream", threads=[8], size=[64 * KiB], method=["sendmsg"]) \
            if not has_data(st, threads=8, **f) else why_missing(st, "stream", threads=[4], **f)
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, threads=8, **f), "gbit_per_s"),
                           values(select(d, threads=4, **f), "gbit_per_s"))
    set_estimate(r, e)
    r.statistic = "throughput ratio 8 threads / 4 threads (one-copy, 64 KiB)"
    r.verdict = S.threshold_verdict(e, 0.7, above=False)
    r.configuration = config_text(t, p, None, "TCP stream, 64 KiB")
    r.reason = "decision: a collapse is a drop of more than 30 % (CI below 0.7); published 0.40"
    return r


def c8(run: Run, placements: Sequence[str] = PLACEMENT_PREF) -> ClaimResult:
    r = ClaimResult("C8", "S3", "Two-copy beats one-copy from 1 KB to 16 KB; one-copy wins "
                    "only at 64 KB", "4 threads: 1 KB 2.63 vs 2.33 … 64 KB 43.90 vs 46.89")
    got = _family_pick(run, "send", "sendmsg", S3_SIZES, 4, placements)
    if got is None:
        r.reason = _family_reason(run, "send", "sendmsg", S3_SIZES, 4)
        return r
    fam, t, p = got
    r.details = fam
    expected = {s: ("less" if s >= 64 * KiB else "greater") for s in S3_SIZES}
    agree = [x["direction"] == expected[x["size"]] for x in fam]
    contra = [x["direction"] not in (expected[x["size"]], "inconclusive") for x in fam]
    r.verdict = HOLDS if all(agree) else REFUTED if any(contra) else INCONCLUSIVE
    _extreme(r, fam, "min")
    r.statistic = "throughput ratio two-copy / one-copy (smallest over sizes; Holm family)"
    r.configuration = config_text(t, p, 4, f"TCP stream, sizes {sizes_text([x['size'] for x in fam])}")
    r.reason = "per size: " + "; ".join(f"{fmt_size(x['size'])} {x['direction']}" for x in fam)
    return r


def c9(run: Run, placements: Sequence[str] = PLACEMENT_PREF) -> ClaimResult:
    r = ClaimResult("C9", "S3", "Zero-copy never beats two-copy on one machine; at best ~52% "
                    "of it", "4 threads: 1 KB 0.91 vs 2.63 … 64 KB 22.91 vs 43.90 Gbit/s")
    got = _family_pick(run, "zerocopy", "send", S3_SIZES, 4, placements)
    if got is None:
        r.reason = _family_reason(run, "zerocopy", "send", S3_SIZES, 4)
        return r
    fam, t, p = got
    r.details = fam
    dirs = [x["direction"] for x in fam]
    r.verdict = REFUTED if any(d == "greater" for d in dirs) else \
        HOLDS if all(d in ("less", "equivalent") for d in dirs) else INCONCLUSIVE
    _extreme(r, fam, "max")
    r.statistic = "largest throughput ratio zero-copy / two-copy over the sizes (Holm family)"
    r.configuration = config_text(t, p, 4, f"TCP stream, sizes {sizes_text([x['size'] for x in fam])}")
    r.reason = "per size: " + "; ".join(f"{fmt_size(x['size'])} {x['direction']}" for x in fam)
    return r


def c11(run: Run) -> ClaimResult:
    r = ClaimResult("C11", "S3", "Best thread count is 2-4; 8 threads degrade super-linearly",
                    "qualitative")
    st = stream_cells(run)
    for size in (64 * KiB, 16 * KiB, 4 * KiB, 1 * KiB):
        f = dict(method="send", size=size)
        got = pick_config(st, lambda d: all(has_data(d, threads=k, **f) for k in (1, 2, 4, 8)))
        if got is None:
            continue
        d, t, p = got
        med = {k: float(np.median(values(select(d, threads=k, **f), "gbit_per_s")))
               for k in (1, 2, 4, 8)}
        best = max(med, key=lambda k: med[k])
        mid = 2 if med[2] >= med[4] else 4
        e = S.ratio_of_medians(values(select(d, threads=8, **f), "gbit_per_s"),
                               values(select(d, threads=mid, **f), "gbit_per_s"))
        set_estimate(r, e)
        degrade = S.classify_ratio(e) == "less"
        r.verdict = HOLDS if best in (2, 4) and degrade else \
            REFUTED if best in (1, 8) or S.classify_ratio(e) in ("greater", "equivalent") \
            else INCONCLUSIVE
        r.statistic = f"throughput ratio 8 threads / best of 2 and 4 threads (= {mid})"
        r.configuration = config_text(t, p, None, f"two-copy, TCP stream, {fmt_size(size)}")
        r.reason = (f"best thread count by median: {best}; 8 threads "
                    f"{'significantly lower' if degrade else 'not significantly lower'}; "
                    "super-linearity itself is not tested")
        return r
    r.reason = why_missing(st, "stream", threads=[8], method=["send"]) \
        if not has_data(st, threads=8, method="send") else \
        "no size with two-copy at 1, 2, 4 and 8 threads in this run"
    return r

"""Hardware-counter claims: C2 (S1), C7 (S2), C12 (S3). They need a PMU; without one
they are "not testable here" with the machine's reason."""

from __future__ import annotations

from typing import Sequence

from analysis import stats as S
from analysis.claims.base import (APPROX_TOL, ClaimResult, KiB, config_text, has_data, pick_config,
                                  set_estimate, stream_cells, why_missing)
from analysis.fmt import fmt_size
from analysis.run import REPORT_NAMES, Run, pmu_status, select, values


def _pmu_claim(run: Run, r: ClaimResult, counter: str, size: int, num: str, den: str,
               published: float, threads_pref: Sequence[int] = (1,)) -> ClaimResult:
    ok, why = pmu_status(run)
    col = f"sender_{counter}_per_kib"
    st = stream_cells(run)
    if not ok or col not in st or st[col].notna().sum() == 0:
        r.reason = f"needs hardware cache counters ({counter}); this run has none: {why}"
        return r
    for th in threads_pref:
        f = dict(size=size, threads=th)
        got = pick_config(st, lambda d: has_data(d, col, method=num, **f) and has_data(d, col, method=den, **f))
        if got is None:
            continue
        d, t, p = got
        e = S.ratio_of_medians(values(select(d, method=num, **f), col),
                               values(select(d, method=den, **f), col))
        set_estimate(r, e)
        r.statistic = (f"ratio of {counter} per byte (sender), "
                       f"{REPORT_NAMES.get(num, num)} / {REPORT_NAMES.get(den, den)}")
        r.verdict = S.approx_verdict(e, published, APPROX_TOL)
        r.configuration = config_text(t, p, th, f"TCP stream, {fmt_size(size)}")
        r.reason = (f"decision: holds if the CI lies within [{published / APPROX_TOL:.2f}, "
                    f"{published * APPROX_TOL:.2f}]; counts normalised per byte moved")
        return r
    r.reason = why_missing(st, "stream", size=size, threads=list(threads_pref))
    return r


def c2(run: Run) -> ClaimResult:
    r = ClaimResult("C2", "S1", "At 1 MB, zero-copy has ~10x fewer LLC misses than two-copy",
                    "2.5 M vs 23 M LLC misses")
    return _pmu_claim(run, r, "llc_load_misses", 1 << 20, "send", "zerocopy", 23 / 2.5)


def c7(run: Run) -> ClaimResult:
    r = ClaimResult("C7", "S2", "At 512 B / 1 thread zero-copy has 2.6x the L1 misses of "
                    "two-copy", "61.04 M vs 23.77 M")
    return _pmu_claim(run, r, "l1d_load_misses", 512, "zerocopy", "send", 61.04 / 23.77)


def c12(run: Run) -> ClaimResult:
    r = ClaimResult("C12", "S3", "One-copy has 65% more LLC misses than two-copy at 16 KB",
                    "68 M vs 41 M")
    return _pmu_claim(run, r, "llc_load_misses", 16 * KiB, "sendmsg", "send", 68 / 41,
                      threads_pref=(4, 1))

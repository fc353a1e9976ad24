"""Ping-pong latency claims: C1 (S1, 64 B) and C10 (S3, 64 KB)."""

from __future__ import annotations

from analysis import stats as S
from analysis.claims.base import (APPROX_TOL, ClaimResult, KiB, config_text, has_data, pick_config,
                                  pingpong_cells, set_estimate, why_missing)
from analysis.run import Run, select, values


def c1(run: Run) -> ClaimResult:
    r = ClaimResult("C1", "S1", "For 64 B messages, zero-copy latency is >100x that of "
                    "two-copy", "1 thread: 58.82 us two-copy vs 7111.74 us zero-copy (121x)")
    pp = pingpong_cells(run)
    f = dict(size=64, threads=1)
    got = pick_config(pp, lambda d: has_data(d, "rtt_p50_us", method="zerocopy", **f)
                and has_data(d, "rtt_p50_us", method="send", **f))
    if got is None:
        r.reason = why_missing(pp, "ping-pong", size=64, threads=1,
                                method=["zerocopy"]) + " (zero-copy and two-copy RTT at 64 B)"
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, method="zerocopy", **f), "rtt_p50_us"),
                           values(select(d, method="send", **f), "rtt_p50_us"))
    set_estimate(r, e)
    r.statistic = "median RTT ratio zero-copy / two-copy (per-trial p50)"
    r.verdict = S.threshold_verdict(e, 100.0, above=True)
    r.configuration = config_text(t, p, 1, "TCP ping-pong, 64 B")
    r.reason = "decision: holds if the CI lies above 100"
    return r


def c10(run: Run) -> ClaimResult:
    r = ClaimResult("C10", "S3", "At 64 KB zero-copy latency is ~3.4x two-copy",
                    "65.54 us vs 19.22 us")
    pp = pingpong_cells(run)
    f = dict(size=64 * KiB, threads=1)
    got = pick_config(pp, lambda d: has_data(d, "rtt_p50_us", method="zerocopy", **f)
                and has_data(d, "rtt_p50_us", method="send", **f))
    if got is None:
        r.reason = why_missing(pp, "ping-pong", size=[64 * KiB], method=["zerocopy"]) \
            + " (zero-copy and two-copy RTT at 64 KiB)"
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, method="zerocopy", **f), "rtt_p50_us"),
                           values(select(d, method="send", **f), "rtt_p50_us"))
    set_estimate(r, e)
    r.statistic = "median RTT ratio zero-copy / two-copy (per-trial p50)"
    pub = 65.54 / 19.22
    r.verdict = S.approx_verdict(e, pub, APPROX_TOL)
    r.configuration = config_text(t, p, 1, "TCP ping-pong, 64 KiB")
    r.reason = f"decision: holds if the CI lies within [{pub / APPROX_TOL:.2f}, {pub * APPROX_TOL:.2f}]"
    return r

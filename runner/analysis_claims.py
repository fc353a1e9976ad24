"""Operational tests of the published claims C1-C15 (shared CLAIMS.md) and of the placement
hypothesis (why the PA02 reports S2 and S3 disagree). Each test selects its configuration
from a run, computes a statistic with a CI and returns a verdict: holds / refuted /
inconclusive / not testable here (with the reason). Nothing here is typed by hand but the
published numbers and the decision rules, which are stated with each claim.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from runner import stats as S
from runner.analysis import REPORT_NAMES, Run, fmt_num, fmt_size, memcpy_gbit, pmu_status, select, values

HOLDS, REFUTED, INCONCLUSIVE, NOT_TESTABLE = "holds", "refuted", "inconclusive", "not testable here"
TRANSPORT_PREF = ("veth", "loopback")  # S2/S3 used a veth pair between two namespaces
PLACEMENT_PREF = ("cross-core", "unpinned", "same-core")
KiB = 1024
#: Size lists as published.
S2_SIZES = (512, 4 * KiB, 16 * KiB, 64 * KiB)
S3_SIZES = (1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB)
#: Tolerance for "about R x" claims: the CI must lie within [R/1.25, R*1.25].
APPROX_TOL = 1.25
#: Textbook CPU copies per transfer (claim C15, S5 table 1.1 citing Song & Alves-Foss).
TEXTBOOK_COPIES: dict[str, tuple[int, ...]] = {"read-write": (2,), "mmap-write": (1,),
                                                "sendfile": (1, 0), "splice": (0,)}
COPIES_TOL = 0.5


@dataclass
class ClaimResult:
    claim: str
    source: str
    statement: str
    published: str
    verdict: str = NOT_TESTABLE
    statistic: str = ""
    value: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    configuration: str = ""
    reason: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)

    def ci_text(self) -> str:
        if not math.isfinite(self.value):
            return "—"
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{fmt_num(self.value)} (no CI)"
        return f"{fmt_num(self.value)} [{fmt_num(self.lo)}, {fmt_num(self.hi)}]"


def _est(r: ClaimResult, e: S.Estimate) -> None:
    r.value, r.lo, r.hi = e.value, e.lo, e.hi


def _stream(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "stream") & (m["protocol"] != "udp")]


def _pingpong(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "pingpong")]


def _pick(df: pd.DataFrame, need: Callable[[pd.DataFrame], bool],
          transports: Sequence[str] = TRANSPORT_PREF,
          placements: Sequence[str] = PLACEMENT_PREF) -> tuple[pd.DataFrame, str, str] | None:
    """The first (transport, placement) in preference order whose rows satisfy ``need``."""
    for t in transports:
        for p in placements:
            sub = df[(df["transport"] == t) & (df["placement"] == p)]
            if not sub.empty and need(sub):
                return sub, t, p
    return None


def _has(df: pd.DataFrame, metric: str = "gbit_per_s", **f: Any) -> bool:
    return values(select(df, **f), metric).size >= 2


def _why_missing(df: pd.DataFrame, what: str, **f: Any) -> str:
    """A reason naming the first factor level that the run lacks."""
    for k, v in f.items():
        levels = set(df[k].dropna().unique()) if k in df else set()
        wanted = v if isinstance(v, (list, tuple)) else [v]
        if not levels.intersection(wanted):
            if k == "threads":
                return f"no {'/'.join(str(w) for w in wanted)}-thread {what} cells in this run"
            if k == "size":
                return f"no {' or '.join(fmt_size(w) for w in wanted)} {what} cells in this run"
            return f"no {k}={'/'.join(map(str, wanted))} {what} cells in this run"
    return f"fewer than 2 trials per cell for {what} in this run"


def _cfg(transport: str, placement: str, threads: int | None = None, extra: str = "") -> str:
    parts = [transport, placement]
    if threads is not None:
        parts.append(f"{threads} thread{'s' if threads != 1 else ''}")
    if extra:
        parts.append(extra)
    return ", ".join(parts)


def _sizes_text(sizes: Sequence[float]) -> str:
    return ", ".join(fmt_size(s) for s in sizes)


# ------------------------------------------------------------------------------ claims

def c1(run: Run) -> ClaimResult:
    r = ClaimResult("C1", "S1", "For 64 B messages, zero-copy latency is >100x that of "
                    "two-copy", "1 thread: 58.82 us two-copy vs 7111.74 us zero-copy (121x)")
    pp = _pingpong(run)
    f = dict(size=64, threads=1)
    got = _pick(pp, lambda d: _has(d, "rtt_p50_us", method="zerocopy", **f)
                and _has(d, "rtt_p50_us", method="send", **f))
    if got is None:
        r.reason = _why_missing(pp, "ping-pong", size=64, threads=1,
                                method=["zerocopy"]) + " (zero-copy and two-copy RTT at 64 B)"
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, method="zerocopy", **f), "rtt_p50_us"),
                           values(select(d, method="send", **f), "rtt_p50_us"))
    _est(r, e)
    r.statistic = "median RTT ratio zero-copy / two-copy (per-trial p50)"
    r.verdict = S.threshold_verdict(e, 100.0, above=True)
    r.configuration = _cfg(t, p, 1, "TCP ping-pong, 64 B")
    r.reason = "decision: holds if the CI lies above 100"
    return r


def _pmu_claim(run: Run, r: ClaimResult, counter: str, size: int, num: str, den: str,
               published: float, threads_pref: Sequence[int] = (1,)) -> ClaimResult:
    ok, why = pmu_status(run)
    col = f"sender_{counter}_per_kib"
    st = _stream(run)
    if not ok or col not in st or st[col].notna().sum() == 0:
        r.reason = f"needs hardware cache counters ({counter}); this run has none: {why}"
        return r
    for th in threads_pref:
        f = dict(size=size, threads=th)
        got = _pick(st, lambda d: _has(d, col, method=num, **f) and _has(d, col, method=den, **f))
        if got is None:
            continue
        d, t, p = got
        e = S.ratio_of_medians(values(select(d, method=num, **f), col),
                               values(select(d, method=den, **f), col))
        _est(r, e)
        r.statistic = (f"ratio of {counter} per byte (sender), "
                       f"{REPORT_NAMES.get(num, num)} / {REPORT_NAMES.get(den, den)}")
        r.verdict = S.approx_verdict(e, published, APPROX_TOL)
        r.configuration = _cfg(t, p, th, f"TCP stream, {fmt_size(size)}")
        r.reason = (f"decision: holds if the CI lies within [{published / APPROX_TOL:.2f}, "
                    f"{published * APPROX_TOL:.2f}]; counts normalised per byte moved")
        return r
    r.reason = _why_missing(st, "stream", size=size, threads=list(threads_pref))
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


def _crossover_claim(run: Run, r: ClaimResult, band: tuple[float, float],
                     threads: int = 1) -> ClaimResult:
    st = _stream(run)

    def enough(d: pd.DataFrame) -> bool:
        sz = [s for s in distinct_sizes(d, threads)
              if _has(d, method="zerocopy", size=s, threads=threads)
              and _has(d, method="send", size=s, threads=threads)]
        return len(sz) >= 2

    got = _pick(st, enough)
    if got is None:
        r.reason = _why_missing(st, "stream", threads=threads, method=["zerocopy"]) \
            if not _has(st, method="zerocopy", threads=threads) else \
            "fewer than two sizes with both zero-copy and two-copy in this run"
        return r
    d, t, p = got
    sizes = [s for s in distinct_sizes(d, threads)]
    a = {s: values(select(d, method="zerocopy", size=s, threads=threads), "gbit_per_s")
         for s in sizes}
    b = {s: values(select(d, method="send", size=s, threads=threads), "gbit_per_s")
         for s in sizes}
    c = S.crossover(a, b)
    r.value, r.lo, r.hi = c.size, c.lo, c.hi
    r.statistic = ("size where zero-copy throughput first reaches two-copy (bytes, bootstrap;"
                   f" P(no crossover in range) = {c.p_none:.2f})")
    r.verdict, why = S.crossover_verdict(c, *band)
    r.configuration = _cfg(t, p, threads, f"TCP stream, sizes {_sizes_text(c.sizes)}")
    copied = select(run.measured, method="zerocopy", transport=t)["zc_copied_fraction"]
    cf = f"; copied fraction of zero-copy completions on {t}: {copied.median():.2f}" \
        if copied.notna().any() else ""
    r.reason = f"{why} ({fmt_size(band[0])}–{fmt_size(band[1])}){cf}"
    return r


def distinct_sizes(d: pd.DataFrame, threads: int) -> list[int]:
    return sorted(int(s) for s in d.loc[d["threads"] == threads, "size"].dropna().unique())


def c3(run: Run) -> ClaimResult:
    r = ClaimResult("C3", "S1", "Zero-copy pays off above ~32 KB", "qualitative")
    return _crossover_claim(run, r, (16 * KiB, 64 * KiB))


def c5(run: Run) -> ClaimResult:
    r = ClaimResult("C5", "S2", "Zero-copy overtakes two-copy between 512 B and 4 KB",
                    "512 B 1.11 vs 1.14; 4 KB 7.62 vs 2.79 Gbit/s")
    return _crossover_claim(run, r, (512, 4 * KiB))


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
    st = _stream(run)
    got = _pick(st, lambda d: any(_has(d, method=a, size=s, threads=threads)
                                  and _has(d, method=b, size=s, threads=threads) for s in sizes),
                placements=placements)
    if got is None:
        return None
    d, t, p = got
    return _family(d, a, b, sizes, threads), t, p


def _family_reason(run: Run, a: str, b: str, sizes: Sequence[int], threads: int) -> str:
    st = _stream(run)
    return _why_missing(st, "stream", threads=threads, size=list(sizes), method=[a]) \
        if not _has(st, threads=threads, method=a) else \
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
    r.configuration = _cfg(t, p, 1, f"TCP stream, sizes {_sizes_text([x['size'] for x in fam])}")
    r.reason = "per size: " + "; ".join(f"{fmt_size(x['size'])} {x['direction']}" for x in fam)
    return r


def c6(run: Run) -> ClaimResult:
    r = ClaimResult("C6", "S2", "One-copy at 64 KB collapses from 4 to 8 threads",
                    "1/2/4/8 threads: 66.42, 62.95, 58.63, 23.73 Gbit/s")
    st = _stream(run)
    f = dict(method="sendmsg", size=64 * KiB)
    got = _pick(st, lambda d: _has(d, threads=8, **f) and _has(d, threads=4, **f))
    if got is None:
        r.reason = _why_missing(st, "stream", threads=[8], size=[64 * KiB], method=["sendmsg"]) \
            if not _has(st, threads=8, **f) else _why_missing(st, "stream", threads=[4], **f)
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, threads=8, **f), "gbit_per_s"),
                           values(select(d, threads=4, **f), "gbit_per_s"))
    _est(r, e)
    r.statistic = "throughput ratio 8 threads / 4 threads (one-copy, 64 KiB)"
    r.verdict = S.threshold_verdict(e, 0.7, above=False)
    r.configuration = _cfg(t, p, None, "TCP stream, 64 KiB")
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
    r.configuration = _cfg(t, p, 4, f"TCP stream, sizes {_sizes_text([x['size'] for x in fam])}")
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
    r.configuration = _cfg(t, p, 4, f"TCP stream, sizes {_sizes_text([x['size'] for x in fam])}")
    r.reason = "per size: " + "; ".join(f"{fmt_size(x['size'])} {x['direction']}" for x in fam)
    return r


def c10(run: Run) -> ClaimResult:
    r = ClaimResult("C10", "S3", "At 64 KB zero-copy latency is ~3.4x two-copy",
                    "65.54 us vs 19.22 us")
    pp = _pingpong(run)
    f = dict(size=64 * KiB, threads=1)
    got = _pick(pp, lambda d: _has(d, "rtt_p50_us", method="zerocopy", **f)
                and _has(d, "rtt_p50_us", method="send", **f))
    if got is None:
        r.reason = _why_missing(pp, "ping-pong", size=[64 * KiB], method=["zerocopy"]) \
            + " (zero-copy and two-copy RTT at 64 KiB)"
        return r
    d, t, p = got
    e = S.ratio_of_medians(values(select(d, method="zerocopy", **f), "rtt_p50_us"),
                           values(select(d, method="send", **f), "rtt_p50_us"))
    _est(r, e)
    r.statistic = "median RTT ratio zero-copy / two-copy (per-trial p50)"
    pub = 65.54 / 19.22
    r.verdict = S.approx_verdict(e, pub, APPROX_TOL)
    r.configuration = _cfg(t, p, 1, "TCP ping-pong, 64 KiB")
    r.reason = f"decision: holds if the CI lies within [{pub / APPROX_TOL:.2f}, {pub * APPROX_TOL:.2f}]"
    return r


def c11(run: Run) -> ClaimResult:
    r = ClaimResult("C11", "S3", "Best thread count is 2-4; 8 threads degrade super-linearly",
                    "qualitative")
    st = _stream(run)
    for size in (64 * KiB, 16 * KiB, 4 * KiB, 1 * KiB):
        f = dict(method="send", size=size)
        got = _pick(st, lambda d: all(_has(d, threads=k, **f) for k in (1, 2, 4, 8)))
        if got is None:
            continue
        d, t, p = got
        med = {k: float(np.median(values(select(d, threads=k, **f), "gbit_per_s")))
               for k in (1, 2, 4, 8)}
        best = max(med, key=lambda k: med[k])
        mid = 2 if med[2] >= med[4] else 4
        e = S.ratio_of_medians(values(select(d, threads=8, **f), "gbit_per_s"),
                               values(select(d, threads=mid, **f), "gbit_per_s"))
        _est(r, e)
        degrade = S.classify_ratio(e) == "less"
        r.verdict = HOLDS if best in (2, 4) and degrade else \
            REFUTED if best in (1, 8) or S.classify_ratio(e) in ("greater", "equivalent") \
            else INCONCLUSIVE
        r.statistic = f"throughput ratio 8 threads / best of 2 and 4 threads (= {mid})"
        r.configuration = _cfg(t, p, None, f"two-copy, TCP stream, {fmt_size(size)}")
        r.reason = (f"best thread count by median: {best}; 8 threads "
                    f"{'significantly lower' if degrade else 'not significantly lower'}; "
                    "super-linearity itself is not tested")
        return r
    r.reason = _why_missing(st, "stream", threads=[8], method=["send"]) \
        if not _has(st, threads=8, method="send") else \
        "no size with two-copy at 1, 2, 4 and 8 threads in this run"
    return r


def _file_ratio(run: Run, scenario: str, a: str, b: str) -> tuple[S.Estimate, str, int] | None:
    m = run.measured
    d = m[(m["scenario"] == scenario) & (m["cache"].isin(["warm", None]) | m["cache"].isna())]
    d = d[d["cache"] != "cold"]
    if scenario == "file→socket":
        d = d[d["transport"].isin(["loopback"])] if (d["transport"] == "loopback").any() else d
    sizes = sorted({int(s) for s in d["size"].dropna().unique()
                    if _has(d, method=a, size=s) and _has(d, method=b, size=s)}, reverse=True)
    if not sizes:
        return None
    s = sizes[0]
    sub = select(d, size=s)
    if scenario == "file→socket":
        got = _pick(sub, lambda x: _has(x, method=a) and _has(x, method=b),
                    transports=("loopback", "veth"))
        if got:
            sub, t, p = got
            where = f"{t}, {p}"
        else:
            where = "mixed"
    else:
        where = "file→file"
    e = S.ratio_of_medians(values(select(sub, method=a), "gbit_per_s"),
                           values(select(sub, method=b), "gbit_per_s"))
    return e, where, s


def c13(run: Run) -> ClaimResult:
    r = ClaimResult("C13", "S4", "Sending a 100 MB file over localhost TCP, sendfile() is "
                    "~1.42x faster than read()+sendall()", "695.33 MB/s vs 490.83 MB/s")
    got = _file_ratio(run, "file→socket", "sendfile", "read-write")
    if got is None:
        r.reason = "no file→socket cells with both sendfile and read-write (warm cache) in this run"
        return r
    e, where, s = got
    _est(r, e)
    pub = 695.33 / 490.83
    r.verdict = S.approx_verdict(e, pub, APPROX_TOL)
    r.statistic = "throughput ratio sendfile / read-write"
    r.configuration = f"{where}, warm cache, {fmt_size(s)} file, TCP"
    r.reason = (f"decision: holds if the CI lies within [{pub / APPROX_TOL:.2f}, "
                f"{pub * APPROX_TOL:.2f}]" + ("" if s >= 64 << 20 else
                                             f"; largest file in this run is {fmt_size(s)}, "
                                             "not 100 MB"))
    return r


def c14(run: Run) -> ClaimResult:
    r = ClaimResult("C14", "S5", "Splice through two pipes in parallel (dual pipe) copies a "
                    "file faster than splice through one pipe", "418.56 vs 65.60 B/ms")
    got = _file_ratio(run, "file→file", "splice2", "splice")
    if got is None:
        r.reason = "no file→file cells with both splice2 and splice (warm cache) in this run"
        return r
    e, where, s = got
    _est(r, e)
    cls = S.classify_ratio(e)
    r.verdict = {"greater": HOLDS, "less": REFUTED, "equivalent": REFUTED}.get(cls, INCONCLUSIVE)
    r.statistic = "throughput ratio splice2 (two pipes) / splice (one pipe)"
    r.configuration = f"{where}, warm cache, {fmt_size(s)} file"
    r.reason = (f"decision: holds if the CI lies above 1 + {S.PRACTICAL_THRESHOLD:.0%}; "
                f"ranking: {cls}; published ratio 6.38")
    return r


def copies_per_byte(run: Run) -> pd.DataFrame:
    """Measured CPU copies per byte for every profiled cell.

    copies = (copy-routine share of the busy CPU samples of the profiled trial, system-wide)
    x (CPU-seconds per byte of the cell's measured trials, sender + receiver) x (memcpy
    bytes per second). The CI covers the variation of CPU per byte over the measured trials
    (the share comes from the single profiled trial). For file→socket the count includes
    the receiver's one copy out of the socket into its user buffer, which the textbook
    table does not count; ``path_copies`` subtracts it."""
    prof = run.profiles.summary
    bw = memcpy_gbit(run.manifest)
    cols = ["method", "scenario", "transport", "size", "threads", "textbook", "copies", "lo",
            "hi", "path_copies", "path_lo", "path_hi", "copy_share_of_busy", "n", "cell"]
    if prof.empty or bw is None:
        return pd.DataFrame(columns=cols)
    m = run.measured
    rows = []
    for _, pr in prof.iterrows():
        trials = m[m["cell"] == pr["cell"]]
        if trials.empty or not math.isfinite(pr["copy_share_of_busy"]):
            continue
        cpu = (trials["sender_cpu_s"].astype(float)
               + trials["receiver_cpu_s"].astype(float).fillna(0.0)) / trials["bytes"].astype(float)
        e = S.median_ci(cpu.to_numpy())
        f = pr["copy_share_of_busy"] * bw / 8.0 * 1e9  # (1) x (s/B) x (B/s)
        first = trials.iloc[0]
        recv = 1.0 if first["scenario"] in ("file→socket", "message") and \
            first["receiver_cpu_s"] == first["receiver_cpu_s"] else 0.0
        allowed = TEXTBOOK_COPIES.get(first["method"])
        rows.append({"method": first["method"], "scenario": first["scenario"],
                     "transport": first["transport"], "size": first["size"],
                     "threads": first["threads"],
                     "textbook": "/".join(map(str, allowed)) if allowed else "—",
                     "copies": e.value * f, "lo": e.lo * f, "hi": e.hi * f,
                     "path_copies": e.value * f - recv, "path_lo": e.lo * f - recv,
                     "path_hi": e.hi * f - recv,
                     "copy_share_of_busy": pr["copy_share_of_busy"], "n": e.n,
                     "cell": pr["cell"]})
    return pd.DataFrame(rows, columns=cols) if rows else pd.DataFrame(columns=cols)


def c15(run: Run) -> ClaimResult:
    r = ClaimResult("C15", "S5", "CPU copies per technique: read+write 2, mmap+write 1, "
                    "sendfile 1 (0 with scatter-gather), splice 0 (context switches "
                    "4/4/2/2)", "table 1.1 (after Song & Alves-Foss 2012)")
    if memcpy_gbit(run.manifest) is None:
        r.reason = "no memcpy bandwidth in the manifest"
        return r
    if run.profiles.empty:
        r.reason = "no perf CPU profiles in this run"
        return r
    cp = copies_per_byte(run)
    cp = cp[(cp["scenario"] == "file→socket") & cp["method"].isin(list(TEXTBOOK_COPIES))]
    cp = cp[np.isfinite(cp["path_lo"].astype(float))] if len(cp) else cp
    if cp.empty:
        r.reason = ("no profiled file→socket cell of read-write, mmap-write, sendfile or "
                    "splice with repeated trials in this run")
        return r
    cp = cp.sort_values("size").groupby("method").tail(1)
    r.details = cp.to_dict("records")

    def dist(x: Any) -> float:
        return min(abs(x["path_copies"] - t) for t in TEXTBOOK_COPIES[x["method"]])

    def inside(x: Any) -> bool:
        return any(x["path_lo"] >= t - COPIES_TOL and x["path_hi"] <= t + COPIES_TOL
                   for t in TEXTBOOK_COPIES[x["method"]])

    def outside(x: Any) -> bool:
        return all(x["path_hi"] < t - COPIES_TOL or x["path_lo"] > t + COPIES_TOL
                   for t in TEXTBOOK_COPIES[x["method"]])

    worst = max(r.details, key=dist)
    r.value, r.lo, r.hi = worst["path_copies"], worst["path_lo"], worst["path_hi"]
    r.verdict = HOLDS if all(inside(x) for x in r.details) else \
        REFUTED if any(outside(x) for x in r.details) else INCONCLUSIVE
    r.statistic = (f"measured CPU copies per byte on the sending path, method farthest from "
                   f"the table: {worst['method']} (table: {worst['textbook']})")
    r.configuration = (f"file→socket, {worst['transport']}, sizes "
                       f"{_sizes_text(sorted(set(cp['size'])))}")
    r.reason = ("measured vs table: " + "; ".join(
        f"{x['method']} {x['path_copies']:.2f} vs {x['textbook']}" for x in r.details)
        + f"; decision: within ±{COPIES_TOL} of the table; the receiver's copy out of the "
        "socket is subtracted; context switches are not tested")
    return r


def placement_hypothesis(run: Run) -> tuple[ClaimResult, pd.DataFrame]:
    """Does CPU placement explain why S2 (C4, C5) and S3 (C8, C9) disagree?

    For each method pair (zero-copy vs two-copy, one-copy vs two-copy), each size and thread
    count present under both same-core and cross-core placement: the ranking under each
    placement and the ratio of ratios (same-core / cross-core) with a bootstrap CI.
    Holds if the ranking flips with placement somewhere; refuted if every ranking is
    determinate and the same under both placements; inconclusive otherwise."""
    r = ClaimResult("P1", "S2 vs S3", "CPU placement (same core vs different cores) explains "
                    "why the two PA02 reports rank the methods oppositely", "—")
    st = _stream(run)
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
                    fam = S.compare_family([x["same-core"], x["cross-core"]])
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


CLAIMS: tuple[Callable[[Run], ClaimResult], ...] = (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10,
                                                    c11, c12, c13, c14, c15)


def evaluate(run: Run) -> list[ClaimResult]:
    """Every claim's result. Missing data gives "not testable here" with the reason; an
    analysis bug raises (and fails the notebook, hence the book build)."""
    return [fn(run) for fn in CLAIMS]


def verdict_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    return pd.DataFrame([{"claim": r.claim, "source": r.source, "statement": r.statement,
                          "verdict": r.verdict, "statistic": r.statistic,
                          "estimate [95% CI]": r.ci_text(), "configuration": r.configuration,
                          "reason": r.reason, "published": r.published} for r in results])


def as_dict(r: ClaimResult) -> dict[str, Any]:
    return asdict(r)

"""File-transfer claims: C13 (S4, sendfile against read+send) and C14."""

from __future__ import annotations

from analysis import stats as S
from analysis.claims.base import (APPROX_TOL, HOLDS, INCONCLUSIVE, REFUTED, ClaimResult, has_data,
                                  pick_config, set_estimate)
from analysis.fmt import fmt_size
from analysis.run import Run, select, values


def _file_ratio(run: Run, scenario: str, a: str, b: str) -> tuple[S.Estimate, str, int] | None:
    m = run.measured
    d = m[(m["scenario"] == scenario) & (m["cache"].isin(["warm", None]) | m["cache"].isna())]
    d = d[d["cache"] != "cold"]
    if scenario == "file→socket":
        d = d[d["transport"].isin(["loopback"])] if (d["transport"] == "loopback").any() else d
    sizes = sorted({int(s) for s in d["size"].dropna().unique()
                    if has_data(d, method=a, size=s) and has_data(d, method=b, size=s)}, reverse=True)
    if not sizes:
        return None
    s = sizes[0]
    sub = select(d, size=s)
    if scenario == "file→socket":
        got = pick_config(sub, lambda x: has_data(x, method=a) and has_data(x, method=b),
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
    set_estimate(r, e)
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
    set_estimate(r, e)
    cls = S.classify_ratio(e)
    r.verdict = {"greater": HOLDS, "less": REFUTED, "equivalent": REFUTED}.get(cls, INCONCLUSIVE)
    r.statistic = "throughput ratio splice2 (two pipes) / splice (one pipe)"
    r.configuration = f"{where}, warm cache, {fmt_size(s)} file"
    r.reason = (f"decision: holds if the CI lies above 1 + {S.PRACTICAL_THRESHOLD:.0%}; "
                f"ranking: {cls}; published ratio 6.38")
    return r

"""Where zero-copy starts to pay: C3 (S1) and C5 (S2), the size at which zero-copy
throughput first reaches two-copy."""

from __future__ import annotations

import pandas as pd

from analysis import stats as S
from analysis.claims.base import (ClaimResult, KiB, config_text, has_data, pick_config, sizes_text,
                                  stream_cells, why_missing)
from analysis.fmt import fmt_size
from analysis.run import Run, select, values


def _crossover_claim(run: Run, r: ClaimResult, band: tuple[float, float],
                     threads: int = 1) -> ClaimResult:
    st = stream_cells(run)

    def enough(d: pd.DataFrame) -> bool:
        sz = [s for s in distinct_sizes(d, threads)
              if has_data(d, method="zerocopy", size=s, threads=threads)
              and has_data(d, method="send", size=s, threads=threads)]
        return len(sz) >= 2

    got = pick_config(st, enough)
    if got is None:
        r.reason = why_missing(st, "stream", threads=threads, method=["zerocopy"]) \
            if not has_data(st, method="zerocopy", threads=threads) else \
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
    r.configuration = config_text(t, p, threads, f"TCP stream, sizes {sizes_text(c.sizes)}")
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

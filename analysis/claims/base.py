"""What every claim test shares: verdict names, the result record, the published size
lists, and how a test picks its configuration from a run (the source's transport and
placement first, then the nearest the run has)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import pandas as pd

from analysis import stats as S
from analysis.fmt import fmt_num, fmt_size
from analysis.run import Run, select, values

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


def set_estimate(r: ClaimResult, e: S.Estimate) -> None:
    r.value, r.lo, r.hi = e.value, e.lo, e.hi


def stream_cells(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "stream") & (m["protocol"] != "udp")]


def pingpong_cells(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "pingpong")]


def pick_config(df: pd.DataFrame, need: Callable[[pd.DataFrame], bool],
          transports: Sequence[str] = TRANSPORT_PREF,
          placements: Sequence[str] = PLACEMENT_PREF) -> tuple[pd.DataFrame, str, str] | None:
    """The first (transport, placement) in preference order whose rows satisfy ``need``."""
    for t in transports:
        for p in placements:
            sub = df[(df["transport"] == t) & (df["placement"] == p)]
            if not sub.empty and need(sub):
                return sub, t, p
    return None


def has_data(df: pd.DataFrame, metric: str = "gbit_per_s", **f: Any) -> bool:
    return values(select(df, **f), metric).size >= 2


def why_missing(df: pd.DataFrame, what: str, **f: Any) -> str:
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


def config_text(transport: str, placement: str, threads: int | None = None, extra: str = "") -> str:
    parts = [transport, placement]
    if threads is not None:
        parts.append(f"{threads} thread{'s' if threads != 1 else ''}")
    if extra:
        parts.append(extra)
    return ", ".join(parts)


def sizes_text(sizes: Sequence[float]) -> str:
    return ", ".join(fmt_size(s) for s in sizes)

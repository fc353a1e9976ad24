"""Which side set a stream's rate, and where a file sender spent its CPU, in the book's words:
the threats' sentence on the cells copybench's receiver bounded (from
:mod:`analysis.statistics.bottleneck`) and the reading of the committed sender profile
(:mod:`analysis.comparison.senders`).
"""

from __future__ import annotations

import pandas as pd

from analysis.comparison.senders import METHODS, NOT_RECORDED, MethodProfile, SenderProfile
from analysis.statistics.bottleneck import BUSY, cell_limits
from analysis.statistics.fmt import fmt_pct, fmt_size


def receiver_limit_text(df: pd.DataFrame, size_text) -> str:
    """One sentence for the threats chapter: in how many of the run's TCP stream cells
    copybench's receiver, not the method, set the rate, and at which sizes and
    configurations (``size_text`` formats a size)."""
    by = ["method", "transport", "placement", "threads", "size"]
    lim = cell_limits(df, by)
    known = lim[lim["limit"] != "unknown"]
    if known.empty:
        return ("This run records no CPU figures for its stream cells, so which side set "
                "their rate cannot be read.")
    rec = known[known["limit"] == "receiver"]
    head = (f"copybench's receiver, not the method, set the rate in {len(rec)} of "
            f"{len(known)} TCP stream cells of this run (its thread busy at least "
            f"{BUSY:.0%} of the window and more than the sender's; same-core, the larger share "
            "of the CPU both share)")
    if rec.empty:
        return head + "; every result measures its sender or the path between the two."
    parts = []
    for (tr, pl), g in rec.groupby(["transport", "placement"], sort=True):
        sizes = ", ".join(size_text(s) for s in sorted(g["size"].unique()))
        parts.append(f"{tr} {pl}: {sizes}")
    return (head + ": " + "; ".join(parts) + ". There a ratio between methods is bounded "
            "by the receiver, not decided by the methods alone.")




def setup_text(p: SenderProfile, placement: str = "cross-core") -> str:
    """How the profile was taken, from its config: "sender on CPU 0, sink on CPU 1, 100 MB
    file"."""
    cpus = p.placed_on.get(placement, {})
    where = ", ".join(f"{side} on CPU {cpus[side]}" for side in ("sender", "sink") if side in cpus)
    return ", ".join(x for x in (where, f"{fmt_size(p.size)} file") if x)


def _stages_text(m: MethodProfile, top: int) -> str:
    ranked = sorted((s for s in m.stages if s.share > 0), key=lambda s: -s.share)[:top]
    return "; ".join(f"{s.stage}: {s.share:.0%}" for s in ranked)


def profile_text(p: SenderProfile, placement: str = "cross-core", top: int = 5) -> str:
    """The profile's reading: where each method's sender spent its CPU at ``placement``."""
    a, b = p.of(placement, METHODS[0]), p.of(placement, METHODS[1])
    if a is None or b is None:
        return (f"the committed sender profile ({p.path.name}) has no {placement} profile of "
                f"both {METHODS[0]} and {METHODS[1]}")
    where = (f"{p.cpu_model}, kernel {p.kernel}"
             + (f", congestion control {p.congestion_control}" if p.congestion_control else ""))
    pace = ""
    if a.pacing_timer_arms_per_gb and b.pacing_timer_arms_per_gb:
        pace = (f" The {METHODS[0]} sender armed TCP's pacing timer about "
                f"{a.pacing_timer_arms_per_gb:,.0f} times per GB sent, "
                f"{METHODS[1]}'s about {b.pacing_timer_arms_per_gb:,.0f}.")
    return (f"On {where} ({placement}, {a.rounds} rounds of each method, "
            f"{a.samples:,} and {b.samples:,} samples of the sending thread): the "
            f"{METHODS[0]} sender spent {a.copy_share:.0%} of its CPU in copy routines; its "
            f"time went to {_stages_text(a, top)}. The {METHODS[1]} sender spent "
            f"{b.copy_share:.0%} in copy routines ({_stages_text(b, top)})." + pace)


def c13_reading(table: pd.DataFrame) -> str:
    """C13's two methods in words, from the table of their sides
    (:func:`analysis.comparison.senders.table`): cross-core, per run and receive size,
    sendfile's sender CPU per GB against read-write's and the side that set each rate;
    same-core, in how many of the runs copybench's receiver set the rate of a method's cells,
    where a ratio of the two is not a test of the senders. "" for an empty table."""
    out = []
    cross = table[table["placement"] == "cross-core"] if len(table) else table
    by_run = []
    for (run, size), g in cross.groupby(["run", "receive size"], sort=False):
        s = g.set_index("method")
        if set(METHODS) <= set(s.index):
            a, b = s.loc[METHODS[0]], s.loc[METHODS[1]]
            at = "receive size not recorded" if size == NOT_RECORDED else f"receive size {size}"
            by_run.append(f"{run} ({at}): {METHODS[0]}'s sender {a['sender_cpu_s_per_gb']:.2f} "
                          f"CPU-s/GB against {b['sender_cpu_s_per_gb']:.2f}, the rate set by "
                          f"the {a['limit']} (against the {b['limit']})")
    if by_run:
        out.append("Cross-core: " + "; ".join(by_run) + ".")
    same = table[table["placement"] == "same-core"] if len(table) else table
    if len(same):
        # per run and receive size: whether the receiver set the rate of either method's cell
        by = (same["limit"] == "receiver").groupby([same["run"], same["receive size"]],
                                                    sort=False).any()
        n, k = len(by), int(by.sum())
        if k:
            at = same.set_index(["run", "receive size"]).loc[by[by].index]
            sf = at[at["method"] == METHODS[0]]
            busy = (f" ({METHODS[0]}'s sender busy {_span(sf['sender_busy'])} of the window, "
                    f"its receiver {_span(sf['receiver_busy'])})" if len(sf) else "")
            where = ("the one run and receive size" if n == 1 else
                     f"all {n} runs and receive sizes" if k == n else
                     f"{k} of the {n} runs and receive sizes")
            out.append(f"Same-core, copybench's receiver set the rate in {where}{busy}: there "
                       "the ratio is not a test of the senders, and C13 same-core reads "
                       "receiver-bound.")
        else:
            out.append("Same-core, the senders set the rate in every run.")
    return " ".join(out)


def _span(x: pd.Series) -> str:
    """A span of busy fractions: "8 %–19 %" (one value: "8 %")."""
    lo, hi = fmt_pct(float(x.min()), 0), fmt_pct(float(x.max()), 0)
    return lo if lo == hi else f"{lo}–{hi}"


"""Which side sets a stream's rate: the method's sender or copybench's own receiver, read from
each trial's CPU figures (utime + stime of a side's threads over the window, getrusage).

A side whose threads were busy at least :data:`BUSY` of the window on every CPU they had is
saturated: it could not have gone faster, so it sets the rate. Cross-core, each side has its
own CPU(s): the saturated side is the limit (the receiver when both are). Same-core, both
sides share one CPU, so their busy fractions add up to at most one: the side that takes the
larger share of that CPU sets the rate, provided the CPU was saturated at all.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

#: a side busy at least this fraction of the window, per CPU it had, is saturated
BUSY = 0.9
#: the labels, in the order a table explains them
LIMITS = ("receiver", "sender", "neither", "unknown")


def busy(df: pd.DataFrame) -> pd.DataFrame:
    """Per trial: ``sender_busy`` and ``receiver_busy``, CPU-seconds per window second per
    CPU the side had (its threads, at most its CPUs: a thread is pinned to one CPU)."""
    out = pd.DataFrame(index=df.index)
    secs = df["seconds"].astype(float)
    threads = df["threads"].fillna(1).astype(float)
    for side, ncol in (("sender", "n_cpus_sender"), ("receiver", "n_cpus_sink")):
        cpus = df[ncol].astype(float) if ncol in df else pd.Series(np.nan, index=df.index)
        share = np.fmin(threads, cpus.fillna(threads))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"{side}_busy"] = df[f"{side}_cpu_s"].astype(float) / secs / share
    return out


def limit(sender_busy: float, receiver_busy: float, placement: str) -> str:
    """Which side set the rate (one of :data:`LIMITS`), from the two sides' busy fractions."""
    if not (math.isfinite(sender_busy) and math.isfinite(receiver_busy)):
        return "unknown"
    if placement == "same-core":
        if sender_busy + receiver_busy < BUSY:
            return "neither"
        return "receiver" if receiver_busy > sender_busy else "sender"
    if receiver_busy >= BUSY and receiver_busy >= sender_busy:
        return "receiver"
    return "sender" if sender_busy >= BUSY else "neither"


def cell_limits(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per cell (``by``, which must include ``placement``): the median busy fraction of each
    side and the side that set the rate, read from those medians."""
    cols = [*by, "sender_busy", "receiver_busy", "limit"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    b = pd.concat([df[list(by)], busy(df)], axis=1)
    med = b.groupby(list(by), dropna=False, sort=True)[["sender_busy", "receiver_busy"]] \
        .median().reset_index()
    med["limit"] = [limit(s, r, p) for s, r, p in
                    zip(med["sender_busy"], med["receiver_busy"], med["placement"])]
    return med[cols]


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

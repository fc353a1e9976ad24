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
import weakref
from typing import Any, Mapping, Protocol, Sequence

import numpy as np
import pandas as pd

from decision import reading as RD


class Run(Protocol):
    """What this module reads of a run (:class:`analysis.loading.run.Run`): its measured
    trials, one row each, with their CPU figures."""

    @property
    def measured(self) -> pd.DataFrame: ...

#: a side busy at least this fraction of the window, per CPU it had, is saturated
BUSY = 0.9
#: the labels, in the order a table explains them (the reading's, decision.reading)
LIMITS = RD.BOUNDS
#: the scenarios whose stream cells have copybench's sender and receiver on two sides of a
#: socket, so a side's busy fraction says which set the rate: a message stream, and a file
#: sent into a socket (sendfile, read-write, ...; the sink is the same receiver). A
#: file→file copy has no receiver.
SCENARIOS = ("message", "file→socket")
#: the factors of one stream cell in the run's table of sides (:func:`run_limits`)
CELL = ("scenario", "method", "transport", "protocol", "placement", "cache", "threads", "size",
        "duration_s")
#: the factors a frame may lack, and what their absence means (a frame without a scenario
#: holds message cells; a message cell has no cache state)
_ABSENT = {"scenario": "message", "cache": None}
#: the CPU figures a side's busy fraction is read from
_CPU = ("seconds", "sender_cpu_s", "receiver_cpu_s")


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
        return RD.UNKNOWN
    if placement == "same-core":
        if sender_busy + receiver_busy < BUSY:
            return RD.NEITHER
        return RD.RECEIVER if receiver_busy > sender_busy else RD.SENDER
    if receiver_busy >= BUSY and receiver_busy >= sender_busy:
        return RD.RECEIVER
    return RD.SENDER if sender_busy >= BUSY else RD.NEITHER


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


#: each run's table of sides, computed once per run (a run is dropped with its last reference)
_LIMITS: dict[int, tuple[Any, dict[tuple[Any, ...], str]]] = {}


def _key(values: Sequence[Any]) -> tuple[Any, ...]:
    """A cell's key with its missing factors as None and its numbers as floats, so the
    table's keys and a comparison's match whatever their dtypes."""
    out: list[Any] = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            out.append(None)
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            out.append(float(v))
        else:
            out.append(str(v))
    return tuple(out)


def _cells(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the factors it lacks that may be absent (:data:`_ABSENT`) as their
    absence means."""
    missing = {k: v for k, v in _ABSENT.items() if k not in df}
    return df.assign(**missing) if missing and len(df.columns) else df


def run_limits(run: Run) -> dict[tuple[Any, ...], str]:
    """The side that set the rate of each of the run's stream cells of :data:`SCENARIOS`
    (key: the scenario and :data:`CELL` -> one of :data:`LIMITS`), read from the medians of
    its trials' busy fractions (:func:`cell_limits`); computed once per run and kept while
    the run lives. A run whose records carry no CPU figures has an empty table (every cell
    unknown)."""
    got = _LIMITS.get(id(run))
    if got is not None and got[0]() is run:
        return got[1]
    m = _cells(run.measured)
    st = m[m["scenario"].isin(SCENARIOS) & (m["mode"] == "stream")] if len(m) else m
    table: dict[tuple[Any, ...], str] = {}
    if len(st) and all(c in st for c in (*_CPU, *CELL)):
        lim = cell_limits(st, list(CELL))
        table = {_key(k): str(v) for k, v in
                 zip(lim[list(CELL)].itertuples(index=False, name=None), lim["limit"])}
    key = id(run)
    _LIMITS[key] = (weakref.ref(run, lambda _r, k=key: _LIMITS.pop(k, None)), table)
    return table


def cells_bound(run: Run, cells: pd.DataFrame) -> str:
    """The side that set the rate of a comparison resting on the trials ``cells`` (both of
    its cells' trials): :func:`decision.reading.bound` of their cells' sides in the run's
    table (:func:`run_limits`); a cell the table lacks is unknown."""
    cells = _cells(cells)
    if cells.empty or not all(c in cells for c in CELL):
        return RD.UNKNOWN
    table = run_limits(run)
    keys = {_key(k) for k in cells[list(CELL)].itertuples(index=False, name=None)}
    return RD.bound(table.get(k, RD.UNKNOWN) for k in keys)


def cell_bound(run: Run, cell: Mapping[str, Any]) -> str:
    """The side that set the rate of one stream cell (its factors :data:`CELL` in ``cell``,
    those it lacks as :data:`_ABSENT` says; an empty factor is a missing one) in the run's
    table (:func:`run_limits`); a cell the table lacks (not a stream cell of
    :data:`SCENARIOS`, or no CPU figures) is unknown."""
    full = {**_ABSENT, **cell}
    if full["scenario"] not in SCENARIOS or cell.get("mode", "stream") != "stream":
        return RD.UNKNOWN
    key = _key([None if full.get(k) == "" else full.get(k) for k in CELL])
    return run_limits(run).get(key, RD.UNKNOWN)


def comparison_bounds(run: Run, tab: pd.DataFrame, baseline: str) -> list[str]:
    """Per row of a table of comparisons of a method against ``baseline`` (each row with its
    ``method``, ``size`` and the cell factors of :data:`CELL` the table has): the side that
    set the rate of its two cells (:func:`decision.reading.bound`). A factor the table does
    not have (a file table has no window) spans every cell of the run's table that it names:
    each of them bounds the row."""
    if tab.empty:
        return []
    table = run_limits(run)
    has = [i for i, k in enumerate(CELL) if k in tab or k in _ABSENT or k == "method"]
    cells: dict[tuple[Any, ...], list[str]] = {}
    for k, v in table.items():
        cells.setdefault(tuple(k[i] for i in has), []).append(v)
    out = []
    for r in tab.to_dict("records"):
        sides: list[str] = []
        for meth in (r["method"], baseline):
            cell = {**_ABSENT, **{k: r[k] for k in CELL if k in r}, "method": meth}
            sides += cells.get(_key([cell[CELL[i]] for i in has]), [RD.UNKNOWN])
        out.append(RD.bound(sides))
    return out



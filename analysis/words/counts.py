"""The one owner of every count the book prints: how many comparisons of the message
methods against ``send`` there are and how each was decided, the same in the message
chapter's reference configuration, and how many claim verdicts there are in each state.

Every chapter that prints one of these numbers takes it from :func:`book_counts` (the
abstract, the findings, the introduction, the message chapter, the claims chapter, the
replication chapter), so no two pages can disagree on a count: the sets are defined here
once.

* **message comparisons**: the decision map's rows (:func:`map_comparisons`): every message
  method against two-copy ``send`` (TCP and the UDP forwarding path), at the run's lowest
  thread count, in every configuration measured at two sizes or more, one per method, size,
  transport and placement (of a size measured with two windows, the comparison with more
  rounds; the tables give both); family: the sizes of one method in one configuration and
  window (:func:`analysis.claims.baselines.baseline_comparisons`);
* **reference comparisons**: every message method against ``send`` (TCP stream) in the
  message chapter's reference configuration (the most-populated transport and placement,
  :func:`analysis.loading.run.reference`, on the cells at one window each), every thread count,
  one family per (method, thread count, window);
* **verdicts**: every claim verdict (one per claim, reading, placement and measurement:
  copybench's or the report's own program), per state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd

from analysis.loading import run as A
from analysis.claims.base import (MAGNITUDES, VERDICTS, ClaimResult,
                                  stream_cells)
from analysis.claims.baselines import baseline_comparisons, file_comparisons
from analysis.statistics import bottleneck as BN
from analysis.statistics.fmt import fmt_band, fmt_pct
from decision import reading as RD
from decision.band import SESOI

#: the configuration of one family of message comparisons
MSG_FACTORS = ("transport", "protocol", "placement", "threads", "duration_s")
#: the same in the reference configuration (every thread count)
REF_FACTORS = ("transport", "placement", "threads", "duration_s")
OUTCOMES = ("greater", "less", "equivalent", "inconclusive")
#: the verdict states of a claim this run did not test
UNTESTED = ("not testable here", "not run in this profile")


@dataclass(frozen=True)
class Tally:
    """How the comparisons of one set were read (:mod:`decision.reading`): those read as a
    decision, direction and size apart (decision.rule.direction_and_size): beyond the band
    (``greater``, ``less``), inside it (``equivalent``), a decided direction whose size is
    open (``faster_open``, ``slower_open``: the CI excludes 1 but crosses the band's edge) and
    ``undecided`` (the CI holds 1 and crosses an edge); and those not read as one:
    ``not_read`` (fewer rounds than the design's minimum) and ``receiver_bound`` (a cell
    copybench's receiver set the rate of). A table without the reading's ``read`` column
    is read whole."""

    n: int = 0
    greater: int = 0
    less: int = 0
    equivalent: int = 0
    undecided: int = 0
    faster_open: int = 0
    slower_open: int = 0
    not_read: int = 0
    receiver_bound: int = 0

    @classmethod
    def of(cls, tab: pd.DataFrame) -> "Tally":
        if tab.empty:
            return cls()
        read = tab["read"] if "read" in tab else pd.Series("", index=tab.index)
        nr, rb = int((read == RD.NOT_READ).sum()), int((read == RD.RECEIVER_BOUND).sum())
        t = tab[~read.isin(RD.UNREAD)]
        d = t["decision"].value_counts()
        direction = t["direction"] if "direction" in t else \
            pd.Series("undecided", index=t.index)
        open_ = t["decision"] == "inconclusive"
        fo = int((open_ & (direction == "faster")).sum())
        so = int((open_ & (direction == "slower")).sum())
        return cls(len(tab), int(d.get("greater", 0)), int(d.get("less", 0)),
                   int(d.get("equivalent", 0)), int(d.get("inconclusive", 0)) - fo - so, fo, so,
                   nr, rb)

    @property
    def directions(self) -> int:
        """Comparisons whose direction is decided (the CI excludes 1), of any size."""
        return self.greater + self.less + self.faster_open + self.slower_open

    def _parts(self) -> list[tuple[str, int]]:
        return [(f"faster by more than {fmt_pct(SESOI, 0)}", self.greater),
                (f"slower by more than {fmt_pct(SESOI, 0)}", self.less),
                ("faster (size open)", self.faster_open),
                ("slower (size open)", self.slower_open),
                (f"equivalent (within {fmt_band()})", self.equivalent),
                ("undecided", self.undecided)] + [
                (w, k) for w, k in ((f"{RD.NOT_READ} (under the design's minimum rounds)",
                                     self.not_read), (RD.RECEIVER_BOUND, self.receiver_bound))
                if k]

    def by_outcome(self) -> str:
        """"slower by more than 12 % in 19, undecided in 4 of 23 comparisons" (the outcomes
        that occur)."""
        parts = [f"{w} in {k}" for w, k in self._parts() if k]
        return ", ".join(parts) + f" of {self.n} comparison{'s' if self.n != 1 else ''}"

    def unread_text(self, rounds_min: int, what: str = "the decision map's") -> str:
        """Why the findings do not read some of these comparisons: "Of the decision map's 99
        comparisons, 11 rest on fewer than 6 rounds, the design's minimum, and 21 rest on a
        cell copybench's receiver set the rate of (not a test of the sender): ..."."""
        why = ([f"{self.not_read} rest on fewer than {rounds_min} rounds, the design's "
                "minimum"] if self.not_read else []) + (
            [f"{self.receiver_bound} rest on a cell copybench's receiver set the rate of (not "
             "a test of the sender)"] if self.receiver_bound else [])
        if not why:
            return (f"Every comparison of {what} rests on at least {rounds_min} rounds, the "
                    "design's minimum, and on cells copybench's receiver did not set the rate "
                    "of.")
        return (f"Of {what} {self.n} comparisons, {', and '.join(why)}: the map and the tables "
                "show them, the findings do not read them.")

    def text(self) -> str:
        """"0 faster by more than 12 %, 55 slower by more than 12 %, 0 faster (size open),
        9 slower (size open), 0 equivalent (within ±12 %) and 41 undecided of 105
        comparisons"."""
        if not self.n:
            return "no comparison"
        parts = [f"{k} {w}" for w, k in self._parts()]
        return (", ".join(parts[:-1]) + f" and {parts[-1]} of {self.n} comparison"
                + ("s" if self.n != 1 else ""))


@dataclass(frozen=True)
class BookCounts:
    message: Tally
    reference: Tally
    reference_config: str  # "loopback, cross-core" (or "" when the run has no stream cells)
    threads: tuple[int, ...]  # the thread counts of the message comparisons
    verdicts: dict[str, int] = field(default_factory=dict)  # state -> verdicts (direction)
    claims: int = 0  # the claims those verdicts are for
    magnitude: dict[str, int] = field(default_factory=dict)  # state -> published-number verdicts
    #: the map's rows of each method that a finding may read (the findings appendix's summary
    #: names the slower methods' tallies)
    by_method: dict[str, Tally] = field(default_factory=dict)
    #: the map's rows resting on at least the design's minimum rounds (those the findings read)
    read: Tally = field(default_factory=Tally)
    #: of those, the zero-copy methods' rows on the transports where the kernel copied every
    #: completion (their copying fallback: the abstract counts them)
    fallback: Tally = field(default_factory=Tally)

    @property
    def n_verdicts(self) -> int:
        return sum(self.verdicts.values())

    @property
    def testable(self) -> int:
        """The verdicts on claims testable here (neither not testable nor not run)."""
        return self.n_verdicts - sum(self.verdicts.get(v, 0) for v in UNTESTED)

    def glue(self) -> dict[str, str]:
        """Every count as the text the book glues, by name."""
        out = {"count_msg": str(self.message.n), "count_msg_text": self.message.text(),
               "count_ref": str(self.reference.n), "count_ref_text": self.reference.text(),
               "count_ref_undecided": f"{self.reference.undecided} of {self.reference.n}",
               "count_ref_config": self.reference_config or "none (no stream cells)",
               "count_verdicts": str(self.n_verdicts), "count_claims": str(self.claims)}
        for k in ("greater", "less", "equivalent", "undecided", "faster_open", "slower_open",
                  "directions", "not_read", "receiver_bound"):
            out[f"count_msg_{k}"] = str(getattr(self.message, k))
        for v in VERDICTS:
            out[f"count_{v.replace(' ', '_')}"] = str(self.verdicts.get(v, 0))
        for v in MAGNITUDES:
            out[f"count_magnitude_{v.replace(' ', '_')}"] = str(self.magnitude.get(v, 0))
        out["count_magnitude"] = str(sum(self.magnitude.values()))
        return out


def with_sizes(tab: pd.DataFrame, factors: Sequence[str], least: int = 2) -> pd.DataFrame:
    """The rows of configurations measured at ``least`` sizes or more."""
    if tab.empty:
        return tab
    n = tab.groupby(list(factors), dropna=False)["size"].transform("nunique")
    return tab[n >= least]


def message_table(run: A.Run, baseline: str = "send") -> pd.DataFrame:
    """Every message method against ``baseline`` (``send``, or ``sendmsg`` for the methods
    that avoid its one kernel copy) at the run's lowest thread count, in every configuration,
    single-size ones included, each with its reading (the findings' tables of every
    comparison)."""
    cells = stream_cells(run, udp=True)
    if cells.empty:
        return pd.DataFrame()
    one = cells[cells["threads"] == int(cells["threads"].min())]
    methods = [m for m in A.MESSAGE_METHODS if baseline == "send" or m != "send"]
    return with_readings(run, baseline_comparisons(run, one, baseline, methods, MSG_FACTORS),
                         baseline)


def file_table(run: A.Run) -> pd.DataFrame:
    """Every file method against ``read-write`` on each path, placement and cache state
    (:func:`analysis.claims.baselines.file_comparisons`), each with its reading: a file sent
    into a socket has copybench's receiver on the other side, so it can be receiver-bound as
    a message stream can; a file→file copy has no receiver (its side unknown)."""
    return with_readings(run, file_comparisons(run), "read-write")


def with_readings(run: A.Run, tab: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """``tab`` (comparisons of methods against ``baseline``, throughput) with each row's one
    reading (:mod:`decision.reading`): ``bound`` (which side set the rate of its two cells,
    from the run's table of sides, :func:`analysis.statistics.bottleneck.run_limits`),
    ``under_minimum`` (its rounds ``n`` below the design's minimum) and ``read`` (not read,
    receiver-bound, or its decision)."""
    if tab.empty:
        return tab
    rmin = run.rounds_min
    bounds = BN.comparison_bounds(run, tab, baseline)
    n = pd.to_numeric(tab["n"], errors="coerce") if "n" in tab else \
        pd.Series(float("nan"), index=tab.index)
    under = [RD.under_minimum(x, rmin) for x in n]
    return tab.assign(bound=bounds, under_minimum=under,
                      read=[RD.reading(d, b, u) for d, b, u in
                            zip(tab["decision"], bounds, under)])


def message_comparisons(run: A.Run, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The message comparisons the book counts (see the module doc): :func:`message_table`
    (or ``table``, computed by it) in the configurations measured at two sizes or more."""
    return with_sizes(message_table(run) if table is None else table, MSG_FACTORS)


#: the factors of one row of the decision map besides the method and size (the window is
#: not one: of two windows at one size, the map shows the comparison with more rounds)
MAP_FACTORS = ("transport", "protocol", "placement", "threads")


#: the factors of one comparison besides the method and size, in every table of comparisons
#: (message and file paths alike; those a table has): the window is not one
ONE_PER_SIZE = ("scenario", "transport", "protocol", "placement", "cache", "threads")


def one_per_size(tab: pd.DataFrame) -> pd.DataFrame:
    """One comparison per method, size and configuration (:data:`ONE_PER_SIZE`, those
    ``tab`` has): where a size was measured with two windows, the one with more rounds
    ``n`` (the later row of a tie); in ``tab``'s order. The decision map, its counts and
    the findings all take their rows from here."""
    if tab.empty:
        return tab
    keys = ["method", "size", *(k for k in ONE_PER_SIZE if k in tab)]
    n = pd.to_numeric(tab["n"], errors="coerce").fillna(0) if "n" in tab else 0
    return (tab.assign(_n=n).sort_values("_n", kind="stable")
            .drop_duplicates(keys, keep="last").drop(columns="_n").sort_index())


def map_comparisons(run: A.Run, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The decision map's rows, the comparisons the book counts: :func:`message_comparisons`
    with one comparison per method, size and configuration (:func:`one_per_size`), each
    with its reading (:func:`with_readings`)."""
    return one_per_size(message_comparisons(run, table))


def reference_cells(run: A.Run) -> pd.DataFrame:
    """The message chapter's TCP stream cells, one window per configuration."""
    m = run.measured
    st = m[(m["scenario"] == "message") & (m["mode"] == "stream")]
    return A.one_window(st[st["protocol"] != "udp"])


def reference_comparisons(run: A.Run) -> tuple[pd.DataFrame, str]:
    """The comparisons in the message chapter's reference configuration, and its name."""
    tcp = reference_cells(run)
    t, p = A.reference(tcp)
    if t is None:
        return pd.DataFrame(), ""
    d = tcp[(tcp["transport"] == t) & (tcp["placement"] == p)]
    return baseline_comparisons(run, d, "send", A.MESSAGE_METHODS, REF_FACTORS), f"{t}, {p}"


def book_counts(run: A.Run, results: Sequence[ClaimResult],
                table: pd.DataFrame | None = None) -> BookCounts:
    """Every count the book prints, from the run and its claim verdicts (``table``: the
    run's :func:`message_table`, where the caller has it already)."""
    msg = map_comparisons(run, table)
    ref, config = reference_comparisons(run)
    threads = tuple(sorted(int(t) for t in msg["threads"].unique())) if len(msg) else ()
    return BookCounts(Tally.of(msg), Tally.of(ref), config, threads,
                      {v: sum(r.verdict == v for r in results) for v in VERDICTS},
                      len({r.claim for r in results}),
                      {v: sum(r.magnitude == v for r in results) for v in MAGNITUDES},
                      method_tallies(read_rows(msg, run.rounds_min)),
                      Tally.of(read_rows(msg, run.rounds_min)),
                      Tally.of(fallback_rows(read_rows(msg, run.rounds_min),
                                             copied_in_full(run))))


#: the methods whose sends complete with a notification saying whether the kernel copied
COMPLETION_METHODS = ("zerocopy", "uring-zc")


def copied_in_full(run: A.Run) -> tuple[str, ...]:
    """The transports on which the kernel copied every completion of the zero-copy methods
    (``zc_copied`` equal to ``zc_completions``, summed over their trials)."""
    m = run.measured
    if "zc_completions" not in m:
        return ()
    zc = m[m["method"].isin(COMPLETION_METHODS) & m["zc_completions"].fillna(0).gt(0)]
    return tuple(str(t) for t, g in zc.groupby("transport")
                 if g["zc_copied"].sum() >= g["zc_completions"].sum())


def fallback_rows(tab: pd.DataFrame, transports: Sequence[str]) -> pd.DataFrame:
    """The zero-copy methods' comparisons on ``transports`` (where they ran their copying
    fallback)."""
    if tab.empty:
        return tab
    return tab[tab["method"].isin(COMPLETION_METHODS) & tab["transport"].isin(transports)]


def read_rows(tab: pd.DataFrame, rounds_min: int) -> pd.DataFrame:
    """The comparisons a finding may read: those resting on at least ``rounds_min`` rounds
    (``n``) and, where the table carries its readings (:func:`with_readings`), not
    receiver-bound (:func:`analysis.words.advice.readable` applies the same test)."""
    if tab.empty or "n" not in tab:
        return tab
    ok = pd.to_numeric(tab["n"], errors="coerce").fillna(0) >= rounds_min
    if "read" in tab:
        ok &= tab["read"] != RD.RECEIVER_BOUND
    return tab[ok]


def method_tallies(tab: pd.DataFrame) -> dict[str, Tally]:
    """Each method's :class:`Tally` within a set of comparisons."""
    if tab.empty:
        return {}
    return {str(m): Tally.of(g) for m, g in tab.groupby("method", sort=True)}


__all__ = ["Tally", "BookCounts", "book_counts", "message_table", "file_table",
           "message_comparisons",
           "map_comparisons", "MAP_FACTORS", "one_per_size", "with_readings",
           "reference_comparisons", "reference_cells", "with_sizes", "method_tallies",
           "MSG_FACTORS"]

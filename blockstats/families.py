"""The runner's views of the claims' rule table (:mod:`blockstats.claimtable`), which both sides
import: the analysis's rules (analysis.claims.rules) read each comparison of a verdict at
alpha/m with m from the table, and the runner's sequential top-up (runner.topup) stops a
comparison at the same m, so a comparison is never stopped at one family and read at another.

A verdict's family is the set of comparisons it combines (C4's four sizes, C5's two, ...).
Two families are counted from the run instead of fixed: C14's is the number of file sizes
its plan declares (:data:`SIZES`), P1's twice the (pair, threads, size) cells measured under
both placements (:data:`PLACEMENT_CELLS`, :func:`p1_family`).

:data:`READS` says which declared comparison ("a/b" of two methods, "Nt/Mt" of two thread
counts) each claim reads, so a comparison an experiment declares for several claims takes
the families of the claims that read it, not of every claim the experiment serves.

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from blockstats import claimtable as T
from blockstats.claimtable import (BEST_THREADS, CROSSOVER, EQUIVALENT, EVERY, FAMILY,  # noqa: F401
                                   FLIP, GREATER, LESS, OUTCOMES, PLACEMENT_CELLS, SIZES,
                                   THREADS)

#: the table's verdicts the runner tops up: those not read on hardware counters
_TOPPED = tuple(r for r in T.TABLE if not r.counter)


def _union(xs: Iterable[tuple]) -> tuple:
    return tuple(dict.fromkeys(x for t in xs for x in t))


#: claim -> the declared comparisons its rules read
READS: dict[str, tuple[str, ...]] = {
    c: _union(r.comparisons for r in _TOPPED if r.claim == c)
    for c in dict.fromkeys(r.claim for r in _TOPPED)}


#: claims whose reading of the reports' own programs is the latency their program prints, by
#: its own definition (S1: the window over the messages received; S3: the mean time of one
#: recv()), not the throughput the runner reads: the top-up never reads their programs'
#: comparisons for them (analysis.claims.originals.their_rule; a test holds the two equal)
THEIR_OWN_METRIC: tuple[str, ...] = ("C1", "C10")

#: claim -> the sizes (bytes) at which its rules read their comparisons; a claim not listed
#: reads every size its experiments declare (C3's crossover, C14, P1)
READ_SIZES: dict[str, tuple[int, ...]] = {
    c: tuple(sorted(_union(r.sizes for r in _TOPPED if r.claim == c))) for c in READS
    if all(r.sizes for r in _TOPPED if r.claim == c)}


def fixed(claim: str) -> int:
    """A claim's family where the table fixes it (KeyError/ValueError otherwise)."""
    m = FAMILY[claim]
    if not isinstance(m, int):
        raise ValueError(f"{claim}'s family is counted from the run ({m}), not fixed")
    return m


def p1_family(cells: int) -> int:
    """P1's family: one ordering per placement of each of ``cells`` cells searched."""
    return 2 * max(1, int(cells))


def family(claim: str, sizes: int = 0, placement_cells: int = 0) -> int:
    """A claim's family: the table's number, or counted from the run (``sizes``: the file
    sizes its plan declares; ``placement_cells``: P1's cells under both placements)."""
    m = FAMILY[claim]
    if m == SIZES:
        return max(1, int(sizes))
    if m == PLACEMENT_CELLS:
        return p1_family(placement_cells)
    return int(m)


def readers(comparison: str, claims: Iterable[str], size: int | None = None) -> list[str]:
    """The claims among ``claims`` whose rules read the declared comparison (at ``size``,
    where given: :data:`READ_SIZES`)."""
    return [c for c in claims if comparison in READS.get(c, ())
            and (size is None or c not in READ_SIZES or int(size) in READ_SIZES[c])]


# ------------------------------------------------------------- applicability at plan time

PMU, CPU_PER_THREAD, PARALLEL = "pmu", "cpu_per_thread", "parallel"

#: claim -> what the testbed must offer for its rules to test it: (kind, threads). The
#: analysis's rules declare the same conditions (analysis.claims.rules.Applicability; a test
#: holds the two equal); the runner reads them here to know before the run which claims
#: this machine cannot test.
CONDITIONS: dict[str, tuple[tuple[str, int], ...]] = {
    "C2": ((PMU, 0),), "C7": ((PMU, 0),), "C12": ((PMU, 0),),
    "C6": ((CPU_PER_THREAD, 8),), "C11": ((CPU_PER_THREAD, 8),),
    "C14": ((PARALLEL, 2),),
}


def cpus_needed(kind: str, threads: int, placement: str | None) -> int:
    """CPUs a configuration needs for the condition (a CPU per thread and side: ``threads``
    same-core, twice that cross-core; parallel threads: ``threads``)."""
    if kind == CPU_PER_THREAD:
        return threads * (1 if placement == "same-core" else 2)
    if kind == PARALLEL:
        return threads
    return 0


def untestable(claim: str, placement: str | None, cpus: int,
               pmu: bool | None = None) -> str | None:
    """Why a machine with ``cpus`` CPUs (and hardware counters or not; None: unknown) cannot
    test ``claim`` at ``placement``, or None where it can (or the claim has no condition)."""
    for kind, n in CONDITIONS.get(claim, ()):
        if kind == PMU:
            if pmu is False:
                return f"{claim} needs hardware cache counters (a PMU); this machine has none"
            continue
        if kind == PARALLEL and placement == "same-core":
            return (f"{claim} needs {n} CPUs for the method's {n} threads; the same-core "
                    "placement puts them on one CPU by definition")
        need = cpus_needed(kind, n, placement)
        if cpus < need:
            what = (f"a CPU per thread and side ({n} threads, {placement}: {need} CPUs)"
                    if kind == CPU_PER_THREAD else f"{need} CPUs for its {n} parallel threads")
            return f"{claim} needs {what}; this machine has {cpus}"
    return None


# ------------------------------------------- how a verdict combines its comparisons

#: a verdict the table does not model: decided only when every comparison it reads is
ALL = "all decided"


@dataclass(frozen=True)
class Reading:
    """One verdict of a claim (one rule of analysis.claims.rules, per placement), as the
    top-up's order models when it is decided: how it combines its comparisons and, per
    size, the outcomes of a comparison (in the rule's own ratio) that agree with it."""

    label: str  # the rule's reading ("" where the claim has one rule)
    combine: str
    mode: str | None = None  # the cells' mode it reads ("stream", "pingpong"; None: any)
    sizes: tuple[int, ...] = ()  # the sizes of ``expected`` (): one outcome set for every size
    expected: tuple[frozenset[str], ...] = ()
    #: the rule's ratio is the inverse of the cells' primary ratio (time per message
    #: against Gbit/s): its "greater" is the comparison's "less"
    inverse: bool = False
    band_hi: int = 0  # CROSSOVER: sizes above it must be decided greater

    def contrary(self, size: int | None) -> frozenset[str]:
        """The outcomes of the comparison at ``size`` (in the rule's ratio) that decide the
        verdict against the claim by themselves; empty where no single comparison can."""
        if self.combine in (EVERY, THREADS):
            if not self.sizes:
                return OUTCOMES - self.expected[0]
            if size is None or int(size) not in self.sizes:
                return frozenset()
            return OUTCOMES - self.expected[self.sizes.index(int(size))]
        if self.combine == CROSSOVER:
            return frozenset({LESS, EQUIVALENT}) if size is not None and \
                int(size) > self.band_hi else frozenset()
        return frozenset()


def _reading(r: T.Row, alone: bool) -> Reading:
    """A row of the table as the top-up's order reads it: one outcome set for every size where
    the row expects the same at each."""
    same = len(set(r.expected)) <= 1
    return Reading("" if alone else r.reading, r.combine,
                   r.mode if r.mode in ("stream", "pingpong") else None,
                   () if same else r.sizes, r.expected[:1] if same else r.expected,
                   r.inverse, r.crossover[1])


#: claim -> its verdicts as the top-up's order models them (the table's rows of the claims
#: whose comparisons the runner reads)
READINGS: dict[str, tuple[Reading, ...]] = {
    c: tuple(_reading(r, len(T.rows(c)) == 1) for r in T.rows(c)) for c in READS}


@dataclass(frozen=True)
class Serves:
    """A verdict a comparison serves, as the top-up's order reads it: the verdict's name,
    its combination, the outcomes of this comparison (in the rule's ratio) that refute it
    by themselves, and whether the rule's ratio is the comparison's inverse."""

    verdict: str  # "C4 cross-core", "C9 [at best ~52 %] same-core"
    combine: str
    contrary: frozenset[str] = frozenset()
    inverse: bool = False


def serves(claims: Iterable[str], mode: str | None, size: int | None,
           placement: str) -> tuple[Serves, ...]:
    """The verdicts a comparison of cells in ``mode`` at ``size`` serves for ``claims`` (the
    claims testable here whose rules read it) at ``placement``: one per reading of each
    claim that reads cells of that mode (a claim without :data:`READINGS` keeps one verdict
    whose comparisons must all be decided)."""
    out: list[Serves] = []
    for c in claims:
        rs = READINGS.get(c)
        if not rs:
            out.append(Serves(" ".join(x for x in (c, placement) if x), ALL))
            continue
        mine = [r for r in rs if r.mode is None or mode is None or r.mode == mode]
        for r in mine:
            label = f"[{r.label}]" if r.label and len(rs) > 1 else ""
            name = " ".join(x for x in (c, label, placement) if x)
            out.append(Serves(name, r.combine, r.contrary(size), r.inverse))
    return tuple(out)

"""The decision family of every claim, in one table that both sides import: the analysis's
rules (analysis.claims.rules) read each comparison of a verdict at alpha/m with m from here,
and the runner's sequential top-up (runner.topup) stops a comparison at the same m, so a
comparison is never stopped at one family and read at another.

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

#: the family is the number of file sizes the run's plan declares for the claim
SIZES = "sizes"
#: the family is twice the cells measured under both placements (P1: one ordering each)
PLACEMENT_CELLS = "2 x cells"

#: claim -> its decision family m (each comparison read at alpha/m, Bonferroni)
FAMILY: dict[str, int | str] = {
    "C1": 1, "C2": 1, "C3": 1, "C4": 4, "C5": 2, "C6": 1, "C7": 1, "C8": 4, "C9": 4,
    "C10": 1, "C11": 4, "C12": 1, "C13": 1, "C14": SIZES, "P1": PLACEMENT_CELLS,
}

#: claim -> the declared comparisons its rules read
READS: dict[str, tuple[str, ...]] = {
    "C1": ("zerocopy/send",), "C3": ("zerocopy/send",), "C4": ("sendmsg/send",),
    "C5": ("zerocopy/send",), "C6": ("8t/4t",), "C8": ("send/sendmsg",),
    "C9": ("zerocopy/send",), "C10": ("zerocopy/send",),
    "C11": ("2t/1t", "4t/1t", "8t/2t", "8t/4t"), "C13": ("sendfile/read-write",),
    "C14": ("splice2/splice",), "P1": ("zerocopy/send", "sendmsg/send"),
}


#: claims whose reading of the reports' own programs is the latency their program prints, by
#: its own definition (S1: the window over the messages received; S3: the mean time of one
#: recv()), not the throughput the runner reads: the top-up never reads their programs'
#: comparisons for them (analysis.claims.originals.their_rule; a test holds the two equal)
THEIR_OWN_METRIC: tuple[str, ...] = ("C1", "C10")

KiB = 1024
#: claim -> the sizes (bytes) at which its rules read their comparisons; a claim not listed
#: reads every size its experiments declare (C3's crossover, C13, C14, P1, C6, C11)
READ_SIZES: dict[str, tuple[int, ...]] = {
    "C1": (64, 512), "C4": (512, 4 * KiB, 16 * KiB, 64 * KiB), "C5": (512, 4 * KiB),
    "C8": (KiB, 4 * KiB, 16 * KiB, 64 * KiB), "C9": (KiB, 4 * KiB, 16 * KiB, 64 * KiB),
    "C10": (64 * KiB,),
}


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

#: how the comparisons of one verdict combine (the analysis's rules use the same names,
#: analysis.claims.rules; a test holds the two equal)
EVERY = "every"  # every size must agree; one size decided contrary refutes
CROSSOVER = "crossover"  # a size above the claimed band decided less or equivalent refutes
THREADS = "threads"  # one comparison of two thread counts
BEST_THREADS = "best thread count"  # needs two comparisons decided: no one of them decides
FLIP = "flip"  # P1: a flip needs two comparisons (one per placement) decided opposite
#: a verdict the table does not model: decided only when every comparison it reads is
ALL = "all decided"

GREATER, LESS, EQUIVALENT = "greater", "less", "equivalent"
OUTCOMES = frozenset({GREATER, LESS, EQUIVALENT})


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


_G, _L, _NG = frozenset({GREATER}), frozenset({LESS}), frozenset({LESS, EQUIVALENT})

#: claim -> its verdicts as the top-up's order models them (the analysis's rules declare the
#: same combinations and expected outcomes; a test holds the two equal)
READINGS: dict[str, tuple[Reading, ...]] = {
    "C1": (Reading("S1's code: window/messages, 8 x 64 B", EVERY, "stream", (), (_G,), True),
           Reading("report's words: round trip, 64 B", EVERY, "pingpong", (), (_G,))),
    "C3": (Reading("report's words: 32 KB message", CROSSOVER, "stream", band_hi=64 * KiB),
           Reading("S1's code: 32 KB per field", CROSSOVER, "stream", band_hi=512 * KiB)),
    "C4": (Reading("", EVERY, "stream", (), (_G,)),),
    "C5": (Reading("", EVERY, "stream", (512, 4 * KiB), (_NG, _G)),),
    "C6": (Reading("", THREADS, "stream", (), (_L,)),),
    "C8": (Reading("", EVERY, "stream", (KiB, 4 * KiB, 16 * KiB, 64 * KiB), (_G, _G, _G, _L)),),
    "C9": (Reading("never beats", EVERY, "stream", (), (_NG,)),
           Reading("at best ~52 %", EVERY, "stream", (), (_L,))),
    "C10": (Reading("report's words: round trip", EVERY, "pingpong", (), (_G,)),
            Reading("S3's code: stream", EVERY, "stream", (), (_G,), True)),
    "C11": (Reading("", BEST_THREADS, "stream"),),
    "C13": (Reading("", EVERY, None, (), (_G,)),),
    "C14": (Reading("", EVERY, None, (), (_G,)),),
    "P1": (Reading("", FLIP, "stream"),),
}


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

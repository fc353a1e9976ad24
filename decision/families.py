"""The runner's views of the claims' rule table (:mod:`decision.claimtable`), which both sides
import, and the one family of each comparison.

A verdict's family is the set of comparisons it combines (C4's four sizes, C5's two, ...);
a finding's is the sizes of one pair of methods in one configuration
(:func:`findings_family`). One comparison (two cells: a/b) can be read by several of them:
C4 (4 sizes) and the placement question P1 (2 x its cells) read the same sendmsg/send
cells, the file findings (5 sizes) and C13 (1) the same sendfile/read-write cells. Each
reader reads it at its own family (:func:`plan_family`): a claim's level is the one its
claim declares, not one counted from what else the profile holds, so a verdict is read at
the same level in every profile that runs it. The runner's sequential top-up
(runner.plan.topup) stops a comparison at :func:`one_family`, the largest of its readers';
each reader reads its repeated CI at its own level at that stopping look, which covers at
its level whatever rule chose the look.

Two families are counted from the run instead of fixed: C14's is the number of file sizes
its plan declares (:data:`SIZES`), P1's twice the (pair, threads, size) cells measured under
both placements (:data:`PLACEMENT_CELLS`, :func:`p1_family`).

:data:`READS` says which declared comparison ("a/b" of two methods, "Nt/Mt" of two thread
counts) each claim reads, so a comparison an experiment declares for several claims takes
the families of the claims that read it, not of every claim the experiment serves.

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from decision import claimtable as T
from decision import rule as R
from decision.band import band, on_ratio
from decision.claimtable import (BEST_THREADS, CROSSOVER, EQUIVALENT, EVERY, FAMILY,  # noqa: F401
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


# ------------------------------------------------------------- one family per comparison

#: the message methods and the file methods the findings compare within each (the
#: vocabulary's, rundir.vocabulary; spelled here so that this module stays below both sides)
_MESSAGE = ("send", "sendmsg", "zerocopy", "uring-zc", "vmsplice")
_FILE = ("read-write", "mmap-write", "sendfile", "splice", "splice2", "copy_file_range")


def _get(cell: Any, k: str) -> Any:
    return cell.get(k) if isinstance(cell, Mapping) else getattr(cell, k, None)


def findings_key(cell: Any) -> tuple | None:
    """The findings' configuration of a plan cell (a plan.json cell or a runner Cell): for a
    copybench message stream cell the message comparisons' transport (and with it the
    protocol), placement and threads, every window together (the widest of the findings'
    groupings: analysis.claims.baselines.FACTORS; analysis.words.counts.MSG_FACTORS splits by
    window too, so its families are no larger); for a file cell the file comparisons'
    (analysis.claims.baselines.FILE_FACTORS: path, transport, placement, cache, threads);
    None for a cell no finding compares (a peer, their programs, ping-pong, the A/A twin)."""
    if (_get(cell, "kind") or "copybench") != "copybench" or int(_get(cell, "twin") or 0):
        return None
    m = _get(cell, "method")
    f = [_get(cell, k) for k in ("transport", "placement", "threads")]
    if m in _MESSAGE and _get(cell, "command") != "copy":
        if _get(cell, "mode") != "stream":
            return None
        return ("message", *f)
    if m in _FILE:
        path = "file→file" if _get(cell, "command") == "copy" else "file→socket"
        return (path, *f, _get(cell, "cache") or "n/a")
    return None


FindingsIndex = dict[tuple, dict[str, set[int]]]


def findings_index(cells: Iterable[Any]) -> FindingsIndex:
    """configuration -> method -> the sizes a plan's ``cells`` hold (:func:`findings_key`)."""
    out: FindingsIndex = {}
    for c in cells:
        k = findings_key(c)
        if k is not None:
            out.setdefault(k, {}).setdefault(str(_get(c, "method")), set()).add(
                int(_get(c, "size")))
    return out


def findings_family(index: FindingsIndex, a: Any, b: Any) -> int:
    """The family the findings read the comparison of cells ``a``/``b`` in: the sizes at
    which the plan holds both methods in their configuration (0 where no finding reads it:
    other configurations, another size, one method)."""
    k = findings_key(a)
    if k is None or k != findings_key(b) or _get(a, "size") != _get(b, "size"):
        return 0
    ma, mb = str(_get(a, "method")), str(_get(b, "method"))
    if ma == mb:
        return 0
    by = index.get(k, {})
    return len(by.get(ma, set()) & by.get(mb, set()))


def one_family(*readers: int | None) -> int:
    """The one family of a comparison: the largest of its readers' (at least 1)."""
    return max([1, *(int(r) for r in readers if r)])


def plan_family(plan: Mapping[str, Any], xa: list[str], xb: list[str], own: int,
                inverse: bool = False) -> tuple[int, tuple[float, ...] | None]:
    """The family a reader reads the comparison of the cells ``xa``/``xb`` at, and the edges
    the plan's top-up stopped it against (on the reader's ratio: inverted where the reader's
    ratio is the inverse of the cells' primary one, or the pair is the other way round; None
    where the plan does not stop it).

    The family is the reader's own, ``own``: a claim's is declared per claim
    (:data:`decision.claimtable.FAMILY`), so its level is fixed by the claim and not by what
    else the profile measures (the findings' five file sizes, P1's cells, the family the
    planner wrote into its sequential comparisons). Reading at the stopping look the plan's
    boundaries give keeps that level whatever family the runner stopped at: a repeated CI
    covers at its level at every look at once (:mod:`decision.sequential`), so at any
    stopping look, however it was chosen."""
    stop = None
    if xa and xb and len(xa) == 1 and len(xb) == 1:
        for blk in (plan.get("blocks") or {}).values():
            for c in (blk.get("sequential") or {}).get("comparisons") or []:
                ends = (str(c["a"]), str(c["b"]))
                if ends not in ((xa[0], xb[0]), (xb[0], xa[0])):
                    continue
                stop = tuple(float(x) for x in c["boundaries"])
                if (ends == (xb[0], xa[0])) != inverse:
                    stop = tuple(sorted(1.0 / x for x in stop))
    return max(1, int(own)), stop


def plan_violations(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every comparison a plan.json stops (``blocks.<id>.sequential``) at another family
    than its one family (:func:`one_family` of its readers' own families,
    :func:`_plan_readers`), the family every reader reads it at: [] for a plan made under
    this rule; a plan made before it lists the comparisons stopped at one family and read
    at another."""
    out: list[dict[str, Any]] = []
    for bid, c, stop, found in _plan_readers(plan):
        one = one_family(*found.values())
        if one != stop:
            out.append({"block": bid, "comparison": c["name"], "stopped at": stop,
                        "read at": one, "readers": found})
    return out


def own_readings(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rule before :func:`one_family` (the rules' revisions table,
    analysis.claims.rules.REVISIONS, dates the change): each reader of a comparison a
    plan.json stops read it at its own family. Every (comparison, reader) whose own family
    differs from the one the plan stopped the comparison at."""
    return [{"block": bid, "comparison": c["name"], "stopped at": stop, "reader": who,
             "read at": m}
            for bid, c, stop, found in _plan_readers(plan) for who, m in found.items()
            if m != stop]


P1Search = tuple[str | None, frozenset[tuple[str, int, int]]]


def p1_search(cells: Iterable[Any]) -> P1Search:
    """P1's transport and the (pair, threads, size) it searches among ``cells`` (the cells of
    P1's experiments or blocks), as the planner (runner.plan.topup.p1_cells) and the analysis
    (analysis.claims.placement) count them: the pairs P1 reads measured with both methods
    under both placements among the copybench stream cells, on the first transport (veth,
    then loopback) that has any."""
    p1 = [c for c in cells if (_get(c, "kind") or "copybench") == "copybench"
          and not int(_get(c, "twin") or 0) and _get(c, "mode") == "stream"]
    for transport in ("veth", "loopback"):
        have = {(_get(c, "method"), int(_get(c, "threads")), int(_get(c, "size")),
                 _get(c, "placement")) for c in p1 if _get(c, "transport") == transport}
        found = frozenset((name, th, size) for name in READS.get("P1", ())
                          for th, size in sorted({(t, s) for _, t, s, _ in have})
                          if all((m, th, size, pl) in have for m in name.split("/")
                                 for pl in ("same-core", "cross-core")))
        if found:
            return transport, found
    return None, frozenset()


def p1_reads(search: P1Search, a: Any, b: Any) -> int:
    """P1's family where the comparison of cells ``a``/``b`` (either way round) is one of the
    orderings P1 searches (:func:`p1_search`), else 0: P1 reads every such ordering, whichever
    experiment declared it (C8's send/sendmsg at 4 threads is P1's sendmsg/send there)."""
    transport, found = search
    if not found or any(_get(c, "transport") != transport or _get(c, "mode") != "stream"
                        or (_get(c, "kind") or "copybench") != "copybench"
                        or int(_get(c, "twin") or 0) for c in (a, b)):
        return 0
    if any(_get(a, k) != _get(b, k) for k in ("placement", "threads", "size")) or \
            _get(a, "placement") not in ("same-core", "cross-core"):
        return 0
    ma, mb = _get(a, "method"), _get(b, "method")
    th, size = int(_get(a, "threads")), int(_get(a, "size"))
    if (f"{ma}/{mb}", th, size) in found or (f"{mb}/{ma}", th, size) in found:
        return p1_family(len(found))
    return 0


def plan_p1_search(plan: Mapping[str, Any]) -> P1Search:
    """:func:`p1_search` over the cells of a plan.json's blocks that serve P1."""
    cells, blocks = plan.get("cells") or {}, plan.get("blocks") or {}
    return p1_search(cells[cid] for b in blocks.values() if "P1" in (b.get("claims") or [])
                     for cid in b.get("cells") or [] if cid in cells)


def _plan_readers(plan: Mapping[str, Any]):
    """(block, comparison, the family the plan stops it at, reader -> its own family) for
    every comparison of a plan.json's sequential blocks: the claims of its ``claims`` (their
    programs' ``S<n>:C<k>`` too; C14's family is counted from its plan's sizes, so the
    plan's own), P1 wherever the comparison is one of its orderings (:func:`p1_reads`), and
    the findings (:func:`findings_family` over the plan's cells). A
    comparison no claim of the table reads is a question's, whose declared family the plan
    does not keep apart: it counts as the plan's own."""
    cells = plan.get("cells") or {}
    index = findings_index(cells.values())
    blocks = plan.get("blocks") or {}
    search = plan_p1_search(plan)
    p1 = p1_family(len(search[1]))
    for bid, b in sorted(blocks.items()):
        for c in (b.get("sequential") or {}).get("comparisons") or []:
            stop = int(c["family"])
            found: dict[str, int] = {}
            for who in c.get("claims") or []:
                m = FAMILY.get(who.split(":")[-1])
                if m is not None:
                    found[who] = p1 if m == PLACEMENT_CELLS else stop if m == SIZES else int(m)
            if not found:
                found["question"] = stop
            ca, cb = cells.get(c["a"]), cells.get(c["b"])
            if ca is not None and cb is not None:
                f = findings_family(index, ca, cb)
                if f:
                    found["findings"] = f
                f = p1_reads(search, ca, cb)
                if f and "P1" not in found:
                    found["P1"] = f
            yield bid, c, stop, found


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
    size (or per declared comparison), the outcomes of a comparison (in the rule's own
    ratio) that agree with it, read as one edge each (:func:`decision.rule.expect_of`)."""

    label: str  # the rule's reading ("" where the claim has one rule)
    combine: str
    mode: str | None = None  # the cells' mode it reads ("stream", "pingpong"; None: any)
    sizes: tuple[int, ...] = ()  # the sizes of ``expected`` (): one outcome set for every size
    expected: tuple[frozenset[str], ...] = ()
    #: the rule's ratio is the inverse of the cells' primary ratio (time per message
    #: against Gbit/s): its "greater" is the comparison's "less"
    inverse: bool = False
    band_hi: int = 0  # CROSSOVER: sizes above it must be decided greater
    by_comparison: tuple[tuple[str, frozenset[str]], ...] = ()  # BEST_THREADS

    def expect(self, size: int | None, comparison: str | None = None) -> R.Expect | None:
        """What the verdict expects of the comparison at ``size`` (in the rule's ratio), or
        None where it reads no edge of it (a size it does not name; the crossover's sizes
        inside or below its band; the placement question)."""
        if self.combine in (EVERY, THREADS):
            if not self.sizes:
                return R.expect_of(self.expected[0])
            if size is None or int(size) not in self.sizes:
                return None
            return R.expect_of(self.expected[self.sizes.index(int(size))])
        if self.combine == CROSSOVER:
            return R.Expect(R.GREATER) if size is not None and int(size) > self.band_hi \
                else None
        if self.combine == BEST_THREADS and comparison is not None:
            found = dict(self.by_comparison).get(comparison)
            return R.expect_of(found) if found else None
        return None

    @property
    def refutes_alone(self) -> bool:
        """Whether one comparison that contradicts the verdict refutes it by itself (every
        size must agree); C11 needs a contradiction for each thread count."""
        return self.combine in (EVERY, THREADS, CROSSOVER)


def _reading(r: T.Row, alone: bool) -> Reading:
    """A row of the table as the top-up's order reads it: one outcome set for every size where
    the row expects the same at each."""
    same = len(set(r.expected)) <= 1
    return Reading("" if alone else r.reading, r.combine,
                   r.mode if r.mode in ("stream", "pingpong") else None,
                   () if same else r.sizes, r.expected[:1] if same else r.expected,
                   r.inverse, r.crossover[1], r.by_comparison)


#: claim -> its verdicts as the top-up's order models them (the table's rows of the claims
#: whose comparisons the runner reads)
READINGS: dict[str, tuple[Reading, ...]] = {
    c: tuple(_reading(r, len(T.rows(c)) == 1) for r in T.rows(c)) for c in READS}


@dataclass(frozen=True)
class Serves:
    """A verdict a comparison serves, as the top-up's order reads it: the verdict's name,
    its combination, what it expects of this comparison (None: it reads no edge of it and is
    decided only when every comparison it reads is, against their own edges), whether one
    contradicting comparison refutes it by itself, and whether the rule's ratio is the
    comparison's inverse."""

    verdict: str  # "C4 cross-core", "C9 [at best ~52 %] same-core"
    combine: str
    expect: R.Expect | None = None
    inverse: bool = False
    alone: bool = True

    def edges(self) -> tuple[float, ...]:
        """The expectation's edges on the comparison's (the runner's) ratio, in order; ()
        where it has none."""
        if self.expect is None:
            return ()
        return tuple(sorted(on_ratio(e, self.inverse) for e in self.expect.edges()))

    def read(self, lo: float, hi: float) -> R.Read | None:
        """The expectation read against the comparison's CI [lo, hi] (on the runner's ratio);
        None where it has none."""
        if self.expect is None:
            return None
        if self.inverse:
            lo, hi = (1.0 / hi if hi > 0 else math.inf), (1.0 / lo if lo > 0 else math.inf)
        return self.expect.read(lo, hi)


def serves(claims: Iterable[str], mode: str | None, size: int | None,
           placement: str, comparison: str | None = None) -> tuple[Serves, ...]:
    """The verdicts a comparison of cells in ``mode`` at ``size`` serves for ``claims`` (the
    claims testable here whose rules read it) at ``placement``: one per reading of each
    claim that reads cells of that mode (a claim without :data:`READINGS` keeps one verdict
    whose comparisons must all be decided). ``comparison``: the declared comparison ("8t/2t"),
    for a verdict whose expectation differs per comparison (C11)."""
    out: list[Serves] = []
    for c in claims:
        rs = READINGS.get(c.split(":")[-1])  # "S3:C8": their program's reading of C8
        if not rs:
            out.append(Serves(" ".join(x for x in (c, placement) if x), ALL))
            continue
        mine = [r for r in rs if r.mode is None or mode is None or r.mode == mode]
        for r in mine:
            label = f"[{r.label}]" if r.label and len(rs) > 1 else ""
            name = " ".join(x for x in (c, label, placement) if x)
            out.append(Serves(name, r.combine, r.expect(size, comparison), r.inverse,
                              r.refutes_alone))
    return tuple(out)


def edges(claims: Iterable[str], mode: str | None, size: int | None,
          comparison: str | None = None) -> tuple[float, ...] | None:
    """The edges a comparison is asked about (on the runner's ratio), the union over the
    verdicts of ``claims`` it serves: each one's expectation's edge(s), and the band's two
    where a verdict reads it without an expectation of its own (the placement question's
    flips, a claim the table does not model); None where no verdict asks it anything
    (the caller keeps what its profile declares)."""
    found: set[float] = set()
    asked = False
    for sv in serves(claims, mode, size, "", comparison):
        if sv.expect is not None:
            found.update(sv.edges())
            asked = True
        elif sv.combine in (FLIP, ALL, BEST_THREADS):
            found.update(band())
            asked = True
    return tuple(sorted(found)) if asked else None

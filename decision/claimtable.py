"""The claims' rule table, in one place below both sides: for every verdict of a claim, the
declared comparison(s) it reads, the sizes it reads them at, the outcome per size that agrees
with the claim, the form of the band it reads them against and how its comparisons combine;
and each claim's decision family. The analysis's rules (``analysis.claims.rules.RULES``) take
these columns from here, the runner's top-up reads them through :mod:`decision.families`
(its views ``READS``, ``READ_SIZES``, ``READINGS``), and the profiles name the band of each
declared comparison (``"band"``, ``"inverse band"``; a test checks every profile's
comparisons against this table and that no profile holds a boundary number).

The band is :mod:`decision.band`'s one constant (re-exported here). Each row's expected
outcomes per size are the band outcomes that agree with the claim ({greater}: an effect
beyond 1 + t; {less}: beyond 1 - t; {less, equivalent}: at most 1 + t), read as a
minimum-effect test against the one edge they name (:func:`decision.rule.expect_of`,
:class:`decision.rule.Expect`). Where the runner reads the comparison on the inverse of the
rule's ratio (a stream's inverse message rate is the inverse of its throughput: column
``band`` = :data:`INVERSE_BAND`), an edge e reads as 1 / e on the runner's ratio
(0.892857 for 1.12), rounded to six decimals once (:func:`decision.band.on_ratio`).

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from decision.band import BAND, INVERSE_BAND, NAMED


# ------------------------------------------------------------------------- the columns

GREATER, LESS, EQUIVALENT = "greater", "less", "equivalent"
OUTCOMES = frozenset({GREATER, LESS, EQUIVALENT})
_G, _L, _NG = frozenset({GREATER}), frozenset({LESS}), frozenset({LESS, EQUIVALENT})

#: how the comparisons of one verdict combine
EVERY = "every"  # every size must agree; one size decided contrary refutes
CROSSOVER = "crossover"  # the size where a first reaches b lies in a band; above it, greater
THREADS = "threads"  # one comparison of two thread counts
BEST_THREADS = "best thread count"  # needs two comparisons decided: no one of them decides
FLIP = "flip"  # P1: a flip needs two comparisons (one per placement) decided opposite

#: the family is the number of file sizes the run's plan declares for the claim
SIZES = "sizes"
#: the family is twice the cells measured under both placements (P1: one ordering each)
PLACEMENT_CELLS = "2 x cells"

KiB = 1024
MiB = 1 << 20
S2_SIZES = (512, 4 * KiB, 16 * KiB, 64 * KiB)
S3_SIZES = (KiB, 4 * KiB, 16 * KiB, 64 * KiB)


@dataclass(frozen=True)
class Row:
    """One verdict of a claim (one rule of analysis.claims.rules; P1's is
    analysis.claims.placement's)."""

    claim: str
    reading: str  # which reading of the source ("" where the claim has one verdict)
    #: the declared comparisons it reads, in the rule's ratio ("a/b" of two methods, "Nt/Mt"
    #: of two thread counts of one method)
    comparisons: tuple[str, ...]
    mode: str  # the cells it reads: stream | pingpong | file→socket | file→file
    combine: str
    sizes: tuple[int, ...] = ()  # () = every size its experiments declare
    #: EVERY / THREADS: the outcomes (in the rule's ratio) that agree, one per size of
    #: ``sizes``, or one for every size where ``sizes`` is ()
    expected: tuple[frozenset[str], ...] = ()
    #: the band's form on the runner's primary ratio (throughput, or a ping-pong's round
    #: trip): BAND where the rule reads that ratio, INVERSE_BAND where it reads its inverse
    band: str = BAND
    crossover: tuple[int, int] = (0, 0)  # CROSSOVER: the claimed size range (bytes)
    #: the rule reads hardware counters, which the runner does not read: no top-up
    counter: bool = False
    #: BEST_THREADS: the outcomes that agree, per declared comparison ("2t/1t": greater)
    by_comparison: tuple[tuple[str, frozenset[str]], ...] = ()

    @property
    def inverse(self) -> bool:
        return self.band == INVERSE_BAND

    def boundaries(self) -> tuple[float, float]:
        """The band's boundaries on the runner's primary ratio."""
        return NAMED[self.band]


#: claim -> its decision family m (each comparison read at alpha/m, Bonferroni); C14's and
#: P1's are counted from the run (SIZES, PLACEMENT_CELLS)
FAMILY: dict[str, int | str] = {
    "C1": 1, "C2": 1, "C3": 1, "C4": 4, "C5": 2, "C6": 1, "C7": 1, "C8": 4, "C9": 4,
    "C10": 1, "C11": 4, "C12": 1, "C13": 1, "C14": SIZES, "P1": PLACEMENT_CELLS,
}

_ZC, _STREAM, _PP = ("zerocopy/send",), "stream", "pingpong"

#: every verdict of every claim, in the order the analysis's rules list them
TABLE: tuple[Row, ...] = (
    Row("C1", "S1's code: window/messages, 8 x 64 B", _ZC, _STREAM, EVERY, (512,), (_G,),
        INVERSE_BAND),
    Row("C1", "report's words: round trip, 64 B", _ZC, _PP, EVERY, (64,), (_G,)),
    Row("C2", "", ("send/zerocopy",), _STREAM, EVERY, (MiB,), (_G,), counter=True),
    Row("C3", "report's words: 32 KB message", _ZC, _STREAM, CROSSOVER,
        crossover=(16 * KiB, 64 * KiB)),
    Row("C3", "S1's code: 32 KB per field", _ZC, _STREAM, CROSSOVER,
        crossover=(8 * 16 * KiB, 8 * 64 * KiB)),
    Row("C4", "", ("sendmsg/send",), _STREAM, EVERY, S2_SIZES, (_G,) * 4),
    Row("C5", "", _ZC, _STREAM, EVERY, (512, 4 * KiB), (_NG, _G)),
    Row("C6", "", ("8t/4t",), _STREAM, THREADS, (64 * KiB,), (_L,)),
    Row("C7", "", _ZC, _STREAM, EVERY, (512,), (_G,), counter=True),
    Row("C8", "", ("send/sendmsg",), _STREAM, EVERY, S3_SIZES, (_G, _G, _G, _L)),
    Row("C9", "never beats", _ZC, _STREAM, EVERY, S3_SIZES, (_NG,) * 4),
    Row("C9", "at best ~52 %", _ZC, _STREAM, EVERY, S3_SIZES, (_L,) * 4),
    Row("C10", "report's words: round trip", _ZC, _PP, EVERY, (64 * KiB,), (_G,)),
    Row("C10", "S3's code: stream", _ZC, _STREAM, EVERY, (64 * KiB,), (_G,), INVERSE_BAND),
    Row("C11", "", ("2t/1t", "4t/1t", "8t/2t", "8t/4t"), _STREAM, BEST_THREADS, (16 * KiB,),
        by_comparison=(("2t/1t", _G), ("4t/1t", _G), ("8t/2t", _L), ("8t/4t", _L))),
    Row("C12", "", ("sendmsg/send",), _STREAM, EVERY, (16 * KiB,), (_G,), counter=True),
    Row("C13", "", ("sendfile/read-write",), "file→socket", EVERY, (100_000_000,), (_G,)),
    Row("C14", "", ("splice2/splice",), "file→file", EVERY, (), (_G,)),
    Row("P1", "", ("zerocopy/send", "sendmsg/send"), _STREAM, FLIP),
)


def rows(claim: str) -> tuple[Row, ...]:
    """A claim's verdicts, in the table's order (() for a claim it does not hold)."""
    return tuple(r for r in TABLE if r.claim == claim)


def row(claim: str, reading: str = "") -> Row:
    """The verdict of ``claim`` for ``reading`` (KeyError where the table has none)."""
    for r in TABLE:
        if r.claim == claim and r.reading == reading:
            return r
    raise KeyError(f"{claim} [{reading}]: not in the claims' rule table")


# ----------------------------------------------------------------- the published numbers

#: the reports' published numbers (shared/CLAIMS.md), typed once: claim -> size -> (numerator,
#: denominator) of the claim's rule's ratio, as the report prints them (the statements quote
#: these strings; size 0: the report's one number for every size it averaged). Units:
#: :data:`UNITS`.
REPORTED: dict[str, dict[int, tuple[str, str]]] = {
    "C1": {512: ("7111.74", "58.82"), 64: ("7111.74", "58.82")},  # S1's code (8 x 64 B) | words
    "C2": {MiB: ("23", "2.5")},  # LLC misses (millions), two-copy / zero-copy
    "C4": {512: ("5.44", "1.14"), 4 * KiB: ("8.82", "2.79"), 16 * KiB: ("30.61", "5.13"),
           64 * KiB: ("66.42", "17.80")},  # one- / two-copy
    "C5": {512: ("1.11", "1.14"), 4 * KiB: ("7.62", "2.79")},  # zero- / two-copy
    "C6": {64 * KiB: ("23.73", "58.63")},  # one-copy, 8 threads / 4 threads
    "C7": {512: ("61.04", "23.77")},  # L1d misses (millions), zero- / two-copy
    "C8": {KiB: ("2.63", "2.33"), 4 * KiB: ("7.03", "6.01"), 16 * KiB: ("22.31", "19.98"),
           64 * KiB: ("43.90", "46.89")},  # two- / one-copy, 4 threads
    "C9": {KiB: ("0.91", "2.63"), 4 * KiB: ("2.74", "7.03"), 16 * KiB: ("9.13", "22.31"),
           64 * KiB: ("22.91", "43.90")},  # zero- / two-copy, 4 threads
    "C10": {64 * KiB: ("65.54", "19.22")},  # us, zero- / two-copy
    "C12": {16 * KiB: ("68", "41")},  # LLC misses (millions), one- / two-copy
    "C13": {100_000_000: ("695.33", "490.83")},  # sendfile / read()+sendall()
    "C14": {0: ("418.56", "65.60")},  # S5's average over its file sizes, two pipes / one
}
#: the unit of each claim's published numbers
UNITS: dict[str, str] = {"C1": "us", "C2": "M", "C4": "Gbit/s", "C5": "Gbit/s",
                         "C6": "Gbit/s", "C7": "M", "C8": "Gbit/s", "C9": "Gbit/s",
                         "C10": "us", "C12": "M", "C13": "MB/s", "C14": "B/ms"}
#: C6's published thread series (one-copy at 64 KB, Gbit/s), of which 8 / 4 is its ratio
C6_THREADS: dict[int, str] = {1: "66.42", 2: "62.95", 4: "58.63", 8: "23.73"}


def published(claim: str) -> dict[int, float]:
    """The published ratios of a claim per size (numerator / denominator of its rule's
    ratio), from :data:`REPORTED`."""
    return {s: float(a) / float(b) for s, (a, b) in REPORTED.get(claim, {}).items()}


def reported_pair(claim: str, size: int) -> tuple[float, float] | None:
    """The published (numerator, denominator) of a claim at one size, or None."""
    pair = REPORTED.get(claim, {}).get(int(size))
    return (float(pair[0]), float(pair[1])) if pair else None


def quote(claim: str, size: int, unit: bool = False, swap: bool = False) -> str:
    """The published pair at one size as the report prints it ("5.44 vs 1.14", with
    ``unit`` "65.54 us vs 19.22 us"; ``swap``: denominator first)."""
    a, b = REPORTED[claim][int(size)]
    if swap:
        a, b = b, a
    u = f" {UNITS[claim]}" if unit else ""
    return f"{a}{u} vs {b}{u}"

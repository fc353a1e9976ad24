"""The claims' rule table, in one place below both sides: for every verdict of a claim, the
declared comparison(s) it reads, the sizes it reads them at, the outcome per size that agrees
with the claim, the form of the band it reads them against and how its comparisons combine;
and each claim's decision family. The analysis's rules (``analysis.claims.rules.RULES``) take
these columns from here, the runner's top-up reads them through :mod:`decision.families`
(its views ``READS``, ``READ_SIZES``, ``READINGS``), and the profiles name the band of each
declared comparison (``"band"``, ``"inverse band"``; a test checks every profile's
comparisons against this table and that no profile holds a boundary number).

The band, one constant (:data:`SESOI`, derived in analysis.claims.sesoi with
:func:`decision.sesoi.derive` from the noise study's and the A/A control's sd and the
reference profile's design; a test holds the derivation equal to it). Its form, the one the verdicts
use: a direction rule reads a claim's ratio r against [1 - t, 1 + t]
(``analysis.statistics.stats.DecisionRule("direction", threshold=t)``): "greater" when the CI lies above
1 + t, "less" below 1 - t, "equivalent" inside. Where the runner reads the comparison on the
inverse of the rule's ratio (a stream's inverse message rate is the inverse of its
throughput: column ``band`` = :data:`INVERSE_BAND`), the same band reads as
[1 / (1 + t), 1 / (1 - t)] on the runner's ratio: the inverted band, not a second one.
Profiles write boundaries to six decimals, so the inverted band is rounded to six decimals
here, once (0.892857, 1.136364 for t = 0.12).

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the smallest effect of interest of a claim's direction: a ratio within 1 +- SESOI is no
#: difference here (derived in analysis.claims.sesoi: 0.07 until 2026-11-27, derived then for
#: the fixed design's 30-round t quantile; 0.12 for the looks' last quantile at 80 % power)
SESOI = 0.12
#: the decimals profiles write a boundary to
DECIMALS = 6
#: the names a profile's comparison may give instead of numbers -> the boundaries they stand for
BAND, INVERSE_BAND = "band", "inverse band"


def band(t: float = SESOI) -> tuple[float, float]:
    """The band [1 - t, 1 + t] on the rule's own ratio."""
    return round(1.0 - t, DECIMALS), round(1.0 + t, DECIMALS)


def inverse_band(t: float = SESOI) -> tuple[float, float]:
    """The same band on the inverse ratio: [1 / (1 + t), 1 / (1 - t)]."""
    return round(1.0 / (1.0 + t), DECIMALS), round(1.0 / (1.0 - t), DECIMALS)


#: a profile's name of a band -> its boundaries
NAMED: dict[str, tuple[float, float]] = {BAND: band(), INVERSE_BAND: inverse_band()}

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
    Row("C11", "", ("2t/1t", "4t/1t", "8t/2t", "8t/4t"), _STREAM, BEST_THREADS, (16 * KiB,)),
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

"""Every claim's decision rule, in one place, written from the claim's own words
(shared CLAIMS.md and its notes) before any run is looked at.

A rule names: the statistic (which ratio of which metric), the configuration the source
describes (transport, placements, threads, sizes, cache), how each comparison's CI is read
(:class:`analysis.statistics.stats.DecisionRule`: direction against the claims' band 1 +- SESOI, a
threshold above/below X, or "~R" within a tolerance), how the comparisons of one verdict
combine, the decision family (its size m sets the Bonferroni level 1 - 0.05/m of every CI in
it), whether the pairs come from the block design, and that the CI decides (for the paired
design the Bonferroni-adjusted t-test on the same log ratios agrees with it by construction).
The columns the runner reads too (the reading, the cells' mode, the sizes, the expected
outcome per size, the combination, the family, the crossover band, the need of counters, the
band) come from the claims' rule table, :mod:`decision.claimtable` (:func:`_rule`).

Conventions that follow from the sources:

* S2 and S3 (the PA02 reports C4-C12) ran client and server in two network namespaces
  joined by a veth pair: their rules use ``veth``. S1 ran two machines; the closest here is
  the same veth pair (traffic leaves one network namespace for another).
* No source says whether sender and receiver shared a CPU, so every message claim is given
  one verdict *per placement* (same-core and cross-core), never one chosen after looking.
* S1's "latency" is, in its code, the window divided by the messages received in a stream
  (an inverse message rate), and its size argument is bytes *per field* of an 8-field
  message. C1 and C3 are tested under both readings (the code's and the report's words);
  each verdict says which reading it is for.
* S4's file is 100 MB = 100 000 000 bytes (C13), over localhost TCP (loopback).
* The verdict's family is the set of comparisons that one verdict combines (the sizes of
  C4, the two sizes of C5, ...): Bonferroni over them. Comparisons across thread counts
  (C6, C11) are paired only where the profile puts the thread counts in one block.
* A rule reads only the cells of the blocks the run's plan declares for its claim
  (``claims`` of the profile's experiments): a configuration measured for another purpose
  (a question block with another window, say) never joins a claim's verdict, and a family
  of "every size" is the sizes the plan declares for the claim.
* Each rule carries an **applicability condition** (:class:`Applicability`), written with
  the rule: what the testbed must offer for the measurement to test the claim at all. Where
  the run's machine fails it, the verdict is *not testable here* with the condition and what
  the machine has; a machine that meets it decides the claim with the same code. A claim the
  run's plan has no cells for is *not run in this profile*, a different state.
* Every rule states when it was last revised (:data:`REVISED`): a run analysed with a rule
  revised after that run was made is told so beside its verdicts (not pre-registered).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from analysis.statistics import stats as S
from decision import rule as R
from decision.band import SESOI, band
from analysis.statistics.fmt import fmt_size
from decision import claimtable, families
from decision.claimtable import (BEST_THREADS, CROSSOVER, EVERY, S2_SIZES, S3_SIZES,  # noqa: F401
                                   THREADS)
from rundir.vocabulary import PINNED_PLACEMENTS


KiB = 1024
MiB = 1 << 20
PLACEMENTS = PINNED_PLACEMENTS
#: tolerance of "~R" (about) claims: the CI must lie inside [R/1.25, R*1.25]
APPROX_TOL = 1.25
# the smallest effect of interest of a direction ("beats", "faster"): ratios inside
# 1 +- SESOI are no difference (the claims' rule table's one constant, derived from the noise
# study's and the A/A control's sd and the design the runs read: analysis/claims/sesoi.py;
# the decision map, the comparison of two runs and the A/A control read the same band)

#: every revision of the rules, oldest first: (when, UTC to the minute; what changed). A run
#: made before the latest is re-decided post hoc
REVISIONS: tuple[tuple[str, str], ...] = (
    ("2026-11-24T08:04Z",
     "C3's crossover must agree with the decided comparisons above the claimed band and "
     "exclude 'no crossover' at 95 %; C11 decides the best thread count from CIs between "
     "thread counts; P1 counts a flip only where both orderings are decided at the level of "
     "every cell searched; every rule reads only the cells its plan declares; applicability "
     "conditions (thread counts need a CPU per thread and side; the dual pipe needs two "
     "CPUs)"),
    ("2026-11-26T04:36Z",
     "two questions per claim, counted separately: its direction against a smallest effect "
     "of interest of 7 % derived from the A/A control and the noise model (the 3 % band "
     "before it was below what the testbed resolves; the '~R', 'above' and 'at best' "
     "rules of C1, C2, C6, C7, C9, C10, C12 and C13 now decide their direction), and its "
     "magnitude: the published ratio inside our CI's band (x/÷ 1.25)"),
    ("2026-11-27T05:55Z",
     "the smallest effect of interest re-derived for the design the runs read (the repeated "
     "CI of the last look, 30 rounds, at a family of 4) with 80 % power to decide "
     "'equivalent' at a true ratio of 1, from the noise study's median paired sd (0.143) and "
     "the A/A control: 7 % became 12 % (the 7 % had been derived for the fixed design's "
     "30-round quantile at 50 %); a claim whose published ratio lies inside the band reads "
     "'not testable at this noise' where undecided; magnitude: the published ratio inside "
     "our CI (consistent), our CI wholly on its side toward 1 (smaller than published, "
     "refuted) or wholly beyond it (larger than published, its own outcome), every "
     "published size judged (a missing one not measured), in place of the x/÷ 1.25 band; "
     "C9's 'at best ~52 %' also against 0.52 at its best size"),
    ("2026-11-27T08:30Z",
     "one family per comparison: a comparison read by several families (a claim's verdict, "
     "the placement question's orderings, the findings' sizes of one pair of methods in one "
     "configuration) is stopped by the top-up and read everywhere at the largest of them, "
     "at the look the top-up stopped it at, so it has one CI wherever it is printed and "
     "each verdict is read at its own family's level or stricter (before: the top-up "
     "stopped it at the largest family of the claims reading it and each reader read it at "
     "its own, so C4's and C9's comparisons were stopped at the placement question's "
     "family of 44 and read at 4, C8's at 4 threads stopped at 4 and read by the placement "
     "question at 44, and C13's was printed at the levels of 1 and of 5)"),
    ("2026-11-27T08:45Z",
     "a claim about every size, in a run whose plan declares only some of its sizes, is "
     "decided at the sizes run and its verdict names them ('holds (at 4 KiB, 64 KiB only; "
     "not run at 1 KiB, 16 KiB)'); such a verdict read 'not run in this profile' unless a "
     "size was undecided or contrary (C9 in the thread-count run)"),
    ("2026-11-27T08:53Z",
     "P1 reads each ordering against the claims' band, as every other claim does (it had "
     "kept the decision map's ±3 %, which no comparison of this testbed reaches)"),
    ("2026-11-28T07:00Z",
     "the minimum-effect test (Lakens 2017; Lakens, Scheel & Isager 2018), the band still "
     "12 %: a claim of an effect beyond the band on one side agrees at a size when its CI "
     "lies wholly beyond that edge and contradicts as soon as the CI lies wholly on the near "
     "side of it, whatever side of the band's other edge it lies on (before, a 'greater' "
     "claim was refuted only by a CI decided 'less' or 'equivalent', so a CI wholly below "
     "1 + t that crossed 1 - t read inconclusive: C4 and C13 in the reference run "
     "20261127T121419Z-paper-ebfc); an at-most claim (C5 at 512 B, C9 'never beats') the "
     "reverse; the verdict is refuted if any size run contradicts, holds if every size "
     "agrees, else inconclusive naming the edge its CI straddles; C3's sizes above its band "
     "each need a CI above 1 + t (one wholly below refutes); C6 holds below 0.88 and is "
     "refuted above it; C11 holds if for 2 or 4 threads t/1 lies above 1.12 and 8/t below "
     "0.88, and is refuted if for each, t/1 lies wholly below 1.12 or 8/t wholly above 0.88; "
     "'not testable at this noise' where only sizes whose published ratio lies inside the "
     "band contradict (and not beyond the band's far edge); magnitude rules unchanged"),
    ("2026-11-29T16:27Z",
     "each claim is read at the family it declares, whatever else the profile measures (C13 "
     "cross-core had been read at the file findings' family of 5 in the paper profile and 1 "
     "in the claims profile), at the stopping look the top-up's boundaries give; a published "
     "effect inside the band no longer changes a verdict after the engine decides (it had "
     "turned undecided and refuted verdicts, never holding ones, into 'not testable at this "
     "noise'): every verdict of such a rule keeps the engine's and notes it in its condition "
     "(mended after the run: every committed run had been judged by the earlier rules)"),
    ("2026-11-29T16:37Z",
     "magnitude: where the published ratio lies against our CI on this testbed, read the same "
     "way for every claim and on either side of 1: inside, above or below it (a published "
     "'at best' bound placed as a point at the best size); a claim's sizes on both sides read "
     "'above and below our CI' (before, a CI on the published ratio's side toward 1 read "
     "'smaller than published, refuted' and one beyond it 'larger than published', a "
     "judgement of a number measured on another testbed) (mended after the run: every "
     "committed run had been judged by the earlier rules)"),
)
#: when the rules below were last revised; a run made before it is re-decided post hoc
REVISED = REVISIONS[-1][0]
#: what changed then, for the book's sentence about post-hoc verdicts
REVISION_NOTE = REVISIONS[-1][1]

GREATER = frozenset({"greater"})
LESS = frozenset({"less"})
NOT_GREATER = frozenset({"less", "equivalent"})

#: how the comparisons of one verdict combine: the table's EVERY, CROSSOVER, THREADS and
#: BEST_THREADS (decision.claimtable)


@dataclass(frozen=True)
class Applicability:
    """What the testbed must offer for a rule to test its claim (declared with the rule).

    * ``pmu``: hardware cache counters;
    * ``cpu_per_thread`` (``threads`` = the largest thread count compared): every thread of
      each side on a CPU of its own, sender and receiver apart when they are meant to be
      (cross-core): ``threads`` CPUs per side, so 2 x ``threads`` CPUs cross-core and
      ``threads`` same-core. With fewer, a comparison of thread counts measures how the
      scheduler shares the CPUs (oversubscription), not the claim;
    * ``parallel`` (``threads`` = the method's threads): the method's threads on CPUs of
      their own (S5's dual pipe runs its two pipes in parallel; on one CPU they take turns).
    """

    kind: str
    threads: int = 0

    def text(self) -> str:
        if self.kind == "pmu":
            return "needs hardware cache counters (a PMU)"
        if self.kind == "cpu_per_thread":
            n = self.threads
            return (f"needs a CPU per thread and side: {n} threads each on a CPU of its own, "
                    f">= {2 * n} CPUs cross-core (sender and receiver apart), >= {n} same-core")
        return (f"needs {self.threads} CPUs for the method's {self.threads} threads (its pipes "
                "run in parallel only on CPUs of their own)")

    def cpus_needed(self, placement: str | None) -> int:
        """CPUs per run of the configuration (the machine must have at least this many):
        the one rule of :func:`decision.families.cpus_needed`."""
        return families.cpus_needed(self.kind, self.threads, placement)


@dataclass(frozen=True)
class Rule:
    claim: str
    statistic: str
    numerator: str  # method (or, for THREADS rules, the thread count as text)
    denominator: str
    metric: str  # column of analysis.loading.run's tidy table
    mode: str  # stream | pingpong | file→socket | file→file
    transport: str | None
    placements: tuple[str | None, ...]
    threads: int
    sizes: tuple[int, ...]  # () = every size the run measured in this configuration
    decision: R.DecisionRule
    combine: str
    family: int  # m: comparisons the verdict combines (Bonferroni level 1 - 0.05/m)
    expected: tuple[frozenset[str], ...] = ()  # EVERY: outcomes per size that agree
    reading: str = ""  # which reading of the source this rule is for
    cache: str | None = None
    band: tuple[float, float] = (0.0, 0.0)  # CROSSOVER: claimed size range
    paired: bool = True  # pairs by block and round when the run has blocks
    note: str = ""
    pmu: bool = False  # needs hardware counters
    applies: Applicability | None = None  # the testbed's condition (besides the PMU)
    p_none_max: float = 0.05  # CROSSOVER: the largest P(no crossover) a "holds" allows

    @property
    def conditions(self) -> tuple[Applicability, ...]:
        return ((Applicability("pmu"),) if self.pmu else ()) + \
            ((self.applies,) if self.applies else ())

    def expects(self, size: int | None = None, comparison: str | None = None
                ) -> R.Expect | None:
        """What the claim says of its comparison at ``size`` (in the rule's ratio), read as a
        minimum-effect test against one edge (decision.rule.Expect): the claims' table's
        expected outcomes (decision.families.Reading.expect); None where it reads no edge."""
        return _reading(self).expect(size, comparison)

    def configuration(self, placement: str | None = None) -> str:
        parts = [self.transport or "", placement or ""]
        if self.mode in ("stream", "pingpong"):
            parts.append(f"{self.threads} thread{'s' if self.threads != 1 else ''}")
            parts.append(f"TCP {'ping-pong' if self.mode == 'pingpong' else 'stream'}")
        else:
            parts.append(self.mode)
            if self.cache:
                parts.append(f"{self.cache} cache")
        parts.append("sizes " + ", ".join(fmt_size(s) for s in self.sizes) if len(self.sizes) > 1
                     else fmt_size(self.sizes[0]) if self.sizes else "every file size measured")
        return ", ".join(p for p in parts if p)

    def combine_text(self) -> str:
        if self.combine == EVERY:
            return (f"holds if every size agrees ({self.expects_text()}: its CI wholly "
                    "beyond the edge on the claim's side); refuted if any size contradicts "
                    "(its CI wholly on the other side of that edge), whatever the others; "
                    "else inconclusive, naming the edge a CI straddles; a run whose plan "
                    "lacks some of the sizes is decided at the sizes it ran, and its verdict "
                    "names them")
        if self.combine == CROSSOVER:
            lo, hi = fmt_size(self.band[0]), fmt_size(self.band[1])
            edge = R.Expect(R.GREATER, self.decision.threshold).text()
            return (f"holds if the crossover CI lies inside [{lo}, {hi}], P(no crossover in "
                    f"range) <= {self.p_none_max:g} and every size above {hi} agrees with "
                    f"an effect ({edge}: it pays off there); refuted if a size above {hi} "
                    f"contradicts it (its CI wholly below {band(self.decision.threshold)[1]:g}), "
                    "if no crossover occurs in a range that spans the band (bootstrap "
                    f"probability >= {1 - self.p_none_max:g}), or if the crossover CI lies "
                    f"outside the band with P(no crossover) <= {self.p_none_max:g}; else "
                    "inconclusive")
        if self.combine == BEST_THREADS:
            lo_e, hi_e = band(self.decision.threshold)
            return (f"holds if for 2 or 4 threads t/1 lies above {hi_e:g} and 8/t below "
                    f"{lo_e:g}; refuted if for each of 2 and 4, t/1 lies wholly below "
                    f"{hi_e:g} or 8/t wholly above {lo_e:g}; else inconclusive (the best "
                    "thread count is decided from CIs between thread counts, never from "
                    "medians)")
        return f"one comparison between thread counts: {self.expects_text()}"

    def short(self) -> str:
        """The rule's boundaries in a few words, for the compact verdict table."""
        d = self.decision
        if self.combine == CROSSOVER:
            return (f"crossover in [{fmt_size(self.band[0])}, {fmt_size(self.band[1])}], "
                    "greater above")
        if self.combine == BEST_THREADS:
            return "2 or 4 threads > 1 and > 8"
        if d.kind == "above":
            return f"> {d.value:g}"
        if d.kind == "below":
            return f"< {d.value:g}"
        if d.kind == "approx":
            lo, hi = d.boundaries()
            return f"~{d.value:.3g}: [{lo:.3g}, {hi:.3g}]"
        return self.expects_text()

    def expects_text(self) -> str:
        """What the claim expects per size, in a few words ("> 1.12 at every size",
        "<= 1.12 at 512 B; > 1.12 at 4 KiB")."""
        if not self.expected:
            return "?"
        if len(set(self.expected)) <= 1:
            return f"{R.expect_of(self.expected[0], self.decision.threshold).text()} at every size"
        groups: dict[str, list[str]] = {}
        for size, exp in zip(self.sizes, self.expected):
            groups.setdefault(R.expect_of(exp, self.decision.threshold).text(),
                              []).append(fmt_size(size))
        return "; ".join(f"{w} at {', '.join(g)}" for w, g in groups.items())

    def boundaries_text(self) -> str:
        """What the verdict turns on, short: the per-comparison reading, or for a crossover
        rule the band (the verdict tables print this; :meth:`text` is the whole rule)."""
        if self.combine in (CROSSOVER, BEST_THREADS):
            return self.combine_text()
        if self.expected and self.decision.kind == "direction":
            return (f"{self.expects_text()}: a size agrees when its CI lies wholly beyond "
                    "the edge on the claim's side, contradicts when wholly on the other side")
        return self.decision.text()

    def text(self) -> str:
        """The whole rule, as the decision-rules table prints it."""
        level = S.family_confidence(self.family)
        pairing = ("paired by block and round when the run has blocks (t CI on the log "
                   "ratios), else ratio of medians (bootstrap CI)" if self.paired else
                   "unpaired (ratio of medians, bootstrap CI): the cells are in different "
                   "blocks")
        rule = "" if self.combine in (CROSSOVER, BEST_THREADS) else \
            f"; per comparison: {self.boundaries_text()}"
        cond = "; ".join(c.text() for c in self.conditions)
        return (f"{self.statistic}{rule}; {self.combine_text()}; family of {self.family}, "
                f"{level:.2%} CI (Bonferroni); the CI decides; {pairing}"
                + (f"; {self.note}" if self.note else "")
                + (f"; applicability: {cond}" if cond else ""))


#: C8-C10 compare methods at one thread count (4): on fewer CPUs than threads both methods
#: share the same oversubscription, so the comparison stays a comparison of methods
OVERSUBSCRIBED = ("4 connections on fewer CPUs than threads: both methods share the same "
                  "oversubscription, so the ratio still compares the methods")


def F(claim: str) -> int:
    """A claim's decision family from the claims' rule table (decision.claimtable), which
    the runner's top-up reads too; 0 where the run counts it (C14: the file sizes its plan
    declares)."""
    m = claimtable.FAMILY[claim]
    return m if isinstance(m, int) else 0


def _direction(t: float = SESOI) -> R.DecisionRule:
    return R.DecisionRule("direction", threshold=t)


def _reading(rule: "Rule") -> families.Reading:
    """A rule as the claims' table's reading of it (its expectations per size)."""
    by = next((r.by_comparison for r in claimtable.rows(rule.claim)
               if r.reading == rule.reading), ())
    band_hi = int(rule.band[1]) if rule.combine == CROSSOVER else 0
    return families.Reading(rule.reading, rule.combine, None,
                            rule.sizes if len(set(rule.expected)) > 1 else (),
                            rule.expected if len(set(rule.expected)) > 1 else
                            rule.expected[:1], False, band_hi, by)


def _rule(claim: str, reading: str, statistic: str, numerator: str, denominator: str,
          metric: str, transport: str | None, threads: int, **kw: object) -> Rule:
    """A rule whose reading, cells' mode, sizes, expected outcomes, combination, family,
    crossover band and need of counters are the claims' rule table's row
    (decision.claimtable), read against the table's band; the rest (which cells, which
    metric, the notes) is the analysis's own."""
    row = claimtable.row(claim, reading)
    if row.combine == CROSSOVER:
        kw["band"] = row.crossover
    return Rule(claim, statistic, numerator, denominator, metric, row.mode, transport,
                PLACEMENTS, threads, row.sizes, _direction(), row.combine, F(claim),
                expected=row.expected, reading=row.reading, pmu=row.counter,
                **kw)  # type: ignore[arg-type]


RULES: dict[str, tuple[Rule, ...]] = {
    "C1": (
        _rule("C1", "S1's code: window/messages, 8 x 64 B",
              "S1 latency ratio zero-copy / two-copy = window/messages received in a "
              "stream (inverse message rate), zero-copy over two-copy", "zerocopy", "send",
              "inv_msg_rate_us", "veth", 1,
              note="S1's code computes latency as the window over the messages received in a "
              "stream (an inverse message rate), and its size is per field: 8 x 64 B = 512 B"),
        _rule("C1", "report's words: round trip, 64 B",
              "round-trip time ratio zero-copy / two-copy (per-trial p50 of a ping-pong)",
              "zerocopy", "send", "rtt_p50_us", "veth", 1),
    ),
    "C2": (
        _rule("C2", "", "LLC load misses per byte (sender), two-copy / zero-copy", "send",
              "zerocopy", "sender_llc_load_misses_per_kib", "veth", 1,
              note="1 MB message (S1's per-field reading would be 8 MB)"),
    ),
    "C3": (
        _rule("C3", "report's words: 32 KB message",
              "size where zero-copy throughput first reaches two-copy", "zerocopy", "send",
              "gbit_per_s", "veth", 1, note="~32 KB: a band of a factor 2 either way"),
        _rule("C3", "S1's code: 32 KB per field",
              "size where zero-copy throughput first reaches two-copy", "zerocopy", "send",
              "gbit_per_s", "veth", 1,
              note="S1's size is per field: ~32 KB x 8 fields = ~256 KB message, band 128-512 KiB"),
    ),
    "C4": (
        _rule("C4", "", "throughput ratio one-copy / two-copy per size", "sendmsg", "send",
              "gbit_per_s", "veth", 1, note="'beats' = greater beyond the smallest effect of "
              "interest"),
    ),
    "C5": (
        _rule("C5", "", "throughput ratio zero-copy / two-copy at 512 B and 4 KiB", "zerocopy",
              "send", "gbit_per_s", "veth", 1,
              note="'overtakes between 512 B and 4 KB' = not ahead at 512 B, ahead at 4 KiB"),
    ),
    "C6": (
        _rule("C6", "", "throughput ratio 8 threads / 4 threads, one-copy, 64 KiB", "8", "4",
              "gbit_per_s", "veth", 8, applies=Applicability("cpu_per_thread", 8),
              note="'collapses' = less beyond the smallest effect of interest (its magnitude: "
              "the published 0.405); paired only where the profile puts both thread counts in "
              "one block (pair_threads)"),
    ),
    "C7": (
        _rule("C7", "", "L1d load misses per byte (sender), zero-copy / two-copy", "zerocopy",
              "send", "sender_l1d_load_misses_per_kib", "veth", 1),
    ),
    "C8": (
        _rule("C8", "", "throughput ratio two-copy / one-copy per size", "send", "sendmsg",
              "gbit_per_s", "veth", 4,
              note="two-copy 'beats' = greater beyond the smallest effect of interest; one-copy "
              "'wins' at 64 KiB = less; "
              + OVERSUBSCRIBED),
    ),
    "C9": (
        _rule("C9", "never beats", "throughput ratio zero-copy / two-copy per size", "zerocopy",
              "send", "gbit_per_s", "veth", 4, note=OVERSUBSCRIBED),
        _rule("C9", "at best ~52 %", "throughput ratio zero-copy / two-copy per size",
              "zerocopy", "send", "gbit_per_s", "veth", 4,
              note="'at best ~52 %' = less at every size (its magnitude: the published ratios); "
              + OVERSUBSCRIBED),
    ),
    "C10": (
        _rule("C10", "report's words: round trip",
              "round-trip time ratio zero-copy / two-copy (per-trial p50 of a ping-pong)",
              "zerocopy", "send", "rtt_p50_us", "veth", 1,
              note="S3's code times one recv() in a stream: see the other reading"),
        _rule("C10", "S3's code: stream",
              "time per message in a stream (window / messages), zero-copy / two-copy",
              "zerocopy", "send", "inv_msg_rate_us", "veth", 4,
              note="S3's code times recv() in a 4-thread stream; here: window / messages; "
              + OVERSUBSCRIBED),
    ),
    "C11": (
        _rule("C11", "", "throughput ratios between thread counts (2/1, 4/1, 8/2, 8/4), "
              "two-copy", "2|4", "1|8", "gbit_per_s", "veth", 8,
              applies=Applicability("cpu_per_thread", 8),
              note="super-linearity itself is not tested; 16 KiB, the middle of S3's 4-thread "
              "sizes; paired only where the thread counts share a block"),
    ),
    "C12": (
        _rule("C12", "", "LLC load misses per byte (sender), one-copy / two-copy", "sendmsg",
              "send", "sender_llc_load_misses_per_kib", "veth", 4),
    ),
    "C13": (
        _rule("C13", "", "throughput ratio sendfile / read-write", "sendfile", "read-write",
              "gbit_per_s", "loopback", 1, cache="warm",
              note="100 MB = 100 000 000 B file over localhost TCP"),
    ),
    "C14": (
        _rule("C14", "", "throughput ratio splice2 (two pipes) / splice (one pipe) per file "
              "size", "splice2", "splice", "gbit_per_s", None, 1, cache="warm",
              applies=Applicability("parallel", 2),
              note="S5 averages over its file sizes: 'faster' must hold at every size; family "
              "= the file sizes the run's plan declares"),
    ),
}

#: C15 is decided in analysis/claims/copies.py (owned there); its rule text for the table
C15_RULE = ("measured CPU copies per transfer (the sending side's copy-routine CPU time per byte "
            "divided by the CPU cost of one copied byte, calibrated in the same run at the same "
            "size on the configurations whose count is known, leave-one-out) against the "
            "textbook table: holds if every CI lies within 0.5 of the table's count; decided in "
            "analysis/claims/copies.py")


def rules_for(claim: str) -> tuple[Rule, ...]:
    return RULES.get(claim, ())


def rule_text(claim: str) -> str:
    if claim == "C15":
        return C15_RULE
    rs = rules_for(claim)
    if not rs:
        return ""
    return " | ".join((f"[{r.reading}] " if r.reading else "") + r.text() for r in rs)


def rules_table(claims: Sequence[str] | None = None) -> list[dict[str, str]]:
    """One row per rule: the table the book prints and the profiles' family sizes follow."""
    rows = []
    for c, rs in RULES.items():
        if claims and c not in claims:
            continue
        for r in rs:
            rows.append({"claim": c, "reading": r.reading, "configuration": r.configuration(
                         " / ".join(p for p in r.placements if p) or None),
                         "statistic": r.statistic, "rule": r.boundaries_text(),
                         "combine": r.combine_text(), "family": str(r.family or "sizes"),
                         "pairing": "paired" if r.paired else "unpaired",
                         "applicability": "; ".join(x.text() for x in r.conditions) or "—"})
    return rows

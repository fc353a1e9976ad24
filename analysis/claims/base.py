"""What every claim test shares: verdict names, the result record, the published size
lists, and how a test picks its configuration from a run (the source's transport and
placement first, then the nearest the run has)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from analysis.statistics import stats as S
from analysis.statistics.fmt import fmt_hours, fmt_num, fmt_ratio_ci, fmt_size
from analysis.loading.run import Run, select, select_columns, values
from rundir import planfile
from decision import families
from decision import interval as I
from decision import rule as R
from decision import sequential as sq
from decision import sesoi
# the verdicts' names, owned by the decision's package
from decision.verdict import (HOLDS, INCONCLUSIVE, NOT_RUN, NOT_TESTABLE,  # noqa: F401
                              REFUTED, UNDETERMINED, VERDICTS)

if TYPE_CHECKING:
    from analysis.claims.rules import Rule

#: where a report's published number lies against our CI on this testbed
#: (analysis.claims.magnitude): a place, read the same way for every claim, not a judgement of
#: the report (its number comes from another testbed and configuration)
INSIDE, ABOVE, BELOW = "inside our CI", "above our CI", "below our CI"
#: a claim whose published sizes lie above our CI at some and below it at others
ABOVE_AND_BELOW = "above and below our CI"
#: the magnitude question's outcomes, in the order the book counts them (inconclusive: inside
#: our CI where measured, a published size not measured)
MAGNITUDES = (INSIDE, ABOVE, BELOW, ABOVE_AND_BELOW, INCONCLUSIVE)
#: the magnitude outcomes that place the published number at every size it names
MAGNITUDE_DECIDED = (INSIDE, ABOVE, BELOW, ABOVE_AND_BELOW)
#: what a verdict rests on: copybench's own measurement (the claim as the report words it)
#: or the report's own program run here (the claim as its code behaves)
COPYBENCH, THEIR_PROGRAM = "copybench", "their program"
TRANSPORT_PREF = ("veth", "loopback")  # S2/S3 used a veth pair between two namespaces
KiB = 1024
#: Size lists as published.
S2_SIZES = (512, 4 * KiB, 16 * KiB, 64 * KiB)
S3_SIZES = (1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB)
#: Tolerance for "about R x" claims: the CI must lie within [R/1.25, R*1.25].
APPROX_TOL = 1.25
#: Textbook CPU copies per transfer (claim C15, S5 table 1.1 citing Song & Alves-Foss).

@dataclass
class ClaimResult:
    claim: str
    source: str
    statement: str
    published: str
    verdict: str = NOT_TESTABLE
    statistic: str = ""
    value: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    configuration: str = ""
    reason: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    part: str = ""  # the placement (and reading) this verdict is for
    rule: str = ""  # the whole decision rule
    boundaries: str = ""  # what the verdict turns on, short (printed beside the verdict)
    design: str = ""  # paired | unpaired: the primary statistic's design
    sensitivity: str = ""  # the other design's estimate and outcome
    boundary: str = ""  # inconclusive: the boundary the CI straddles
    basis: str = COPYBENCH  # copybench | their program (which measurement decided)
    reading: str = ""  # the reading of the source (its words, its code) the verdict is for
    placement: str = ""
    condition: str = ""  # the rule's applicability condition(s), printed beside the verdict
    direction: str = ""  # refuted: which way the data contradict the claim
    # the second question: is the report's published number inside our CI's band
    # (holds / refuted / inconclusive; "" where the report published no number)
    magnitude: str = ""
    magnitude_text: str = ""  # the published number, its band and what decided it
    rule_id: str = ""  # the rule (claim and its reading) the verdict comes from
    rule_short: str = ""  # the rule's boundaries in a few words
    size: float = math.nan  # the size of the comparison shown (value, lo, hi)
    band: tuple[float, ...] = ()  # the rule's boundaries on the ratio (for the forest plot)
    # the rounds the shown comparison's CI rests on; with the sequential top-up also its
    # stopping look and the looks its block reached (0: the fixed design)
    rounds: int = 0
    look: int = 0
    looks: int = 0
    # a verdict of an "every size" rule whose run's plan declared only some of its sizes:
    # the sizes it was decided at and those not run ("at 4 KiB, 64 KiB only; not run at
    # 1 KiB, 16 KiB"); "" for a verdict over every size of its rule
    scope: str = ""
    # which side set the rate of the comparisons a rate verdict reads (decision.reading.bound
    # over its sizes; "" where its metric is not a rate), and the sizes whose cells
    # copybench's receiver bounded ("receiver-bound: not a test of the sender at 16 KiB")
    bound: str = ""
    bound_note: str = ""

    @property
    def rounds_text(self) -> str:
        """"12 rounds, look 2 of 3" (sequential top-up), "15 rounds" (fixed), or "—"."""
        if not self.rounds:
            return "—"
        if self.looks:
            return f"{self.rounds} rounds, look {self.look} of {self.looks}"
        return f"{self.rounds} rounds"

    @property
    def key(self) -> str:
        return f"{self.claim} ({self.part})" if self.part else self.claim

    @property
    def verdict_text(self) -> str:
        """The verdict with its direction, where it was refuted ("refuted: higher ..."), its
        sizes where it was decided at only some of its rule's ("holds (at 4 KiB ...)"), and
        the sizes that were not a test of the sender, where a size that was decided it
        ("refuted (receiver-bound: not a test of the sender at 16 KiB): ...")."""
        v = f"{self.verdict} ({self.scope})" if self.scope else self.verdict
        if self.bound_note and self.verdict != NOT_TESTABLE:
            v += f" ({self.bound_note})"
        return f"{v}: {self.direction}" if self.direction else v

    def ci_text(self) -> str:
        if not math.isfinite(self.value):
            return "—"
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{fmt_num(self.value)} (no CI)"
        return fmt_ratio_ci(self.value, self.lo, self.hi, times=False)


def _ratio_ci(e: S.Estimate) -> str:
    return fmt_ratio_ci(e.value, e.lo, e.hi, times=False)


def set_estimate(r: ClaimResult, e: S.Estimate) -> None:
    r.value, r.lo, r.hi = e.value, e.lo, e.hi


def set_rounds(r: ClaimResult, t: S.RatioTest) -> None:
    """The rounds (and, with the top-up, the stopping look) of the comparison shown."""
    r.rounds, r.look, r.looks = (t.rounds or t.n), t.look, t.looks


def stream_cells(run: Run, udp: bool = False) -> pd.DataFrame:
    """The message stream cells: TCP only, or with ``udp`` the UDP ones (udp-forward) too."""
    m = run.measured
    st = m[(m["scenario"] == "message") & (m["mode"] == "stream")]
    return st if udp else st[st["protocol"] != "udp"]


def pingpong_cells(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "pingpong")]


def has_data(df: pd.DataFrame, metric: str = "gbit_per_s", **f: Any) -> bool:
    return values(select_columns(df, (metric,), **f), metric).size >= 2


def why_missing(df: pd.DataFrame, what: str, **f: Any) -> str:
    """A reason naming the first factor level that the run lacks."""
    for k, v in f.items():
        levels = set(df[k].dropna().unique()) if k in df else set()
        wanted = v if isinstance(v, (list, tuple)) else [v]
        if not levels.intersection(wanted):
            if k == "threads":
                return f"no {'/'.join(str(w) for w in wanted)}-thread {what} cells in this run"
            if k == "size":
                return f"no {' or '.join(fmt_size(w) for w in wanted)} {what} cells in this run"
            return f"no {k}={'/'.join(map(str, wanted))} {what} cells in this run"
    return f"fewer than 2 trials per cell for {what} in this run"


def sizes_text(sizes: Sequence[float]) -> str:
    return ", ".join(fmt_size(s) for s in sizes)


# ---------------------------------------------------------------------------- rules engine

@dataclass
class Compared:
    """One comparison a/b of a rule: the primary test (what the run's design declares), the
    other design as a sensitivity check, and the rule's reading of each CI."""

    size: int
    primary: S.RatioTest
    decision: R.Decision  # the band reading of the primary CI (greater / less / ...)
    sensitivity: S.RatioTest | None = None
    sens_decision: R.Decision | None = None
    block: str = ""  # the block of its pairs (one block; "" otherwise)
    seconds_per_round: float = math.nan  # that block's planned seconds per round
    # the looks of that block and the spending of the run's design (the sequential top-up;
    # None: the fixed design reads it)
    schedule: sq.Schedule | None = None
    spending: str = sq.POCOCK
    # a claim's expectation at this size read against the primary CI and the sensitivity
    # one (agrees / contradicts / open: decision.rule.Expect); None beside no claim
    read: R.Read | None = None
    sens_read: R.Read | None = None

    @property
    def open(self) -> bool:
        """Undecided for its reader: the claim's expectation open, or (no claim) the band
        reading inconclusive."""
        if self.read is not None:
            return self.read.outcome == R.UNSETTLED
        return self.decision.outcome == R.INCONCLUSIVE

    @property
    def why(self) -> str:
        return self.read.why if self.read is not None else self.decision.why

    def row(self) -> dict[str, Any]:
        p, s = self.primary, self.sensitivity
        return {"size": self.size, "design": p.kind, "n": p.n,
                "look": f"{p.look} of {p.looks} ({p.rounds} rounds)" if p.looks else "—",
                "ratio": p.ratio.value,
                "lo": p.ratio.lo, "hi": p.ratio.hi, "CI level": p.ratio.confidence,
                # the sd of the per-round log ratios (paired): the noise the CI is made of
                "per-round sd": p.sd_log,
                "p_adj": p.p_adj, "outcome": self.decision.outcome,
                "vs the claim": self.read.outcome if self.read is not None else "",
                "why": self.why, "reading": p.note,
                "sensitivity": (f"{s.kind} {_ratio_ci(s.ratio)} → "
                                + (self.sens_read.outcome if self.sens_read is not None
                                   else self.sens_decision.outcome)
                                if s is not None and self.sens_decision else "—"),
                "distance": self.distance() if self.open else ""}

    @property
    def edges(self) -> Sequence[float]:
        """The boundaries an undecided comparison's CI straddles (its claim's, else the
        band's)."""
        return self.read.crosses if self.read is not None else self.decision.straddles

    def distance(self) -> str:
        """How far an undecided comparison is from a decision (:func:`distance_text`)."""
        return distance_text(self.primary, self.edges, self.seconds_per_round, self.schedule,
                             self.spending)

    def rounds_needed(self) -> float:
        """The rounds :meth:`distance` words (:func:`rounds_to_decide` at its measured sd,
        family and design); NaN where it is decided or unpaired."""
        t = self.primary
        if not self.open or t.kind != S.PAIRED or not math.isfinite(t.sd_log):
            return math.nan
        return rounds_to_decide(math.log(t.ratio.value), t.sd_log, self.edges, t.family,
                                t.alpha, self.schedule, self.spending)


#: an undecided comparison that would need more rounds than this is "not decidable": its
#: estimate sits on the boundary (C9's 0.652 against 0.65 needs about 13 000)
UNDECIDABLE_ROUNDS = 10_000
#: the chance a distance is computed for: the rounds at which the CI would clear the boundary
#: with this probability if the true ratio were the estimate (the usual 80 %)
POWER = sesoi.POWER


def rounds_to_decide(mean_log: float, sd: float, boundaries: Sequence[float], family: int,
                     alpha: float = S.ALPHA, schedule: sq.Schedule | None = None,
                     spending: str = sq.POCOCK, power: float = POWER) -> float:
    """The rounds n at which the CI around a true mean log ratio ``mean_log`` (per-round sd
    ``sd``) clears the nearest of ``boundaries`` (those it straddles) with probability
    ``power``: (q + z(power)) sd / sqrt(n) <= d, d the log distance from the estimate to that
    boundary and q the quantile of the design that reads it. With the sequential design's
    ``schedule``: the first look n_j whose repeated-CI quantile q_j at alpha / family meets
    it, else (beyond the last look) the n that meets it at the last look's quantile; with
    the fixed design: the t quantile t(1 - alpha/(2m), n - 1). inf when the estimate lies on
    the boundary."""
    if not boundaries or not (math.isfinite(mean_log) and math.isfinite(sd)):
        return math.nan
    d = min(abs(mean_log - math.log(b)) for b in boundaries)
    m = max(1, family)
    if schedule is not None:
        return I.rounds_to_decide(d, sd, power, looks=schedule.looks,
                                  quantiles=sq.quantiles(schedule, m, alpha, spending))
    return I.rounds_to_decide(d, sd, power, level=I.level_of(m, alpha),
                              beyond=10 * UNDECIDABLE_ROUNDS)


def distance_text(t: S.RatioTest, edges: Sequence[float], seconds_per_round: float,
                  schedule: sq.Schedule | None = None, spending: str = sq.POCOCK) -> str:
    """An undecided comparison's distance from a decision: the rounds at which its CI (the
    design's own: the repeated CI of its block's looks, or the fixed design's) would decide it
    with 80 % probability at its measured sd (and the hours at its block's seconds per
    round); "beyond the design's last look" where even the last look would not; "not
    decidable: the estimate sits on the boundary" past :data:`UNDECIDABLE_ROUNDS`."""
    if t.kind != S.PAIRED or not math.isfinite(t.sd_log):
        return "distance unknown: no per-round sd (unpaired)"
    n = rounds_to_decide(math.log(t.ratio.value), t.sd_log, edges, t.family,
                         t.alpha, schedule, spending)
    if math.isnan(n):
        return "distance unknown"
    if n > UNDECIDABLE_ROUNDS:
        return (f"not decidable: the estimate sits on the boundary (about {n:,.0f} rounds "
                f"at its sd {t.sd_log:.3f})" if math.isfinite(n) else
                "not decidable: the estimate sits on the boundary")
    hours = (f", {fmt_hours(n * seconds_per_round / 3600)} on this machine"
             if math.isfinite(seconds_per_round) else "")
    chance = f"{POWER:.0%} power, sd {t.sd_log:.3f} per round"
    if schedule is None:
        return f"decided at about {n:.0f} rounds{hours} by the fixed design's CI ({chance})"
    if n > schedule.rounds_max:
        return (f"beyond the design's last look ({schedule.rounds_max} rounds): about "
                f"{n:.0f} rounds{hours} at its last look's quantile ({chance})")
    j = schedule.looks.index(int(n)) + 1
    if t.rounds >= n:  # it got there and stayed undecided: what the other 20 % of runs see
        return (f"it reached look {j} of the design ({n:.0f} rounds), which decides it with "
                f"{POWER:.0%} power at its measured sd, and stayed undecided "
                f"(sd {t.sd_log:.3f} per round)")
    return (f"decided at look {j} of the design ({n:.0f} rounds{hours}) by its repeated CI "
            f"({chance})")


def _twin0(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["twin"].fillna(0).astype(int) == 0] if "twin" in df else df


def round_values(df: pd.DataFrame, f: dict[str, Any], metric: str) -> pd.Series:
    """The cells matching ``f``, one value per (block, round): the median of ``metric``
    (the A/A twin left out)."""
    d = _twin0(select_columns(df, ("block", "repetition", "twin", metric), **f))
    d = d[d["block"].notna() & d[metric].notna()]
    return d.groupby(["block", "repetition"])[metric].median().astype(float)


def paired_rounds(df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
                  metric: str) -> pd.DataFrame:
    """Values of a and b measured in the same block and round (repetition), aligned: the
    pairs of the block design, indexed by (block, repetition), in round order. Runs without
    blocks give no pairs."""
    if "block" not in df or not df["block"].notna().any():
        return pd.DataFrame({"a": [], "b": []})
    return pd.concat([round_values(df, a, metric).rename("a"),
                      round_values(df, b, metric).rename("b")], axis=1, join="inner").dropna()


def paired_values(df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
                  metric: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_rounds` as two aligned arrays."""
    j = paired_rounds(df, a, b, metric)
    return j["a"].to_numpy(), j["b"].to_numpy()


@dataclass(frozen=True)
class OneFamily:
    """How every reader reads one comparison (:func:`one_family`): its family and, where the
    run's top-up stopped it, the boundaries the runner stopped it against (on the reader's
    ratio; None: the reader's own rule's)."""

    family: int
    stop: tuple[float, ...] | None = None


def _cell_ids(df: pd.DataFrame, f: dict[str, Any]) -> list[str]:
    d = _twin0(select_columns(df, ("cell", "twin"), **f))
    return sorted({str(c) for c in d["cell"].dropna()}) if "cell" in d else []


#: the metrics whose ratio a/b is the inverse of the runner's primary ratio (Gbit/s) of the
#: same cells: the top-up's boundaries, on the primary ratio, are inverted for them
INVERSE_METRICS = ("inv_msg_rate_us",)


def one_family(run: Run, df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
               own: int, metric: str = "gbit_per_s") -> OneFamily:
    """The one family the comparison of the cells ``a``/``b`` of ``df`` is read at, by every
    reader that prints it (a claim's verdict, P1's table, the findings' tables and the
    abstract): :func:`decision.families.one_family` of the reader's own family ``own``, the
    family the run's plan stopped it at (its ``blocks.<id>.sequential.comparisons``), P1's
    where it is one of P1's orderings and the findings' family of the pair among the plan's
    cells; with the plan's boundaries, so its
    stopping look is the one the runner stopped it at. A run without a plan keeps ``own``."""
    xa, xb = _cell_ids(df, a), _cell_ids(df, b)
    if not xa or not xb:
        return OneFamily(max(1, int(own)))
    fam, stop = families.plan_family(run.plan or {}, xa, xb, own,
                                     metric in INVERSE_METRICS)
    return OneFamily(fam, stop)


def sequential_pair(run: Run, j: pd.DataFrame, family: int,
                    rule: R.DecisionRule,
                    stop: Sequence[float] | None = None) -> S.RatioTest | None:
    """The pairs ``j`` (:func:`paired_rounds`) of one block with looks, read at their
    stopping look (the first decided against ``stop``, the boundaries the runner stopped
    the comparison against, else against the rule's); None where the run has no top-up, the
    pairs span several blocks or their block has no looks (:func:`paired_test` reads
    those)."""
    seq = planfile.sequential_design(run.plan)
    blocks = set(j.index.get_level_values(0)) if len(j) else set()
    if seq is None or len(blocks) != 1:
        return None
    block = str(next(iter(blocks)))
    sched = planfile.block_schedule(run.plan, block)
    if sched is None:
        return None
    t = run.trials
    reached = int(t.loc[t["block"] == block, "repetition"].max())
    design = sq.design_of(seq)
    return S.sequential_ratio(j.index.get_level_values(1), j["a"], j["b"], sched, reached,
                              tuple(stop) if stop else rule.boundaries(), family,
                              design.spending, design.alpha)


def planned_rounds(run: Run, block: str) -> int | None:
    """The rounds the plan gave a block before any top-up (``blocks.<id>.rounds``)."""
    b = ((run.plan or {}).get("blocks") or {}).get(block) or {}
    n = b.get("rounds")
    return int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None


def paired_test(run: Run, j: pd.DataFrame, family: int, rule: R.DecisionRule,
                stop: Sequence[float] | None = None) -> S.RatioTest:
    """The paired reading of the pairs ``j`` (:func:`paired_rounds`) under the run's design:

    * the fixed design: the t CI over every round (:func:`analysis.statistics.stats.paired_ratio`);
    * the sequential top-up, one block with looks: the repeated CI at the stopping look
      (:func:`sequential_pair`);
    * the sequential top-up, blocks without looks (never topped up): the fixed t CI over
      their rounds, which no look chose; the result says so;
    * the sequential top-up, pairs in several blocks of which one has looks: the rounds each
      block got by the top-up were granted on the strength of that block's own looks, so a
      fixed CI over them would be optional stopping; the fixed t CI reads only the rounds
      the plan gave each block before any top-up, and the result says so. Never a silent
      fixed-sample CI over top-up rounds."""
    if planfile.sequential_design(run.plan) is None:
        return S.paired_ratio(j["a"], j["b"], family)
    seq = sequential_pair(run, j, family, rule, stop)
    if seq is not None:
        return seq
    blocks = sorted({str(b) for b in j.index.get_level_values(0)})
    looked = [b for b in blocks if planfile.block_schedule(run.plan, b) is not None]
    if not looked:
        t = S.paired_ratio(j["a"], j["b"], family)
        whose = "its block has" if len(blocks) == 1 else f"its {len(blocks)} blocks have"
        return replace(t, note=f"fixed-sample CI: {whose} no looks and never got a top-up")
    caps = {b: planned_rounds(run, b) for b in blocks}
    keep = [caps[str(b)] is None or int(r) <= caps[str(b)]  # type: ignore[operator]
            for b, r in j.index]
    k = j[keep]
    t = S.paired_ratio(k["a"], k["b"], family)
    return replace(t, note=f"fixed-sample CI on the {len(k)} rounds planned before any "
                   f"top-up: the pairs span {len(blocks)} blocks, whose top-up rounds "
                   "followed their own looks")


def block_seconds_per_round(run: Run, j: pd.DataFrame) -> float:
    """The planned seconds per round of the one block the pairs ``j`` (:func:`paired_rounds`)
    lie in; NaN where they span several blocks or the plan has none."""
    ids = {str(x) for x in j.index.get_level_values(0)}
    if len(ids) != 1:
        return math.nan
    b = ((run.plan or {}).get("blocks") or {}).get(ids.pop()) or {}
    v = b.get("seconds_per_round")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def compare_pair(run: Run, df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
                 metric: str, family: int, rule: R.DecisionRule, size: int = 0,
                 paired: bool = True, seed: int = 0,
                 expect: R.Expect | None = None) -> Compared | None:
    """a/b under the run's declared primary design, the other design beside it, at the
    comparison's one family (:func:`one_family`; ``family`` is the reader's own); each CI
    read by ``rule`` and, for a claim, by its expectation at this size (``expect``)."""
    x = values(_twin0(select_columns(df, (metric, "twin"), **a)), metric)
    y = values(_twin0(select_columns(df, (metric, "twin"), **b)), metric)
    if x.size < 2 or y.size < 2:
        return None
    one = one_family(run, df, a, b, family, metric)
    family = one.family
    unp = S.unpaired_ratio(x, y, family, seed=seed)
    pr = None
    if paired:
        j = paired_rounds(df, a, b, metric)
        if len(j) >= 2:
            pr = paired_test(run, j, family, rule, one.stop)
    if run.primary == S.PAIRED and pr is not None:
        prim, sens = pr, unp
    else:
        prim, sens = unp, pr
    block, spr, sched, spending = "", math.nan, None, sq.POCOCK
    if paired and pr is not None:
        ids = {str(x) for x in j.index.get_level_values(0)}
        if len(ids) == 1:
            block = ids.pop()
            spr = block_seconds_per_round(run, j)
            sched, spending = design_looks(run, block, prim)
    def reads(t: S.RatioTest | None) -> R.Read | None:
        return expect.read(t.ratio.lo, t.ratio.hi) if t is not None and expect else None

    return Compared(size, prim, R.decide(rule, prim.ratio.lo, prim.ratio.hi), sens,
                    R.decide(rule, sens.ratio.lo, sens.ratio.hi) if sens is not None else None,
                    block, spr, sched, spending, reads(prim), reads(sens))


def design_looks(run: Run, block: str, t: S.RatioTest) -> tuple[sq.Schedule | None, str]:
    """The looks and spending a comparison of ``block`` is read with: its block's schedule
    where the run has the sequential top-up and the comparison was read at a look (else None:
    the fixed design's CI reads it)."""
    seq = planfile.sequential_design(run.plan)
    if seq is None or not t.looks:
        return None, sq.POCOCK
    return planfile.block_schedule(run.plan, block), sq.design_of(seq).spending


def design_text(run: Run) -> str:
    if not run.has_blocks:
        return "unpaired (this run has no blocks)"
    return f"{run.primary} (declared in plan.json)"


def original_cells(run: Run) -> pd.DataFrame:
    """The reports' own programs' trials (kind ``original:S<n>``, methods ``S<n>:...``)."""
    m = run.measured
    return m[m["scenario"] == "original"]


def claim_blocks(run: Run, claim: str) -> set[str] | None:
    """The blocks the run's plan declares for a claim (its experiments' ``claims``), or
    None for a run without the block design (every matching cell counts there)."""
    blocks = (run.plan or {}).get("blocks")
    if not run.has_blocks or not isinstance(blocks, dict):
        return None
    return {bid for bid, b in blocks.items() if claim in (b.get("claims") or [])}


def rule_cells(run: Run, rule: "Rule", placement: str | None) -> pd.DataFrame:
    """The cells of a rule's configuration (every method, every size) in the blocks the
    plan declares for its claim; a rule about a report's own programs (methods
    ``S<n>:...``) reads their trials."""
    if ":" in rule.numerator + rule.denominator:
        d = original_cells(run)
        d = d[d["mode"] == rule.mode]
    elif rule.mode == "stream":
        d = stream_cells(run)
    elif rule.mode == "pingpong":
        d = pingpong_cells(run)
    else:
        m = run.measured
        d = m[m["scenario"] == rule.mode]
        if rule.cache:
            d = d[d["cache"] == rule.cache]
    blocks = claim_blocks(run, rule.claim)
    if blocks is not None:
        d = d[d["block"].isin(blocks)]
    f: dict[str, Any] = {"transport": rule.transport, "placement": placement}
    if rule.combine not in ("threads", "best thread count"):
        f["threads"] = rule.threads
    return select(d, **f)


def sizes_with(d: pd.DataFrame, a: str, b: str, metric: str) -> list[int]:
    """The sizes at which both methods have two values or more in the cells ``d``."""
    return sorted(int(s) for s in d["size"].dropna().unique()
                  if has_data(d, metric, method=a, size=s) and has_data(d, metric, method=b, size=s))


def new_result(rule: "Rule", stmt: tuple[str, str, str], placement: str | None,
               basis: str = COPYBENCH, reading: str | None = None) -> ClaimResult:
    """A result for one rule at one placement, its rule, boundaries and condition filled in
    (``reading`` overrides the rule's, e.g. for the reports' own programs)."""
    reading = rule.reading if reading is None else reading
    r = ClaimResult(rule.claim, *stmt)
    r.basis, r.reading, r.placement = basis, reading, placement or ""
    r.rule_id = f"{rule.claim}:{rule.reading}"
    r.rule_short = rule.short()
    r.part = ", ".join(x for x in (placement, reading) if x)
    r.rule = (f"[{reading}] " if reading else "") + rule.text()
    r.boundaries = (f"[{reading}] " if reading else "") + rule.boundaries_text()
    r.configuration = rule.configuration(placement)
    r.condition = "; ".join(c.text() for c in rule.conditions)
    r.band = tuple(float(b) for b in rule.band) if rule.combine == "crossover" \
        else tuple(float(b) for b in rule.decision.boundaries())
    return r


def crossover_of(run: Run, d: pd.DataFrame, a: str, b: str, metric: str,
                 sizes: Sequence[int]) -> tuple[S.Crossover, str]:
    """Where method a starts to beat method b along ``sizes`` in the cells ``d``, and the
    design that computed it: paired over rounds when the run has blocks (and every size has
    two pairs or more), else unpaired over trials."""
    lr = {}
    if run.primary == S.PAIRED and run.has_blocks:
        for s in sizes:
            x, y = paired_values(d, {"method": a, "size": s}, {"method": b, "size": s}, metric)
            lr[s] = S.log_ratios(x, y)
    if lr and all(v.size >= 2 for v in lr.values()):
        return S.paired_crossover(lr), S.PAIRED
    return (S.crossover({s: values(select(d, method=a, size=s), metric) for s in sizes},
                        {s: values(select(d, method=b, size=s), metric) for s in sizes}),
            S.UNPAIRED)


def missing_reason(run: Run, rule: "Rule", placement: str | None,
                   sizes: Sequence[int] | None = None) -> str:
    """Why a rule has no data here: the first factor level the claim's cells lack."""
    if ":" in rule.numerator + rule.denominator:
        base, what = original_cells(run), "their programs'"
    elif rule.mode in ("stream", "pingpong"):
        base = stream_cells(run) if rule.mode == "stream" else pingpong_cells(run)
        what = "stream" if rule.mode == "stream" else "ping-pong"
    else:
        m = run.measured
        base, what = m[m["scenario"] == rule.mode], rule.mode
    blocks = claim_blocks(run, rule.claim)
    if blocks is not None:
        base = base[base["block"].isin(blocks)]
        what = f"{rule.claim} {what}"
    threads_rule = rule.combine in ("threads", "best thread count")
    f: dict[str, Any] = {}
    if rule.transport:
        f["transport"] = [rule.transport]
    if placement:
        f["placement"] = [placement]
    if rule.mode in ("stream", "pingpong") and not threads_rule:
        f["threads"] = [rule.threads]
    if rule.sizes or sizes:
        f["size"] = list(sizes or rule.sizes)
    if not threads_rule:
        f["method"] = [rule.numerator]
    why = why_missing(base, what, **f)
    if why.startswith("fewer"):
        return (f"no {what} cells with both {rule.numerator} and {rule.denominator} at "
                f"{rule.configuration(placement)} in this run")
    return why

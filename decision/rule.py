"""Reading a confidence interval against a rule: the one place a CI meets an edge.

Every decision of the study reads a ratio's CI [lo, hi] here, and nowhere else: a claim's
outcome at one size, the decision map, the placement question, the A/A control, the comparison
of two runs, where the top-up stops a comparison, and the simulations of the design.

* :func:`crosses`: whether an edge lies strictly inside the CI (vectorised: the simulations
  read thousands of CIs at once); a CI that crosses none of its edges is decided.
* :func:`side`: where a CI lies against a band [lo_edge, hi_edge]: above, below, inside (ends
  included), across, or none (no CI).
* The **band reading** of a comparison (:func:`band_outcome`): ``greater`` above 1 + t,
  ``less`` below 1 - t, ``equivalent`` inside, else ``inconclusive``.
* **Direction and size apart** (:func:`direction_and_size`, the decision map and the
  findings): a CI wholly above (below) 1 decides the direction, faster (slower); beyond the
  band it is by more than t, inside the band "equivalent", else the size is open.
* A **claim's expectation at one size** (:class:`Expect`), the minimum-effect test (Lakens,
  Social Psychological and Personality Science 8, 2017; Lakens, Scheel & Isager, Advances in
  Methods and Practices in Psychological Science 1, 2018): an effect claim (``greater``:
  beyond 1 + t; ``less``: beyond 1 - t) *agrees* when the CI lies wholly beyond its edge and
  *contradicts* when it lies wholly on the near side (no effect of interest in the claimed
  direction), whatever side of the other edge it lies on; an at-most claim (``at most``: not
  beyond 1 + t) the reverse; an equivalence reading agrees inside [1 - t, 1 + t] and
  contradicts wholly beyond either edge. Otherwise the size is *open*, and names the edge its
  CI crosses.
* The magnitude-style rules (:class:`DecisionRule` ``above`` / ``below`` / ``approx``) and the
  band reading as a rule (``direction``), read by :func:`decide`.

Numbers only (no numpy at import time for the scalar readers): the runner and the analysis
both import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from decision.band import SESOI

GREATER, LESS, EQUIVALENT, INCONCLUSIVE = "greater", "less", "equivalent", "inconclusive"
#: the band reading's decided outcomes
OUTCOMES = frozenset({GREATER, LESS, EQUIVALENT})
#: where a CI lies against a band (:func:`side`)
Side = Literal["above", "below", "inside", "across", "none"]


def _finite(lo: float, hi: float) -> bool:
    return math.isfinite(lo) and math.isfinite(hi)


def crosses(lo: Any, hi: Any, edge: float) -> Any:
    """Whether ``edge`` lies strictly inside the CI (lo, hi); elementwise for arrays (a NaN end
    crosses nothing here: scalar readers treat a CI without ends as undecided themselves)."""
    return (lo < edge) & (edge < hi)


def crossed(lo: float, hi: float, edges: Sequence[float]) -> tuple[float, ...]:
    """The edges strictly inside the CI [lo, hi], in order."""
    return tuple(e for e in sorted(edges) if crosses(lo, hi, e))


def gap(lo: Any, hi: Any, edges: Sequence[float]) -> Any:
    """The gap between the sorted ``edges`` a decided CI lies in (0 below the first, len(edges)
    above the last; a CI that ends on an edge lies on the side of its body); elementwise for
    arrays. For a CI that crosses an edge the answer is meaningless: read :func:`crosses`
    first."""
    import numpy as np

    return np.searchsorted(np.asarray(sorted(edges), dtype=float), hi, side="left")


def decided(lo: float, hi: float, edges: Sequence[float]) -> bool:
    """A CI is decided against its edges when none lies strictly inside it; a CI with a NaN
    end decides nothing."""
    if math.isnan(lo) or math.isnan(hi):
        return False
    return not crossed(lo, hi, edges)


def side(lo: float, hi: float, lo_edge: float, hi_edge: float) -> Side:
    """Where the CI [lo, hi] lies against the band [lo_edge, hi_edge] (equal edges: one
    edge): ``above`` wholly above hi_edge, ``below`` wholly below lo_edge, ``inside`` within
    the band (its ends included), ``across`` when it straddles an edge, ``none`` where the CI
    is undefined (a NaN or infinite end)."""
    if not _finite(lo, hi):
        return "none"
    if lo > hi_edge:
        return "above"
    if hi < lo_edge:
        return "below"
    if lo_edge <= lo and hi <= hi_edge:
        return "inside"
    return "across"


def holds(lo: float, hi: float, x: float) -> bool:
    """Whether the value x lies inside the CI [lo, hi] (its ends included; a CI without ends
    holds nothing): the magnitude question's "consistent", the A/A's "contains 1"."""
    return _finite(lo, hi) and lo <= x <= hi


def overlap(a_lo: float, a_hi: float, b_lo: float, b_hi: float) -> bool | None:
    """Whether two CIs overlap (ends included); None where either has no ends."""
    if not (_finite(a_lo, a_hi) and _finite(b_lo, b_hi)):
        return None
    return side(a_lo, a_hi, b_lo, b_hi) not in ("above", "below")


def fmt(x: float) -> str:
    """An edge or a CI end as the rule's texts print it."""
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.4g}"


#: a ratio's CI whose upper end is more than this many times its lower end spans three
#: decades: it bounds nothing (two copy methods' throughputs differ by a factor of tens at
#: most on any testbed, and the band read against is a few percent wide), and its ends,
#: printed as numbers ("[0.000, 4.18e+04]"), would read as a measurement. Such a CI comes
#: from a comparison of very few rounds (the t quantile on 1 df is 12.7): the book says
#: "unbounded" instead (:func:`unbounded`, :func:`ci_text`,
#: :func:`analysis.statistics.fmt.fmt_ratio_ci`).
UNBOUNDED_FACTOR = 1000.0


def unbounded(lo: float | None, hi: float | None) -> bool:
    """Whether a ratio's CI [lo, hi] is unbounded in the book's sense: both ends finite and
    its upper end more than :data:`UNBOUNDED_FACTOR` times its lower end (a lower end at or
    below 0 included). A CI without ends (NaN) is not: it is "no CI"."""
    if lo is None or hi is None or not _finite(float(lo), float(hi)):
        return False
    return lo <= 0 or hi > UNBOUNDED_FACTOR * lo


def unbounded_words() -> str:
    """What an unbounded CI is, in words: "its ends more than 1000× apart"."""
    return f"its ends more than {UNBOUNDED_FACTOR:,.0f}× apart"


def ci_text(lo: float, hi: float) -> str:
    """``CI [0.950, 1.050]``; an unbounded CI (:func:`unbounded`) as "CI unbounded (its ends
    more than 1,000× apart)", not as two numbers."""
    if unbounded(lo, hi):
        return f"CI unbounded ({unbounded_words()})"
    return f"CI [{fmt(lo)}, {fmt(hi)}]"


# ------------------------------------------------------------------ the band reading

def band_outcome(lo: float, hi: float, t: float = SESOI) -> str:
    """The band reading of a ratio's CI: ``greater`` above 1 + t, ``less`` below 1 - t,
    ``equivalent`` inside [1 - t, 1 + t], else ``inconclusive`` (crossing an edge, or no CI)."""
    return {"above": GREATER, "below": LESS, "inside": EQUIVALENT}.get(
        side(lo, hi, 1.0 - t, 1.0 + t), INCONCLUSIVE)


# ------------------------------------------------------- direction and size apart

FASTER, SLOWER, UNDECIDED = "faster", "slower", "undecided"
#: the size of a decided direction: beyond the band, inside it, or not yet known
BEYOND, WITHIN, OPEN = "by more than the band", "within the band", "size open"


@dataclass(frozen=True)
class Reading:
    """A comparison read as a practitioner asks: is it faster or slower (the CI against 1),
    and by how much (against the band)."""

    direction: str  # faster | slower | undecided (the CI contains 1)
    size: str  # BEYOND | WITHIN | OPEN
    t: float = SESOI

    @property
    def decided(self) -> bool:
        """The direction is decided (the CI excludes 1)."""
        return self.direction != UNDECIDED

    def label(self) -> str:
        """The map's words: "slower by more than 12 %", "slower (size open)", "equivalent
        (within ±12 %)", "undecided" (the book's percent: a space before the sign)."""
        pct = f"{self.t * 100:.0f} %"
        if self.size == WITHIN:
            return f"equivalent (within ±{pct})"
        if self.direction == UNDECIDED:
            return UNDECIDED
        if self.size == BEYOND:
            return f"{self.direction} by more than {pct}"
        return f"{self.direction} (size open)"


def direction_and_size(lo: float, hi: float, t: float = SESOI) -> Reading:
    """:class:`Reading` of the CI [lo, hi] of a ratio whose larger values are better (a
    throughput): the direction from the CI against 1, the size from the band (a CI inside
    the band is "equivalent", whatever side of 1 it lies on)."""
    band_side = side(lo, hi, 1.0 - t, 1.0 + t)
    if band_side == "inside":
        direction = {"above": FASTER, "below": SLOWER}.get(side(lo, hi, 1.0, 1.0), UNDECIDED)
        return Reading(direction, WITHIN, t)
    one = side(lo, hi, 1.0, 1.0)
    direction = {"above": FASTER, "below": SLOWER}.get(one, UNDECIDED)
    size = BEYOND if band_side in ("above", "below") else OPEN
    return Reading(direction, size, t)


# ------------------------------------------------------- a claim's expectation at one size

AGREES, CONTRADICTS, UNSETTLED = "agrees", "contradicts", "open"
#: the forms of a claim's expectation at one size (on the rule's own ratio)
AT_MOST, AT_LEAST = "at most", "at least"
KINDS = (GREATER, LESS, AT_MOST, AT_LEAST, EQUIVALENT)


@dataclass(frozen=True)
class Read:
    """A claim's expectation read at one size: agrees, contradicts or open, the edges an open
    CI crosses, and why in words."""

    outcome: str  # AGREES | CONTRADICTS | UNSETTLED
    crosses: tuple[float, ...] = ()
    why: str = ""
    #: the band reading of the same CI (greater / less / equivalent / inconclusive)
    band: str = INCONCLUSIVE


@dataclass(frozen=True)
class Expect:
    """What a claim says of one comparison at one size, on the rule's own ratio:
    ``greater`` (an effect beyond 1 + t), ``less`` (beyond 1 - t), ``at most`` (not beyond
    1 + t: "never beats"), ``at least`` (not beyond 1 - t) or ``equivalent`` (inside the
    band)."""

    kind: str
    t: float = SESOI

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown expectation {self.kind!r}: allowed are "
                             f"{', '.join(KINDS)}")

    def edges(self) -> tuple[float, ...]:
        """The edges this expectation is read against (one; two for equivalence)."""
        lo, hi = 1.0 - self.t, 1.0 + self.t
        return {GREATER: (hi,), AT_MOST: (hi,), LESS: (lo,), AT_LEAST: (lo,),
                EQUIVALENT: (lo, hi)}[self.kind]

    def text(self) -> str:
        """The expectation in a few words ("> 1.12", "<= 1.12", "inside [0.88, 1.12]")."""
        lo, hi = 1.0 - self.t, 1.0 + self.t
        return {GREATER: f"> {hi:g}", LESS: f"< {lo:g}", AT_MOST: f"<= {hi:g}",
                AT_LEAST: f">= {lo:g}", EQUIVALENT: f"inside [{lo:g}, {hi:g}]"}[self.kind]

    def read(self, lo: float, hi: float) -> Read:
        """The expectation against the CI [lo, hi]: :data:`AGREES`, :data:`CONTRADICTS` or
        open (no CI, or the CI crosses an edge it is read against)."""
        if not _finite(lo, hi):
            return Read(UNSETTLED, (), "no CI (fewer than 2 values or pairs)")
        ci = ci_text(lo, hi)
        b = band_outcome(lo, hi, self.t)
        over = crossed(lo, hi, self.edges())
        if over:
            return Read(UNSETTLED, over, f"{ci} straddles " + " and ".join(map(fmt, over)), b)
        if self.kind == EQUIVALENT:
            lo_e, hi_e = self.edges()
            if side(lo, hi, lo_e, hi_e) == "inside":
                return Read(AGREES, (), f"{ci} inside [{fmt(lo_e)}, {fmt(hi_e)}]", b)
            return Read(CONTRADICTS, (), f"{ci} outside [{fmt(lo_e)}, {fmt(hi_e)}], where "
                        "the claim says inside", b)
        (e,) = self.edges()
        # no edge strictly inside: the CI lies on one side of it (a CI that only touches the
        # edge lies on the side of its middle; a CI centred on the edge is not beyond it)
        mid = (lo + hi) / 2.0
        wanted = "above" if self.kind in (GREATER, AT_LEAST) else "below"
        where = "above" if mid > e else "below" if mid < e else "at"
        agrees = where == wanted if where != "at" else self.kind in (AT_MOST, AT_LEAST)
        if agrees:
            return Read(AGREES, (), f"{ci} {where} {fmt(e)}", b)
        return Read(CONTRADICTS, (), f"{ci} {where} {fmt(e)}, where the claim says {wanted}",
                    b)


def expect_of(outcomes: frozenset[str], t: float = SESOI) -> Expect:
    """The expectation the claims' table writes as the band outcomes that agree with a claim:
    {greater} an effect above, {less} below, {less, equivalent} at most, {greater,
    equivalent} at least, {equivalent} equivalence."""
    kind = {frozenset({GREATER}): GREATER, frozenset({LESS}): LESS,
            frozenset({LESS, EQUIVALENT}): AT_MOST, frozenset({GREATER, EQUIVALENT}): AT_LEAST,
            frozenset({EQUIVALENT}): EQUIVALENT}.get(frozenset(outcomes))
    if kind is None:
        raise ValueError(f"no expectation agrees with the outcomes {sorted(outcomes)}")
    return Expect(kind, t)


# -------------------------------------------------------------- rules of one comparison

RuleKind = Literal["direction", "above", "below", "approx"]


@dataclass(frozen=True)
class DecisionRule:
    """How the CI of one ratio is read when it is not a claim's expectation:

    * ``direction`` (threshold t): the band reading (:func:`band_outcome`);
    * ``above`` / ``below`` (value X): ``holds`` when the CI lies wholly above (below) X,
      ``refuted`` when wholly on the other side, else ``inconclusive``;
    * ``approx`` (value R, tolerance k): ``holds`` when the CI lies inside [R/k, R*k],
      ``refuted`` when wholly outside it, else ``inconclusive``.
    """

    kind: RuleKind
    threshold: float = SESOI
    value: float = math.nan
    tolerance: float = math.nan

    def boundaries(self) -> tuple[float, ...]:
        if self.kind == "direction":
            return (1 - self.threshold, 1 + self.threshold)
        if self.kind == "approx":
            return (self.value / self.tolerance, self.value * self.tolerance)
        return (self.value,)

    def text(self) -> str:
        if self.kind == "direction":
            t = self.threshold
            return (f"greater if the CI lies above {1 + t:.3g}, less if below {1 - t:.3g}, "
                    f"equivalent if inside [{1 - t:.3g}, {1 + t:.3g}]")
        if self.kind == "above":
            return f"holds if the CI lies above {self.value:.3g}, refuted if below"
        if self.kind == "below":
            return f"holds if the CI lies below {self.value:.3g}, refuted if above"
        lo, hi = self.boundaries()
        return (f"holds if the CI lies inside [{lo:.3g}, {hi:.3g}] (~{self.value:.3g} within "
                f"x/÷{self.tolerance:g}), refuted if wholly outside")


#: the band reading of the one band, as a rule
DIRECTION = DecisionRule("direction", SESOI)


@dataclass(frozen=True)
class Decision:
    outcome: str  # greater/less/equivalent/inconclusive, or holds/refuted/inconclusive
    straddles: tuple[float, ...] = ()  # the boundaries an inconclusive CI straddles
    why: str = ""


def decide(rule: DecisionRule, lo: float, hi: float) -> Decision:
    """Read the CI [lo, hi] of a ratio with a rule (:func:`side` against its boundaries);
    *inconclusive* names the boundary its CI straddles."""
    bounds = rule.boundaries()
    where = side(lo, hi, bounds[0], bounds[-1])
    if where == "none":
        return Decision(INCONCLUSIVE, (), "no CI (fewer than 2 values or pairs)")
    ci = ci_text(lo, hi)
    inside = crossed(lo, hi, bounds)
    straddle = (f"{ci} straddles " + " and ".join(map(fmt, inside))) if inside else ""
    if rule.kind == "direction":
        t = rule.threshold
        out = {"above": GREATER, "below": LESS, "inside": EQUIVALENT}.get(where)
        if out is None:
            return Decision(INCONCLUSIVE, inside, straddle)
        why = {"above": f"{ci} above {fmt(1 + t)}", "below": f"{ci} below {fmt(1 - t)}",
               "inside": f"{ci} inside [{fmt(1 - t)}, {fmt(1 + t)}]"}[where]
        return Decision(out, (), why)
    if rule.kind in ("above", "below"):
        if where in ("above", "below"):
            return Decision("holds" if where == rule.kind else "refuted", (),
                            f"{ci} {where} {fmt(rule.value)}")
        return Decision(INCONCLUSIVE, inside, straddle)
    band_lo, band_hi = bounds
    if where == "inside":
        return Decision("holds", (), f"{ci} inside [{fmt(band_lo)}, {fmt(band_hi)}]")
    if where in ("above", "below"):
        return Decision("refuted", (), f"{ci} outside [{fmt(band_lo)}, {fmt(band_hi)}]")
    return Decision(INCONCLUSIVE, inside, straddle)

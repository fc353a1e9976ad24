"""The group-sequential top-up design as the profile and plan.json declare it: the
spending function's name, the looks of a block (:class:`Schedule`), the design's parameters
(:class:`SequentialDesign`) and its description in words.

Only the standard library: the profile loader imports this, and so does the runner of the
reports' own programs, which runs with whatever Python 3.11 the unprivileged user has. The
statistics that read a design (boundaries, repeated CIs, the top-up order) are
:mod:`decision.sequential`'s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

#: the two-sided error of a family of comparisons (split over its m members, Bonferroni)
ALPHA = 0.05
#: the confidence level of a CI of one comparison (a family of m: 1 - ALPHA/m)
CONFIDENCE = 1 - ALPHA
OBRIEN_FLEMING = "obrien-fleming"
POCOCK = "pocock"
#: a comparison less likely than this to be decided by its maximum is dropped from the top-up
DROP_BELOW = 0.10
#: the spending functions a design may name (their formulas: decision.sequential.SPENDING)
SPENDING_NAMES = (OBRIEN_FLEMING, POCOCK)

SPENDING_TEXT = {OBRIEN_FLEMING: "O'Brien-Fleming-type spending function alpha(t) = 2 - 2 "
                 "Phi(z(1 - alpha/2) / sqrt(t))",
                 POCOCK: "Pocock-type spending function alpha(t) = alpha ln(1 + (e - 1) t)"}


def check_spending(name: str) -> None:
    if name not in SPENDING_NAMES:
        raise ValueError(f"unknown spending function {name!r}: allowed are "
                         f"{', '.join(sorted(SPENDING_NAMES))}")


def check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")


# ----------------------------------------------------------------------------- the schedule

@dataclass(frozen=True)
class Schedule:
    """A block's looks: after n0, n0 + k, ... rounds, and after its maximum N."""

    looks: tuple[int, ...]

    @property
    def rounds_max(self) -> int:
        return self.looks[-1]

    @property
    def fractions(self) -> tuple[float, ...]:
        """Information fractions n_j / N (the sd per round is taken as constant)."""
        return tuple(n / self.rounds_max for n in self.looks)


def schedule(n0: int, k: int, n_max: int) -> Schedule:
    """The looks n0, n0 + k, n0 + 2k, ... and N (included even when N - n0 is no multiple
    of k) for a block with planned rounds n0, look interval k and maximum N."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"look interval must be an integer >= 1, got {k!r}")
    if isinstance(n0, bool) or not isinstance(n0, int) or n0 < 2:
        raise ValueError(f"planned rounds n0 must be an integer >= 2, got {n0!r}")
    if isinstance(n_max, bool) or not isinstance(n_max, int) or n_max < n0:
        raise ValueError(f"maximum rounds N must be an integer >= n0 = {n0}, got {n_max!r}")
    return Schedule(tuple(range(n0, n_max, k)) + (n_max,))


# -------------------------------------------------------------- the order of the top-up

#: the one revision of the order's model (plan.json carries it after the rule; the book
#: tells it in its table of revisions, not in the design's description: :func:`design_text`)
ORDER_REVISED = "2026-11-26T07:45Z"
ORDER_REVISION = ("This model of when a verdict is decided was revised on 2026-11-26 after a "
                  "simulation on the reference run's structure, before any run used it, so "
                  "the next run is its real test; before, a verdict counted as decided only "
                  "when every comparison it reads was (the product of their chances), and "
                  "one hopeless comparison removed it from the order")
#: the second revision of the order's model: one edge per verdict (the minimum-effect rule)
ONE_EDGE_REVISED = "2026-11-28T07:00Z"
ONE_EDGE_REVISION = ("which questions the top-up asks a comparison: only the edges of the "
                     "verdicts it serves (one per claim's expectation at its size: 1 + t for an "
                     "effect above, 1 - t below, the band's two for the placement question), so "
                     "a comparison whose CI lies wholly on one side of a verdict's edge gets no "
                     "more rounds for that verdict (before: the band's two edges for every "
                     "comparison, so a 'greater' claim's comparison with a CI wholly below 1 + t "
                     "kept its rounds to choose between 'less' and 'equivalent', both of which "
                     "refute it); and a look is no longer discounted by the chance that another "
                     "block would refute the same verdict by its maximum (that left a verdict "
                     "that several blocks would each surely refute with no look at all); revised "
                     "with the claims' minimum-effect rule, before any run used it")
ORDER_RULE = ("after every block's first look, the budget goes out one look at a time to "
              "the block with the highest predicted chance per second that its next look "
              "decides a verdict testable here. Each verdict asks each comparison it reads "
              "about one edge, the one its claim's expectation at that size names (1 + t for "
              "an effect above the band, 1 - t below; the placement question, whose flips "
              "need the band, both); a comparison's CI that lies wholly beyond that edge on "
              "the claim's side agrees, wholly on the other side contradicts. A verdict is "
              "decided when one comparison it reads contradicts a claim about every size (for "
              "the crossover, a size above the claimed band), or when every comparison agrees. "
              "Each comparison's chances to agree and to contradict come from its estimate and "
              "sd so far (this block's at its next look, with that look's quantile; the "
              "others' by their maximum; taken as independent); the look is credited, per "
              "verdict, with the chance that this block's comparisons refute it at that look, "
              "plus the chance that every comparison agrees, summed over the block's "
              "verdicts and divided by the look's estimated seconds (the order is read again "
              "after every grant, so a verdict one block's look refutes takes nothing more). "
              "A verdict already "
              "refuted gets no more rounds, nor does a comparison whose CI already lies on one "
              "side of a verdict's edge, for that verdict; a comparison with less than a 10 % "
              "chance by its maximum is dropped (it decides nothing, while the verdict's other "
              "comparisons may still refute it); claims this machine cannot test have no "
              "comparisons; ties go to the smaller block id. " + ORDER_REVISION)
#: the order rule of runs made before the verdict order (their plan.json carries its text)
EXTRA_ROUNDS_RULE = ("among blocks with an undecided comparison and rounds left, the block "
                     "whose undecided comparison is closest to deciding runs first: closeness = "
                     "the extra rounds it needs, ((q_K s) / d)^2 - n, with s the observed sd of "
                     "its per-round log ratios, d the log-distance from their mean to the "
                     "nearest boundary its CI straddles, q_K the quantile of the block's last "
                     "look and n its rounds so far; ties go to the smaller block id")


# ----------------------------------------------------------------------- the design itself

@dataclass(frozen=True)
class SequentialDesign:
    """The sequential part of a block design: where a block's looks fall, how the error is
    spent over them, how far a block may go and which block is topped up first.

    A block's first look is after ``first_look`` rounds (None: after its planned rounds n0
    from the noise model), then every ``look_every`` rounds up to N = ``rounds_max`` (or,
    with ``max_factor``, N = min(max_factor n0, rounds_max)). The defaults are the study's
    design: a first look of 10 rounds (at 6, a t CI on 5 df at a Bonferroni-Pocock
    level is about 3x wider than the fixed design's, and most blocks never got past it), then
    looks at 20 and 30 (N = 30), Pocock-type spending at n/N."""

    spending: str = POCOCK
    alpha: float = ALPHA
    first_look: int | None = 10
    look_every: int = 10
    rounds_max: int = 30
    max_factor: int | None = None
    #: a comparison less likely than this to be decided by N is dropped from the top-up
    drop_below: float = 0.10

    def __post_init__(self) -> None:
        check_spending(self.spending)
        check_alpha(self.alpha)
        for name, least in (("first_look", 2), ("look_every", 1), ("rounds_max", 2),
                            ("max_factor", 1)):
            v = getattr(self, name)
            if v is None and name in ("first_look", "max_factor"):
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < least:
                raise ValueError(f"{name} must be an integer >= {least}, got {v!r}")
        if self.first_look is not None and self.first_look > self.rounds_max:
            raise ValueError(f"first_look = {self.first_look} exceeds rounds_max = "
                             f"{self.rounds_max}")

    def schedule(self, n0: int) -> Schedule:
        """The looks of a block whose planned rounds are n0."""
        first = self.first_look if self.first_look is not None else n0
        if isinstance(first, int) and not isinstance(first, bool) and first > self.rounds_max:
            raise ValueError(f"planned rounds n0 = {first} exceed rounds_max = "
                             f"{self.rounds_max}")
        n_max = self.rounds_max if self.max_factor is None else \
            min(self.max_factor * first, self.rounds_max)
        return schedule(first, self.look_every, n_max)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable description (plan.json, the book's method chapter)."""
        first = (f"after {self.first_look} rounds" if self.first_look is not None
                 else "after the block's planned rounds n0")
        most = (f"{self.rounds_max} rounds" if self.max_factor is None
                else f"min({self.max_factor} n0, {self.rounds_max}) rounds")
        return {**asdict(self),
                "method": "group-sequential design with repeated confidence intervals",
                "references": "Jennison & Turnbull 1989; alpha spending after Lan & DeMets 1983",
                "spending_function": SPENDING_TEXT[self.spending],
                "family_rule": "Bonferroni: each comparison of a verdict's family of m is read "
                               "at alpha/m",
                "interval": "mean of the per-round log ratios +- q_j sd / sqrt(n_j), q_j the "
                            "t quantile (n_j - 1 df) at the nominal level of look j",
                "first_look_text": first, "max_text": most, "order_rule": ORDER_RULE}


def design_text(doc: Mapping[str, Any]) -> str:
    """The design in one paragraph, from :meth:`SequentialDesign.to_json` (or plan.json); the
    order's revision (:data:`ORDER_REVISION`) left out: the book tells it in its table of
    revisions."""
    return (f"Each block is first looked at {doc['first_look_text']}, then every "
            f"{doc['look_every']} rounds, up to N = {doc['max_text']}; a comparison stops at "
            f"the first look whose CI lies wholly on one side of each of its rule's "
            f"boundaries. The CIs are repeated confidence intervals ({doc['references']}), "
            f"valid at every look at once: the two-sided error {doc['alpha']:g} of a family is "
            f"spent over the looks by the {doc['spending_function']}, t = n/N; "
            f"{doc['family_rule']}; the interval at look j is the {doc['interval']}. The rounds "
            f"left in the budget go out one look at a time: "
            f"{str(doc['order_rule']).replace(' ' + ORDER_REVISION, '').rstrip('.')}.")


def design_of(doc: Mapping[str, Any]) -> SequentialDesign:
    """The :class:`SequentialDesign` a plan.json (or :meth:`SequentialDesign.to_json`)
    describes; keys beyond the design's own (budget, text) are ignored."""
    return SequentialDesign(**{k: doc[k] for k in ("spending", "alpha", "first_look",
                                                   "look_every", "rounds_max", "max_factor",
                                                   "drop_below")
                               if k in doc})

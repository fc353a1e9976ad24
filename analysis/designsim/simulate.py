"""Three designs of the claim blocks at one budget, simulated on a run's real structure
(:mod:`analysis.designsim.structure`) and judged by the verdicts they decide.

* FIXED: every claim block the same rounds, the budget spread evenly (n = the budget over
  the seconds of one round of every claim block, rounded down); each comparison read once,
  with the ordinary t CI at 1 - alpha/m.
* a sequential design as a plan declares it (:class:`~analysis.designsim.structure.DesignPlan`):
  every block to its first look (a claim block the plan gives no looks: its planned rounds,
  never topped up), then the budget left goes out one look at a time to the first block of
  the plan's order whose next look fits it (:func:`decision.sequential.rank_by_verdicts`
  for a plan whose comparisons name their claims, else the extra-rounds order
  :func:`decision.sequential.rank_blocks`), as the runner's top-up grants looks
  (runner/plan/topup.py ``next_look``), each comparison summarised at its block's latest
  look (:func:`decision.sequential.summary_of`).

Per-round log ratios are drawn independently per unit (a pair of cells of a block) and
round: the unit's measured effect plus its measured sd times a standard normal (or a
unit-variance t with 4 df). Every design reads the same draws (paired). The verdicts are
then decided as the analysis decides them: each comparison of a verdict at its block's
stopping look (:func:`decision.sequential.stopping_look` over the repeated CIs of the
rounds the block ran, at the rule's family), read by the rule
(:meth:`decision.rule.Expect.read`), combined by :func:`decision.verdict.every`.

Only numpy and the project's statistics: no files are read here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from analysis.claims.base import INCONCLUSIVE
from analysis.designsim.structure import DesignPlan, Structure, Verdict, VerdictComparison
from decision import families
from decision import rule as R
from decision import sequential as sq
from decision import verdict as V

FIXED, CURRENT, NEW = "fixed", "current", "new"
Array = NDArray[np.float64]


@dataclass(frozen=True)
class Arm:
    """A design ready to simulate: each claim block's rounds before any top-up, the
    schedule its comparisons are read with, and the top-up (None: the fixed design)."""

    name: str
    first: Mapping[str, int]
    reading: Mapping[str, sq.Schedule]
    topup: DesignPlan | None
    budget_s: float
    spending: str = sq.POCOCK
    alpha: float = sq.ALPHA


def fixed_arm(structure: Structure, budget_s: float) -> Arm:
    """Every claim block the same rounds: the budget over one round of every block."""
    n = int(budget_s // sum(structure.cost.values()))
    if n < 2:
        raise ValueError(f"a budget of {budget_s:.0f} s buys {n} round of every claim block")
    return Arm(FIXED, {b: n for b in structure.cost},
               {b: sq.Schedule((n,)) for b in structure.cost}, None, budget_s)


def sequential_arm(name: str, plan: DesignPlan, structure: Structure, budget_s: float) -> Arm:
    """The plan's design: its blocks with looks start at their first look, the others at
    their planned rounds (read with one fixed look)."""
    first: dict[str, int] = {}
    reading: dict[str, sq.Schedule] = {}
    for b in structure.cost:
        if b in plan.looks:
            reading[b] = sq.Schedule(tuple(plan.looks[b]))
            first[b] = plan.looks[b][0]
        else:
            first[b] = int(plan.fixed_rounds[b])
            reading[b] = sq.Schedule((first[b],))
    return Arm(name, first, reading, plan, budget_s, plan.spending, plan.alpha)


def first_seconds(arm: Arm, structure: Structure) -> float:
    return sum(arm.first[b] * structure.cost[b] for b in structure.cost)


# -------------------------------------------------------------------------------- draws

def draws(rng: np.random.Generator, structure: Structure, rounds: int,
          tails: str = "normal") -> Array:
    """units x rounds per-round log ratios: effect + sd e, e standard normal or t4/sqrt 2."""
    k = len(structure.units)
    if tails == "normal":
        e = rng.standard_normal((k, rounds))
    elif tails == "t4":
        e = rng.standard_t(4, (k, rounds)) / math.sqrt(2.0)
    else:
        raise ValueError(f"unknown tails {tails!r}: allowed are normal, t4")
    mean = np.array([u.effect for u in structure.units])[:, None]
    sd = np.array([u.sd for u in structure.units])[:, None]
    return mean + sd * e


# ---------------------------------------------------------------------------- the top-up

@dataclass(frozen=True)
class TopUp:
    """What a design's top-up did in one simulated run."""

    reached: Mapping[str, int]  # rounds each claim block ran
    seconds: float  # top-up seconds granted
    untestable_s: float  # of them, spent on comparisons only untestable claims read


def _summaries(arm: Arm, structure: Structure, x: Array, block: str,
               n: int) -> list[sq.Summary]:
    plan = arm.topup
    assert plan is not None
    sched = arm.reading[block]
    out = []
    for c in plan.comparisons.get(block, ()):
        looks = sq.repeated_cis(x[c.unit, :n], sched, c.family, plan.spending, plan.alpha)
        place = structure.placement[block]
        s = sq.summary_of(block, looks, sched, c.family, c.boundaries, plan.spending,
                          plan.alpha, families.serves(c.claims, c.mode, c.size, place))
        if s is not None:
            out.append(s)
    return out


def _untestable_share(arm: Arm, structure: Structure, block: str,
                      summ: Sequence[sq.Summary]) -> float:
    """The share of a granted look spent on claims untestable here. The look goes to the
    comparisons that earned it: under the extra-rounds order, the block's closest undecided
    comparison (the one :func:`decision.sequential.rank_blocks` ranks the block by);
    under the verdict order, the block's undecided comparisons that serve a verdict, evenly.
    A comparison is untestable claims' when every claim whose rules read it is one the
    analysis rules not testable at the block's placement."""
    plan = arm.topup
    assert plan is not None
    bad = structure.untestable_claims.get(structure.placement[block], frozenset())
    comps = plan.comparisons.get(block, ())
    need = [(sq.extra_rounds(s), c) for c, s in zip(comps, summ)]
    open_ = [(x, c) for x, c in need if x is not None]
    if not plan.by_verdicts:
        open_ = sorted(open_, key=lambda xc: xc[0])[:1]
    else:
        open_ = [(x, c) for x, c in open_ if c.claims]
    if not open_:
        return 0.0
    return sum(1 for _, c in open_ if c.readers and set(c.readers) <= bad) / len(open_)


def top_up(arm: Arm, structure: Structure, x: Array) -> TopUp:
    """The design's top-up on the draws ``x``: looks granted one at a time, in the plan's
    order, while the next look of the first block in that order fits the budget left."""
    reached = dict(arm.first)
    used = first_seconds(arm, structure)
    if used > arm.budget_s + 1e-9:
        raise ValueError(f"{arm.name}: the first looks need {used:.0f} s, over the budget "
                         f"{arm.budget_s:.0f} s")
    plan = arm.topup
    if plan is None:
        return TopUp(reached, 0.0, 0.0)
    summ = {b: _summaries(arm, structure, x, b, reached[b]) for b in plan.looks}
    granted = bad = 0.0
    while True:
        nexts: dict[str, tuple[int, float]] = {}
        for b, looks in plan.looks.items():
            later = [n for n in looks if n > reached[b]]
            if later:
                nexts[b] = (later[0], (later[0] - reached[b]) * structure.cost[b])
        every = [s for b in sorted(summ) for s in summ[b]]
        order = (sq.rank_by_verdicts(every, {b: v[1] for b, v in nexts.items()},
                                     plan.drop_below) if plan.by_verdicts
                 else sq.rank_blocks(every))
        for b, _ in order:
            if b not in nexts:
                continue
            n, secs = nexts[b]
            if used + secs <= arm.budget_s + 1e-9:
                bad += secs * _untestable_share(arm, structure, b, summ[b])
                used += secs
                granted += secs
                reached[b] = n
                summ[b] = _summaries(arm, structure, x, b, n)
                break
        else:
            break
    return TopUp(reached, granted, bad)


# ----------------------------------------------------------------------------- verdicts

#: how far a true log ratio may sit from an edge and still count as on it (an edge planted as
#: log(b) comes back from exp() a rounding error away)
ON = 1e-9


def _truth(log_truth: float, edges: Sequence[float]) -> float:
    """The true ratio, snapped onto an edge it lies within :data:`ON` of."""
    for e in edges:
        if abs(log_truth - math.log(e)) <= ON:
            return e
    return math.exp(log_truth)


def correct(outcome: str, log_truth: float, expect: R.Expect) -> bool:
    """Whether a size's reading (agrees / contradicts / open) is what the true ratio itself
    reads (a CI of zero width at the truth, decision.rule.Expect.read: a truth on the edge is
    not beyond it); open is never wrong."""
    if outcome == R.UNSETTLED:
        return True
    x = _truth(log_truth, expect.edges())
    return expect.read(x, x).outcome == outcome


def outcomes(arm: Arm, structure: Structure, x: Array, reached: Mapping[str, int],
             v: Verdict) -> dict[int, str]:
    """Each size's reading of a verdict (agrees / contradicts / open): its comparison at its
    stopping look over the rounds its block ran (stopped against its expectation's edges),
    read by what the verdict expects there."""
    out = {}
    for c in v.comparisons:
        block = structure.units[c.unit].block
        n = reached[block]
        looks = sq.repeated_cis(c.sign * x[c.unit, :n], arm.reading[block], v.family,
                                arm.spending, arm.alpha)
        e = R.expect_of(c.expected, v.decision.threshold)
        stop = sq.stopping_look(looks, e.edges())
        out[c.size] = e.read(stop.lo, stop.hi).outcome
    return out


@dataclass(frozen=True)
class Replicate:
    """One simulated run of one design."""

    decided: int  # verdict comparisons decided (distinct readings)
    undecided: int  # verdicts inconclusive
    wrong: Array  # per verdict: some comparison decided against its true ratio
    topup_s: float
    untestable_s: float


def _edges(v: Verdict, c: VerdictComparison) -> tuple[float, ...]:
    return R.expect_of(c.expected, v.decision.threshold).edges()


def readings(structure: Structure) -> list[tuple[int, float, int, tuple[float, ...]]]:
    """The distinct comparison readings the verdicts make: (unit, sign, family, edges); two
    readings of one claim over the same comparison count once."""
    seen: dict[tuple[int, float, int, tuple[float, ...]], None] = {}
    for v in structure.verdicts:
        for c in v.comparisons:
            seen[(c.unit, c.sign, v.family, _edges(v, c))] = None
    return list(seen)


def replicate(arm: Arm, structure: Structure, x: Array) -> Replicate:
    up = top_up(arm, structure, x)
    decided: set[tuple[int, float, int, tuple[float, ...]]] = set()
    undecided = 0
    wrong = np.zeros(len(structure.verdicts))
    for i, v in enumerate(structure.verdicts):
        out = outcomes(arm, structure, x, up.reached, v)
        if V.every({s: R.Read(o) for s, o in out.items()}) == INCONCLUSIVE:
            undecided += 1
        for c in v.comparisons:
            u = structure.units[c.unit]
            e = R.expect_of(c.expected, v.decision.threshold)
            if out[c.size] != R.UNSETTLED:
                decided.add((c.unit, c.sign, v.family, e.edges()))
            if not correct(out[c.size], c.sign * u.effect, e):
                wrong[i] = 1.0
    return Replicate(len(decided), undecided, wrong, up.seconds, up.untestable_s)


# ------------------------------------------------------------------ effects on a boundary

def on_boundary(structure: Structure) -> Structure:
    """The structure with every unit a verdict reads moved onto a boundary of that verdict's
    rule: the boundary nearest its measured effect, in the first verdict's orientation
    that reads it (a unit read by several verdicts lies on the first one's boundary; the
    others read it where it then lies). Units no verdict reads keep their effects."""
    planted: dict[int, float] = {}
    for v in structure.verdicts:
        for c in v.comparisons:
            if c.unit in planted:
                continue
            mine = c.sign * structure.units[c.unit].effect
            b = min((math.log(x) for x in _edges(v, c)), key=lambda lb: abs(lb - mine))
            planted[c.unit] = c.sign * b
    return structure.with_effects(planted)


# ------------------------------------------------------------------------------- a table

@dataclass(frozen=True)
class Row:
    """One design under one set of effects, over ``runs`` simulated runs: means and their
    Monte Carlo standard errors."""

    design: str
    effects: str
    runs: int
    comparisons: int  # distinct comparison readings of the simulated verdicts
    verdicts: int
    decided: float
    decided_se: float
    undecided: float
    undecided_se: float
    type1: float  # on a boundary: share of verdicts with a wrong decision
    type1_se: float
    type1_max: float  # the worst verdict's rate
    topup_s: float
    untestable_share: float  # of the top-up seconds, spent on claims untestable here
    untestable_share_se: float


def _se(v: Array) -> float:
    return float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan


def simulate(arms: Sequence[Arm], structure: Structure, runs: int, seed: int,
             effects: str, tails: str = "normal") -> tuple[list[Row], Array]:
    """Every arm on the same ``runs`` sets of draws, at the structure's effects and with
    every read unit on a boundary (the type I error); the rows, and the undecided verdicts
    per run (runs x arms) for paired differences."""
    rows = []
    longest = max(max(s.looks[-1] for s in a.reading.values()) for a in arms)
    null = on_boundary(structure)
    und = np.zeros((runs, len(arms)))
    dec = np.zeros((runs, len(arms)))
    share = np.full((runs, len(arms)), math.nan)
    tops = np.zeros((runs, len(arms)))
    wrong = np.zeros((runs, len(arms), len(structure.verdicts)))
    rng = np.random.default_rng(seed)
    for r in range(runs):
        x = draws(rng, structure, longest, tails)
        x0 = draws(rng, null, longest, tails)
        for k, arm in enumerate(arms):
            rep = replicate(arm, structure, x)
            und[r, k], dec[r, k], tops[r, k] = rep.undecided, rep.decided, rep.topup_s
            if rep.topup_s > 0:
                share[r, k] = rep.untestable_s / rep.topup_s
            wrong[r, k] = replicate(arm, null, x0).wrong
    for k, arm in enumerate(arms):
        w = wrong[:, k, :].mean(axis=1)
        sh = share[:, k]
        sh = sh[np.isfinite(sh)]
        rows.append(Row(arm.name, effects, runs, len(readings(structure)),
                        len(structure.verdicts), float(dec[:, k].mean()), _se(dec[:, k]),
                        float(und[:, k].mean()), _se(und[:, k]), float(w.mean()), _se(w),
                        float(wrong[:, k, :].mean(axis=0).max()), float(tops[:, k].mean()),
                        float(sh.mean()) if sh.size else 0.0,
                        _se(sh) if sh.size > 1 else 0.0))
    return rows, und

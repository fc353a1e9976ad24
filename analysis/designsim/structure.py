"""The structure a design simulation runs on, read from a committed run through the
project's own readers (:func:`analysis.loading.run.load_run`, which reads trials.jsonl through
rundir.records): the run's claim blocks with their measured seconds per round, every paired
comparison of two cells in them (its measured effect and per-round log-ratio sd), each
design's top-up comparisons (the ones its plan.json declares), and the claim verdicts the
analysis's rules (:mod:`analysis.claims.rules`) build from those comparisons, with the rules'
own families, decision rules and expected outcomes.

The simulation itself (:mod:`analysis.designsim.simulate`) is pure: it reads only the
dataclasses below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from analysis.statistics import stats as S
from analysis.claims import rules as RU
from analysis.claims.applicability import not_applicable
from analysis.claims.base import paired_rounds, rule_cells, sizes_with
from analysis.loading.run import Run, select
from decision import families
from decision import sequential as sq

#: combinations the simulation decides: every size gives an expected outcome (the rules'
#: EVERY); the crossover (C3) and the thread-count rules are not simulated
SIMULATED = (RU.EVERY,)


@dataclass(frozen=True)
class Unit:
    """One paired comparison a/b of two cells of a claim block, on the primary metric (the
    runner's): its measured mean log ratio and per-round sd."""

    block: str
    a: str
    b: str
    effect: float  # mean of the per-round log ratios
    sd: float
    rounds: int


@dataclass(frozen=True)
class TopupComparison:
    """A comparison a design's top-up watches (its plan's ``blocks.<id>.sequential``)."""

    unit: int
    name: str
    family: int
    boundaries: tuple[float, ...]
    claims: tuple[str, ...]  # the claims the plan says read it (a newer plan), else ()
    readers: tuple[str, ...]  # the claims whose rules read it (decision.families.READS)
    mode: str | None = None  # its cells' mode and size (the verdicts it serves: families)
    size: int | None = None


@dataclass(frozen=True)
class VerdictComparison:
    """One size of a verdict: the unit whose draws it reads (times ``sign``: the rule's
    ratio may be the unit's inverted, e.g. time per message against Gbit/s) and the outcomes
    its rule expects there."""

    unit: int
    sign: float
    size: int
    expected: frozenset[str]


@dataclass(frozen=True)
class Verdict:
    """A claim verdict the analysis decides (a rule at one placement), as the simulation
    rebuilds it."""

    name: str  # "C4 same-core", "C1 [S1's code: ...] cross-core"
    claim: str
    decision: S.DecisionRule
    family: int
    comparisons: tuple[VerdictComparison, ...]


@dataclass(frozen=True)
class DesignPlan:
    """A sequential design as a plan declares it for the claim blocks: each block's looks
    and top-up comparisons, the order rule and the design's numbers."""

    name: str
    looks: Mapping[str, tuple[int, ...]]  # block -> looks (blocks without: fixed rounds)
    fixed_rounds: Mapping[str, int]  # claim blocks a plan gives no looks: their rounds
    comparisons: Mapping[str, tuple[TopupComparison, ...]]
    by_verdicts: bool  # the verdict order (rank_by_verdicts), else the extra-rounds order
    drop_below: float
    spending: str
    alpha: float


@dataclass(frozen=True)
class Structure:
    """A run's claim blocks, their comparisons and the verdicts built from them."""

    run_id: str
    cost: Mapping[str, float]  # claim block -> measured seconds per round
    units: tuple[Unit, ...]
    verdicts: tuple[Verdict, ...]
    untestable: Mapping[str, str]  # verdict -> why the analysis rules it not testable here
    not_simulated: Mapping[str, str]  # verdict -> why it is left out of the simulation
    untestable_claims: Mapping[str, frozenset[str]]  # placement -> claims not testable here
    placement: Mapping[str, str]  # block -> placement

    def with_effects(self, effects: Mapping[int, float]) -> "Structure":
        """The same structure with some units' effects replaced (another run's)."""
        return replace(self, units=tuple(replace(u, effect=effects.get(i, u.effect))
                                         for i, u in enumerate(self.units)))


# ------------------------------------------------------------------------ reading the run

def block_costs(run: Run, blocks: Iterable[str]) -> dict[str, float]:
    """Seconds per round of each block, measured: the records' trial durations
    (``invocation.wall_s``) of the block's rounds (profiled trials, repetition 0, left
    out), summed per round and averaged over its rounds."""
    want = set(blocks)
    per: dict[tuple[str, int], float] = {}
    for rec in run.raw_records():
        cfg = rec.get("config") or {}
        b, rep = cfg.get("block"), rec.get("repetition")
        wall = (rec.get("invocation") or {}).get("wall_s")
        if b in want and isinstance(rep, int) and rep >= 1 and isinstance(wall, (int, float)):
            per[(b, rep)] = per.get((b, rep), 0.0) + float(wall)
    out: dict[str, float] = {}
    for b in sorted(want):
        v = [s for (bb, _), s in per.items() if bb == b]
        if not v:
            raise ValueError(f"block {b}: no trial durations in the run's records")
        out[b] = float(np.mean(v))
    return out


def by_block(measured: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The columns a unit reads of the run's :attr:`analysis.loading.run.Run.measured` trials, one
    frame per block (selecting rows of the whole tidy table for every unit is slow)."""
    cols = ["block", "repetition", "cell", "twin", "primary_metric"]
    return {str(b): d for b, d in measured[cols].groupby("block")}


def _unit_ratios(measured: Mapping[str, pd.DataFrame], block: str, a: str,
                 b: str) -> pd.Series:
    """The per-round log ratios of cells a and b of a block, primary metric, by round
    (``measured``: :func:`by_block`)."""
    d = measured[block]
    j = paired_rounds(d, {"cell": a}, {"cell": b}, "primary_metric")
    lr = S.log_ratios(j["a"], j["b"])
    keep = (j["a"] > 0) & (j["b"] > 0)
    return pd.Series(lr, index=j.index.get_level_values(1)[keep.to_numpy()])


def _unit(x: pd.Series, block: str, a: str, b: str) -> Unit:
    """A unit from its per-round log ratios (:func:`_unit_ratios`)."""
    if len(x) < 2:
        raise ValueError(f"block {block}: fewer than 2 paired rounds of {a}/{b}")
    return Unit(block, a, b, float(x.mean()), float(x.std(ddof=1)), int(len(x)))


def claim_blocks(plan: Mapping[str, Any]) -> list[str]:
    """The blocks of a plan that carry a claim with a rule (C1-C14, P1)."""
    return sorted(bid for bid, b in (plan.get("blocks") or {}).items()
                  if any(c in families.FAMILY for c in b.get("claims") or ()))


def _cell_of(d: pd.DataFrame, method: str, size: int) -> tuple[str, str]:
    rows = select(d[d["twin"] == 0], method=method, size=size)
    pairs = {(str(b), str(c)) for b, c in zip(rows["block"], rows["cell"])}
    if len(pairs) != 1:
        raise ValueError(f"{method} at {size} B: {len(pairs)} cells, expected one")
    return next(iter(pairs))


def read(run: Run) -> Structure:
    """The structure of a run with the block design: its claim blocks and their measured
    costs, a unit for every pair of cells its plan compares or a simulated verdict reads,
    and the verdicts (direction rules combined over sizes) the analysis decides, each
    comparison mapped to its unit."""
    plan = run.plan or {}
    blocks = claim_blocks(plan)
    cost = block_costs(run, blocks)
    placement = {b: str(plan["blocks"][b].get("placement") or "") for b in blocks}
    units: list[Unit] = []
    index: dict[tuple[str, str, str], int] = {}
    measured = by_block(run.measured)
    ratios: dict[tuple[str, str, str], pd.Series] = {}

    def unit_of(block: str, a: str, b: str) -> int:
        key = (block, a, b)
        if key not in index:
            index[key] = len(units)
            ratios[key] = _unit_ratios(measured, block, a, b)
            units.append(_unit(ratios[key], block, a, b))
        return index[key]

    for bid in blocks:
        for c in (plan["blocks"][bid].get("sequential") or {}).get("comparisons", []):
            unit_of(bid, str(c["a"]), str(c["b"]))
    verdicts: list[Verdict] = []
    untestable: dict[str, str] = {}
    skipped: dict[str, str] = {}
    untestable_claims: dict[str, set[str]] = {}
    for claim, rules in RU.RULES.items():
        for rule in rules:
            for pl in rule.placements:
                name = " ".join(x for x in (claim, f"[{rule.reading}]" if rule.reading
                                            else "", pl or "") if x)
                d = rule_cells(run, rule, pl)
                why = not_applicable(run, rule, pl, d)
                if why:
                    untestable[name] = why
                    untestable_claims.setdefault(pl or "", set()).add(claim)
                    continue
                if rule.combine not in SIMULATED:
                    skipped[name] = f"its rule combines by {rule.combine!r}, not simulated"
                    continue
                have = sizes_with(d, rule.numerator, rule.denominator, rule.metric)
                sizes = [s for s in (rule.sizes or have) if s in have]
                if not sizes or (rule.sizes and len(sizes) < len(rule.sizes)):
                    skipped[name] = "the run lacks a size of its rule (not run here)"
                    continue
                order = list(rule.sizes or sizes)
                comps = []
                for i, s in enumerate(order):
                    block, ca = _cell_of(d, rule.numerator, s)
                    _, cb = _cell_of(d, rule.denominator, s)
                    j = paired_rounds(d, {"method": rule.numerator, "size": s},
                                      {"method": rule.denominator, "size": s}, rule.metric)
                    mine = pd.Series(S.log_ratios(j["a"], j["b"]),
                                     index=j.index.get_level_values(1))
                    if (block, ca, cb) in index or (block, cb, ca) not in index:
                        u = unit_of(block, ca, cb)
                    else:
                        u = index[(block, cb, ca)]
                    theirs = ratios[(block, units[u].a, units[u].b)]
                    both = pd.concat([mine.rename("v"), theirs.rename("u")], axis=1).dropna()
                    r = float(np.corrcoef(both["v"], both["u"])[0, 1])
                    if not abs(r) > 0.9:
                        raise ValueError(f"{name} at {s} B: its ratio follows its cells' "
                                         f"primary ratio only with correlation {r:.2f}")
                    exp = rule.expected[i] if len(rule.expected) == len(order) \
                        else rule.expected[0]
                    comps.append(VerdictComparison(u, math.copysign(1.0, r), int(s), exp))
                verdicts.append(Verdict(name, claim, rule.decision,
                                        rule.family or len(order), tuple(comps)))
    return Structure(run.run_id, cost, tuple(units), tuple(verdicts), untestable, skipped,
                     {k: frozenset(v) for k, v in untestable_claims.items()}, placement)


def effects_of(structure: Structure, other: Run) -> tuple[dict[int, float], list[int]]:
    """Another run's measured effect of each unit (the same cells: cell ids are hashes of
    the factors), paired by that run's blocks and rounds; and the units it lacks (they
    keep their own effect)."""
    out: dict[int, float] = {}
    missing: list[int] = []
    d = other.measured[["block", "repetition", "cell", "twin", "primary_metric"]]
    d = d[d["cell"].isin({c for u in structure.units for c in (u.a, u.b)})]
    for i, u in enumerate(structure.units):
        j = paired_rounds(d, {"cell": u.a}, {"cell": u.b}, "primary_metric")
        lr = S.log_ratios(j["a"], j["b"])
        if lr.size >= 2:
            out[i] = float(lr.mean())
        else:
            missing.append(i)
    return out, missing


# ------------------------------------------------------------------- a plan's design

def design_plan(name: str, plan: Mapping[str, Any], structure: Structure) -> DesignPlan:
    """The design a plan.json declares for the structure's claim blocks: looks and top-up
    comparisons (mapped to the structure's units) of its sequential blocks, the plan's
    rounds for claim blocks without looks, and its order rule (the verdict order when its
    comparisons name their claims). The reports' own programs' comparisons are left out:
    the structure simulates copybench's verdicts only (their looks' cost is in the blocks'
    measured seconds per round only as far as the reference run ran them)."""
    seq = (plan.get("design") or {}).get("sequential")
    if not seq:
        raise ValueError(f"{name}: the plan declares no sequential design")
    dsn = sq.design_of(seq)
    index = {(u.block, u.a, u.b): i for i, u in enumerate(structure.units)}
    looks: dict[str, tuple[int, ...]] = {}
    fixed: dict[str, int] = {}
    comps: dict[str, tuple[TopupComparison, ...]] = {}
    any_claims = False
    for bid in structure.cost:
        b = plan["blocks"][bid]
        s = b.get("sequential")
        if not s:
            fixed[bid] = int(b["rounds"])
            continue
        looks[bid] = tuple(int(x) for x in s["looks"])
        out = []
        for c in s["comparisons"]:
            key = (bid, str(c["a"]), str(c["b"]))
            if str(((plan.get("cells") or {}).get(str(c["a"])) or {}).get("kind", "")
                   ).startswith("original:"):
                continue  # the reports' own programs: their verdicts are not simulated here
            if key not in index:
                raise ValueError(f"{name}: block {bid}'s comparison {c['name']} has no unit "
                                 "in the run")
            size = structure_size(plan, str(c["a"]))
            pattern = _pattern(str(c["name"]))
            readers = tuple(families.readers(pattern, b.get("claims") or (), size))
            claims = tuple(str(x) for x in c.get("claims") or ())
            any_claims |= bool(claims)
            mode = (plan.get("cells") or {}).get(str(c["a"]), {}).get("mode")
            out.append(TopupComparison(index[key], str(c["name"]), int(c["family"]),
                                       tuple(float(x) for x in c["boundaries"]), claims,
                                       readers, mode, size))
        comps[bid] = tuple(out)
    return DesignPlan(name, looks, fixed, comps, any_claims, dsn.drop_below, dsn.spending,
                      dsn.alpha)


def structure_size(plan: Mapping[str, Any], cell: str) -> int | None:
    v = (plan.get("cells") or {}).get(cell, {}).get("size")
    return int(v) if isinstance(v, (int, float)) else None


def _pattern(name: str) -> str:
    """A plan comparison's declared pattern: "zerocopy/send at 1 thread" -> "zerocopy/send",
    "8t/4t of sendmsg" -> "8t/4t"."""
    return name.split(" ")[0]

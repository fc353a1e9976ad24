"""The claim blocks' designs judged by verdicts (analysis/designsim; the full table:
studies/simulate_designs.py).

Two parts: a small synthetic structure (fast, make test) checks the simulation's own
mechanics, and the committed reference run's real structure (marked ``reference``: it reads
the whole run) checks the three designs on it: the design of today tops up no claim this
machine cannot test while the reference run's design did, every design's type I error on a
boundary stays within its nominal 5 % (+ 3 Monte Carlo se), and the structure is the run's
(each comparison's effect as the runner's own reader of the records measures it).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from analysis.statistics import stats as S
from analysis.designsim import simulate as sim
from analysis.designsim.structure import (DesignPlan, Structure, TopupComparison, Unit,
                                          Verdict, VerdictComparison)
from decision import rule as R
from decision import sequential as sq

ROOT = Path(__file__).resolve().parents[2]
NOMINAL = 0.05
DIRECTION = S.DecisionRule("direction", threshold=0.07)


def _toy() -> Structure:
    """Three blocks: A carries a verdict's comparison (family 2, with B's) and a comparison
    only an untestable claim reads; B the verdict's other comparison; C a single-comparison
    verdict."""
    units = (Unit("A", "a1", "a0", math.log(1.12), 0.10, 10),
             Unit("A", "a2", "a0", math.log(1.00), 0.10, 10),
             Unit("B", "b1", "b0", math.log(1.10), 0.12, 10),
             Unit("C", "c1", "c0", math.log(0.80), 0.08, 10))
    verdicts = (Verdict("V same-core", "C8", DIRECTION, 2,
                        (VerdictComparison(0, 1.0, 1, frozenset({"greater"})),
                         VerdictComparison(2, 1.0, 2, frozenset({"greater"})))),
                Verdict("W same-core", "C13", DIRECTION, 1,
                        (VerdictComparison(3, 1.0, 1, frozenset({"less"})),)))
    return Structure("toy", {"A": 10.0, "B": 8.0, "C": 4.0}, units, verdicts, {}, {},
                     {"same-core": frozenset({"C11"})},
                     {"A": "same-core", "B": "same-core", "C": "same-core"})


def _plan(name: str, with_untestable: bool, by_verdicts: bool) -> DesignPlan:
    looks = (6, 12, 18) if not by_verdicts else (10, 20, 30)
    bounds = (0.93, 1.07)
    claims = ("C8",) if by_verdicts else ()
    comps = {"A": (TopupComparison(0, "a1/a0", 2, bounds, claims, ("C8",)),)
             + ((TopupComparison(1, "2t/1t", 4, bounds, (), ("C11",)),)
                if with_untestable else ()),
             "B": (TopupComparison(2, "b1/b0", 2, bounds, claims, ("C8",)),),
             "C": (TopupComparison(3, "c1/c0", 1, bounds, ("C13",) if by_verdicts else (),
                                   ("C13",)),)}
    return DesignPlan(name, {b: looks for b in comps}, {}, comps, by_verdicts, 0.10,
                      sq.POCOCK, sq.ALPHA)


def test_a_design_that_tops_up_an_untestable_claim_is_charged_for_it() -> None:
    s = _toy()
    budget = 50 * sum(s.cost.values())
    old = sim.sequential_arm("old", _plan("old", True, False), s, budget)
    new = sim.sequential_arm("new", _plan("new", False, True), s, budget)
    rng = np.random.default_rng(1)
    spent_old = spent_new = bad_old = bad_new = 0.0
    for _ in range(20):
        x = sim.draws(rng, s, 30)
        a, b = sim.top_up(old, s, x), sim.top_up(new, s, x)
        spent_old, bad_old = spent_old + a.seconds, bad_old + a.untestable_s
        spent_new, bad_new = spent_new + b.seconds, bad_new + b.untestable_s
        # never over the budget
        assert sum(a.reached[k] * c for k, c in s.cost.items()) <= budget + 1e-6
        assert sum(b.reached[k] * c for k, c in s.cost.items()) <= budget + 1e-6
    # the comparison at 1.00 against 0.93/1.07 (family 4) is never decided by 18 rounds at
    # sd 0.10 and is the block's closest one once the others are decided: the old order
    # tops it up; the new plan has no such comparison
    assert spent_old > 0 and bad_old > 0
    assert bad_new == 0.0


def test_the_fixed_reading_is_the_analysis_fixed_sample_ci() -> None:
    """A schedule of one look reads a comparison as the fixed design's t CI at 1 - alpha/m
    (analysis.statistics.stats.paired_ratio)."""
    rng = np.random.default_rng(3)
    a = np.exp(rng.normal(0.05, 0.1, 14))
    b = np.ones(14)
    for m in (1, 2, 4):
        lk = sq.repeated_cis(np.log(a / b), sq.Schedule((14,)), m)[-1]
        t = S.paired_ratio(a, b, m)
        assert lk.lo == pytest.approx(t.ratio.lo, rel=1e-6)
        assert lk.hi == pytest.approx(t.ratio.hi, rel=1e-6)


def test_on_a_boundary_every_decision_it_counts_is_wrong_or_right_by_the_rule() -> None:
    s = sim.on_boundary(_toy())
    seen: set[int] = set()
    for v in s.verdicts:
        for c in v.comparisons:
            if c.unit in seen:  # planted on the first verdict's edge that reads it
                continue
            seen.add(c.unit)
            lt = c.sign * s.units[c.unit].effect
            e = R.expect_of(c.expected, v.decision.threshold)
            assert min(abs(lt - math.log(b)) for b in e.edges()) < 1e-12
            # on the edge of an effect claim, the effect is not there: "agrees" is wrong and
            # "contradicts" right; an at-most claim the reverse; open is never wrong
            on_edge_agrees = e.kind in (R.AT_MOST, R.AT_LEAST)
            assert sim.correct(R.AGREES, lt, e) is on_edge_agrees
            assert sim.correct(R.CONTRADICTS, lt, e) is not on_edge_agrees
            assert sim.correct(R.UNSETTLED, lt, e)


def test_toy_type_one_error_within_nominal() -> None:
    s = _toy()
    budget = 40 * sum(s.cost.values())
    arms = [sim.fixed_arm(s, budget), sim.sequential_arm("new", _plan("new", False, True),
                                                         s, budget)]
    rows, _ = sim.simulate(arms, s, 200, 7, "toy")
    for r in rows:
        assert r.type1 <= NOMINAL + 3 * r.type1_se, r


# ------------------------------------------------------------------ the reference run

def _script():
    spec = importlib.util.spec_from_file_location(
        "simulate_designs", ROOT / "studies" / "simulate_designs.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def reference():
    from analysis.designsim import structure as st
    from analysis.loading.run import load_run
    mod = _script()
    run = load_run(mod.REFERENCE)
    s = st.read(run)
    return run, s, mod.arms(run, s)


RUNS = 40


@pytest.mark.reference
def test_reference_structure_is_the_runs(reference) -> None:
    """Each comparison's effect and sd are what the runner's own reader of the records
    measures for the same cells (runner.plan.topup.effects_from_run: another path through
    rundir.records), and the claim blocks are the plan's."""
    from runner.plan.cells import Plan
    from runner.plan import topup
    run, s, _ = reference
    plan = Plan.from_json(run.plan)
    rows = {(r["block"], r["a"], r["b"]): r for r in topup.effects_from_run(plan, run.path)}
    assert len(s.cost) == sum(1 for b in run.plan["blocks"].values() if b.get("sequential"))
    checked = 0
    for u in s.units:
        r = rows.get((u.block, u.a, u.b))
        if r is None:
            continue
        assert math.exp(u.effect) == pytest.approx(r["ratio"], abs=2e-5)
        assert u.sd == pytest.approx(r["sd"], abs=2e-5)
        checked += 1
    assert checked == len(s.units)


@pytest.mark.reference
def test_reference_designs_by_verdicts(reference) -> None:
    run, s, arms = reference
    assert [a.name for a in arms] == [sim.FIXED, sim.CURRENT, sim.NEW]
    assert len({round(a.budget_s, 6) for a in arms}) == 1
    rows, _ = sim.simulate(arms, s, RUNS, 20261126, run.run_id)
    by = {r.design: r for r in rows}
    # the design of today tops up no claim the machine cannot test; the reference run's did
    assert by[sim.NEW].untestable_share == 0.0
    assert by[sim.CURRENT].untestable_share > 0.0
    assert by[sim.FIXED].topup_s == 0.0
    for r in rows:
        assert r.type1 <= NOMINAL + 3 * max(r.type1_se, 1e-3), r
        assert 0 <= r.undecided <= r.verdicts and 0 <= r.decided <= r.comparisons

"""The sequential top-up (runner/plan/topup.py, the sweep's top-up stage): the profile's
``[design] sequential`` and ``comparisons`` validated in one line; the plan carries the
design; the scheduling function grants looks from records written here (planted ratios);
a real short sweep reaches the top-up; a sweep interrupted during the top-up and resumed
runs exactly the trials its records call for, each once."""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ROOT, run_runner, runner_cmd, runner_env, write_sweep_profile
from rundir import planfile
from decision import sequential as sq
from decision.band import band
from rundir.verify import load_schema, schema_problems, validator_for, verify
from runner.plan import rounds as plan_mod
from runner.plan import profile as prof_mod
from runner.plan import topup
from runner.plan.blocks import in_block_order
from runner.host.errors import ProfileError
from runner.host.capabilities import Capabilities
from runner.plan.cells import Plan

CAPS = Capabilities(methods=None, root=True, cpus=2, peers={"iperf3": True, "sockperf": True},
                    perf=True)
SEQ = {"spending": "pocock", "first_look": 2, "look_every": 2, "rounds_max": 6,
       "budget_s": 2}
DESIGN = {"rounds_min": 2, "rounds_max": 2, "primary": "paired", "sequential": SEQ}
EXP = {"name": "c", "command": "send", "methods": ["send", "sendmsg"],
       "sizes": ["1K", "16K", "64K"], "placements": ["cross-core"], "purpose": "claim",
       "claims": ["C4"], "comparisons": {"sendmsg/send": [0.97, 1.03]}}
#: 3 blocks x 2 cells x 2 rounds x 0.4 s planned (4.8 s); the top-up gets budget_s less that:
#: 4.8 s, three looks of 1.6 s, of the six the blocks could take
BUDGET = 9.6


def _profile(tmp_path: Path, design: dict[str, Any] | None = None,
             exp: dict[str, Any] | None = None, **kw: Any) -> Path:
    return write_sweep_profile(tmp_path, "seq", repetitions=None, design=design or DESIGN,
                               experiments=[exp or EXP], duration_s=0.2, warmup_s=0.05,
                               **{"budget_s": BUDGET, **kw})


# ---------------------------------------------------------------------- the profile keys

BAD = [
    ({**DESIGN, "sequential": 6}, EXP, "design.sequential: must be a table"),
    ({**DESIGN, "sequential": {**SEQ, "looks": 3}}, EXP,
     "design.sequential.looks: unknown key (allowed: budget_s, drop_below, first_look, "
     "look_every, planning, rounds_max, spending)"),
    ({**DESIGN, "sequential": {**SEQ, "first_look": 3}}, EXP,
     "design.sequential.first_look: 3 is odd (allowed: even integers"),
    ({**DESIGN, "sequential": {**SEQ, "rounds_max": 4, "first_look": 6}}, EXP,
     "design.sequential.rounds_max: 4 is below first_look = 6"),
    ({**DESIGN, "sequential": {**SEQ, "spending": "linear"}}, EXP,
     "design.sequential.spending: unknown value 'linear' (allowed: obrien-fleming, pocock)"),
    ({**DESIGN, "primary": "unpaired"}, EXP,
     'design.sequential: needs design.primary = "paired"'),
    ({**DESIGN, "sequential": {**SEQ, "budget_s": BUDGET}}, EXP,
     "design.sequential.budget_s: 9.6 is not below profile.budget_s = 9.6"),
    ({"rounds_min": 2, "rounds_max": 2}, EXP,
     "experiment[c].comparisons: needs [design] sequential"),
    (DESIGN, {**EXP, "comparisons": {"zerocopy/send": [1.03]}},
     "experiment[c].comparisons: 'zerocopy/send': unknown method 'zerocopy' (allowed: two "
     "of send, sendmsg)"),
    (DESIGN, {**EXP, "comparisons": {"8t/4t": [0.7]}},
     "experiment[c].comparisons: '8t/4t': thread counts must be two of threads = [1] with "
     "pair_threads = true"),
    (DESIGN, {**EXP, "comparisons": {"sendmsg/send": []}},
     "experiment[c].comparisons: 'sendmsg/send': boundaries must be a non-empty list of "
     "numbers > 0"),
    (DESIGN, {**EXP, "comparisons": {"sendmsg/send": [-1.0]}},
     "boundaries must be a non-empty list of numbers > 0"),
    (DESIGN, {**EXP, "comparisons": ["sendmsg/send"]},
     "experiment[c].comparisons: must be a non-empty table"),
]


@pytest.mark.parametrize("design,exp,msg", BAD)
def test_bad_sequential_keys_are_one_line_errors(tmp_path: Path, design: dict[str, Any],
                                                 exp: dict[str, Any], msg: str) -> None:
    path = _profile(tmp_path, design, exp)
    with pytest.raises(ProfileError) as e:
        prof_mod.load(str(path))
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_bad_sequential_key_exits_2_with_one_line_and_nothing_made(
        runner_copybench: Path, tmp_path: Path) -> None:
    path = _profile(tmp_path, {**DESIGN, "sequential": {**SEQ, "look_every": 5}})
    for cmd in (("plan",), ("sweep", "--run-dir", str(tmp_path / "run"))):
        r = run_runner(*cmd, "--profile", str(path), timeout=60)
        assert r.returncode == 2
        assert r.stderr.strip().count("\n") == 0, r.stderr
        assert "design.sequential.look_every: 5 is odd" in r.stderr
    assert not (tmp_path / "run").exists()


def test_the_committed_profiles_parse_and_quick_keeps_the_fixed_design() -> None:
    for name in ("claims", "paper"):
        p = prof_mod.load(name)
        assert p.design and p.design.sequential
        assert (p.design.sequential.spending, p.design.sequential.first_look,
                p.design.sequential.look_every, p.design.sequential.rounds_max) == (
            sq.POCOCK, 10, 10, 30)
        assert any(e.comparisons for e in p.experiments)
    quick = prof_mod.load("quick")
    assert quick.design and quick.design.sequential is None
    assert not any(e.comparisons for e in quick.experiments)


# ------------------------------------------------------------------------------ the plan

def _plan(tmp_path: Path, **kw: Any) -> Plan:
    return plan_mod.make(prof_mod.load(str(_profile(tmp_path, **kw))), CAPS)


def test_plan_carries_the_design_looks_comparisons_and_budget(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    seq = plan.design["sequential"]  # type: ignore[index]
    assert (seq["spending"], seq["first_look"], seq["look_every"], seq["rounds_max"]) == (
        "pocock", 2, 2, 6)
    assert seq["alpha"] == pytest.approx(0.05)
    assert seq["order_rule"] == sq.ORDER_RULE and seq["budget_rule"] == topup.BUDGET_RULE
    assert seq["topup_budget_s"] == pytest.approx(BUDGET - 4.8, abs=0.05)
    assert seq["blocks"] == 3 and seq["comparisons"] == 3
    for b in plan.blocks.values():  # type: ignore[union-attr]
        assert b["rounds"] == 2 and b["sequential"]["looks"] == [2, 4, 6]
        assert b["sequential"]["family"] == 4  # C4's, from decision.families
        (c,) = b["sequential"]["comparisons"]
        # the comparison is asked only about C4's edge at its size (1 + t: an effect above
        # the band), not the edges the profile declared (they stand for comparisons no
        # verdict reads)
        # (1K is no size of C4's: its comparison keeps the declared edges and serves nothing)
        assert c["name"] == "sendmsg/send at 1 thread"
        assert c["boundaries"] == ([0.97, 1.03] if "1K" in b["label"].split() else [1.12])
        assert bool(c.get("claims")) is ("1K" not in b["label"].split())
        assert {plan.cells[c["a"]].method, plan.cells[c["b"]].method} == {"sendmsg", "send"}
        assert plan.cells[c["a"]].method == "sendmsg"
    assert len(plan.rounds) == 2


def test_each_comparison_stops_at_the_family_the_analysis_reads_it_at(tmp_path: Path) -> None:
    """One table (decision.families) for the runner and the analysis: an experiment serving
    C4 (sendmsg/send, 4 sizes) and C5 (zerocopy/send, 2 sizes) stops each comparison at the
    largest family that reads it, not at one family per experiment (on the base the
    experiment's declared family 4 applied to both, and C5 was read at 2): C4's 4, and for
    zerocopy/send the findings' 3 (the three sizes of zerocopy against send), above C5's 2."""
    exp = {**EXP, "methods": ["send", "sendmsg", "zerocopy"], "claims": ["C4", "C5"],
           "comparisons": {"sendmsg/send": [0.97, 1.03], "zerocopy/send": [0.97, 1.03]}}
    plan = _plan(tmp_path, exp=exp)
    got = {c["name"]: c["family"] for b in plan.blocks.values()  # type: ignore[union-attr]
           for c in b["sequential"]["comparisons"]}
    from analysis.claims import rules as RU  # the analysis's families, for the check only
    assert got == {"sendmsg/send at 1 thread": max(RU.RULES["C4"][0].family, 3),
                   "zerocopy/send at 1 thread": max(RU.RULES["C5"][0].family, 3)} == {
        "sendmsg/send at 1 thread": 4, "zerocopy/send at 1 thread": 3}


def test_p1s_family_is_counted_from_the_plan_as_the_analysis_counts_it(tmp_path: Path) -> None:
    exp = {**EXP, "methods": ["send", "sendmsg", "zerocopy"], "claims": ["C5", "P1"],
           "placements": ["cross-core", "same-core"],
           "comparisons": {"sendmsg/send": [0.97, 1.03], "zerocopy/send": [0.97, 1.03]}}
    plan = _plan(tmp_path, exp=exp)
    fams = {c["family"] for b in plan.blocks.values()  # type: ignore[union-attr]
            for c in b["sequential"]["comparisons"]}
    assert fams == {2 * 2 * 3}  # two pairs x three sizes under both placements


#: C11's thread counts beside C8's two-copy/one-copy at 4 threads, in one block per placement
THREADS_EXP = {"name": "t", "command": "send", "methods": ["send", "sendmsg"],
               "sizes": ["16K"], "threads": [1, 2, 4, 8], "pair_threads": True,
               "placements": ["cross-core", "same-core"], "purpose": "claim",
               "claims": ["C11", "C8"],
               "comparisons": {"2t/1t": [0.97, 1.03], "8t/4t": [0.97, 1.03],
                               "send/sendmsg": [0.97, 1.03]}}


C8_ONLY = [f"send/sendmsg at {t} thread{'s' if t > 1 else ''}" for t in (1, 2, 4, 8)]


def _names(plan: Plan) -> dict[str, list[str]]:
    return {b["placement"]: sorted(c["name"] for c in (b.get("sequential") or {}).get(
        "comparisons", [])) for b in plan.blocks.values()}  # type: ignore[union-attr]


def test_a_claim_this_machine_cannot_test_is_known_at_plan_time(tmp_path: Path) -> None:
    """On 2 CPUs C11's thread counts (a CPU per thread and side: 8 same-core, 16
    cross-core) are not testable; the plan says so and never tops their comparisons up (the
    reference run spent 44.7 % of its top-up on them), while C8's comparison in the same
    blocks keeps its top-up."""
    plan = plan_mod.make(prof_mod.load(str(_profile(tmp_path, exp=THREADS_EXP))), CAPS)
    assert _names(plan) == {pl: C8_ONLY for pl in ("cross-core", "same-core")}
    for b in plan.blocks.values():  # type: ignore[union-attr]
        assert "C11 needs a CPU per thread and side" in b["untestable"]["C11"]
        assert "C8" not in b.get("untestable", {})
    assert any(n.startswith("not testable here: C11 needs a CPU per thread and side "
                            "(8 threads, cross-core: 16 CPUs); this machine has 2")
               and "never topped up" in n for n in plan.notes)


def test_a_machine_with_the_cpus_tops_the_thread_counts_up(tmp_path: Path) -> None:
    caps = Capabilities(methods=None, root=True, cpus=8, peers={}, perf=True)
    plan = plan_mod.make(prof_mod.load(str(_profile(tmp_path, exp=THREADS_EXP))), caps)
    got = _names(plan)  # 8 CPUs: enough same-core (8), not cross-core (16)
    assert got["same-core"] == ["2t/1t of send", "2t/1t of sendmsg", "8t/4t of send",
                                "8t/4t of sendmsg", *C8_ONLY]
    assert got["cross-core"] == C8_ONLY


def test_the_plans_conditions_are_the_analysis_rules_conditions() -> None:
    from analysis.claims import rules as RU  # the analysis's declarations, for the check
    from decision import families
    declared = {c: tuple((a.kind, a.threads) for a in r.conditions)
                for c, rs in RU.RULES.items() for r in rs if r.conditions}
    assert declared == families.CONDITIONS


def test_a_claim_experiment_may_not_declare_its_own_family(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="experiment\\[c\\].family: the family of claim C4 "
                       "comes from the one table the runner and the analysis read"):
        _plan(tmp_path, exp={**EXP, "family": 2})


def test_thread_comparisons_pair_the_thread_counts_of_each_method(tmp_path: Path) -> None:
    exp = {**EXP, "methods": ["send", "sendmsg"], "sizes": ["16K"], "threads": [1, 2],
           "pair_threads": True, "comparisons": {"2t/1t": [0.97, 1.03], "sendmsg/send": [1.2]}}
    plan = _plan(tmp_path, exp=exp)
    (b,) = plan.blocks.values()  # type: ignore[union-attr]
    names = sorted(c["name"] for c in b["sequential"]["comparisons"])
    assert names == ["2t/1t of send", "2t/1t of sendmsg", "sendmsg/send at 1 thread",
                     "sendmsg/send at 2 threads"]


# ----------------------------------------------------------- scheduling from records

def _records(plan: Plan, ratios: dict[str, tuple[float, float]], rounds: range,
             seed: int = 1) -> dict[str, list[dict[str, Any]]]:
    """Records of every block's comparison a/b with a planted log-normal ratio (geometric
    mean, per-round sd of the log ratio), rounds as given, keyed by cell."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[dict[str, Any]]] = {}
    for bid, b in plan.blocks.items():  # type: ignore[union-attr]
        (c,) = b["sequential"]["comparisons"]
        mean, sd = ratios[plan.cells[c["a"]].label().split()[1]]
        for r in rounds:
            base = 10.0 * float(np.exp(rng.normal(0, 0.1)))
            num = base * mean * float(np.exp(rng.normal(0, sd)))
            for cid, v in ((c["b"], base), (c["a"], num)):
                out.setdefault(cid, []).append({"cell": cid, "repetition": r, "status": "ok",
                                                "config": {"mode": "stream"},
                                                "result": {"gbit_per_s": v}})
    return out


def _block_of(plan: Plan, size: str) -> str:
    return next(bid for bid, b in plan.blocks.items()  # type: ignore[union-attr]
                if size in b["label"].split())


def test_the_top_up_grants_looks_by_the_chance_to_decide_a_verdict_within_the_budget(
        tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    # C4 cross-core reads the three sizes: 1K decided at once (1.5, almost no spread), 16K
    # undecided near 1.03 with little spread, 64K undecided inside the band with some spread
    recs = _records(plan, {"1K": (1.5, 1e-5), "16K": (1.06, 0.01), "64K": (1.0, 0.004)},
                    range(1, 7))
    granted = topup.planned_rounds(plan)
    assert set(granted.values()) == {2}
    g = topup.next_look(plan, granted, 0.0, lambda c: recs.get(c, []))
    assert g is not None and g.block != _block_of(plan, "1K") and (g.first, g.last) == (3, 4)
    assert g.by_verdicts and "verdict testable here" in g.why()
    assert g.seconds == pytest.approx(1.6, abs=0.01) and len(g.trials) == 4
    b = plan.blocks[g.block]  # type: ignore[index]
    assert list(g.trials) == [f"{c}-{r}" for r in (3, 4)
                              for c in in_block_order(b["cells"], plan.seed, r, g.block)]
    # the look goes to 64K, which sits inside the band: decided equivalent, it refutes
    # "beats at every size" by itself, so C4 needs no more rounds and the top-up stops
    # within its budget (3 looks); neither the decided 1K nor the 16K block gets a look
    assert g.block == _block_of(plan, "64K")
    grants = []
    used = 0.0
    while (g := topup.next_look(plan, granted, used, lambda c: recs.get(c, []))) is not None:
        granted[g.block] = g.last
        used += g.seconds
        grants.append((g.block, g.last))
    assert grants == [(_block_of(plan, "64K"), 4)] and used <= topup.budget_s(plan) + 1e-9
    assert granted[_block_of(plan, "1K")] == granted[_block_of(plan, "16K")] == 2


def test_a_verdict_out_of_reach_gets_no_look(tmp_path: Path) -> None:
    """A comparison with less than a 10 % chance to be decided by its maximum is
    dropped, and with it the verdict it serves: C4 cross-core agrees at 16K (1.5) and needs
    its 64K comparison, which sits on no side of C4's edge 1 + t by its maximum (1.0 +- 0.3
    per round): it can neither agree nor contradict, so the verdict gets no look."""
    plan = _plan(tmp_path)
    recs = _records(plan, {"1K": (1.5, 1e-5), "16K": (1.5, 1e-5), "64K": (1.0, 0.3)},
                    range(1, 7))
    granted = topup.planned_rounds(plan)
    summ = topup.summaries(plan, granted, lambda c: recs.get(c, []))
    far = [x for x in summ if x.block == _block_of(plan, "64K")]
    assert far and sq.p_by_max(far[0]) < sq.DROP_BELOW
    assert topup.next_look(plan, granted, 0.0, lambda c: recs.get(c, [])) is None


def test_no_look_past_the_maximum_and_none_when_everything_is_decided(tmp_path: Path) -> None:
    plan = _plan(tmp_path, budget_s=100)
    decided = _records(plan, {s: (1.5, 1e-5) for s in ("1K", "16K", "64K")}, range(1, 7))
    assert topup.next_look(plan, topup.planned_rounds(plan), 0.0,
                           lambda c: decided.get(c, [])) is None
    open_ = _records(plan, {s: (1.0, 0.05) for s in ("1K", "16K", "64K")}, range(1, 7))
    granted = {b: 6 for b in topup.planned_rounds(plan)}  # every block at its maximum
    assert topup.next_look(plan, granted, 0.0, lambda c: open_.get(c, [])) is None


def test_a_failed_round_is_left_out_of_its_look(tmp_path: Path) -> None:
    sched = sq.schedule(2, 2, 6)
    x = [0.01, 0.02, -0.01, 0.03, 0.0, 0.02]
    full = sq.looks_by_round(range(1, 7), x, sched, 6, 2)
    assert [lk.rounds for lk in full] == [2, 4, 6]
    assert [v for a in full for v in (a.lo, a.hi)] == pytest.approx(
        [v for a in sq.repeated_cis(x, sched, 2) for v in (a.lo, a.hi)])
    gap = sq.looks_by_round([1, 2, 4, 5, 6], [x[0], x[1], x[3], x[4], x[5]], sched, 6, 2)
    mean = float(np.mean([x[0], x[1], x[3]]))
    assert gap[1].mean_log == pytest.approx(mean)  # look 2 reads rounds 1..4 less round 3
    assert math.isnan(sq.looks_by_round([1], [0.1], sched, 2, 2)[0].lo)  # one pair: no CI


# ------------------------------------------------------------------------ real sweeps

def _read(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run_dir / "trials.jsonl").read_text().splitlines() if x]


def replay(run_dir: Path) -> list[str]:
    """The top-up's trials, in order, as its decisions follow from the run's own records."""
    plan = Plan.from_json(json.loads((run_dir / "plan.json").read_text()))
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for r in _read(run_dir):
        by_cell.setdefault(r["cell"], []).append(r)
    granted, used, out = topup.planned_rounds(plan), 0.0, []
    while (g := topup.next_look(plan, granted, used, lambda c: by_cell.get(c, []))) is not None:
        granted[g.block], used = g.last, used + g.seconds
        out += g.trials
    return out


def _expect_exact(run_dir: Path) -> list[dict[str, Any]]:
    """Every planned trial, then exactly the top-up's trials its records call for, each
    once, in order."""
    plan = json.loads((run_dir / "plan.json").read_text())
    recs = sorted(_read(run_dir), key=lambda r: r["order_index"])
    ids = [r["trial_id"] for r in recs]
    assert not [k for k, v in Counter(ids).items() if v > 1]
    fixed = [t for rnd in plan["rounds"] for t in rnd]
    assert ids[:len(fixed)] == fixed
    assert ids[len(fixed):] == replay(run_dir)
    assert [r["order_index"] for r in recs] == list(range(len(recs)))
    return recs


#: the real sweep's input, built so that it reaches a top-up look whatever the machine's noise:
#: one boundary (1.0: is sendmsg faster or slower than send), so a block with an undecided
#: comparison always has a chance above 0 at its next look (two boundaries close together,
#: 0.97 and 1.03, gave chances of 1e-40 and below at 1 df, which a quiet machine's small sd
#: took to exactly 0: no block ranked, no look); a maximum of 10 rounds, so the first look's
#: quantile at 1 df is 172 (a comparison is decided there with a chance of about 1-3 % at the
#: effects of send and sendmsg on loopback, all three blocks' about 1e-5); nothing dropped.
#: A question's comparison, which keeps the edge its profile declares (a claim's comparison
#: is asked its claim's edge: C4's 1 + t, which sendmsg at 0.7-0.8x send clears at its
#: first top-up look, refuting C4 and ending the top-up within one look)
REACH = {**DESIGN, "sequential": {**SEQ, "rounds_max": 10, "drop_below": 0}}
REACH_EXP = {**EXP, "purpose": "question", "claims": ["Q1"], "family": 3,
             "comparisons": {"sendmsg/send": [1.0]}}


@pytest.mark.sweep
def test_a_real_sweep_reaches_the_top_up(runner_copybench: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(_profile(tmp_path, design=REACH, exp=REACH_EXP)),
                   "--run-dir", str(run_dir), "--no-progress", timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = _expect_exact(run_dir)  # the top-up's trials are those its own records call for
    plan = Plan.from_json(json.loads((run_dir / "plan.json").read_text()))
    assert plan.design["sequential"]["topup_budget_s"] == pytest.approx(4.8, abs=0.05)
    top = [x for x in recs if x["repetition"] > 2]
    assert top, "no top-up look ran"
    # whole looks of 2 rounds x 2 cells, at most the budget's three (1.6 s each of 4.8 s)
    assert len(top) % 4 == 0 and len(top) <= 12
    looks = [top[i:i + 4] for i in range(0, len(top), 4)]
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for x in recs:
        by_cell.setdefault(x["cell"], []).append(x)
    granted = topup.planned_rounds(plan)
    assert sorted(granted.values()) == [2, 2, 2]
    for k, look in enumerate(looks, 1):
        block = look[0]["config"]["block"]
        n = granted[block]
        # what the look did: the next two rounds of one block, its two cells in the
        # counterbalanced in-block order of each round
        assert {x["config"]["block"] for x in look} == {block}
        assert [x["repetition"] for x in look] == [n + 1, n + 1, n + 2, n + 2]
        cells = plan.blocks[block]["cells"]  # type: ignore[index]
        assert [x["cell"] for x in look] == (in_block_order(cells, plan.seed, n + 1, block)
                                             + in_block_order(cells, plan.seed, n + 2, block))
        # why: at the look it had reached, its comparison was undecided (1.0 inside the
        # repeated CI of the rounds granted so far), and it ranked first
        summ = topup.summaries(plan, granted, lambda c: by_cell.get(c, []))
        mine = [s for s in summ if s.block == block]
        assert mine and all(s.rounds == n and sq.undecided(s) for s in mine)
        label = plan.blocks[block]["label"]  # type: ignore[index]
        assert f"top-up look {k}: {label} rounds {n + 1}-{n + 2}" in r.stderr
        granted[block] = n + 2
    assert f"top-up done: {len(looks)} looks" in r.stderr
    report = verify(run_dir)  # sealed, and plan.json valid under its schema
    assert report.ok, report.problems[:5]


@pytest.mark.sweep
@pytest.mark.slow  # 33 s; test_a_real_sweep_reaches_the_top_up stays in make test
def test_interrupted_during_the_top_up_and_resumed_runs_the_same_trials(
        runner_copybench: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # the input that reaches a top-up look whatever the machine's noise (REACH: one boundary,
    # 1.0); two close boundaries (0.97, 1.03) let a quiet machine decide all three blocks at
    # their first look, and the sweep ended before any top-up look to interrupt; a budget for
    # the whole top-up (up to 10 rounds a block), so the interrupt lands inside it
    prof = _profile(tmp_path, design=REACH, exp=REACH_EXP, budget_s=40)
    log = open(tmp_path / "first.log", "w")
    p = subprocess.Popen(runner_cmd("sweep", "--profile", str(prof), "--run-dir",
                                    str(run_dir), "--no-progress"), stdout=log,
                         stderr=subprocess.STDOUT, cwd=str(ROOT),
                         env=runner_env(RUNNER_TEST_TAG=uuid.uuid4().hex),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trials = run_dir / "trials.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if trials.exists() and any(json.loads(x)["repetition"] > 2 for x in
                                   trials.read_text().splitlines() if x.endswith("}")):
            break
        time.sleep(0.05)
    time.sleep(0.1)  # most likely mid-trial now
    assert p.poll() is None, ("the sweep ended before it was interrupted in its top-up:\n"
                              + (tmp_path / "first.log").read_text()[-2000:])
    for _ in range(3):  # a SIGINT that lands in an at-fork handler is ignored by Python
        p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        rc = p.wait(timeout=60)
    log.close()
    assert rc == 130, (tmp_path / "first.log").read_text()[-2000:]
    first = _read(run_dir)
    assert any(x["repetition"] > 2 for x in first)
    r = run_runner("sweep", "--resume", "--run-dir", str(run_dir), "--no-progress",
                   timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = _expect_exact(run_dir)
    assert [x["trial_id"] for x in recs[:len(first)]] == [x["trial_id"] for x in first]
    assert len(recs) > len(first)
    sessions = json.loads((run_dir / "sessions.json").read_text())
    assert [s["complete"] for s in sessions] == [False, True]


# ----------------------------------------------------------------- the plan.json schema

def _plan_doc(plan: Plan) -> dict[str, Any]:
    return {"run_id": "r", "created_at": "2026-12-01T00:00:00+00:00", "profile_path": "p",
            **plan.to_json(), "estimate_s": {"min": 1, "expected": 1, "max": 1}}


@pytest.mark.parametrize("name", ["claims", "paper"])
def test_the_reports_programs_take_part_in_the_sequential_design(name: str,
                                                                 tmp_path: Path) -> None:
    """The reports' own programs are topped up like copybench's blocks. Their
    comparisons (declared in copybench's method names by the experiments that run them) are
    read on their cells, each claim's verdict on their program a verdict of its own; a cell
    a comparison reads runs every round of its block (the first look of 10 and each top-up
    look); one serving a claim testable here that no comparison reads (S1's C1 and S3's C10
    read the latency their program prints) runs to the first look; only C6's (not testable
    on 2 CPUs) keep originals_rounds = 6."""
    plan = plan_mod.make(prof_mod.load(name), CAPS)
    blocks = plan.blocks or {}
    theirs = {(bid, c["a"], c["b"]): c for bid, b in blocks.items()
              for c in (b.get("sequential") or {}).get("comparisons", [])
              if plan.cells[c["a"]].is_original}
    families = Counter((c["claims"][0], c["family"]) for c in theirs.values())
    assert families == {("S2:C4", 4): 8, ("S2:C5", 2): 4, ("S3:C8", 4): 8, ("S3:C9", 4): 8}
    # each asked only about the edge(s) its claim's expectation names at its size (C4 and
    # C8's "greater": 1 + t, C8's "less" at 64 KiB: 1 - t, C5: at most / greater 1 + t, C9's
    # two readings: both)
    assert all(len(c["claims"]) == 1 and set(c["boundaries"]) <= set(band())
               and plan.cells[c["b"]].kind == plan.cells[c["a"]].kind
               for c in theirs.values())
    assert {tuple(c["boundaries"]) for c in theirs.values() if c["claims"] == ["S3:C9"]} == \
        {band()}
    read = {x for _, a, b in theirs for x in (a, b)}
    for bid, b in blocks.items():
        for cid in b["cells"]:
            c = plan.cells[cid]
            if not c.is_original:
                continue
            cap = (b.get("caps") or {}).get(cid, 0)
            assert c.rounds_cap == cap  # the cell says what its block runs
            if cid in read:  # every planned round, and the top-up's looks (the A/A
                # control's block is planned to the A/A's rounds, the others to 10)
                assert cap == 0 and (b["rounds"] == 10 or "AA" in b["claims"])
                assert all(f"{cid}-{r}" in plan.rounds[r - 1] for r in range(1, 11))
                ids, _ = topup.look_trials(plan, bid, 11, 20)
                assert [t for t in ids if t.startswith(cid)] == \
                    [f"{cid}-{r}" for r in range(11, 21)]
            elif c.threads == 8 or (c.threads == 4 and c.method == "S2:one-copy"):
                assert cap == 6, (b["label"], c.method)  # C6: not testable here
            else:  # S1's C1 at 512 B; S2's zero-copy at 16 and 64 KiB (C5 reads 512 B, 4 KiB)
                assert cap == 10 and b.get("sequential"), (b["label"], c.method)
                assert (c.method.startswith("S1:") or
                        (c.method == "S2:zero-copy" and c.size in (16384, 65536)))
                ids, _ = topup.look_trials(plan, bid, 11, 20)
                assert not [t for t in ids if t.startswith(cid)]
    # copybench's comparisons are what they were: their declaration adds only their own
    text, n = re.subn(r"(originals_rounds = 6\n)comparisons = [^\n]*\n", r"\1",
                      prof_mod.load(name).text)
    assert n == 3  # S2-code, S2-code-threads, S3-code
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    bare = plan_mod.make(prof_mod.load(str(path)), CAPS)
    ours = {(bid, c["a"], c["b"]): c for bid, b in blocks.items()
            for c in (b.get("sequential") or {}).get("comparisons", [])
            if not plan.cells[c["a"]].is_original}
    assert ours == {(bid, c["a"], c["b"]): c for bid, b in (bare.blocks or {}).items()
                    for c in (b.get("sequential") or {}).get("comparisons", [])}


@pytest.mark.parametrize("name", ["claims", "paper", "quick"])
def test_committed_profiles_plans_validate_under_the_schema(name: str) -> None:
    plan = plan_mod.make(prof_mod.load(name), CAPS)
    doc = _plan_doc(plan)
    validator = validator_for(load_schema(planfile.SCHEMA))
    assert schema_problems(validator, doc, "plan.json") == []
    seq = (doc["design"] or {}).get("sequential")
    assert (seq is None) == (name == "quick")
    if seq:  # every claim block testable here carries its looks and comparisons; a block
        # whose every claim this machine (2 CPUs) cannot test carries none
        blocks = [b for b in doc["blocks"].values() if b["purpose"] == "claim"]
        claims = [b for b in blocks if set(b["claims"]) - set(b.get("untestable", {}))]
        assert claims and all(b.get("sequential") for b in claims)
        assert all(not b.get("sequential") for b in blocks if b not in claims)
        # planned to the first look; the A/A control's block to at least its rounds
        assert all(b["sequential"]["looks"] == [10, 20, 30] for b in claims)
        assert all(b["rounds"] == 10 for b in claims if "AA" not in b["claims"])
        assert all(b["rounds"] >= 10 for b in claims)


def test_the_schema_refuses_a_sequential_plan_missing_its_budget(tmp_path: Path) -> None:
    doc = _plan_doc(_plan(tmp_path))
    del doc["design"]["sequential"]["topup_budget_s"]
    next(iter(doc["blocks"].values()))["sequential"]["looks"] = []
    problems = schema_problems(validator_for(load_schema(planfile.SCHEMA)), doc, "plan.json")
    assert any("topup_budget_s" in p for p in problems)
    assert any("looks" in p for p in problems)


@pytest.mark.parametrize("need, words", [
    (123.4, "needs about 123 more rounds"),
    (-3.2, "would be decided by the rounds it has at the final look's quantile"),
    (0.2, "would be decided by the rounds it has at the final look's quantile"),
    (math.inf, "estimate lies on a rule boundary"),
])
def test_a_grants_reason_never_says_it_needs_zero_or_negative_rounds(need: float,
                                                                      words: str) -> None:
    """The progress line said "needs about 0 more rounds" for every block whose projection
    was <= 0 (the final look's quantile is smaller than an early look's), though the block
    was undecided; it now says what the number means."""
    why = topup.Grant("b", 7, 12, (), 60.0, need).why()
    assert words in why
    assert "about 0 more" not in why and "inf" not in why

"""The A/A control in the profiles that run the claims: on the claims' transport, in one of
their blocks, for the rounds at which a null difference reads "equivalent" at 95 % with 80 %
probability at its block's noise-model sd (at most the design's maximum; its twin capped
there whatever the top-up adds, its block running at least as many); an A/A block of its
own is planned the same way."""

from __future__ import annotations

import pytest

from decision import sesoi
from decision.band import SESOI
from runner.host.capabilities import Capabilities
from runner.plan import profile as prof
from runner.plan import rounds as plan_mod
from runner.plan.cells import Trial

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})


def _lenient(name: str) -> prof.Profile:
    p = prof.load(name)
    assert p.design is not None
    return prof.Profile(**{**p.__dict__, "design": prof.Design(
        **{**p.design.__dict__, "strict": False})})


def _trials(plan, cid: str) -> int:
    return sum(1 for r in plan.rounds for t in r if Trial.parse(t).cell == cid)


def _control(block: dict, p: prof.Profile) -> sesoi.ControlRounds:
    return sesoi.control_rounds(float(block["sd"]), SESOI, p.design.sequential.rounds_max)


@pytest.mark.parametrize("name", ["paper", "claims"])
def test_the_aa_twin_runs_where_the_claims_run_for_the_rounds_the_noise_model_plans(
        name: str) -> None:
    p = _lenient(name)
    plan = plan_mod.make(p, CAPS, seed=0)
    twins = [cid for cid, c in plan.cells.items() if c.twin]
    assert len(twins) == 1
    twin = plan.cells[twins[0]]
    claim_transports = {c.transport for c in plan.cells.values()
                        if c.kind == "copybench" and c.block
                        and {"C4", "C8"} & set(plan.blocks[c.block]["claims"])}
    assert twin.transport in claim_transports and twin.transport == "veth"
    block = plan.blocks[twin.block]
    aa = _control(block, p)
    # the rounds follow the block's noise-model sd: the fewest with an 80 % chance that a
    # null difference reads equivalent, at most the design's maximum
    assert aa.rounds == min(aa.wanted, p.design.sequential.rounds_max)
    assert aa.chance >= 0.8 or aa.rounds == p.design.sequential.rounds_max
    assert sesoi.control_rounds(float(block["sd"]), SESOI, 1000).chance >= 0.8
    assert {"AA", "C4"} <= set(block["claims"])
    assert block["caps"][twins[0]] == aa.rounds == twin.rounds_cap
    assert _trials(plan, twins[0]) == aa.rounds
    # its partner (twin 0) is the claims' own send cell: it runs at least as many rounds
    partner = [cid for cid in block["cells"] if plan.cells[cid].method == twin.method
               and plan.cells[cid].kind == "copybench" and not plan.cells[cid].twin
               and plan.cells[cid].threads == twin.threads]
    assert len(partner) == 1 and _trials(plan, partner[0]) >= aa.rounds
    assert block["rounds"] >= aa.rounds
    assert any(aa.text() == n for n in plan.notes)


def test_the_aa_rounds_follow_the_noise_model() -> None:
    """About 20 rounds at an sd of 0.16 and 30 at 0.19 (the chance that the 95 % CI of a
    true 1 lies inside ±12 %), fewer at less noise; capped at the design's maximum, with
    the chance at the cap."""
    assert sesoi.control_rounds(0.16, 0.12, 100).rounds == 21
    assert sesoi.control_rounds(0.194, 0.12, 100).rounds == 30
    assert sesoi.control_rounds(0.12, 0.12, 100).rounds < 15
    capped = sesoi.control_rounds(0.2048, 0.12, 30)
    assert capped.rounds == 30 < capped.wanted and 0.7 < capped.chance < 0.8
    assert "it would need" in capped.text()


def test_an_aa_block_of_its_own_is_planned_to_the_control_rounds() -> None:
    p = _lenient("paper")
    # the A/A experiment alone on a configuration no claim measures (8 KiB)
    exps = [e for e in p.experiments if e.name == "aa-control"]
    assert len(exps) == 1
    aa = prof.Experiment(**{**exps[0].__dict__, "sizes": (8192,)})
    p = prof.Profile(**{**p.__dict__, "experiments": tuple(
        aa if e.name == "aa-control" else e for e in p.experiments)})
    plan = plan_mod.make(p, CAPS, seed=0)
    (twin,) = [cid for cid, c in plan.cells.items() if c.twin]
    block = plan.blocks[plan.cells[twin].block]
    assert block["claims"] == ["AA"] and "sequential" not in block
    assert block["rounds"] == _control(block, p).rounds == _trials(plan, twin)

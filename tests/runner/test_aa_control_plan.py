"""The A/A control in the profiles that run the claims: on the claims' transport, in one of
their blocks, for as many rounds as the claims' first look (its twin capped there whatever
the top-up adds to the block); an A/A block of its own in a design with the top-up is
planned to that look too."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("name", ["paper", "claims"])
def test_the_aa_twin_runs_where_the_claims_run_to_their_first_look(name: str) -> None:
    p = _lenient(name)
    first = p.design.sequential.first_look
    plan = plan_mod.make(p, CAPS, seed=0)
    twins = [cid for cid, c in plan.cells.items() if c.twin]
    assert len(twins) == 1
    twin = plan.cells[twins[0]]
    claim_transports = {c.transport for c in plan.cells.values()
                        if c.kind == "copybench" and c.block
                        and {"C4", "C8"} & set(plan.blocks[c.block]["claims"])}
    assert twin.transport in claim_transports and twin.transport == "veth"
    block = plan.blocks[twin.block]
    # in a claim block with the top-up: the claims' first look, and a cap there
    assert {"AA", "C4"} <= set(block["claims"]) and block["sequential"]["looks"][0] == first
    assert block["caps"][twins[0]] == first == twin.rounds_cap
    assert _trials(plan, twins[0]) == first
    # its partner (twin 0) is the claims' own send cell, which the top-up may extend
    partner = [cid for cid in block["cells"] if plan.cells[cid].method == twin.method
               and plan.cells[cid].kind == "copybench" and not plan.cells[cid].twin
               and plan.cells[cid].threads == twin.threads]
    assert len(partner) == 1 and _trials(plan, partner[0]) >= first


def test_an_aa_block_of_its_own_is_planned_to_the_first_look() -> None:
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
    assert block["rounds"] == p.design.sequential.first_look == _trials(plan, twin)

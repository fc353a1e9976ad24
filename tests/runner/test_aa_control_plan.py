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
def test_the_aa_pair_runs_in_a_block_of_its_own_for_the_rounds_the_noise_model_plans(
        name: str) -> None:
    p = _lenient(name)
    plan = plan_mod.make(p, CAPS, seed=0)
    by_block: dict[str, list[str]] = {}
    for cid, c in plan.cells.items():
        if c.twin:
            by_block.setdefault(c.block, []).append(cid)
    # A/A pairs on loopback and on the claims' transport (veth), each in a block of its own
    transports = {plan.cells[v[0]].transport for v in by_block.values()}
    assert transports == {"loopback", "veth"} and len(by_block) >= 2
    claim_transports = {c.transport for c in plan.cells.values()
                        if c.kind == "copybench" and c.block
                        and {"C4", "C8"} & set(plan.blocks[c.block]["claims"])}
    assert "veth" in claim_transports
    for bid, cids in by_block.items():
        twins = sorted(cids, key=lambda c: plan.cells[c].twin)
        assert [plan.cells[c].twin for c in twins] == [1, 2]
        twin = plan.cells[twins[0]]
        # a block of its own: the pair only, apart from the claims' send cell of the same
        # configuration (which stays in its claim block, unchanged)
        block = plan.blocks[bid]
        assert block["claims"] == ["AA"] and sorted(block["cells"]) == sorted(twins)
        assert twin.group == "aa-control"
        claims_send = [c for c in plan.cells.values() if c.kind == "copybench" and not c.twin
                       and not c.recv_size  # the receiver factor's other size: its own cell
                       and (c.method, c.size, c.placement, c.transport, c.threads)
                       == ("send", twin.size, twin.placement, twin.transport, 1)]
        assert all(c.block != bid for c in claims_send)
        aa = _control(block, p)
        # the rounds follow the block's noise-model sd: the fewest with an 80 % chance that
        # a null difference reads equivalent, at most the design's maximum
        assert aa.rounds == min(aa.wanted, p.design.sequential.rounds_max)
        assert aa.chance >= 0.8 or aa.rounds == p.design.sequential.rounds_max
        assert block["rounds"] == aa.rounds
        assert all(_trials(plan, c) == aa.rounds for c in twins)
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
    """Without own_block, the twin joins the claims' block of its configuration (an 8 KiB
    send no claim measures here: the A/A pair alone in that block all the same)."""
    p = _lenient("paper")
    exps = [e for e in p.experiments if e.name == "aa-control"]
    assert len(exps) == 1
    aa = prof.Experiment(**{**exps[0].__dict__, "sizes": (8192,), "own_block": False,
                            "transports": ("veth",), "placements": ("cross-core",)})
    p = prof.Profile(**{**p.__dict__, "experiments": tuple(
        aa if e.name == "aa-control" else e for e in p.experiments)})
    plan = plan_mod.make(p, CAPS, seed=0)
    (twin,) = [cid for cid, c in plan.cells.items() if c.twin]
    block = plan.blocks[plan.cells[twin].block]
    assert block["claims"] == ["AA"] and "sequential" not in block
    assert block["rounds"] == _control(block, p).rounds == _trials(plan, twin)


def test_own_block_needs_a_twin(tmp_path) -> None:
    from runner.host.errors import ProfileError

    src = prof.load("claims").text.replace("twin = true\nown_block = true",
                                           "own_block = true")
    path = tmp_path / "p.toml"
    path.write_text(src)
    with pytest.raises(ProfileError, match="own_block.*needs twin = true"):
        prof.load(str(path))

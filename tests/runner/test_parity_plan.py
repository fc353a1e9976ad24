"""The reference profile plans copybench sendmsg (the rule's method) and send (its gap to
sendmsg: send's memcpy) beside iperf3 at 16 KiB-1 MiB to the CI the parity rule needs
(decision/parity.py): each size's block runs the rounds a ±10 % CI needs at the noise model's
sd, the budget never cuts them, and the whole plan stays within its budget."""

from __future__ import annotations

from runner.host.capabilities import Capabilities
from runner.plan import blocks as D
from runner.plan import estimate as estimate_mod
from runner.plan import profile as prof_mod
from runner.plan import rounds as plan_mod
from decision import parity as PA

CAPS = Capabilities(methods=None, root=True, cpus=2, peers={"iperf3": True, "sockperf": True},
                    perf=True)


def _peer_blocks(plan) -> dict[int, dict]:
    out = {}
    for b in plan.blocks.values():
        cells = [plan.cells[c] for c in b["cells"]]
        if any(c.kind == "peer:iperf3" for c in cells):
            c = cells[0]
            assert (c.transport, c.placement) == (PA.TRANSPORT, PA.PLACEMENT)
            out[c.size] = b
    return out


def test_paper_gives_the_parity_sizes_the_rounds_of_their_target() -> None:
    prof = prof_mod.load("paper")
    peers = next(e for e in prof.experiments if e.peers and e.modes == ("stream",))
    assert peers.name == "stream-peers"
    assert peers.target == PA.PLANNED_HALF_WIDTH < PA.MARGIN
    # the rule's method first, send beside it (its gap to sendmsg is its memcpy)
    assert tuple(peers.methods) == (PA.METHOD, PA.GAP_METHOD)
    plan = plan_mod.make(prof, CAPS)
    blocks = _peer_blocks(plan)
    assert sorted(blocks) == sorted(PA.SIZES)
    des = prof.design
    for size, b in blocks.items():
        need = D.rounds_needed(b["sd"], PA.PLANNED_HALF_WIDTH, des.confidence, PA.FAMILY, 2,
                               des.rounds_max)
        assert b["rounds"] >= need == b["hold"], (size, b["rounds"], need)
        assert D.half_width(b["sd"], b["rounds"], des.confidence, PA.FAMILY) \
            <= PA.PLANNED_HALF_WIDTH
        # a block of copybench sendmsg, send and iperf3 alone: the question's methods do not
        # ride along
        assert {plan.cells[c].method for c in b["cells"]} == {PA.METHOD, PA.GAP_METHOD,
                                                              "iperf3"}
    # the whole run, top-up included, within the profile's budget (90 min)
    est = estimate_mod.estimate(plan)
    assert est.seconds_max <= prof.budget_s <= 90 * 60


def test_a_held_block_is_not_cut_by_the_budget(tmp_path) -> None:
    from conftest import write_sweep_profile
    import tomllib
    (tmp_path / "noise.toml").write_text('[[sd]]\nkind = "stream"\nplacement = "cross-core"\n'
                                         'window_s = 1\nlog_ratio_sd = 0.2\n')
    exps = tomllib.loads('''
[[experiment]]
name = "q"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["4K"]
purpose = "question"
[[experiment]]
name = "held"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K"]
target = 0.10
[[experiment]]
name = "aa"
command = "send"
methods = ["send"]
sizes = ["1K"]
purpose = "control"
claims = ["AA"]
twin = true
''')["experiment"]
    design = {"rounds_min": 3, "rounds_max": 40, "target": 0.05, "noise": "noise.toml",
              "descriptive_rounds_min": 2}
    p = write_sweep_profile(tmp_path, "t", seed=1, duration_s=1, warmup_s=0.1, budget_s=60,
                            repetitions=None, design=design, experiments=exps)
    plan = plan_mod.make(prof_mod.load(str(p)), CAPS)
    by = {plan.cells[b["cells"][0]].size: b for b in plan.blocks.values()}
    need = D.rounds_needed(0.2, 0.10, 0.95, 1, 2, 40)
    assert by[16384]["rounds"] == by[16384]["hold"] == need  # over budget, yet not cut
    assert by[4096]["rounds"] == 3  # the question is cut to rounds_min
    assert any(n.startswith("held: its own target") for n in plan.notes)

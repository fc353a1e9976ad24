"""The block design (runner/plan/blocks.py, runner/plan/rounds.py): blocks are contiguous and shuffled in
every round, rounds come from the noise model, the budget serves claims first, a strict
profile refuses an unreachable rule, and every committed profile has its A/A block."""

from __future__ import annotations

import math
import random
import tomllib
from pathlib import Path

import numpy as np
import pytest

from conftest import write_sweep_profile
from runner.plan import blocks as D
from runner.plan import rounds as plan_mod
from runner.plan import profile as prof_mod
from runner.plan import estimate as estimate_mod
from runner.plan.expand import TWO_HOSTS
from runner.host.capabilities import Capabilities
from runner.plan.cells import Plan, Trial

CAPS = Capabilities(methods=None, root=True, cpus=2, peers={"iperf3": True, "sockperf": True},
                    perf=True)

NOISE = """[[sd]]
kind = "stream"
placement = "cross-core"
window_s = 1
log_ratio_sd = {cross}

[[sd]]
kind = "stream"
placement = "same-core"
window_s = 1
log_ratio_sd = {same}
"""
EXPS = """
[[experiment]]
name = "claim"
command = "send"
methods = ["send", "sendmsg", "zerocopy"]
sizes = ["1K", "16K"]
placements = ["cross-core", "same-core"]
purpose = "claim"
claims = ["C4"]
margin = 0.05

[[experiment]]
name = "aa"
command = "send"
methods = ["send"]
sizes = ["16K"]
placements = ["cross-core"]
purpose = "control"
claims = ["AA"]
twin = true

[[experiment]]
name = "desc"
command = "send"
methods = ["send", "vmsplice"]
sizes = [64, "256K"]
placements = ["cross-core"]
"""


def _profile(tmp_path: Path, budget: float | None = None, cross: float = 0.03,
             same: float = 0.10, strict: bool = False, exps: str = EXPS) -> prof_mod.Profile:
    """``budget``: the profile's budget_s (None: none)."""
    (tmp_path / "noise.toml").write_text(NOISE.format(cross=cross, same=same))
    design = {"rounds_min": 3, "rounds_max": 40, "target": 0.05, "noise": "noise.toml",
              **({"strict": True} if strict else {})}
    p = write_sweep_profile(tmp_path, "t", seed=11, duration_s=1, warmup_s=0.1,
                            **({} if budget is None else {"budget_s": budget}),
                            repetitions=None, design=design,
                            experiments=tomllib.loads(exps)["experiment"])
    return prof_mod.load(str(p))


def test_blocks_are_contiguous_and_shuffled(tmp_path: Path) -> None:
    plan = plan_mod.make(_profile(tmp_path), CAPS)
    assert plan.blocks is not None
    block_of = {cid: c.block for cid, c in plan.cells.items()}
    orders = []
    for r, ids in enumerate(plan.rounds, 1):
        seq = [block_of[Trial.parse(t).cell] for t in ids if Trial.parse(t).repetition]
        # each block appears as one contiguous run
        runs = [b for i, b in enumerate(seq) if i == 0 or seq[i - 1] != b]
        assert len(runs) == len(set(runs)), f"round {r}: a block is split: {runs}"
        assert all(Trial.parse(t).repetition in (0, r) for t in ids)
        orders.append(runs)
    assert len({tuple(o) for o in orders[:3]}) > 1, "block order never changes between rounds"
    # the cells inside a block are shuffled too (not always the same order)
    big = max(plan.blocks.values(), key=lambda b: len(b["cells"]))
    inner = {tuple(t.split("-")[0] for t in ids if block_of[Trial.parse(t).cell] == big["id"])
             for ids in plan.rounds[:6]}
    assert len(inner) > 1


def test_a_configuration_is_one_block_whatever_lists_it(tmp_path: Path) -> None:
    plan = plan_mod.make(_profile(tmp_path), CAPS)
    assert plan.blocks is not None
    blocks = list(plan.blocks.values())
    aa = [b for b in blocks if "AA" in b["claims"]]
    assert len(aa) == 1
    cells = [plan.cells[c] for c in aa[0]["cells"]]
    # send, its twin, sendmsg, zerocopy (claim experiment) and iperf3: none: one block
    assert sorted((c.method, c.twin) for c in cells) == [
        ("send", 0), ("send", 1), ("sendmsg", 0), ("zerocopy", 0)]
    assert aa[0]["purpose"] == "claim" and set(aa[0]["claims"]) == {"AA", "C4"}
    twin = next(c for c in cells if c.twin)
    plain = next(c for c in cells if c.method == "send" and not c.twin)
    assert twin.id != plain.id and twin.block == plain.block


def test_rounds_follow_the_noise_model(tmp_path: Path) -> None:
    plan = plan_mod.make(_profile(tmp_path, cross=0.03, same=0.10), CAPS)
    by = {(b["placement"], b["purpose"]): b for b in plan.blocks.values()}
    cross, same = by[("cross-core", "claim")], by[("same-core", "claim")]
    assert same["rounds"] > cross["rounds"] >= 3
    for b in (cross, same):
        if b["rounds"] < 40:
            assert b["expected_half_width"] <= 0.05
            # one round fewer would not have reached it
            assert D.half_width(b["sd"], b["rounds"] - 1, 0.95, b["family"]) > 0.05 \
                or b["rounds"] == 3


def test_budget_cuts_descriptive_blocks_first(tmp_path: Path) -> None:
    free = plan_mod.make(_profile(tmp_path, cross=0.08, same=0.12), CAPS)
    total = estimate_mod.estimate(free).seconds_expected
    tight = plan_mod.make(_profile(tmp_path, cross=0.08, same=0.12, budget=total * 0.8), CAPS)
    f = {b["id"]: b for b in free.blocks.values()}
    t = {b["id"]: b for b in tight.blocks.values()}
    desc = [i for i, b in f.items() if b["purpose"] == "descriptive"]
    claim = [i for i, b in f.items() if b["purpose"] == "claim"]
    assert all(t[i]["rounds"] <= f[i]["rounds"] for i in f)
    assert any(t[i]["rounds"] < f[i]["rounds"] for i in desc)
    cut_claims = [i for i in claim if t[i]["rounds"] < f[i]["rounds"]]
    if cut_claims:  # claims are cut only once every descriptive block is at the minimum
        assert all(t[i]["rounds"] == 3 for i in desc)
    assert estimate_mod.estimate(tight).seconds_expected <= total * 0.8 + 1e-6
    assert any("cannot reach" in n for n in tight.notes) or all(
        t[i]["reaches_target"] for i in claim)


def test_strict_profile_refuses_an_unreachable_rule(tmp_path: Path) -> None:
    exps = EXPS.replace("margin = 0.05", "margin = 0.002")
    with pytest.raises(plan_mod.PlanError, match="cannot be met"):
        plan_mod.make(_profile(tmp_path, strict=True, exps=exps), CAPS)
    plan = plan_mod.make(_profile(tmp_path, strict=False, exps=exps), CAPS)
    assert any(n.startswith("warning:") and "cannot be met" in n for n in plan.notes)


def test_plan_round_trips_through_json(tmp_path: Path) -> None:
    plan = plan_mod.make(_profile(tmp_path), CAPS)
    back = Plan.from_json(plan.to_json())
    assert back.rounds == plan.rounds and back.blocks == plan.blocks
    assert back.cells == plan.cells
    assert estimate_mod.estimate(back) == estimate_mod.estimate(plan)


def test_sample_size_reaches_its_target_on_data_of_known_variance() -> None:
    """rounds_needed/half_width against simulation: with the planned n, the realised t CI of
    the mean log ratio is no wider than the target in the median run."""
    rng = np.random.default_rng(3)
    for sd in (0.02, 0.05, 0.12):
        n = D.rounds_needed(sd, 0.05, 0.95, 1, 3, 200)
        widths = []
        for _ in range(400):
            x = rng.normal(0.0, sd, n)
            from scipy import stats
            hw = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n)
            widths.append(math.expm1(hw))
        assert np.median(widths) <= 0.05 * 1.05, (sd, n, np.median(widths))
        if n > 3:  # and n - 1 would not have been enough on average
            assert D.half_width(sd, n - 1, 0.95, 1) > 0.05


@pytest.mark.parametrize("name", [n for n in prof_mod.available() if not n.startswith("pilot")])
def test_every_profile_is_a_block_design_with_an_aa_block(name: str) -> None:
    prof = prof_mod.load(name)
    assert prof.design is not None, f"{name}: not a block-design profile"
    # strictness is about the noise model of the day; the A/A block is about the profile
    prof = prof_mod.Profile(**{**prof.__dict__, "design": prof_mod.Design(
        **{**prof.design.__dict__, "strict": False})})
    plan = plan_mod.make(prof, CAPS)
    aa = [b for b in plan.blocks.values() if "AA" in b["claims"]]
    assert aa, f"{name}: no A/A block"
    for b in aa:
        methods = [(plan.cells[c].method, plan.cells[c].twin) for c in b["cells"]]
        assert any(t == 1 for _, t in methods)
        twin_method = next(m for m, t in methods if t == 1)
        # its partner: the method's cell in the block, or in a block of its own twin 2
        assert (twin_method, 0) in methods or (
            (twin_method, 2) in methods and len(methods) == 2)


def test_round_order_is_deterministic() -> None:
    blocks = [D.Block(id=f"b{i}", label="", cells=[f"c{i}{j}" for j in range(3)],
                      purpose="claim", claims=[], family=1, margin=None, kind="stream",
                      placement="cross-core", window_s=1, sd=0.05, sd_source="",
                      seconds_per_round=1, target=0.05, rounds=random.Random(i).randint(2, 5))
              for i in range(5)]
    a = [D.round_order(blocks, 7, r) for r in range(1, 6)]
    b = [D.round_order(blocks, 7, r) for r in range(1, 6)]
    assert a == b
    assert all(len(a[r - 1]) == 3 * sum(1 for bl in blocks if bl.rounds >= r)
               for r in range(1, 6))


def test_pair_threads_merges_thread_counts_into_one_block(tmp_path: Path) -> None:
    exps = EXPS + """
[[experiment]]
name = "threads"
command = "send"
methods = ["send"]
sizes = ["16K"]
threads = [1, 2, 4]
placements = ["cross-core"]
purpose = "claim"
claims = ["C11"]
pair_threads = true
"""
    plan = plan_mod.make(_profile(tmp_path, exps=exps), CAPS)
    b = next(b for b in plan.blocks.values() if "C11" in b["claims"])
    got = sorted((plan.cells[c].method, plan.cells[c].threads, plan.cells[c].twin)
                 for c in b["cells"])
    # the 1-thread 16K cells of the other experiments (send, its twin, sendmsg, zerocopy)
    # join the thread block: one configuration, one block
    assert got == [("send", 1, 0), ("send", 1, 1), ("send", 2, 0), ("send", 4, 0),
                   ("sendmsg", 1, 0), ("zerocopy", 1, 0)]
    assert len({plan.cells[c].block for c in b["cells"]}) == 1


def test_in_block_order_is_counterbalanced() -> None:
    """Every even round runs the round before it in reverse: over each two rounds a cell is
    as often before as after any other (the A/A twins once ran in one order all six rounds)."""
    cells = ["a", "b", "c", "d"]
    for seed in range(20):
        for r in (1, 3, 5):
            odd = D.in_block_order(cells, seed, r, "blk")
            assert sorted(odd) == cells
            assert D.in_block_order(cells, seed, r + 1, "blk") == odd[::-1]
    # over many seeds the odd rounds are shuffled, not fixed
    assert len({tuple(D.in_block_order(cells, s, 1, "blk")) for s in range(30)}) > 5
    # the A/A pair: over 6 rounds each twin runs first exactly 3 times, whatever the seed
    for seed in range(50):
        firsts = [D.in_block_order(["t0", "t1"], seed, r, "aa")[0] for r in range(1, 7)]
        assert firsts.count("t0") == 3


ORIGINALS_EXP = """
[[experiment]]
name = "s2-code"
command = "send"
methods = ["send", "sendmsg", "zerocopy"]
sizes = ["16K"]
transports = ["veth"]
placements = ["cross-core"]
purpose = "claim"
claims = ["C4"]
originals = ["S2"]
originals_rounds = 2
"""


def test_original_programs_join_the_block_of_their_copybench_cell(tmp_path: Path) -> None:
    plan = plan_mod.make(_profile(tmp_path, exps=EXPS + ORIGINALS_EXP), CAPS)
    orig = {cid: c for cid, c in plan.cells.items() if c.is_original}
    assert sorted(c.method for c in orig.values()) == ["S2:one-copy", "S2:two-copy",
                                                       "S2:zero-copy"]
    for cid, c in orig.items():
        base = plan.cells[c.block_as]
        assert base.kind == "copybench" and base.size == c.size == 16384
        assert c.block == base.block, "an original program is paired with copybench"
        assert c.duration_s == 1.0 and c.warmup_s == 0.0  # whole seconds, no warm-up
        assert c.kind == "original:S2" and c.transport == "veth"
    blk = plan.blocks[next(iter(orig.values())).block]
    assert blk["rounds"] > 2, "the test needs a block with more rounds than the cap"
    assert blk["caps"] == {cid: 2 for cid in orig}
    # rounds 1-2 hold their trials, later rounds do not; the block stays contiguous
    for r, ids in enumerate(plan.rounds, 1):
        theirs = [t for t in ids if Trial.parse(t).cell in orig]
        assert len(theirs) == (3 if r <= 2 else 0), (r, theirs)
        pos = [i for i, t in enumerate(ids) if plan.cells[Trial.parse(t).cell].block == blk["id"]]
        assert (r > blk["rounds"]) == (not pos)
        assert not pos or pos == list(range(pos[0], pos[0] + len(pos))), (r, "block split")
    # the plan's time for the block is the time of the trials it planned
    planned = sum(estimate_mod.trial_seconds(plan.cells[Trial.parse(t).cell])
                  for ids in plan.rounds for t in ids
                  if plan.cells[Trial.parse(t).cell].block == blk["id"])
    assert estimate_mod.block_seconds_of(blk) == pytest.approx(planned)


def test_an_original_program_is_one_cell_per_copybench_cell(tmp_path: Path) -> None:
    """Two copybench cells that differ only in what their programs do not take (the warm-up,
    a fraction of a second of window) get one original cell each, each in its own block."""
    other = ORIGINALS_EXP.replace('name = "s2-code"', 'name = "s2-code-b"').replace(
        'placements = ["cross-core"]', 'placements = ["cross-core"]\nwarmup_s = 0.5').replace(
        "originals_rounds = 2", "originals_rounds = 4")
    plan = plan_mod.make(_profile(tmp_path, exps=EXPS + ORIGINALS_EXP + other), CAPS)
    orig = [c for c in plan.cells.values() if c.is_original]
    assert len(orig) == 6
    for c in orig:
        assert c.block == plan.cells[c.block_as].block
    assert sorted({c.rounds_cap for c in orig}) == [2, 4]
    # the block's claims come from the experiments that list its copybench cells
    for c in orig:
        assert plan.blocks[c.block]["claims"] == ["C4"]


def test_original_programs_are_left_out_where_they_cannot_run(tmp_path: Path) -> None:
    big = ORIGINALS_EXP.replace('sizes = ["16K"]', 'sizes = ["16K", "128M"]')
    plan = plan_mod.make(_profile(tmp_path, exps=EXPS + big), CAPS)
    sizes = {c.size for c in plan.cells.values() if c.is_original}
    assert sizes == {16384}
    assert any("original:S2: sizes up to 64M" in n for n in plan.notes), plan.notes
    # over two hosts their programs (fixed port, one host) are dropped with a note; the
    # profile itself is as loaded, and plan.json says what two hosts changed
    prof = _profile(tmp_path, exps=EXPS + ORIGINALS_EXP)
    two = plan_mod.make(prof, CAPS, hosts=TWO_HOSTS)
    assert any(e.originals for e in prof.experiments)
    assert not any(c.is_original for c in two.cells.values())
    assert {c.transport for c in two.cells.values()} == {"remote"}
    assert "same-core" not in {c.placement for c in two.cells.values()}
    assert any("reports' own programs (S2)" in n for n in two.notes), two.notes
    hosts = two.to_json()["hosts"]
    assert hosts["count"] == 2 and any("same-core is cross-core" in n for n in hosts["changes"])
    assert "hosts" not in plan_mod.make(prof, CAPS).to_json()


def test_original_programs_are_refused_where_they_cannot_run(tmp_path: Path) -> None:
    bad = {"modes = [\"pingpong\"]": "only with modes",
           "transports = [\"udp-forward\"]": "transport 'udp-forward'",
           "originals = [\"S9\"]": "unknown value 'S9'"}
    for line, msg in bad.items():
        key = line.split(" = ")[0]
        exp = "\n".join(ln for ln in ORIGINALS_EXP.splitlines()
                        if not ln.startswith(key + " ")) + "\n" + line + "\n"
        with pytest.raises(prof_mod.ProfileError, match=msg):
            _profile(tmp_path, exps=EXPS + exp)

"""Planning: valid cells only, seeded reproducible shuffles, adaptive stopping, estimates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_runner
from runner.plan import rounds as plan_mod
from runner.plan import profile as prof
from decision.quantities import primary as metric
from runner.plan import estimate as estimate_mod
from runner.plan.adaptive import decide, median_ci
from runner.host.capabilities import Capabilities
from runner.plan.cells import Cell, Plan, Trial
from runner.plan.profile import Repetitions

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})


def lenient(name: str) -> prof.Profile:
    """A committed profile without its strict refusal: these tests are about the cells and
    the estimate, not about whether the committed noise model lets its rules be met (that is
    tests/test_runner_design.py's)."""
    p = prof.load(name)
    if p.design is None or not p.design.strict:
        return p
    return prof.Profile(**{**p.__dict__, "design": prof.Design(
        **{**p.design.__dict__, "strict": False})})


def test_randomization_reproducible_from_seed() -> None:
    p = prof.load("quick")
    a = plan_mod.make(p, CAPS, seed=7)
    b = plan_mod.make(p, CAPS, seed=7)
    c = plan_mod.make(p, CAPS, seed=8)
    assert a.rounds == b.rounds
    assert a.rounds != c.rounds
    assert a.seed == 7 and c.seed == 8
    # each round is a permutation of the same trials, and rounds differ from each other
    for r_a, r_c in zip(a.rounds, c.rounds, strict=True):
        assert sorted(r_a) == sorted(r_c)
    assert a.rounds[0] != a.rounds[1]
    # the order is not the sorted order (it really is shuffled)
    assert a.rounds[1] != sorted(a.rounds[1])
    # round r holds repetition r of every cell (interleaved repetitions)
    for r, rnd in enumerate(a.rounds, start=1):
        reps = {Trial.parse(t).repetition for t in rnd}
        assert reps <= {r, 0}
        assert {Trial.parse(t).cell for t in rnd if Trial.parse(t).repetition == r} == set(
            a.cells)


def test_profile_seed_is_default_and_recorded() -> None:
    p = prof.load("smoke")
    pl = plan_mod.make(p, CAPS)
    assert pl.seed == p.seed
    assert pl.to_json()["seed"] == p.seed


def test_cell_ids_stable_and_distinct() -> None:
    p = lenient("paper")
    a = plan_mod.make(p, CAPS, seed=1)
    b = plan_mod.make(p, CAPS, seed=2)
    assert set(a.cells) == set(b.cells)
    assert len({c.id for c in a.cells.values()}) == len(a.cells)
    for cid, c in a.cells.items():
        assert Cell.from_json(json.loads(json.dumps(c.to_json()))).id == cid


UDP_BIG = """
[profile]
name = "u"
[[experiment]]
name = "udp"
command = "send"
methods = ["send", "zerocopy", "vmsplice"]
sizes = ["32K", 65493, 65494, "64K"]
transports = ["udp-forward"]
placements = ["same-core", "cross-core"]
modes = ["stream", "pingpong"]
"""


def test_udp_forward_filter_says_why() -> None:
    pl = plan_mod.make(prof.parse(UDP_BIG, "u.toml"), CAPS)
    text = "\n".join(pl.notes)
    assert "65493" in text and "fragment" in text  # 65494 and 64K filtered out
    assert "TCP only" in text and "stream only" in text and "cross-core" in text
    assert sorted({c.size for c in pl.cells.values()}) == [32768, 65493]
    assert {c.method for c in pl.cells.values()} == {"send", "zerocopy"}
    assert {(c.mode, c.placement) for c in pl.cells.values()} == {("stream", "same-core")}


def test_filters_say_why() -> None:
    p = lenient("paper")
    pl = plan_mod.make(p, CAPS)
    for c in pl.cells.values():
        if c.transport == "udp-forward":
            assert c.size <= 65521 - 28
            assert c.method in prof.UDP_METHODS
            assert c.mode == "stream"
        if c.method == "vmsplice":
            assert c.transport != "udp-forward"
        if c.cache is not None:
            assert c.method in prof.FILE_SEND_METHODS + prof.COPY_METHODS
        if c.command == "copy":
            assert c.transport is None


def test_paper_covers_the_required_factors() -> None:
    pl = plan_mod.make(lenient("paper"), CAPS)
    cells = list(pl.cells.values())
    msg = [c for c in cells if c.kind == "copybench" and c.method in prof.MESSAGE_METHODS]
    sizes = sorted({c.size for c in msg})
    # the sources' sizes (S2's 512 B, S1's per-field reading up to 1 MiB) and the copies
    # chapter's 16 and 64 MiB
    assert sizes[0] == 64 and {512, 4096, 16384, 65536, 1 << 20, 64 << 20} <= set(sizes)
    assert {c.threads for c in msg} >= {1, 2, 4, 8}
    assert {c.placement for c in msg} == {"same-core", "cross-core", "unpinned"}
    assert {c.transport for c in msg} == {"loopback", "veth", "udp-forward"}
    assert {c.mode for c in msg} == {"stream", "pingpong"}
    files = [c for c in cells if c.cache is not None]
    fsizes = {c.size for c in files}
    assert 100_000_000 in fsizes and {65536, 1 << 20, 16 << 20} <= fsizes
    assert {c.cache for c in files} == {"warm", "cold"}
    assert any(c.kind == "peer:iperf3" for c in cells)
    assert any(c.kind == "peer:sockperf" for c in cells)
    assert any(c.perf for c in cells)
    # every claim testable without a PMU has a block, and so has the A/A control
    served = {c for b in pl.blocks.values() for c in b["claims"]}
    assert {"AA", "C1", "C3", "C4", "C5", "C6", "C8", "C9", "C10", "C11", "C13", "C14",
            "P1", "Q1", "Q2"} <= served


def test_quick_has_every_method_and_both_placements() -> None:
    pl = plan_mod.make(prof.load("quick"), CAPS)
    methods = {c.method for c in pl.cells.values() if c.kind == "copybench"}
    assert methods >= set(prof.MESSAGE_METHODS + prof.FILE_SEND_METHODS + prof.COPY_METHODS)
    placements = {c.placement for c in pl.cells.values()}
    assert {"same-core", "cross-core"} <= placements


def test_threads_has_c8_and_c9_at_every_published_size() -> None:
    """C8 and C9 are about 1, 4, 16 and 64 KiB at 4 threads: the many-CPU profile runs each
    method they compare at all four, in both placements (it once ran 4 and 64 KiB only)."""
    pl = plan_mod.make(lenient("threads"), CAPS)
    for method in ("send", "sendmsg", "zerocopy"):
        for placement in ("same-core", "cross-core"):
            sizes = {c.size for c in pl.cells.values() if c.kind == "copybench"
                     and c.method == method and c.threads == 4 and c.placement == placement
                     and c.transport == "veth"}
            assert {1024, 4096, 16384, 65536} <= sizes, (method, placement, sorted(sizes))


@pytest.mark.parametrize("name,limit", [("smoke", 60), ("quick", 600), ("paper", 7200),
                                        ("threads", 360)])
def test_estimates_within_budget(name: str, limit: float) -> None:
    est = estimate_mod.estimate(plan_mod.make(lenient(name), CAPS))
    assert est.seconds_expected < limit


def test_without_root_namespace_topologies_are_skipped_with_a_reason() -> None:
    caps = Capabilities(methods=None, root=False, cpus=2, peers={})
    pl = plan_mod.make(prof.load("smoke"), caps)
    assert all(c.transport in ("loopback", None) for c in pl.cells.values())
    root_notes = [n for n in pl.notes if "root" in n]
    assert len(root_notes) == 1, pl.notes
    assert root_notes[0].startswith("not root:") and "veth" in root_notes[0]
    assert "udp-forward" in root_notes[0]


def test_methods_missing_from_the_build_are_filtered() -> None:
    caps = Capabilities(methods=("send", "sendmsg", "zerocopy", "vmsplice", "read-write",
                                 "mmap-write", "sendfile", "splice", "splice2",
                                 "copy_file_range"), root=True, cpus=2, peers={})
    pl = plan_mod.make(prof.load("quick"), caps)
    assert "uring-zc" not in {c.method for c in pl.cells.values()}
    assert any("uring-zc" in n for n in pl.notes)


def test_plan_cli_prints_estimate() -> None:
    r = run_runner("plan", "--profile", "quick", timeout=120)
    assert r.returncode == 0, r.stderr
    assert "estimated time" in r.stdout and "cells" in r.stdout and "block design" in r.stdout
    # paper is strict: it plans, or it refuses in one line saying which rule cannot be met
    # (with a noise model measured under load it refuses, as it should)
    r = run_runner("plan", "--profile", "paper", timeout=120)
    assert (r.returncode == 0 and "estimated time" in r.stdout) or (
        r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
        and "cannot be met" in r.stderr), (r.returncode, r.stderr[-500:])
    r = run_runner("plan", "--profile", "smoke", "--json", "--seed", "3", timeout=120)
    d = json.loads(r.stdout)
    assert d["seed"] == 3 and d["rounds"]


# --- adaptive repetitions --------------------------------------------------------------

REPS = Repetitions(min=3, max=6, target_rel_ci=0.03, confidence=0.95, resamples=2000)


def test_adaptive_min_and_max() -> None:
    assert decide(2, [1.0, 1.0], REPS).more
    assert not decide(6, [1.0, 2.0, 3.0, 1, 2, 3], REPS).more


def test_adaptive_stops_when_tight_and_goes_on_when_wide() -> None:
    assert not decide(3, [10.0, 10.1, 10.05], REPS, "k").more
    assert decide(3, [10.0, 14.0, 7.0], REPS, "k").more


def test_adaptive_gives_up_on_a_failing_cell() -> None:
    d = decide(3, [], REPS, "k")
    assert not d.more and "no successful" in d.reason


def test_bootstrap_is_deterministic_per_key() -> None:
    v = [1.0, 1.2, 0.9, 1.1, 1.05]
    assert median_ci(v, key="a") == median_ci(v, key="a")
    ci = median_ci(v, key="a")
    assert ci.low <= ci.median <= ci.high


def test_metric_reads_stream_and_pingpong() -> None:
    assert metric({"status": "ok", "config": {"mode": "stream"},
                   "result": {"gbit_per_s": 3.5}}) == 3.5
    assert metric({"status": "ok", "config": {"mode": "pingpong"},
                   "result": {"gbit_per_s": 0.1, "rtt_ns": {"p50": 900.0}}}) == 900.0
    assert metric({"status": "failed", "config": {}, "result": None}) is None


def test_plan_json_roundtrip(tmp_path: Path) -> None:
    pl = plan_mod.make(prof.load("quick"), CAPS, seed=5)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(pl.to_json()))
    back = Plan.from_json(json.loads(path.read_text()))
    assert back.rounds == pl.rounds and set(back.cells) == set(pl.cells)


def test_without_perf_cpu_profiles_are_skipped_with_a_reason() -> None:
    caps = Capabilities(methods=None, root=True, cpus=2, peers={}, perf=False,
                        perf_why="perf is not installed")
    pl = plan_mod.make(prof.load("smoke"), caps)
    assert not any(c.perf for c in pl.cells.values())
    assert not any(Trial.parse(t).repetition == 0 for t in pl.rounds[0])
    assert any("CPU profiles skipped (perf is not installed)" in n for n in pl.notes)

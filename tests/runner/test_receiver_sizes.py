"""The profile's ``[receiver]`` factor: every copybench TCP stream cell runs at each receive
size (copybench send --recv-size), the sink's default as the cell it was (its id unchanged),
each other size as a cell of its own in a block of its own, and the blocks of one
configuration run in the same rounds, so the sizes are read on the same host load."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from runner.host.capabilities import Capabilities
from runner.host.errors import ProfileError
from runner.host.pinning import Cpus
from runner.plan import profile as prof
from runner.plan import rounds as plan_mod
from runner.plan.cells import Cell, Trial
from runner.trial.copybench_argv import sender_argv
from runner.trial.trialrecord import trial_config

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})

BASE = """
[profile]
name = "t"
duration_s = 0.2
seed = 5
[design]
rounds_min = 4
rounds_max = 4
[[experiment]]
name = "stream"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K", "64K"]
transports = ["loopback"]
placements = ["same-core", "cross-core"]
purpose = "claim"
claims = ["C4"]
[[experiment]]
name = "file"
command = "send"
methods = ["read-write", "sendfile"]
sizes = ["1M"]
caches = ["warm"]
transports = ["loopback"]
placements = ["same-core"]
purpose = "claim"
claims = ["C13"]
[[experiment]]
name = "rtt"
command = "send"
methods = ["send"]
sizes = [64]
modes = ["pingpong"]
transports = ["loopback"]
placements = ["same-core"]
[[experiment]]
name = "copy"
command = "copy"
methods = ["splice"]
sizes = ["1M"]
caches = ["warm"]
placements = ["same-core"]
"""
RECEIVER = """
[receiver]
recv_sizes = [65536, "256K"]
"""


def _plan(text: str):
    return plan_mod.make(prof.parse(text, "t.toml"), CAPS, seed=5)


def _twin_key(c: Cell) -> str:
    """A cell's identity but for its receive size."""
    d = c.factors()
    d.pop("recv_size", None)
    return json.dumps(d, sort_keys=True)


def test_every_stream_cell_runs_at_both_sizes_and_the_defaults_keep_their_ids() -> None:
    without, with_rx = _plan(BASE), _plan(BASE + RECEIVER)
    assert set(without.cells) <= set(with_rx.cells)  # the default size: the same cells, ids
    added = [c for cid, c in with_rx.cells.items() if cid not in without.cells]
    assert {c.recv_size for c in added} == {256 << 10}
    stream = [c for c in without.cells.values() if c.takes_recv_size]
    assert len(stream) == 2 * 2 * 2 + 2  # send/sendmsg x 2 sizes x 2 placements, the file pair
    assert sorted(map(_twin_key, added)) == sorted(map(_twin_key, stream))
    # no receive size for an echo or a file copy, and no key in the default cells' ids
    assert not any(c.mode == "pingpong" or c.command == "copy" for c in added)
    for c in without.cells.values():
        assert "recv_size" not in c.factors() and "recv_size" not in c.to_json()
    for c in added:
        assert "recv 256K" in c.label()
        assert Cell.from_json(json.loads(json.dumps(c.to_json()))) == c


def test_each_size_has_its_own_blocks_run_in_the_same_rounds() -> None:
    plan = _plan(BASE + RECEIVER)
    by_key: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for c in plan.cells.values():
        if c.takes_recv_size:
            by_key[_twin_key(c)][c.recv_size].add(c.block)
    for sizes in by_key.values():
        assert set(sizes) == {0, 256 << 10}
        assert not sizes[0] & sizes[256 << 10]  # a block holds one receive size
    # the block of each configuration at 256 KiB runs in every round its 64 KiB block runs
    rounds_of: dict[str, set[int]] = defaultdict(set)
    for r, ids in enumerate(plan.rounds, 1):
        for tid in ids:
            rounds_of[plan.cells[Trial.parse(tid).cell].block].add(r)
    for sizes in by_key.values():
        (b0,), (b1,) = sizes[0], sizes[256 << 10]
        assert rounds_of[b0] == rounds_of[b1] and rounds_of[b0]
    # the blocks' order changes from round to round (randomized like every factor's)
    firsts = {tuple(dict.fromkeys(plan.cells[Trial.parse(t).cell].block for t in ids))
              for ids in plan.rounds}
    assert len(firsts) > 1


def test_the_sender_and_the_record_carry_the_size_only_when_set() -> None:
    plan = _plan(BASE + RECEIVER)
    for c in plan.cells.values():
        argv = sender_argv(Path("/bin/copybench"), c, "127.0.0.1", 5201, Cpus("0", "1"), 7)
        cfg = trial_config(c, Cpus("0", "1"), False)
        if c.recv_size:
            assert argv[argv.index("--recv-size") + 1] == str(256 << 10)
            assert cfg["recv_size"] == 256 << 10
        else:
            assert "--recv-size" not in argv and "recv_size" not in cfg


def test_experiments_limit_the_factor() -> None:
    plan = _plan(BASE + RECEIVER + 'experiments = ["file"]\n')
    added = [c for c in plan.cells.values() if c.recv_size]
    assert {c.experiment for c in added} == {"file"} and len(added) == 2


@pytest.mark.parametrize("table, needle", [
    ('recv_sizes = [262144]', "the sink's default 65536 among them"),
    ('recv_sizes = [65536]', "two sizes or more"),
    ('recv_sizes = [65536, 1024]', "1024 is out of range (allowed: 4K to 64M"),
    ('recv_sizes = [65536, "128M"]', "out of range"),
    ('recv_sizes = [65536, "big"]', "bad size 'big'"),
    ('recv_sizes = [65536, 65536]', "duplicate sizes"),
    ('recv_sizes = [65536, 262144]\nexperiments = ["nope"]', "unknown experiment 'nope'"),
    ('recv_sizes = [65536, 262144]\nexperiments = ["copy"]', "only 'send' has a receiver"),
    ('recv_sizes = [65536, 262144]\nsizes = [1]', "receiver.sizes"),
])
def test_bad_receiver_tables_are_one_line_errors(table: str, needle: str) -> None:
    with pytest.raises(ProfileError) as e:
        prof.parse(BASE + "[receiver]\n" + table + "\n", "t.toml")
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and "receiver" in msg


def test_claims_profile_measures_its_throughput_cells_at_both_sizes() -> None:
    p = prof.load("claims")
    assert p.receiver is not None and p.receiver.recv_sizes == (65536, 262144)
    plan = plan_mod.make(p, CAPS, seed=1)
    stream = [c for c in plan.cells.values() if c.takes_recv_size]
    assert stream
    # every claim's stream cell at both sizes; the A/A control (its own block) at the default
    defaults = {_twin_key(c) for c in stream if not c.recv_size and not c.group}
    others = {_twin_key(c) for c in stream if c.recv_size}
    assert defaults == others
    assert not any(c.group for c in stream if c.recv_size)
    c13 = [c for c in stream if c.experiment == "C13-100MB"]
    assert {c.recv_size for c in c13} == {0, 262144} and len(c13) == 8

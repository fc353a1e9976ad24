"""An experiment's ``sockbuf``: its cells run copybench with both ends' socket buffers fixed
(``--sockbuf``). They are cells of their own (their own ids and blocks, interleaved in the same
rounds as the autotuned ones), while every cell without it keeps the id, the block and the
plan.json entry it had before the option existed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.host.capabilities import Capabilities
from runner.host.errors import ProfileError
from runner.host.pinning import Cpus
from runner.plan import profile as prof
from runner.plan import rounds as plan_mod
from runner.plan.cells import Cell
from runner.trial.copybench_argv import sender_argv

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})

TWO = """
[profile]
name = "t"
duration_s = 0.2
[design]
rounds_min = 4
rounds_max = 4
[[experiment]]
name = "tuned"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K"]
transports = ["veth"]
[[experiment]]
name = "fixed"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K"]
transports = ["veth"]
sockbuf = "256K"
"""


def test_fixed_cells_are_their_own_and_the_others_unchanged() -> None:
    plan = plan_mod.make(prof.parse(TWO, "t.toml"), CAPS, seed=3)
    fixed = [c for c in plan.cells.values() if c.sockbuf]
    tuned = [c for c in plan.cells.values() if not c.sockbuf]
    assert len(fixed) == len(tuned) == 2
    assert {c.sockbuf for c in fixed} == {256 * 1024}
    # an autotuned cell's id is the one it had before sockbuf existed: no key for it
    for c in tuned:
        assert "sockbuf" not in c.factors() and "sockbuf" not in c.to_json()
    # the two kinds never share a block (they differ in a factor a block shares)
    assert "" not in {c.block for c in plan.cells.values()}
    assert not {c.block for c in fixed} & {c.block for c in tuned}
    assert all("sockbuf 256K" in c.label() for c in fixed)
    for c in plan.cells.values():
        assert Cell.from_json(json.loads(json.dumps(c.to_json()))) == c


def test_the_sender_gets_the_option_and_only_it() -> None:
    plan = plan_mod.make(prof.parse(TWO, "t.toml"), CAPS, seed=3)
    for c in plan.cells.values():
        argv = sender_argv(Path("/bin/copybench"), c, "10.0.0.2", 5201, Cpus("0", "1"), 7)
        if c.sockbuf:
            assert argv[argv.index("--sockbuf") + 1] == str(256 * 1024)
        else:
            assert "--sockbuf" not in argv


@pytest.mark.parametrize("name", ["paper", "claims", "noise-study", "smoke"])
def test_shipped_profiles_plans_carry_no_sockbuf_unless_asked(name: str) -> None:
    p = prof.load(name)
    asked = any(e.sockbuf for e in p.experiments)
    plan = plan_mod.make(prof.Profile(**{**p.__dict__, "design": None}), CAPS, seed=1)
    has = [c for c in plan.cells.values() if "sockbuf" in c.to_json()]
    assert bool(has) == asked


@pytest.mark.parametrize("value,words", [
    ('"1K"', "4K to 1G"), ('"4X"', "4K to 1G"), ("0", "4K to 1G"),
])
def test_bad_sockbuf_is_named(value: str, words: str) -> None:
    with pytest.raises(ProfileError) as e:
        prof.parse(TWO.replace('sockbuf = "256K"', f"sockbuf = {value}"), "bad.toml")
    assert "experiment[fixed].sockbuf" in str(e.value) and words in str(e.value)


def test_sockbuf_needs_a_tcp_transport() -> None:
    text = TWO.replace('transports = ["veth"]\nsockbuf', 'transports = ["udp-forward"]\nsockbuf')
    with pytest.raises(ProfileError) as e:
        prof.parse(text, "bad.toml")
    assert "experiment[fixed].sockbuf" in str(e.value) and "TCP" in str(e.value)

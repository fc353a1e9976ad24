"""An experiment's ``sink = "kept"`` and ``alternate = "M"``: the noise study's controls of a
sink kept across trials and of two methods alternating inside one trial. Their cells are cells
of their own (their own ids and blocks, interleaved in the same rounds as today's), while every
cell without them keeps the id, the block and the plan.json entry it had before the options
existed; the sender of an alternating cell gets ``--alternate``, and bad values are named."""

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
from runner.trial.copybench_argv import sender_argv, sink_argv
from runner.trial.trialrecord import intended_config, trial_config

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})

THREE = """
[profile]
name = "t"
duration_s = 0.2
[design]
rounds_min = 4
rounds_max = 4
[[experiment]]
name = "today"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K"]
transports = ["veth"]
[[experiment]]
name = "kept"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["16K"]
transports = ["veth"]
sink = "kept"
[[experiment]]
name = "alt"
command = "send"
methods = ["send"]
sizes = ["16K"]
transports = ["veth"]
alternate = "sendmsg"
"""


def _plan(text: str = THREE):
    return plan_mod.make(prof.parse(text, "t.toml"), CAPS, seed=3)


def test_control_cells_are_their_own_and_the_others_unchanged() -> None:
    plan = _plan()
    today = [c for c in plan.cells.values() if c.experiment == "today"]
    kept = [c for c in plan.cells.values() if c.sink]
    alt = [c for c in plan.cells.values() if c.alternate]
    assert (len(today), len(kept), len(alt)) == (2, 2, 1)
    assert {c.sink for c in kept} == {"kept"} and alt[0].alternate == "sendmsg"
    # today's cells have the ids they had before the options: no key for them
    for c in today:
        for k in ("sink", "alternate"):
            assert k not in c.factors() and k not in c.to_json()
    # and the same ids as a profile without the controls gives them
    alone = _plan(THREE.split("[[experiment]]\nname = \"kept\"")[0])
    assert {c.id for c in today} == set(alone.cells)
    # three blocks: a control never shares one with today's cells
    blocks = [{c.block for c in cs} for cs in (today, kept, alt)]
    assert all(len(b) == 1 for b in blocks) and len(set().union(*blocks)) == 3
    assert all("sink kept" in c.label() for c in kept)
    assert "alternating with sendmsg" in alt[0].label()
    for c in plan.cells.values():
        assert Cell.from_json(json.loads(json.dumps(c.to_json()))) == c


def test_the_sender_and_the_record_say_which() -> None:
    plan = _plan()
    cpus = Cpus("0", "1")
    for c in plan.cells.values():
        argv = sender_argv(Path("/bin/copybench"), c, "10.0.0.2", 5201, cpus, 7)
        if c.alternate:
            assert argv[argv.index("--alternate") + 1] == "sendmsg"
            assert intended_config(c)["alternate"] == "sendmsg"
        else:
            assert "--alternate" not in argv and "alternate" not in intended_config(c)
        assert trial_config(c, cpus, False)["sink"] == ("kept" if c.sink else "fresh")
    # a kept sink serves session after session; a trial's own serves one
    assert "--once" in sink_argv(Path("/bin/copybench"), 5201, cpus)
    assert "--once" not in sink_argv(Path("/bin/copybench"), 5201, cpus, once=False)


@pytest.mark.parametrize("name", ["paper", "claims", "smoke", "quick"])
def test_shipped_profiles_other_than_the_noise_study_ask_for_neither(name: str) -> None:
    p = prof.load(name)
    plan = plan_mod.make(prof.Profile(**{**p.__dict__, "design": None}), CAPS, seed=1)
    assert not any("sink" in c.to_json() or "alternate" in c.to_json()
                   for c in plan.cells.values())


def test_the_noise_study_asks_for_both() -> None:
    p = prof.load("noise-study")
    assert any(e.sink == "kept" for e in p.experiments)
    assert {e.alternate for e in p.experiments} >= {"sendmsg", "send"}


@pytest.mark.parametrize("old,new,key,words", [
    ('sink = "kept"', 'sink = "shared"', "kept].sink", "allowed: fresh, kept"),
    ('transports = ["veth"]\nsink = "kept"', 'transports = ["udp-forward"]\nsink = "kept"',
     "kept].sink", "loopback, veth"),
    ('alternate = "sendmsg"', 'alternate = "splice"', "alt].alternate",
     "allowed: send, sendmsg, zerocopy"),
    ('methods = ["send"]\nsizes = ["16K"]\ntransports = ["veth"]\nalternate = "sendmsg"',
     'methods = ["sendfile"]\nsizes = ["16K"]\ntransports = ["veth"]\nalternate = "sendmsg"',
     "alt].alternate", "sendfile cannot alternate"),
    ('methods = ["send"]\nsizes = ["16K"]\ntransports = ["veth"]\nalternate = "sendmsg"',
     'methods = ["zerocopy"]\nsizes = ["16K"]\ntransports = ["veth"]\nalternate = "zerocopy"',
     "alt].alternate", "zerocopy cannot alternate with itself"),
    ('transports = ["veth"]\nalternate', 'modes = ["pingpong"]\ntransports = ["veth"]\nalternate',
     "alt].alternate", "TCP stream"),
])
def test_bad_values_are_named(old: str, new: str, key: str, words: str) -> None:
    assert old in THREE
    with pytest.raises(ProfileError) as e:
        prof.parse(THREE.replace(old, new), "bad.toml")
    assert key in str(e.value) and words in str(e.value), str(e.value)

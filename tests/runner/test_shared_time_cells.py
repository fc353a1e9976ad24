"""An experiment's ``procedure = "shared-time"``: a block's comparisons X vs send run as
shared-time trials (copybench send --share-time send: both methods in one trial, two
connections taking 100 ms turns), kept beside today's procedure (each method in a trial of its
own). A shared-time cell is a cell of its own (X sharing time with send, and with ``twin``
send with itself, the A/A) that joins the block of today's cells of its configuration, so both
designs of a comparison run in the same rounds; the order of its two connections' turns
alternates by round; every cell without the key keeps its id. One record holds the two
methods' measurements: the analysis loads them as two rows (``Run.shared``), and where a block
holds both designs every other reader (the decision map included) reads today's send
(``Run.measured``). Bad values are named. One real small sweep on loopback."""

from __future__ import annotations

import json
import math
import statistics
import tomllib
from pathlib import Path

import pytest

from conftest import run_runner, write_sweep_profile
from runner.host.capabilities import Capabilities
from runner.host.errors import ProfileError
from runner.host.pinning import Cpus
from runner.plan import noisemodel
from runner.plan import profile as prof
from runner.plan import rounds as plan_mod
from runner.trial.copybench_argv import sender_argv, share_order
from runner.trial.trialrecord import intended_config

CAPS = Capabilities(methods=None, root=True, cpus=2, perf=True,
                    peers={"iperf3": True, "sockperf": True})

BOTH = """
[profile]
name = "t"
duration_s = 1
[design]
rounds_min = 4
rounds_max = 4
[[experiment]]
name = "today"
command = "send"
methods = ["send", "sendmsg", "zerocopy"]
sizes = ["16K"]
transports = ["veth"]
[[experiment]]
name = "shared"
command = "send"
methods = ["send", "sendmsg", "zerocopy"]
sizes = ["16K"]
transports = ["veth"]
procedure = "shared-time"
twin = true
"""


def _plan(text: str = BOTH):
    return plan_mod.make(prof.parse(text, "t.toml"), CAPS, seed=3)


def test_shared_cells_join_todays_block_and_todays_keep_their_ids() -> None:
    plan = _plan()
    shared = {(c.method, c.share_time) for c in plan.cells.values() if c.share_time}
    assert shared == {("sendmsg", "send"), ("zerocopy", "send"), ("send", "send")}
    today = [c for c in plan.cells.values() if not c.share_time]
    assert sorted(c.method for c in today) == ["send", "sendmsg", "zerocopy"]
    # the cells of today's procedure are the ones a profile without the key makes
    alone = _plan(BOTH.split("[[experiment]]\nname = \"shared\"")[0])
    assert {c.id for c in today} == set(alone.cells)
    # one block: both designs of each comparison in the same rounds, back to back
    assert len(plan.blocks) == 1 and len({c.block for c in plan.cells.values()}) == 1
    assert all(len(r) == 6 for r in plan.rounds)
    labels = {c.label() for c in plan.cells.values() if c.share_time}
    assert "sendmsg 16K veth stream cross-core sharing time with send" in labels
    # plan.json: the key only where set, and the cells read back the same
    doc = plan.to_json()
    assert sum("share_time" in c for c in doc["cells"].values()) == 3
    assert {cid: c for cid, c in plan_mod.Plan.from_json(json.loads(json.dumps(doc))).cells.items()} \
        == plan.cells


def test_the_order_of_the_turns_alternates_by_round() -> None:
    plan = _plan()
    cell = next(c for c in plan.cells.values() if c.method == "zerocopy" and c.share_time)
    orders = []
    for r in range(1, 9):
        argv = sender_argv(Path("/bin/copybench"), cell, "10.0.0.2", 5201, Cpus("0", "1"), 7, r)
        i = argv.index("--share-time")
        assert argv[i + 1] == "send" and argv[i + 2] == "--share-order"
        orders.append(argv[i + 3])
    # balanced: over every two rounds each method has the window's first turn once
    assert orders == ["AB", "BA"] * 4 == [share_order(r) for r in range(1, 9)]
    assert intended_config(cell)["share_time"] == "send"
    today = next(c for c in plan.cells.values() if c.method == "zerocopy" and not c.share_time)
    assert "--share-time" not in sender_argv(Path("/bin/copybench"), today, "h", 1,
                                             Cpus("0", "1"), 7, 2)
    assert "share_time" not in intended_config(today)


def test_a_block_of_shared_cells_plans_with_its_own_noise(tmp_path: Path) -> None:
    noise = tmp_path / "noise.toml"
    noise.write_text('[[sd]]\nkind = "stream"\nplacement = "cross-core"\nwindow_s = 1\n'
                     'log_ratio_sd = 0.16\n\n[[sd]]\nkind = "stream shared-time"\n'
                     'placement = "cross-core"\nwindow_s = 1\nlog_ratio_sd = 0.08\n')
    text = BOTH.replace("rounds_max = 4", f"rounds_max = 4\nnoise = \"{noise}\"")
    both = next(iter(_plan(text).blocks.values()))
    assert both["sd"] == pytest.approx(0.16), both["sd_source"]  # both designs: the larger
    shared_only = text.split("[[experiment]]\nname = \"today\"")[0] + \
        "[[experiment]]" + text.split("[[experiment]]")[2]
    alone = next(iter(_plan(shared_only).blocks.values()))
    assert alone["sd"] == pytest.approx(0.08), alone["sd_source"]
    # a noise model without a shared-time entry: today's, not assumed smaller
    noise.write_text('[[sd]]\nkind = "stream"\nplacement = "cross-core"\nwindow_s = 1\n'
                     'log_ratio_sd = 0.16\n')
    alone = next(iter(_plan(shared_only).blocks.values()))
    assert alone["sd"] == pytest.approx(0.16) and "no shared-time entry" in alone["sd_source"]


@pytest.mark.parametrize("extra,words", [
    ('procedure = "together"', "procedure"),
    ('procedure = "shared-time"\nmodes = ["pingpong"]', "TCP stream"),
    ('procedure = "shared-time"\nthreads = [2]', "one connection per method"),
    ('procedure = "shared-time"\nalternate = "send"', "not with alternate"),
    ('procedure = "shared-time"\ncomparisons = { "sendmsg/send" = [1.0] }', "not with comparisons"),
    ('procedure = "shared-time"\nperf = true', "not with perf"),
    ('procedure = "shared-time"\nduration_s = 0.1', "0.2 to 6 s"),
    ('procedure = "shared-time"\nduration_s = 10', "0.2 to 6 s"),
])
def test_bad_values_are_named(extra: str, words: str) -> None:
    text = BOTH.replace("procedure = \"shared-time\"\n", "").rstrip() + "\n" + extra + "\n"
    with pytest.raises(ProfileError) as e:
        prof.parse(text, "t.toml")
    assert words in str(e.value) and "experiment[shared]" in str(e.value), str(e.value)


@pytest.mark.parametrize("methods,words", [
    (["sendmsg", "zerocopy"], "list send among the methods"),
    (["send", "vmsplice"], "vmsplice cannot share time"),
])
def test_methods_that_cannot_share_time_are_named(methods: list[str], words: str) -> None:
    text = BOTH.replace('methods = ["send", "sendmsg", "zerocopy"]\nsizes = ["16K"]\n'
                        'transports = ["veth"]\nprocedure',
                        f'methods = {json.dumps(methods)}\nsizes = ["16K"]\n'
                        'transports = ["veth"]\nprocedure')
    with pytest.raises(ProfileError) as e:
        prof.parse(text, "t.toml")
    assert words in str(e.value), str(e.value)


TODAY = {"name": "today", "command": "send", "methods": ["send", "sendmsg"], "sizes": ["16K"],
         "transports": ["loopback"], "placements": ["cross-core"], "twin": True}
SHARED = {**TODAY, "name": "shared", "procedure": "shared-time"}


@pytest.mark.sweep
def test_a_real_sweep_holds_both_designs_and_the_map_reads_todays_send(
        runner_copybench: Path, tmp_path: Path) -> None:
    from analysis.claims import base
    from analysis.loading import run as A
    from analysis.statistics import designs as D
    from analysis.statistics import stats as S

    p = write_sweep_profile(tmp_path, "both", repetitions=None, duration_s=0.3,
                            design={"rounds_min": 3, "rounds_max": 3,
                                    "descriptive_target": 0.5, "descriptive_rounds_min": 3},
                            experiments=[TODAY, SHARED])
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(p), "--run-dir", str(run), "--no-progress",
                   timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = [json.loads(x) for x in (run / "trials.jsonl").read_text().splitlines()]
    assert len(recs) == 15 and all(x["status"] == "ok" for x in recs), \
        [x["error"] for x in recs if x["status"] != "ok"]
    shared = [x for x in recs if x["config"].get("share_time")]
    assert len(shared) == 6 and len({x["config"]["block"] for x in recs}) == 1
    # the runner balanced the order: AB in odd rounds, BA in even ones
    assert {(x["repetition"], x["config"]["share_order"]) for x in shared} == \
        {(1, "AB"), (2, "BA"), (3, "AB")}
    assert all(x["result"]["share_time"]["order"] == x["config"]["share_order"] for x in shared)
    # the analysis: each shared trial is two rows (its two methods), apart from today's
    loaded = A.load_run(run)
    assert set(loaded.measured["procedure"]) == {"separate"} and len(loaded.measured) == 9
    sh = loaded.shared
    assert len(sh) == 12 and set(sh["procedure"]) == {"shared-time"}
    for _, g in sh.groupby("trial_id"):
        assert sorted(g["connection"]) == [0, 1] and g["gbit_per_s"].notna().all()
        assert g["block"].nunique() == 1 and g["repetition"].nunique() == 1
    aa = sh[sh["share_with"].eq("send") & sh["method"].eq("send")]
    assert sorted(aa["twin"]) == [0, 0, 0, 1, 1, 1]
    # the decision map's reading of sendmsg / send: today's send, paired by round
    f = {"method": "sendmsg", "size": 16384, "placement": "cross-core"}
    j = base.paired_rounds(loaded.measured, f, {**f, "method": "send"}, "gbit_per_s")
    today = loaded.measured
    want = [float(today[(today["method"] == "sendmsg") & (today["repetition"] == k)]
                  ["gbit_per_s"].iloc[0]) for k in (1, 2, 3)]
    base_send = [float(today[(today["method"] == "send") & (today["twin"] == 0)
                             & (today["repetition"] == k)]["gbit_per_s"].iloc[0])
                 for k in (1, 2, 3)]
    assert list(j["a"]) == want and list(j["b"]) == base_send
    # both designs side by side: each comparison read on each design's own pairs
    table = D.compare(loaded.measured, sh)
    assert sorted(table["pair"]) == ["send (twin)/send", "sendmsg/send"]
    row = table[table["pair"] == "sendmsg/send"].iloc[0]
    assert row["rounds_today"] == 3 and row["rounds_shared"] == 3
    assert row["ratio_today"] == pytest.approx(S.paired_ratio(want, base_send).ratio.value)
    pm = {x["repetition"]: x["result"]["share_time"]["per_method"] for x in shared
          if x["config"]["method"] == "sendmsg"}
    shared_reading = S.paired_ratio([pm[k][0]["gbit_per_s"] for k in (1, 2, 3)],
                                    [pm[k][1]["gbit_per_s"] for k in (1, 2, 3)])
    assert row["ratio_shared"] == pytest.approx(shared_reading.ratio.value)
    assert row["sd_shared"] == pytest.approx(shared_reading.sd_log)
    # the planner's noise model: shared time pooled apart, from the records' two rates
    rows = {(x.kind, x.metric): x for x in noisemodel.rows(recs)}
    st = rows[("stream shared-time", "primary")]
    lr = [[math.log(p[0]["gbit_per_s"] / p[1]["gbit_per_s"])
           for p in (x["result"]["share_time"]["per_method"] for x in sorted(
               shared, key=lambda x: x["repetition"]) if x["config"]["method"] == m)]
          for m in ("sendmsg", "send")]
    pooled = math.sqrt(sum(statistics.variance(v) for v in lr) / 2)
    assert st.log_ratio_sd == pytest.approx(pooled) and st.rounds == 3
    assert rows[("stream", "primary")].rounds == 3  # today's, without the shared trials
    # the adoption criteria (analysis.statistics.adoption) read every quantity of these real
    # records, both designs: the committed criteria narrowed to this run's one comparison
    from analysis.loading import criteria as CL
    from analysis.statistics import adoption as AD
    doc = tomllib.loads(CL.DEFAULT.read_text(encoding="utf-8"))
    doc["criteria"]["rounds"] = 3
    doc["comparisons"].update(methods=["sendmsg"], sizes=[16384], placements=["cross-core"])
    doc["overlap"].update(family=1, level=0.95)
    doc["mechanisms"].update(family=4, level=1 - 0.05 / 4)
    judged = AD.judge(loaded.measured, sh, AD.parse(doc))
    assert [o.key for o in judged.outcomes] == ["a", "b", "c", "d", "e", "e", "e", "e"]
    # receive calls are counted where the syscall tracepoint can be read; without it, bytes
    # per receive call is missing, and its criterion cannot hold
    calls = bool(sh["receiver_syscalls"].notna().all()
                 and loaded.measured["receiver_syscalls"].notna().all())
    for o in judged.outcomes:
        if not calls and o.title.startswith("bytes per receive call"):
            assert not o.holds and "missing" in o.lines[-1], o
            continue
        assert not any("missing" in line or "no CI" in line for line in o.lines), o
        if o.key == "e":
            assert o.lines[0].startswith("pooled over 4 connections, 3 rounds: "), o

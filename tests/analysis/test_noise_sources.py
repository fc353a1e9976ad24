"""The noise decomposition (analysis.statistics.noise_sources) recovers what was planted."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.statistics import noise_sources as N
from analysis.words import modes as MO
from decision.band import SESOI


def test_split_recovers_planted_components() -> None:
    rng = np.random.default_rng(7)
    rounds, cells = 400, 4
    u = rng.normal(0, 0.12, size=(rounds, 1))          # common to a round
    e = rng.normal(0, 0.05, size=(rounds, cells))      # the single trial
    s = N.split(np.log([1.0, 2.0, 3.0, 4.0]) + u + e)
    assert math.sqrt(s.var_round) == pytest.approx(0.12, rel=0.1)
    assert math.sqrt(s.var_trial) == pytest.approx(0.05, rel=0.1)
    assert s.share_round == pytest.approx(0.12**2 / (0.12**2 + 0.05**2), abs=0.05)


def test_split_without_a_round_effect_gives_none() -> None:
    rng = np.random.default_rng(8)
    s = N.split(rng.normal(0, 0.1, size=(300, 3)))
    assert s.var_round < 0.1 * s.var_trial
    with pytest.raises(ValueError):
        N.split(np.zeros((1, 3)))


def _trials(n: int = 20) -> pd.DataFrame:
    """One block of two cells over n rounds: cell a's throughput follows its receiver's
    bytes per call; the round moves both."""
    rng = np.random.default_rng(9)
    rows = []
    for r in range(n):
        u = rng.normal(0, 0.1)
        bpr = float(rng.choice([2000.0, 8000.0]))   # two batch sizes: two modes
        for cell, base in (("a", 5.0), ("b", 4.0)):
            gbit = base * math.exp(u) * ((bpr / 4000.0) ** 0.5 if cell == "a" else 1.0) \
                * math.exp(rng.normal(0, 0.01))
            rows.append({"kind": "copybench", "block": "B1", "command": "send", "mode": "stream",
                         "protocol": "tcp", "cell": cell, "repetition": r + 1,
                         "gbit_per_s": gbit, "size": 512, "placement": "same-core",
                         "transport": "veth", "bytes": gbit * 1.25e8,
                         "receiver_bytes": gbit * 1.25e8, "receiver_syscalls": gbit * 1.25e8 / bpr,
                         "receiver_vol_ctx_switches": 10, "receiver_invol_ctx_switches": 1,
                         "sender_vol_ctx_switches": 10, "sender_invol_ctx_switches": 1})
    return pd.DataFrame(rows)


def test_components_and_mechanisms_on_a_block() -> None:
    d = _trials()
    comp = N.components(d)
    assert len(comp) == 1 and comp["class"].item() == "small same-core"
    assert comp["rounds"].item() == 20 and comp["cells"].item() == 2
    mech = N.mechanisms(d)
    a = mech[(mech["cell"] == "a") & (mech["mechanism"] == "bytes per receive call")]
    assert a["r2"].item() > 0.9          # cell a's spread is its batch size
    b = mech[(mech["cell"] == "b") & (mech["mechanism"] == "bytes per receive call")]
    assert b["r2"].item() < 0.5
    assert N.by_class(comp)["blocks"].item() == 1


def test_components_leave_out_file_copies_and_udp() -> None:
    d = _trials()
    d.loc[d["cell"] == "b", "command"] = "copy"
    assert N.components(d).empty       # one cell left: no split


def test_modes_finds_two_speeds_and_their_shares() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(0.75, 0.02, 11), rng.normal(1.3, 0.03, 9)])
    m = N.modes(x)
    assert m.bimodal and m.n == 20
    assert m.share_low == pytest.approx(11 / 20)
    assert m.high / m.low == pytest.approx(1.3 / 0.75, rel=0.08)
    one = N.modes(np.exp(rng.normal(0, 0.1, 40)))
    assert not one.bimodal and one.coefficient < N.BIMODAL_BC


def test_within_window_part_from_slices() -> None:
    d = _trials()
    assert math.isnan(N.components(d)["sd_within"].item())      # no slices: not identifiable
    d["receiver_slice_cv"] = 0.1                                  # each window's slices: cv 0.1
    comp = N.components(d)
    assert comp["sd_within"].item() == pytest.approx(0.1 / math.sqrt(N.SLICES))
    assert 0 < comp["share_within"].item() <= 1


def test_mechanisms_read_new_fields_and_skip_missing_ones() -> None:
    d = _trials()
    names = set(N.mechanisms(d)["mechanism"])
    assert "retransmissions per GB" not in names                  # no such column: left out
    rng = np.random.default_rng(4)
    d["sender_retrans"] = rng.integers(0, 50, len(d))
    d["receiver_rcvbuf_end"] = rng.integers(1 << 20, 4 << 20, len(d))
    d["softirq_net_rx"] = rng.integers(1000, 5000, len(d))
    names = set(N.mechanisms(d)["mechanism"])
    assert {"retransmissions per GB", "receive buffer at the window's end",
            "NET_RX softirqs per MB"} <= names


def _procedure_block(block: str, duration: float, sockbuf: int, sd: float, ratio: float,
                     n: int, seed: int) -> list[dict]:
    """A block of two methods over n rounds whose per-round log ratio has sd ``sd`` and
    mean log ``ratio``; every trial takes duration + 0.4 s of wall time."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n):
        u = rng.normal(0, 0.1)
        e = rng.normal(0, sd / math.sqrt(2), size=2)
        for i, (method, base) in enumerate((("send", 4.0), ("sendmsg", 4.0 * ratio))):
            rows.append({"kind": "copybench", "block": block, "command": "send", "mode": "stream",
                         "protocol": "tcp", "cell": f"{block}-{method}", "method": method,
                         "twin": 0, "repetition": r + 1, "size": 16384,
                         "placement": "cross-core", "transport": "veth",
                         "duration_s": duration, "sockbuf": sockbuf,
                         "gbit_per_s": base * math.exp(u + e[i]), "wall_s": duration + 0.4})
    return rows


def test_rounds_to_decide_follows_the_t_interval() -> None:
    # a band narrow enough that the rounds are many (at the claims' band they are few and
    # whole rounds blur the quadratic law)
    n = N.rounds_to_decide(0.18, band=0.05)
    h = math.log1p(0.05)
    from scipy import stats
    assert stats.t.ppf(0.975, n - 1) * 0.18 / math.sqrt(n) <= h
    assert stats.t.ppf(0.975, n - 2) * 0.18 / math.sqrt(n - 1) > h
    assert N.rounds_to_decide(0.0) == 2
    assert N.rounds_to_decide(0.36, band=0.05) > 3.5 * n
    assert N.rounds_to_decide(0.18) == N.rounds_to_decide(0.18, band=SESOI)


def test_controls_compare_each_procedure_with_todays() -> None:
    d = pd.DataFrame(_procedure_block("T", 1.0, 0, 0.20, 1.10, 400, 1)
                     + _procedure_block("W", 2.0, 0, 0.10, 1.10, 400, 2)
                     + _procedure_block("F", 1.0, 4 << 20, 0.20, 1.32, 400, 3))
    comp = N.comparisons(d, band=0.05)   # many rounds to decide: whole rounds do not blur it
    assert set(comp["procedure"]) == {"1 s window, buffers autotuned",
                                      "2 s window, buffers autotuned",
                                      "1 s window, buffers fixed at 4 MiB"}
    assert set(comp["pair"]) == {"sendmsg / send"}
    ctl = N.controls(comp).set_index("procedure")
    w = ctl.loc["2 s window, buffers autotuned"]
    assert w["paired_sd"] == pytest.approx(0.10, rel=0.15)
    assert w["paired_sd_today"] == pytest.approx(0.20, rel=0.15)
    assert w["ratio_change"] == pytest.approx(1.0, abs=0.03)
    # half the sd needs a quarter of the rounds, each round 2.4/1.4 as long
    assert w["seconds_to_decide"] / w["seconds_to_decide_today"] == pytest.approx(
        2.4 / 1.4 / 4, rel=0.35)
    f = ctl.loc["1 s window, buffers fixed at 4 MiB"]
    assert f["ratio_change"] == pytest.approx(1.2, abs=0.04)   # it changes the quantity


def test_receive_factors_split_throughput_into_calls_and_batch() -> None:
    """Planted: in cell "a" the receiver's calls per second and bytes per call move against
    each other (the rate is set elsewhere); in cell "b" they move together."""
    rng = np.random.default_rng(11)
    rows = []
    for r in range(200):
        x = rng.normal(0, 0.2)
        for cell, sign in (("a", -1.0), ("b", 1.0)):
            calls = 1e5 * math.exp(x)                   # per second
            bpc = 4000 * math.exp(sign * 0.8 * x + rng.normal(0, 0.02))
            byts = calls * bpc
            rows.append({"kind": "copybench", "block": "B", "command": "send", "mode": "stream",
                         "protocol": "tcp", "cell": cell, "method": "send", "repetition": r + 1,
                         "size": 512, "placement": "same-core", "duration_s": 1.0,
                         "sockbuf": 0, "seconds": 1.0, "gbit_per_s": byts * 8 / 1e9,
                         "receiver_bytes": byts, "receiver_syscalls": calls})
    f = N.receive_factors(pd.DataFrame(rows)).set_index("cell")
    assert f.loc["a", "corr"] < -0.95 and f.loc["b", "corr"] > 0.95
    # against each other: the throughput varies far less than its calls
    assert f.loc["a", "var_throughput"] < 0.1 * f.loc["a", "var_calls"]
    assert f.loc["b", "var_throughput"] > 3 * f.loc["b", "var_calls"]


def _ctl(procedure: str, comparisons: int, ratio_change: float, seconds: float,
         seconds_today: float = 100.0) -> dict:
    return {"procedure": procedure, "comparisons": comparisons, "paired_sd": 0.1,
            "paired_sd_today": 0.15, "ratio_change": ratio_change,
            "seconds_to_decide": seconds, "seconds_to_decide_today": seconds_today}


def test_adopt_reads_each_control_by_the_stated_rule() -> None:
    ctl = pd.DataFrame([
        _ctl(N.TODAY, 18, 1.0, 100.0),
        _ctl("0.5 s window, buffers autotuned", 6, 1.01, 70.0),      # adopted
        _ctl("2 s window, buffers autotuned", 6, 1.00, 81.0),        # saves too little
        _ctl("1 s window, buffers fixed at 4 MiB", 18, 1.00, 10.0),  # another quantity
        _ctl("kept", 5, 1.00, 10.0),                                 # too few comparisons
        _ctl("moved", 6, 1.04, 10.0),                                # measures something else
    ])
    ad = N.adopt(ctl).set_index("procedure")
    assert N.TODAY not in ad.index
    assert ad["adopt"].to_dict() == {"0.5 s window, buffers autotuned": True,
                                     "2 s window, buffers autotuned": False,
                                     "1 s window, buffers fixed at 4 MiB": False,
                                     "kept": False, "moved": False}
    assert ad.loc["2 s window, buffers autotuned", "time_ratio"] == pytest.approx(0.81)
    assert "another quantity" in ad.loc["1 s window, buffers fixed at 4 MiB", "why"]
    assert "5 shared comparisons" in ad.loc["kept", "why"]
    assert "1.040" in ad.loc["moved", "why"]


def test_mode_labels_split_a_bimodal_cell_at_its_gap() -> None:
    rng = np.random.default_rng(5)
    low, high = rng.normal(0.75, 0.02, 12), rng.normal(1.3, 0.03, 8)
    labels = N.mode_labels(np.concatenate([low, high]))
    assert labels == [N.LOWER_MODE] * 12 + [N.UPPER_MODE] * 8
    one = N.mode_labels(rng.normal(1.0, 0.03, 20))
    assert set(one) == {N.ONE_MODE}

def _alternating_block(block: str, method: str, alternate: str, sd: float, ratio: float,
                       n: int, seed: int) -> list[dict]:
    """One alternating cell (copybench send --alternate) over n rounds: the two methods'
    Gbit/s inside each trial, whose log ratio (the alternate's over the method's) has sd
    ``sd`` and mean log ``ratio``; every trial takes 1.4 s of wall time."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n):
        u = rng.normal(0, 0.1) + rng.normal(0, 0.1)  # the round's and the trial's own
        e = rng.normal(0, sd / math.sqrt(2), size=2)
        first, second = 4.0 * math.exp(u + e[0]), 4.0 * ratio * math.exp(u + e[1])
        rows.append({"kind": "copybench", "block": block, "command": "send", "mode": "stream",
                     "protocol": "tcp", "cell": f"{block}-{method}", "method": method,
                     "alternate": alternate, "twin": 0, "repetition": r + 1, "size": 16384,
                     "placement": "cross-core", "transport": "veth", "duration_s": 1.0,
                     "sockbuf": 0, "gbit_per_s": (first + second) / 2,
                     "alternate_gbit_first": first, "alternate_gbit_second": second,
                     "wall_s": 1.4})
    return rows


def test_controls_compare_a_kept_sink_and_two_methods_in_one_trial_with_today() -> None:
    kept = [dict(x, sink="kept") for x in _procedure_block("K", 1.0, 0, 0.12, 1.10, 400, 5)]
    d = pd.DataFrame(_procedure_block("T", 1.0, 0, 0.20, 1.10, 400, 4) + kept
                     # sendmsg in the even slices, send in the odd: its ratio is turned round
                     # to sendmsg / send, as today's pair reads
                     + _alternating_block("A", "sendmsg", "send", 0.05, 1 / 1.05, 400, 6)
                     + _alternating_block("AA", "send", "send", 0.04, 1.0, 400, 7))
    comp = N.comparisons(d).set_index("block")
    assert comp.loc["T", "procedure"] == N.TODAY  # today's name is unchanged
    assert comp.loc["K", "procedure"] == "1 s window, buffers autotuned, sink kept across trials"
    a = comp.loc["A"]
    assert a["procedure"] == ("1 s window, buffers autotuned, two methods alternating in "
                              "one trial")
    assert a["pair"] == "sendmsg / send"
    assert a["paired_sd"] == pytest.approx(0.05, rel=0.15)
    assert a["ratio"] == pytest.approx(1.05, rel=0.01)
    # one trial per round for its one comparison
    assert a["seconds_to_decide"] == pytest.approx(a["rounds_to_decide"] * 1.4)
    assert comp.loc["AA", "pair"] == "send (twin) / send"
    ctl = N.controls(comp.reset_index()).set_index("procedure")
    assert len(ctl) == 3
    k = ctl.loc["1 s window, buffers autotuned, sink kept across trials"]
    assert k["paired_sd"] == pytest.approx(0.12, rel=0.15)
    assert k["paired_sd_today"] == pytest.approx(0.20, rel=0.15)
    alt = ctl.loc["1 s window, buffers autotuned, two methods alternating in one trial"]
    assert alt["comparisons"] == 1  # the A/A is left out, as today's A/A is
    assert alt["paired_sd"] == pytest.approx(0.05, rel=0.15)
    assert alt["ratio_change"] == pytest.approx(1.05 / 1.10, rel=0.02)
    # today's round of two trials serves one comparison: 2.8 s; the alternating one 1.4 s
    assert alt["seconds_to_decide_today"] == pytest.approx(
        N.rounds_to_decide(alt["paired_sd_today"]) * 2.8)


def test_the_tidy_row_carries_the_sink_and_both_methods_throughputs() -> None:
    from analysis.loading.run import tidy_record
    rec = {"config": {"kind": "copybench", "command": "send", "method": "send",
                      "alternate": "sendmsg", "sink": "kept"},
           "result": {"alternate": {"methods": ["send", "sendmsg"], "gbit_per_s": [3.0, 4.5]}}}
    row = tidy_record(rec)
    assert (row["sink"], row["alternate"]) == ("kept", "sendmsg")
    assert (row["alternate_gbit_first"], row["alternate_gbit_second"]) == (3.0, 4.5)
    old = tidy_record({"config": {"kind": "copybench"}, "result": {}})
    assert old["sink"] is None and old["alternate"] is None
    assert old["alternate_gbit_first"] is None


def test_controls_count_the_comparisons_whose_cis_exclude_todays() -> None:
    """Planted: the control "W" measures the same ratio, the control "F" (buffers fixed) one
    20 % higher; with 60 rounds each CI is about ±5 %, so only F's are disjoint from today's."""
    d = pd.DataFrame(_procedure_block("T", 1.0, 0, 0.20, 1.10, 60, 1)
                     + _procedure_block("W", 2.0, 0, 0.10, 1.10, 60, 2)
                     + _procedure_block("F", 1.0, 4 << 20, 0.20, 1.32, 60, 3))
    ctl = N.controls(N.comparisons(d)).set_index("procedure")
    assert ctl.loc["2 s window, buffers autotuned", "disjoint"] == 0
    f = ctl.loc["1 s window, buffers fixed at 4 MiB"]
    assert f["disjoint"] == 1 and "sendmsg / send 16 KiB cross-core" in f["disjoint_text"]
    lo, hi = N.ratio_ci(1.0, 0.2, 20)
    # the paired t interval: t(0.975, 19) x 0.2 / sqrt(20) = 0.0936 on the log scale
    assert hi == pytest.approx(math.exp(0.09360), rel=1e-3)
    assert lo == pytest.approx(math.exp(-0.09360), rel=1e-3)


def test_the_mended_clause_turns_down_a_control_that_measures_another_ratio() -> None:
    """The rule as stated reads the ratio's change by its median over the shared comparisons;
    the clause added after run 9374 turns down a control whose CI excludes today's anywhere."""
    row = _ctl("alternating", 6, 1.017, 54.0)
    ctl = pd.DataFrame([_ctl(N.TODAY, 18, 1.0, 100.0), {**row, "disjoint": 2,
                                                          "disjoint_text": "64 KiB: apart"}])
    assert N.adopt(ctl, mended=False)["adopt"].tolist() == [True]
    ad = N.adopt(ctl)
    assert ad["adopt"].tolist() == [False] and "at 2 of its 6 shared comparisons" in ad["why"].iloc[0]
    # 80.04 % is over the 80 % bound: the reason says so, not "80%"
    near = pd.DataFrame([_ctl(N.TODAY, 18, 1.0, 100.0), _ctl("kept", 6, 0.99, 80.04)])
    assert "80.04%" in N.adopt(near)["why"].iloc[0] and not N.adopt(near)["adopt"].iloc[0]


def test_episodes_count_slow_trials_per_round_on_the_runs_clock() -> None:
    """Planted: two cells over 10 rounds, both at their usual speed except in rounds 2 and 3,
    where one trial each runs at half speed."""
    rows = []
    for r in range(10):
        for i, cell in enumerate(("a", "b")):
            slow = r in (1, 2) and cell == "a"
            rows.append({"kind": "copybench", "block": "B", "command": "send", "mode": "stream",
                         "protocol": "tcp", "cell": cell, "method": "send", "repetition": r + 1,
                         "size": 512, "placement": "same-core", "transport": "veth",
                         "gbit_per_s": (2.0 if cell == "a" else 3.0) * (0.5 if slow else 1.0)
                         * (1 + 0.01 * ((r * 7 + i) % 3)),
                         "started_at": f"2026-11-27T08:{10 + r:02d}:{i * 2:02d}.000+00:00"})
    ep = N.episodes(pd.DataFrame(rows)).set_index("round")
    assert ep["slow"].to_dict() == {r: int(r in (2, 3)) for r in range(1, 11)}
    assert ep.loc[1, "minutes"] == 0 and ep.loc[4, "minutes"] == pytest.approx(3.0)
    ot = N.over_time(pd.DataFrame(rows))
    assert len(ot) == 20 and set(ot["class"]) == {"small same-core"}


def test_modes_text_names_a_single_slow_trial_as_an_outlier() -> None:
    one = np.array([10.0] * 10 + [10.1] * 9 + [4.0])
    assert N.modes(one).bimodal
    assert MO.modes_text(one).startswith("1 of 20 trials at 0.40×")
    fast = np.array([10.0] * 10 + [10.1] * 9 + [25.0])
    assert N.modes(fast).bimodal
    assert MO.modes_text(fast).startswith("1 of 20 trials at 2.4")
    two = np.array([5.0] * 8 + [10.0] * 12)
    assert "(8 of 20 trials)" in MO.modes_text(two)

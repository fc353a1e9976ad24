"""The reading table on small real frames: each comparison's side from its cells' busy
fractions (computed once per run), its rounds against the design's minimum, and the counts
and findings that take them as inputs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from analysis.statistics import bottleneck as BN
from analysis.words import advice as V
from analysis.words import counts as CN
from decision import reading as RD


@dataclass
class _Run:
    """What the reading table reads of a run: its measured trials and the design's minimum."""

    measured: pd.DataFrame
    rounds_min: int = 6


def _trials(method: str, size: int, snd: float, rcv: float, placement: str = "same-core"
            ) -> list[dict]:
    return [{"scenario": "message", "mode": "stream", "method": method, "transport": "veth",
             "protocol": "tcp", "placement": placement, "threads": 1, "size": size,
             "duration_s": 1.0, "seconds": 1.0, "n_cpus_sender": 1, "n_cpus_sink": 1,
             "sender_cpu_s": snd, "receiver_cpu_s": rcv} for _ in range(3)]


def _run() -> _Run:
    rows = (_trials("send", 512, 0.64, 0.35) + _trials("sendmsg", 512, 0.65, 0.34)
            + _trials("send", 16384, 0.17, 0.80) + _trials("sendmsg", 16384, 0.36, 0.57)
            + _trials("send", 65536, 0.42, 0.43) + _trials("sendmsg", 65536, 0.60, 0.38))
    return _Run(pd.DataFrame(rows))


def _comparisons() -> pd.DataFrame:
    base = {"transport": "veth", "protocol": "tcp", "placement": "same-core", "threads": 1,
            "duration_s": 1.0, "method": "sendmsg", "ratio": 1.0, "lo": 0.9, "hi": 1.1}
    return pd.DataFrame([{**base, "size": 512, "n": 10, "decision": "less",
                          "direction": "slower"},
                         {**base, "size": 16384, "n": 10, "decision": "less",
                          "direction": "slower"},
                         {**base, "size": 65536, "n": 3, "decision": "greater",
                          "direction": "faster"}])


def test_the_table_of_sides_is_computed_once_per_run() -> None:
    run = _run()
    first = BN.run_limits(run)
    assert BN.run_limits(run) is first  # the same table, not a second reading
    assert first[BN._key(("message", "send", "veth", "tcp", "same-core", None, 1, 16384, 1.0))] \
        == RD.RECEIVER
    other = _run()
    assert BN.run_limits(other) is not first


def test_each_comparison_carries_its_reading() -> None:
    tab = CN.with_readings(_run(), _comparisons(), "send")
    assert list(tab["bound"]) == [RD.SENDER, RD.RECEIVER, RD.NEITHER]
    assert list(tab["under_minimum"]) == [False, False, True]
    assert list(tab["read"]) == ["less", RD.RECEIVER_BOUND, RD.NOT_READ]
    t = CN.Tally.of(tab)
    assert (t.n, t.less, t.greater, t.receiver_bound, t.not_read) == (3, 1, 0, 1, 1)
    assert "1 not read" in t.text() and f"1 {RD.RECEIVER_BOUND}" in t.text()
    # a finding reads neither: only the 512 B comparison is cited
    assert list(CN.read_rows(tab, 6)["size"]) == [512]


def test_a_run_without_cpu_figures_is_unknown_and_read_as_before() -> None:
    run = _Run(pd.DataFrame(_trials("send", 512, 0.6, 0.3)).drop(columns=["sender_cpu_s"]))
    tab = CN.with_readings(run, _comparisons().iloc[:1], "send")
    assert list(tab["bound"]) == [RD.UNKNOWN] and list(tab["read"]) == ["less"]


def test_one_per_size_is_the_maps_own() -> None:
    tab = pd.concat([_comparisons(), _comparisons().iloc[:1].assign(n=30, duration_s=2.0)],
                    ignore_index=True)
    one = CN.one_per_size(tab)
    assert len(one) == 3 and one.loc[one["size"] == 512, "n"].item() == 30
    # the findings' and the map's rows are the same set
    assert sorted(V.map_data(tab)["n"]) == sorted(one["n"])
    assert sorted(V.one_per_size(tab)["n"]) == sorted(one["n"])


def test_a_run_comparison_carries_each_runs_side() -> None:
    from analysis.comparison import compare as K

    cell = {"kind": "", "command": "", "cache": "", "block": "", **{
        k: v for k, v in _trials("send", 16384, 0.17, 0.80)[0].items()}}
    assert BN.cell_bound(_run(), cell) == RD.RECEIVER
    assert BN.cell_bound(_run(), {**cell, "size": 512}) == RD.SENDER
    assert BN.cell_bound(_run(), {**cell, "mode": "pingpong", "size": 4}) == RD.UNKNOWN


def test_the_compare_reports_cells_carry_each_runs_side(tmp_path) -> None:
    import sys

    from analysis.comparison import compare as K
    from analysis.loading.run import load_run

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    import make_synthetic_run

    for name, seed in (("ref", "1"), ("run", "2")):
        assert make_synthetic_run.main([str(tmp_path / name), "--small", "--seed", seed]) == 0
    run, ref = load_run(tmp_path / "run"), load_run(tmp_path / "ref")
    cells = K.compare_cells(run, ref, threshold=0.10)
    assert set(cells["bound_run"]) | set(cells["bound_ref"]) <= set(RD.BOUNDS)
    # a message stream and a file sent into a socket have copybench's receiver; a round
    # trip and a file→file copy have no side that sets a rate
    stream = cells["scenario"].isin(BN.SCENARIOS) & (cells["mode"] == "stream")
    assert (cells.loc[~stream, "bound_run"] == RD.UNKNOWN).all()
    assert set(cells.loc[stream, "scenario"]) == {"message", "file→socket"}
    assert (cells.loc[cells["scenario"] == "file→socket", "bound_run"] != RD.UNKNOWN).any()
    for r in cells[stream].to_dict("records"):
        assert r["bound_run"] == BN.cell_bound(run, r)


@pytest.mark.reference
def test_a_file_sent_into_a_socket_is_read_by_its_sides() -> None:
    """C13 same-core (sendfile against read-write, a 100 MB file into copybench's receiver on
    one CPU) rests on cells whose rate the receiver set (the reference run: sendfile's sender
    busy 8 % of the window, its receiver 92 %): the verdict reads receiver-bound, not
    refuted, and the file table's row reads so too. Cross-core both senders set the rate."""
    from analysis import claims as C
    from analysis.loading.run import load_run

    run = load_run(Path(__file__).resolve().parents[2] / "data" / "raw"
                   / "20261128T171229Z-paper-5394")
    c13 = {r.placement: r for r in C.evaluate(run) if r.claim == "C13"}
    assert c13["same-core"].verdict == C.NOT_TESTABLE, c13["same-core"].verdict
    assert c13["same-core"].bound_note == f"{RD.RECEIVER_BOUND} at 100 MB"
    assert c13["cross-core"].bound == RD.SENDER and c13["cross-core"].verdict == C.REFUTED
    files = CN.file_table(run)
    same = files[(files["placement"] == "same-core") & (files["scenario"] == "file→socket")]
    assert list(same["read"]) == [RD.RECEIVER_BOUND] and list(same["decision"]) == ["less"]
    # a file→file copy has no receiver: its side is unknown and its decision is its reading
    ff = files[files["scenario"] == "file→file"]
    assert len(ff) and (ff["bound"] == RD.UNKNOWN).all()
    assert (ff["read"] == ff["decision"]).all()

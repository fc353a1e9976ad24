"""The harness-fidelity bench's committed measurements as the book reads them."""

from __future__ import annotations

import glob
import json
import math
from pathlib import Path

import pytest

from analysis.loading import peers as PEERS


def _row(transport: str, placement: str, size: str, ratio: float, rounds: int,
         baseline: float | None = None) -> dict:
    r = {"transport": transport, "placement": placement, "size": size,
         "copybench": {"gbit_per_s": 7.0 * ratio}, "iperf3": {"gbit_per_s": 7.0},
         "copybench/iperf3": {"ratio": ratio, "ci": [ratio * 0.95, ratio * 1.05],
                              "rounds": rounds, "receiver_cpu_ratio": 0.9}}
    if baseline is not None:
        r["baseline/iperf3"] = {"ratio": baseline, "ci": [baseline * 0.9, baseline * 1.1],
                                "rounds": rounds, "receiver_cpu_ratio": 2.0}
    return r


def _write(p: Path, rows: list[dict]) -> Path:
    p.write_text(json.dumps({"argv": [], "missed_windows": 0, "measures": [],
                             "summary": rows}))
    return p


def test_the_newest_measurement_of_each_configuration_is_kept(tmp_path: Path) -> None:
    old = _write(tmp_path / "fidelity-20261126-all.json",
                 [_row("loopback", "cross-core", "256K", 0.80, 6),
                  _row("veth", "same-core", "64", 0.69, 6)])
    new = _write(tmp_path / "fidelity-20261127-loopback-cross-core.json",
                 [_row("loopback", "cross-core", "256K", 0.99, 20, baseline=0.76)])
    b = PEERS.bench_fidelity([new, old])
    assert len(b) == 2
    lc = b[b["transport"] == "loopback"].iloc[0]
    assert lc["size"] == 262144 and lc["ratio"] == pytest.approx(0.99)
    assert lc["rounds"] == 20 and lc["file"] == new.name
    assert lc["baseline_ratio"] == pytest.approx(0.76)
    vs = b[b["transport"] == "veth"].iloc[0]
    assert vs["size"] == 64 and math.isnan(vs["baseline_ratio"])


def test_each_row_carries_the_machine_its_file_names(tmp_path: Path) -> None:
    """A file written since the bench records its machine gives its CPU; an older file says
    none (the book then says the machine is not recorded, never guesses one)."""
    old = _write(tmp_path / "fidelity-20261127-a.json", [_row("veth", "same-core", "64", 0.7, 6)])
    new = tmp_path / "fidelity-20261128-b.json"
    new.write_text(json.dumps({"argv": [], "machine": {"cpu": {"model": "Intel(R) Xeon(R)",
                                                               "count": 2}, "kernel": "6.18"},
                               "summary": [_row("loopback", "cross-core", "1M", 0.53, 10)]}))
    b = PEERS.bench_fidelity([old, new]).set_index("transport")
    assert (b.loc["loopback", "cpu_model"], b.loc["loopback", "cpu_count"]) == ("Intel(R) Xeon(R)", 2)
    assert (b.loc["veth", "cpu_model"], b.loc["veth", "cpu_count"]) == ("", 0)


def test_no_files_give_an_empty_table() -> None:
    assert PEERS.bench_fidelity([]).empty


def test_the_committed_measurements_read() -> None:
    """Every committed bench file reads, and covers 16 KiB - 1 MiB on loopback cross-core."""
    root = Path(__file__).resolve().parents[2]
    files = sorted(glob.glob(str(root / PEERS.BENCH_FIDELITY)))
    if not files:
        pytest.skip("no bench/results/fidelity-*.json committed")
    b = PEERS.bench_fidelity(files)
    lc = b[(b["transport"] == "loopback") & (b["placement"] == "cross-core")]
    assert {16384, 65536, 262144, 1 << 20} <= set(lc["size"])
    assert ((b["lo"] <= b["ratio"]) & (b["ratio"] <= b["hi"])).all()

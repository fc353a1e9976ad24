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


# --- bench/fidelity itself: its --methods, and the summary it writes -----------------------

ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "bench" / "fidelity"


def _fidelity_module():
    import importlib.machinery
    import importlib.util
    import sys
    loader = importlib.machinery.SourceFileLoader("bench_fidelity", str(FIDELITY))
    spec = importlib.util.spec_from_loader("bench_fidelity", loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_fidelity"] = mod  # its dataclasses look their module up
    loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("given,names", [
    ("bogus", ["--methods", "bogus", "sendmsg", "send"]),
    ("sendmsg,copy_file_range", ["--methods", "copy_file_range", "allowed"]),
    (",", ["--methods", "none given"]),
])
def test_a_bad_method_is_one_line_and_exit_2(given: str, names: list[str]) -> None:
    import subprocess
    import sys
    r = subprocess.run([sys.executable, str(FIDELITY), "--methods", given], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert all(n in lines[0] for n in names), lines[0]
    assert not r.stdout.strip()


def test_methods_default_to_sendmsg_and_send() -> None:
    fid = _fidelity_module()
    assert fid.DEFAULT_METHODS == ("sendmsg", "send")
    assert fid.GOAL_METHOD == "sendmsg"


def test_the_summary_reads_each_method_against_iperf3_and_sends_gap_to_sendmsg() -> None:
    """Each copybench method paired with the round's one iperf3; send / sendmsg paired by
    round, with send's extra sender CPU per GB (its memcpy); the goal read on sendmsg."""
    fid = _fidelity_module()
    rows = []
    for rnd, load in enumerate((1.0, 0.9, 1.1, 1.05)):
        ip3 = 40.0 * load
        rows += [fid.Measure(rnd, "1M", "loopback", "cross-core", "iperf3", ip3, 0.145, 0.10,
                             None, None),
                 fid.Measure(rnd, "1M", "loopback", "cross-core", "sendmsg", ip3 * 1.0,
                             0.15, 0.10, 60000.0, "sendmsg"),
                 fid.Measure(rnd, "1M", "loopback", "cross-core", "send", ip3 * 0.54,
                             0.27, 0.11, 60000.0, "send")]
    tools = ["sendmsg", "send", "iperf3"]
    (row,) = fid.summarise(rows, tools)
    assert row["sendmsg/iperf3"]["ratio"] == pytest.approx(1.0)
    assert row["send/iperf3"]["ratio"] == pytest.approx(0.54)
    assert row["sendmsg/iperf3"]["rounds"] == 4
    gap = row["send/sendmsg"]
    assert gap["ratio"] == pytest.approx(0.54) and gap["rounds"] == 4
    assert gap["extra_sender_s_per_gb"] == pytest.approx(0.12)
    assert gap["extra_receiver_s_per_gb"] == pytest.approx(0.01)
    assert fid.goal_met(row, "sendmsg") is True
    assert fid.goal_met(row, "send") is None  # the goal is not read on send
    # the goal asks for the receiver's CPU per GB too: 1.1x iperf3's misses it
    hungry = {**row, "sendmsg/iperf3": {**row["sendmsg/iperf3"], "receiver_cpu_ratio": 1.1}}
    assert fid.goal_met(hungry, "sendmsg") is False


def test_a_ci_wider_than_the_goals_is_undecided_not_met(capsys: pytest.CaptureFixture) -> None:
    """The goal asks for a CI of +-5 % or better: a point estimate above 0.95 with a wider CI
    is printed as undecided, never as met."""
    fid = _fidelity_module()
    rows = []
    for rnd, f in enumerate((0.8, 1.3, 0.9, 1.25)):
        ip3 = 40.0
        rows += [fid.Measure(rnd, "1M", "loopback", "cross-core", "iperf3", ip3, 0.145, 0.10,
                             None, None),
                 fid.Measure(rnd, "1M", "loopback", "cross-core", "sendmsg", ip3 * f,
                             0.15, 0.10, 60000.0, "sendmsg")]
    (row,) = fid.summarise(rows, ["sendmsg", "iperf3"])
    assert fid.goal_met(row, "sendmsg") is True and fid.half_width(row["sendmsg/iperf3"]) > 0.05
    fid.print_table([row], ["sendmsg", "iperf3"])
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "sendmsg" in ln
                and "/" not in ln.split()[0])
    assert "undecided" in line and " met" not in line, line


def test_a_file_with_methods_gives_a_row_per_method_and_sends_gap(tmp_path: Path) -> None:
    """Since the bench measures each method beside iperf3, a file's summary holds
    ``<method>/iperf3`` for each and ``send/sendmsg``; files before it (``copybench``) measured
    send alone."""
    s = {"transport": "loopback", "placement": "cross-core", "size": "1M",
         "iperf3": {"gbit_per_s": 50.0}, "sendmsg": {"gbit_per_s": 50.0, "sender_s_per_gb": 0.15},
         "send": {"gbit_per_s": 27.0, "sender_s_per_gb": 0.27},
         "sendmsg/iperf3": {"ratio": 1.0, "ci": [0.97, 1.03], "rounds": 10,
                            "receiver_cpu_ratio": 1.0},
         "send/iperf3": {"ratio": 0.54, "ci": [0.52, 0.56], "rounds": 10,
                         "receiver_cpu_ratio": 1.1},
         "send/sendmsg": {"ratio": 0.54, "ci": [0.53, 0.55], "rounds": 10,
                          "extra_sender_s_per_gb": 0.12}}
    new = tmp_path / "fidelity-20261201-loopback-cross-core.json"
    new.write_text(json.dumps({"argv": [], "methods": ["sendmsg", "send"],
                               "machine": {"cpu": {"model": "Intel(R) Xeon(R)", "count": 2}},
                               "summary": [s]}))
    old = _write(tmp_path / "fidelity-20261127-loopback-cross-core.json",
                 [_row("loopback", "cross-core", "1M", 1.00, 20)])
    b = PEERS.bench_fidelity([old, new]).set_index("method")
    assert sorted(b.index) == ["send", "sendmsg"]
    assert b.loc["sendmsg", "ratio"] == pytest.approx(1.0) and b.loc["sendmsg", "file"] == new.name
    assert b.loc["send", "ratio"] == pytest.approx(0.54)  # the newer file's send replaces 1.00
    assert b.loc["send", "gap_ratio"] == pytest.approx(0.54)
    assert b.loc["send", "gap_extra_sender_s_per_gb"] == pytest.approx(0.12)
    assert math.isnan(b.loc["sendmsg", "gap_ratio"])
    # an old file's row is send's
    assert set(PEERS.bench_fidelity([old])["method"]) == {"send"}


def test_the_readmes_table_is_the_committed_measurements() -> None:
    """Each row of bench/README.md's current-measurement table that names a committed bench file
    gives that file's ratios and CIs (two decimals) for its method at each size, and its
    senders' CPU per GB at 1 MiB; every row is a committed measurement (none held for one to
    come)."""
    import re
    text = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    head = "| CPU class | measured | method | 16 KiB | 64 KiB | 256 KiB | 1 MiB |"
    assert head in text
    lines = text[text.index(head):].splitlines()[2:]
    rows = [ln for ln in lines[:next(i for i, ln in enumerate(lines) if not ln.startswith("|"))]]
    measured = [r for r in rows if "](results/fidelity-" in r]
    assert measured == rows and any("`sendmsg`" in r for r in rows)
    sizes = ("16K", "64K", "256K", "1M")
    for r in measured:
        cells = [c.strip() for c in r.strip("|").split("|")]
        name = re.search(r"\]\((results/fidelity-[^)]+\.json)\)", r).group(1)
        doc = json.loads((ROOT / "bench" / name).read_text())
        by = {s["size"]: s for s in doc["summary"]}
        method = cells[2].strip("`")
        key = "copybench" if "copybench/iperf3" in next(iter(by.values())) else method
        for size, cell in zip(sizes, cells[3:7]):
            if cell == "—":
                assert size not in by, (name, size)
                continue
            x = by[size][f"{key}/iperf3"]
            assert cell == f"{x['ratio']:.2f} [{x['ci'][0]:.2f}, {x['ci'][1]:.2f}]", (name, size)
        one = by["1M"]
        assert cells[7] == (f"1 MiB: {one[key]['sender_s_per_gb']:.2f} / "
                            f"{one['iperf3']['sender_s_per_gb']:.2f}"), name


def test_the_readmes_paragraph_is_the_committed_measurements() -> None:
    """The numbers bench/README.md's paragraph repeats in words are those of the files it
    names: the 300-round sendmsg bench (ratios, CI half-widths, receiver CPU ratios, the
    senders at 1 MiB) and the 20 rounds of send beside sendmsg (send / sendmsg, send's extra
    sender CPU)."""
    text = " ".join((ROOT / "bench" / "README.md").read_text(encoding="utf-8").split())
    sizes, words = ("16K", "64K", "256K", "1M"), ("16 KiB", "64 KiB", "256 KiB", "1 MiB")

    def ci(x: dict) -> str:
        return f"{x['ratio']:.2f} [{x['ci'][0]:.2f}, {x['ci'][1]:.2f}]"

    def listed(items: list[str]) -> str:
        return ", ".join(items[:-1]) + " and " + items[-1]

    now = {s["size"]: s for s in json.loads(
        (ROOT / "bench" / "results" / "fidelity-20261130-loopback-cross-core.json").read_text()
    )["summary"]}
    r = [now[s]["sendmsg/iperf3"] for s in sizes]
    assert f"in {r[0]['rounds']} interleaved rounds" in text
    assert "`sendmsg` / iperf3 is " + listed(
        [f"{ci(x)} at {w}" for x, w in zip(r, words)]) in text
    half = max(max(x["ratio"] - x["ci"][0], x["ci"][1] - x["ratio"]) / x["ratio"] for x in r)
    assert f"each CI within ±{100 * half:.1f} %" in text
    assert "receiver at " + listed([f"{x['receiver_cpu_ratio']:.2f}×" for x in r]) in text
    one = now["1M"]
    assert (f"its sender spends {one['sendmsg']['sender_s_per_gb']:.2f} CPU-s/GB against "
            f"iperf3's {one['iperf3']['sender_s_per_gb']:.2f}") in text
    before = {s["size"]: s for s in json.loads(
        (ROOT / "bench" / "results" / "fidelity-20261129-loopback-cross-core.json").read_text()
    )["summary"]}
    gap = [before[s]["send/sendmsg"] for s in sizes]
    assert "`send` / `sendmsg` was " + listed(
        [f"{ci(x)} at {w}" for x, w in zip(gap, words)]) in text
    assert (f"`send`'s sender {gap[-1]['extra_sender_s_per_gb']:.2f} CPU-s/GB above "
            "`sendmsg`'s at 1 MiB") in text

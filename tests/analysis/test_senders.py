"""C13's sides (analysis.comparison.senders) on a small run written to disk, the committed
sender profile (bench/sender-profile's JSON) read and refused when damaged, and the profile
tool itself: its arguments refused in one line, and (root, perf) one real profile."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.loading.run import load_run
from analysis.comparison import senders as SN
from analysis.words import sides as SI
from conftest import ROOT, copybench_or_fail

TOOL = ROOT / "bench" / "sender-profile"
SIZE = 100_000_000


def _record(run_id: str, n: int, method: str, placement: str, block: str, size: int,
            snd_cpu: float, rcv_cpu: float, gbit: float) -> dict:
    nbytes = gbit * 1e9 / 8
    cfg = {"kind": "copybench", "command": "send", "method": method, "mode": "stream",
           "protocol": "tcp", "transport": "loopback", "placement": placement, "size": size,
           "threads": 1, "cache": "warm", "duration_s": 1.0, "block": block, "twin": 0,
           "cpus_sender_list": "0", "cpus_sink_list": "0" if placement == "same-core" else "1"}
    side = lambda cpu, calls: {"utime_s": 0.0, "stime_s": cpu, "syscalls": calls,  # noqa: E731
                               "bytes": nbytes}
    return {"schema_version": 1, "run_id": run_id, "trial_id": f"t{n}", "cell": f"{block}-{method}",
            "order_index": n, "repetition": 1 + n // 8, "status": "ok", "config": cfg,
            "result": {"bytes": nbytes, "messages": 10, "seconds": 1.0, "gbit_per_s": gbit,
                       "msgs_per_s": 10.0, "sender": side(snd_cpu, 100),
                       "receiver": side(rcv_cpu, nbytes / 65536)}}


def _run(d: Path, profile: str = "paper", model: str = "Test CPU 9000") -> Path:
    """A run of C13's cells: cross-core sendfile's sender saturated (0.98 CPU-s in a 1 s
    window at 16 Gbit/s = 2 GB: 0.49 CPU-s/GB), read-write's receiver; same-core both
    sides on one CPU. Plus a cell at another size and one in another claim's block, which
    C13 does not read."""
    d.mkdir(parents=True)
    recs = []
    spec = [("sendfile", "cross-core", "bx", SIZE, 0.98, 0.40, 16.0),
            ("read-write", "cross-core", "bx", SIZE, 0.60, 0.95, 12.0),
            ("sendfile", "same-core", "bs", SIZE, 0.08, 0.90, 13.0),
            ("read-write", "same-core", "bs", SIZE, 0.45, 0.50, 16.0),
            ("sendfile", "cross-core", "other", SIZE, 0.10, 0.10, 1.0),
            ("sendfile", "cross-core", "bsmall", 1 << 20, 0.10, 0.10, 1.0)]
    for r in range(4):
        for m, pl, b, size, s, rc, g in spec:
            recs.append(_record(d.name, len(recs), m, pl, b, size, s, rc, g + 0.1 * r))
    (d / "trials.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    blocks = {b: {"id": b, "label": b, "cells": [], "claims": ["C13"] if b != "other" else ["C5"],
                  "placement": None, "family": 1, "purpose": "claim", "kind": "file"}
              for b in ("bx", "bs", "other", "bsmall")}
    (d / "plan.json").write_text(json.dumps({
        "run_id": d.name, "profile": profile, "seed": 1, "created_at": "2026-12-01T00:00:00Z",
        "design": {"primary": "paired", "confidence": 0.95}, "blocks": blocks}))
    (d / "manifest.json").write_text(json.dumps({
        "run_id": d.name, "created_at": "2026-12-01T00:00:00Z",
        "cpu": {"model": model, "count": 2, "affinity": [0, 1]}}))
    return d


def test_sides_per_gb_limit_and_cpu_class(tmp_path: Path) -> None:
    run = load_run(_run(tmp_path / "20261201T000000Z-paper-aaaa"))
    t = SN.table([run]).set_index(["placement", "method"])
    assert len(t) == 4 and set(t["n"]) == {4}  # another claim's block, another size: not read
    sf = t.loc[("cross-core", "sendfile")]
    # the median of the trials' CPU-s/GB: 0.98 CPU-s over 16.1 and 16.2 Gbit/s x 1 s
    assert sf["sender_cpu_s_per_gb"] == pytest.approx(
        (0.98 / (16.1 / 8) + 0.98 / (16.2 / 8)) / 2, rel=1e-9)
    assert sf["limit"] == "sender" and sf["sender_busy"] == pytest.approx(0.98)
    assert t.loc[("cross-core", "read-write"), "limit"] == "receiver"
    assert t.loc[("same-core", "sendfile"), "limit"] == "receiver"
    assert sf["receiver_bytes_per_call"] == pytest.approx(65536)
    (cls,) = set(t["cpu class"])  # the manifest's CPU count and model
    assert cls.startswith("2-CPU") and "Test" in cls and "9000" in cls
    assert set(t["run"]) == {run.run_id}


def test_a_run_without_its_receive_size_says_so(tmp_path: Path) -> None:
    """Its records do not say their receive size (its sink's default then, which has
    changed): the table and the reading say "not recorded", never today's default."""
    run = load_run(_run(tmp_path / "20261201T000000Z-paper-aaaa"))
    t = SN.table([run])
    assert set(t["receive size"]) == {SN.NOT_RECORDED}
    text = SI.c13_reading(t)
    assert "(receive size not recorded)" in text and "64 KiB" not in text, text


def test_the_c13_reading_says_each_side_and_where_the_receiver_bounds(tmp_path: Path) -> None:
    """Cross-core: each method's sender CPU per GB and the side that set each rate;
    same-core, where copybench's receiver set the rate, the reading says the ratio is no test
    of the senders and C13 same-core reads receiver-bound, with the busy fractions."""
    run = load_run(_run(tmp_path / "20261201T000000Z-paper-aaaa"))
    t = SN.table([run])
    text = SI.c13_reading(t)
    sf = t[(t["placement"] == "cross-core") & (t["method"] == "sendfile")].iloc[0]
    rw = t[(t["placement"] == "cross-core") & (t["method"] == "read-write")].iloc[0]
    assert (f"sendfile's sender {sf['sender_cpu_s_per_gb']:.2f} CPU-s/GB against "
            f"{rw['sender_cpu_s_per_gb']:.2f}, the rate set by the sender (against the "
            "receiver)") in text, text
    assert ("Same-core, copybench's receiver set the rate in the one run and receive size "
            "(sendfile's sender busy 8 % of the window, its receiver 90 %)") in text, text
    assert text.endswith("C13 same-core reads receiver-bound."), text
    # where both senders set the rate same-core, it says so
    senders = t.assign(limit=["sender"] * len(t))
    assert SI.c13_reading(senders).endswith("Same-core, the senders set the rate in every run.")
    assert SI.c13_reading(t.iloc[0:0]) == ""
    # a second run whose senders set the same-core rate: counted apart, its busy fractions
    # left out of the span
    other = t.assign(run="other", limit="sender", sender_busy=0.5, receiver_busy=0.4)
    both = SI.c13_reading(pd.concat([t, other], ignore_index=True))
    assert ("receiver set the rate in 1 of the 2 runs and receive sizes (sendfile's sender "
            "busy 8 % of the window, its receiver 90 %)") in both, both


def test_chosen_runs_the_reference_and_older_of_its_profile(tmp_path: Path) -> None:
    old = _run(tmp_path / "20261101T000000Z-paper-a")
    mid = _run(tmp_path / "20261102T000000Z-paper-b")
    other = _run(tmp_path / "20261103T000000Z-claims", profile="claims")
    ref = _run(tmp_path / "20261104T000000Z-paper-c")
    later = _run(tmp_path / "20261105T000000Z-paper-d")
    plans = {p: json.loads((p / "plan.json").read_text()) for p in (old, mid, other, ref, later)}
    sibs = [(p, plans[p]) for p in (old, mid, other, later)]
    assert SN.chosen(ref, plans[ref], sibs) == [old, mid, ref]
    assert SN.chosen(ref, plans[ref], sibs, newest=2) == [mid, ref]
    assert SN.chosen(ref, plans[ref], sibs, newest=1) == [ref]
    plans[mid]["blocks"] = {}  # a run without C13's blocks is not read
    assert SN.chosen(ref, plans[ref], [(p, plans[p]) for p in (old, mid)]) == [old, ref]


def _committed() -> Path:
    p = SN.newest_profile(ROOT)
    assert p is not None, f"no sender profile is committed ({SN.PROFILES})"
    return p


def test_committed_profile_is_read() -> None:
    p = SN.read_profile(_committed())
    assert p.cpu_model and p.kernel and p.size == SIZE
    for pl in ("cross-core", "same-core"):
        sf, rw = p.of(pl, "sendfile"), p.of(pl, "read-write")
        assert sf is not None and rw is not None and sf.samples > 0 and rw.samples > 0
        assert sum(s.share for s in sf.stages) == pytest.approx(1.0)
        # sendfile's sender copies no file bytes; read + send's copies each twice
        assert sf.copy_share < 0.05 < rw.copy_share
    text = SI.profile_text(p)
    assert p.cpu_model in text and "copy routines" in text and p.kernel in text
    # how it was taken is read from its config, not typed in the chapter
    cfg = json.loads(_committed().read_text())["config"]
    assert SI.setup_text(p) == (f"sender on CPU {cfg['cpus']['cross-core']['sender']}, "
                                f"sink on CPU {cfg['cpus']['cross-core']['sink']}, 100 MB file")


@pytest.mark.parametrize("damage", [
    lambda o: "{not json",
    lambda o: json.dumps({k: v for k, v in o.items() if k != "machine"}),
    lambda o: json.dumps({**o, "summary": [{**o["summary"][0], "stages": [
        {**o["summary"][0]["stages"][0], "share": "lots"}]}]}),
    lambda o: json.dumps({**o, "summary": [{**o["summary"][0], "stages":
                                            o["summary"][0]["stages"][1:]}]}),
    lambda o: json.dumps([o]),
])
def test_damaged_profile_is_one_line(tmp_path: Path, damage) -> None:
    good = json.loads(_committed().read_text())
    bad = tmp_path / "sender-profile-x.json"
    bad.write_text(damage(good))
    with pytest.raises(SN.BadProfile) as e:
        SN.read_profile(bad)
    assert str(bad) in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(SN.BadProfile, match="cannot be read"):
        SN.read_profile(tmp_path / "missing.json")


@pytest.mark.parametrize("args,says", [
    (["--methods", "sendmsg"], "--methods: unknown sendmsg (allowed:"),
    (["--placements", "far"], "--placements: unknown far (allowed:"),
    (["--size", "huge"], "--size 'huge': not a size"),
    (["--rounds", "0"], "--rounds 0: 1 to 50"),
    (["--json", "/nonexistent-dir/x.json"], "does not exist"),
])
def test_tool_refuses_bad_arguments(args: list[str], says: str) -> None:
    r = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                       timeout=60, cwd=str(ROOT))
    assert r.returncode == 2 and says in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.root
def test_tool_profiles_both_methods(tmp_path: Path) -> None:
    if not shutil.which("perf"):
        pytest.skip("perf is not installed")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("cross-core needs 2 CPUs")
    out = tmp_path / "p.json"
    r = subprocess.run([sys.executable, str(TOOL), "--bin", str(copybench_or_fail()),
                        "--size", "16M", "--rounds", "1", "--seconds", "0.5", "--json",
                        str(out)], capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    obj = json.loads(out.read_text())
    assert obj["machine"]["kernel"] == os.uname().release
    got = {(s["placement"], s["method"]): s for s in obj["summary"]}
    assert set(got) == {("cross-core", "sendfile"), ("cross-core", "read-write")}
    assert all(s["samples"] > 0 for s in got.values())
    assert got[("cross-core", "read-write")]["copy_share"] > got[("cross-core", "sendfile")]["copy_share"]


def test_the_chapter_is_made_again_when_a_profile_changes() -> None:
    """make book rebuilds the CPU-cost chapter when a committed sender profile is added or
    changed: its target depends on every file the chapter may read."""
    book = (ROOT / "mk" / "book.mk").read_text(encoding="utf-8")
    rule = re.search(r"^\$\(BOOK_GEN\)/cpu_cost\.ipynb:(.*)$", book, re.M)
    assert rule is not None, "mk/book.mk has no rule for the CPU-cost chapter's inputs"
    assert f"$(wildcard {SN.PROFILES})" in rule.group(1)

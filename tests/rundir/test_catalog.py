"""The one catalog of committed runs (rundir.catalog): each run's id, profile, time, machine
class in its one wording and harness, from its plan and manifest alone; packed and unpacked
runs alike; a damaged manifest is one line naming it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rundir import catalog as CA

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"

INTEL = "Intel(R) Xeon(R) Processor"


def _run(raw: Path, name: str, *, profile: str = "claims", model: str | None = "AMD EPYC",
         cpus: int = 2, packed: bool = True, cells: dict | None = None,
         blocks: dict | None = None) -> Path:
    d = raw / name
    d.mkdir(parents=True)
    plan = {"run_id": name, "profile": profile, "created_at": "2026-11-20T10:00:00+00:00",
            "cells": cells or {}, "blocks": blocks or {}}
    (d / "plan.json").write_text(json.dumps(plan))
    manifest = {"created_at": "2026-11-20T10:00:05+00:00",
                "cpu": {"count": cpus, "affinity": list(range(cpus))}}
    if model is not None:
        manifest["cpu"]["model"] = model
    (d / "manifest.json").write_text(json.dumps(manifest))
    if packed:
        with gzip.open(d / "trials.jsonl.gz", "wt") as f:
            f.write("")
    else:
        (d / "trials.jsonl").write_text("")
    return d


@pytest.mark.parametrize("model, words", [
    (INTEL, "Intel Xeon"),
    ("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "Intel Xeon"),
    ("AMD EPYC", "AMD EPYC"),
    ("AMD EPYC 7763 64-Core Processor", "AMD EPYC"),
    (None, CA.UNKNOWN_CPU),
    ("", CA.UNKNOWN_CPU),
])
def test_a_cpu_model_has_one_class_wording(model, words) -> None:
    assert CA.cpu_class(model) == words


def test_packed_and_unpacked_runs_are_listed_with_their_facts(tmp_path: Path) -> None:
    _run(tmp_path, "20261120T100000Z-claims", model=INTEL)
    _run(tmp_path, "20261121T100000Z-paper", profile="paper", packed=False)
    _run(tmp_path, "20261122T100000Z-threads", profile="threads", model=INTEL, cpus=16)
    (tmp_path / "README.md").write_text("not a run")
    (tmp_path / "empty").mkdir()  # no records: not a run
    os.symlink(tmp_path / "20261120T100000Z-claims", tmp_path / "a-link")  # not its own run
    got = CA.catalog(tmp_path)
    assert [e.run_id for e in got] == ["20261120T100000Z-claims", "20261121T100000Z-paper",
                                       "20261122T100000Z-threads"]
    first, second, third = got
    assert first.packed and not second.packed and third.packed
    assert (first.profile, first.cpu_class, first.machine) == ("claims", "Intel Xeon",
                                                               "2-CPU Intel Xeon")
    assert second.machine == "2-CPU AMD EPYC" and second.tests_claims
    assert third.machine_key == (16, "Intel Xeon")
    assert first.made is not None and first.made.isoformat() == "2026-11-20T10:00:00+00:00"
    assert [e.run_id for e in CA.beside(tmp_path / "20261121T100000Z-paper")] == [
        "20261120T100000Z-claims", "20261122T100000Z-threads"]
    assert CA.newest(got, "paper").run_id == "20261121T100000Z-paper"
    assert CA.newest(got, "noise-study") is None


def test_a_run_without_a_manifest_says_unknown_cpu(tmp_path: Path) -> None:
    d = _run(tmp_path, "20261120T100000Z-claims")
    (d / "manifest.json").unlink()
    e = CA.catalog(tmp_path)[0]
    assert (e.cpu_class, e.cpus, e.machine) == (CA.UNKNOWN_CPU, None, CA.UNKNOWN_CPU)
    assert e.made is not None  # the plan's time


@pytest.mark.parametrize("damage, said", [
    (b"{not json", "cannot be read as the run's manifest.json"),
    (b"[1, 2]", "a JSON list, not the run's manifest.json (an object)"),
    (b"\xff\xfe", "cannot be read as the run's manifest.json"),
])
def test_a_damaged_manifest_is_one_line_naming_it(tmp_path: Path, damage, said) -> None:
    d = _run(tmp_path, "20261120T100000Z-claims")
    (d / "manifest.json").write_bytes(damage)
    with pytest.raises(CA.BadCatalog) as e:
        CA.catalog(tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(d / "manifest.json")) and said in msg


def test_a_fifo_or_link_in_place_of_a_manifest_is_refused_before_reading(tmp_path: Path) -> None:
    d = _run(tmp_path, "20261120T100000Z-claims")
    (d / "manifest.json").unlink()
    os.mkfifo(d / "manifest.json")  # read, it would hang
    with pytest.raises(CA.BadCatalog, match="manifest.json: cannot be read"):
        CA.catalog(tmp_path)
    (d / "manifest.json").unlink()
    os.symlink("/dev/zero", d / "manifest.json")
    with pytest.raises(CA.BadCatalog, match="manifest.json: cannot be read"):
        CA.catalog(tmp_path)


def test_a_time_stamp_that_is_not_one_is_named(tmp_path: Path) -> None:
    d = _run(tmp_path, "20261120T100000Z-claims")
    plan = json.loads((d / "plan.json").read_text())
    plan["created_at"] = "yesterday"
    (d / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(CA.BadCatalog, match=r"plan.json: created_at 'yesterday' is not an ISO"):
        CA.catalog(tmp_path)


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CA.BadCatalog, match="cannot be listed as a directory of runs"):
        CA.catalog(tmp_path / "nowhere")


def _cell(kind: str, method: str, block: str, **kw) -> dict:
    return {"kind": kind, "method": method, "block": block, "transport": "loopback",
            "placement": "cross-core", "size": 1 << 20, "mode": "stream", "threads": 1, **kw}


def test_the_harness_comes_from_the_plan_cells(tmp_path: Path) -> None:
    cells = {"a": _cell("copybench", "send", "b1"), "b": _cell("peer:iperf3", "iperf3", "b1"),
             "c": _cell("copybench", "sendmsg", "b2"),  # not beside iperf3
             "d": _cell("copybench", "send", "b3", sink="kept")}
    _run(tmp_path, "20261120T100000Z-paper", cells=cells, blocks={"b1": {}})
    h = CA.catalog(tmp_path)[0].harness
    assert (h.blocked, h.parity, h.receiver) == (True, "send", ("sink=kept",))
    assert h.words == "paired blocks; parity: send / iperf3; receiver: sink=kept"
    cells["e"] = _cell("copybench", "sendmsg", "b1")  # the declaration in force reads sendmsg
    assert CA.harness({"cells": cells, "blocks": {"b1": {}}}).parity == "sendmsg"
    assert CA.harness({"cells": {}}).words == "unblocked cells"


def test_the_committed_runs_classes() -> None:
    """The committed runs: both CPU classes, each in its one wording; the reference run is
    an Intel Xeon's; the noise study an AMD EPYC's."""
    got = {e.run_id: e for e in CA.catalog(RAW)}
    assert got["20261128T171229Z-paper-5394"].machine == "2-CPU Intel Xeon"
    assert got["20261126T035624Z-threads"].machine == "16-CPU Intel Xeon"
    assert got["20261127T082138Z-noise-study-9374"].cpu_class == "AMD EPYC"
    assert {e.cpu_class for e in got.values()} == {"AMD EPYC", "Intel Xeon"}
    tracked = _tracked_runs()
    if tracked is None:
        pytest.skip("not a git checkout: which runs are committed is not known")
    # A run made here (make reproduce's, a sweep under way) is not committed and may be unpacked.
    assert tracked <= got.keys()
    assert all(got[r].packed and got[r].made is not None for r in tracked)


def _tracked_runs() -> set[str] | None:
    """The run ids whose packed records git tracks; None outside a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "data/raw/*/trials.jsonl.gz"], cwd=RAW.parent.parent,
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {p.split("/")[2] for p in out} or None


def test_the_catalog_imports_nothing_of_the_analysis() -> None:
    """rundir sits below the analysis: the catalog loads without pandas or analysis."""
    code = ("import sys, rundir.catalog; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('analysis', 'pandas')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_entry_is_read_again_when_its_files_change(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are kept between calls, but never past a change of the files they are read
    from (a manifest rewritten, one put back with its old size and time, a damaged one), and
    never while a file is so new that a rewrite within its time stamp's tick could go
    unseen."""
    d = _run(tmp_path, "20261120T100000Z-claims", model="AMD EPYC")
    assert CA.entry(d) is not CA.entry(d)  # written just now: read every time
    monkeypatch.setattr(CA, "RACY_S", 0.0)  # (what a file written long ago gets)
    assert CA.entry(d).cpu_class == "AMD EPYC"
    assert CA.entry(d) is CA.entry(d)  # unchanged: the entry kept
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["cpu"]["model"] = INTEL
    old = os.stat(d / "manifest.json")
    (d / "manifest.json").write_text(json.dumps(manifest) + " " * 8)
    assert CA.entry(d).cpu_class == "Intel Xeon"
    # another content put back with the old size and modification time: its change time tells
    kept = CA.entry(d)
    manifest["cpu"]["model"] = "AMD EPYC"
    text = json.dumps(manifest)
    (d / "manifest.json").write_text(text + " " * (old.st_size - len(text)))
    os.utime(d / "manifest.json", ns=(old.st_atime_ns, old.st_mtime_ns))
    assert os.stat(d / "manifest.json").st_size == old.st_size
    assert CA.entry(d) is not kept and CA.entry(d).cpu_class == "AMD EPYC"
    (d / "manifest.json").write_bytes(b"{not json")
    with pytest.raises(CA.BadCatalog):
        CA.entry(d)

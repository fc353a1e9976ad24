"""The record format's versions (``rundir.records``): every version a reader takes is
upgraded to the current one by the one reader, so every consumer sees one shape; a version
it does not know is refused in one line; the writers write the current version; the
committed runs (version 1, and version 2 from :data:`FIRST_V2` on; sealed) still read and
verify."""

from __future__ import annotations

import copy
import gzip
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rundir import records, verify
from rundir.records import SCHEMA_VERSION, V1_NOT_RECORDED, UnknownVersion, upgrade

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"
REFERENCE = RAW / "20261128T171229Z-paper-5394"
#: a small committed run: the full check (rundir verify) of all its records is quick
SMALL_RUN = RAW / "20261126T035624Z-threads"

#: the fields copybench's records of the committed runs lack, by the first run of each field
#: set (each later set has every field of the one before): a version-1 record may lack any
#: of them. Paths are dotted; "receiver" is result.receiver, "sender" result.sender.
_SIDE_NOISE = ("slice_s", "slices_bytes", "slices_s", "slices_unavailable", "cpu_start",
               "cpu_end", "sndbuf_start", "sndbuf_end", "rcvbuf_start", "rcvbuf_end",
               "tcp_info_start", "tcp_info_end", "sockets_unavailable")
LACKS: dict[str, list[str]] = {
    "20261128T101719Z-shared-time": ["result.vmsplice", "receiver.recv_size"],
    "20261127T082138Z-noise-study-9374": [
        "config.share_time", "config.share_order", "result.share_time"],
    "20261127T044116Z-noise-study-1b2a": ["config.alternate", "config.sink", "result.alternate"],
    "20261127T010732Z-noise-study-dcbc": ["config.sockbuf"],
    "20261123T060913Z-pilot": [
        "result.softirqs", "result.softirqs_unavailable", "receiver.softirqs",
        "receiver.softirqs_unavailable",
        *(f"{s}.{k}" for s in ("sender", "receiver") for k in _SIDE_NOISE)],
    "20261122T052509Z-paper-0690": [
        "config.block", "config.twin", "result.window", "result.interference",
        "result.interference_unavailable", "receiver.interference",
        "receiver.interference_unavailable"],
}
GENERATIONS = list(LACKS)  # newest first
#: the first committed run written as version 2 (every field present)
FIRST_V2 = "20261129T195203Z-claims"


def lacked_by(first_run: str) -> list[str]:
    """Every field a record of the field set that begins with ``first_run`` lacks."""
    out: list[str] = []
    for name in GENERATIONS[:GENERATIONS.index(first_run) + 1]:
        out += LACKS[name]
    return out


def _node(record: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    *parents, last = path.split(".")
    node = record
    for key in parents:
        node = node["result"][key] if key in ("sender", "receiver") else node[key]
    return node, last


def _raw_records(run_dir: Path) -> list[dict[str, Any]]:
    """A committed run's records as they are stored (not through the reader)."""
    with gzip.open(run_dir / "trials.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.fixture(scope="module")
def current() -> dict[str, Any]:
    """A copybench record with every field of the current version: a vmsplice trial with a
    receiver from the reference run, its ring added, labelled version 2."""
    for rec in _raw_records(REFERENCE):
        cfg, res = rec["config"], rec["result"] or {}
        if cfg.get("kind") == "copybench" and cfg.get("method") == "vmsplice" \
                and rec["status"] == "ok" and isinstance(res.get("receiver"), dict):
            rec = copy.deepcopy(rec)
            rec["schema_version"] = 2
            rec["result"]["vmsplice"] = {"in_flight_bound": 9 << 20, "ring_bytes": 18 << 20,
                                         "ring_memory": 19 << 20}
            rec["result"]["receiver"]["recv_size"] = 64 << 10
            assert records.check(rec, "current") == []
            return rec
    raise AssertionError(f"{REFERENCE}: no vmsplice record with a receiver")


@pytest.mark.parametrize("first_run", GENERATIONS)
def test_upgrade_of_each_committed_field_set(current: dict[str, Any], first_run: str) -> None:
    old = copy.deepcopy(current)
    old["schema_version"] = 1
    lacked = lacked_by(first_run)
    for path in lacked:
        node, key = _node(old, path)
        del node[key]
    kept = copy.deepcopy(old)

    new = upgrade(old)

    assert old == kept, "the upgrade changed the record it was given"
    assert new["schema_version"] == SCHEMA_VERSION
    assert records.check(new, first_run) == []
    for path in lacked:
        node, key = _node(new, path)
        assert key in node, f"{path} still absent"
        want: Any = {"twin": 0, "sink": "fresh"}.get(key) if path.startswith("config.") else None
        if key.endswith("_unavailable"):
            want = V1_NOT_RECORDED
        assert node[key] == want, f"{path} = {node[key]!r}, not {want!r}"
    # every field the record had is as it was
    for path in ("config.method", "result.gbit_per_s", "sender.bytes", "receiver.bytes"):
        assert _node(new, path)[0][_node(new, path)[1]] == _node(current, path)[0][
            _node(current, path)[1]]
    for path in set(lacked_by(GENERATIONS[-1])) - set(lacked):
        node, key = _node(new, path)
        ref_node, _ = _node(current, path)
        assert node[key] == ref_node[key], f"{path} changed by the upgrade"


def test_an_upgraded_receiver_says_its_receive_size_was_not_recorded(
        current: dict[str, Any]) -> None:
    """A version-1 receiver lacks ``recv_size`` (its sink did not report it): the upgrade
    makes it null, which the schema's description explains, not an absence."""
    rec = copy.deepcopy(current)
    del rec["result"]["receiver"]["recv_size"]
    new = upgrade(dict(rec, schema_version=1))
    assert new["result"]["receiver"]["recv_size"] is None and records.check(new, "r") == []
    assert "recv_size" not in rec["result"]["receiver"]
    schema = json.loads((ROOT / "rundir" / "schema" / "trial.schema.json").read_text())
    assert "made before" not in json.dumps(schema)


def test_a_current_record_is_read_as_it_is(current: dict[str, Any]) -> None:
    assert upgrade(current) is current


def test_version_1_peer_and_copy_records(current: dict[str, Any]) -> None:
    """A peer's record gets the runner's fields it lacks and keeps its own result; a copy
    trial (no sink) gets no sink."""
    peer = {"schema_version": 1, "config": {"kind": "peer:iperf3", "method": "iperf3"},
            "result": {"bytes": 1, "sender": {"bytes": 1}}, "status": "ok"}
    new = upgrade(peer)
    assert new["config"] == {"kind": "peer:iperf3", "method": "iperf3", "block": None, "twin": 0}
    assert new["result"] == peer["result"]
    copy_rec = copy.deepcopy(current)
    copy_rec["schema_version"] = 1
    copy_rec["config"].update(command="copy", method="read-write")
    del copy_rec["config"]["sink"], copy_rec["result"]["vmsplice"]
    new = upgrade(copy_rec)
    assert "sink" not in new["config"] and "vmsplice" not in new["result"]


@pytest.mark.parametrize("version,says", [
    (3, "schema_version 3 is newer than this reader (it reads versions 1, 2)"),
    (99, "schema_version 99 is newer than this reader"),
    (0, "schema_version 0 is not a version of the record format (versions: 1, 2)"),
    ("2", "schema_version '2' is not a version of the record format"),
    (True, "schema_version True is not a version"),
    (None, "schema_version None is not a version"),
])
def test_an_unknown_version_is_refused_by_every_reader(
        tmp_path: Path, current: dict[str, Any], version: Any, says: str) -> None:
    rec = dict(current, schema_version=version)
    with pytest.raises(UnknownVersion, match=re.escape(says)):
        upgrade(rec)
    problems = records.check(rec, "r")
    assert len(problems) == 1 and says in problems[0]
    path = tmp_path / "trials.jsonl"
    path.write_text(json.dumps(current) + "\n" + json.dumps(rec) + "\n", encoding="utf-8")
    with pytest.raises(records.RecordError) as err:
        list(records.read(path))
    assert str(err.value).startswith(f"{path}:2: {says}")
    assert "\n" not in str(err.value)
    first = records.first_problem(tmp_path)
    assert first is not None and first.startswith(f"{path}:2: {says}")


def test_the_writers_write_the_current_version(copybench: Path, tmp_path: Path) -> None:
    rec = records.TrialRecord(run_id="r", trial_id="t", cell="c", order_index=0,
                              repetition=0, started_at="2026-01-01T00:00:00Z",
                              loadavg=[0.0, 0.0, 0.0])
    assert rec.to_json()["schema_version"] == SCHEMA_VERSION
    header = (ROOT / "src" / "common.h").read_text(encoding="utf-8")
    assert re.search(rf"^#define SCHEMA_VERSION {SCHEMA_VERSION}\b", header, re.M)
    src = tmp_path / "src.bin"
    src.write_bytes(b"x" * 65536)
    out = subprocess.run(
        [str(copybench), "copy", "--method", "read-write", "--src", str(src), "--dst",
         str(tmp_path / "dst.bin"), "--duration", "0.05", "--warmup", "0.02"],
        capture_output=True, text=True, timeout=60, check=False)
    printed = json.loads(out.stdout.splitlines()[0])
    assert printed["schema_version"] == SCHEMA_VERSION, out.stderr


def test_a_committed_run_verifies() -> None:
    report = verify.verify(SMALL_RUN)
    assert report.problems == [] and report.records_checked == 192


@pytest.mark.slow
def test_the_committed_runs_have_the_field_sets_upgraded() -> None:
    """The version map is the committed runs': each version-1 run's copybench records lack
    exactly the fields of its field set (:data:`LACKS`), a version-2 run's lack none, and
    every record reads as the current version."""
    runs = sorted(p for p in RAW.iterdir() if (p / "trials.jsonl.gz").is_file())
    assert runs, f"no committed runs in {RAW}"
    every = lacked_by(GENERATIONS[-1])
    for run in runs:
        first = max((g for g in GENERATIONS if g <= run.name), default=None)
        assert first is not None, f"{run.name}: older than every field set"
        version = 2 if run.name >= FIRST_V2 else 1
        want = set(lacked_by(first)) if version == 1 else set()
        seen: set[str] = set()
        for rec in _raw_records(run):
            assert rec["schema_version"] == version, run.name
            res = rec.get("result") or {}
            if rec["config"].get("kind") != "copybench" or not isinstance(
                    res.get("receiver"), dict):
                continue
            for path in every:
                if path == "config.sink" and rec["config"].get("no_sink"):
                    continue
                if path == "result.vmsplice" and rec["config"].get("method") != "vmsplice":
                    continue
                node, key = _node(rec, path)
                if key in node:
                    seen.add(path)
        lacking = {p for p in every if p not in seen}
        # a field a run's trials never had a use for may be absent too (vmsplice, sink)
        assert want <= lacking | {"result.vmsplice"} and lacking - want <= {
            "result.vmsplice", "config.sink"}, (run.name, sorted(lacking ^ want))
        n = sum(1 for r in records.read(records.trials_file(run), fields=True)
                if r["schema_version"] == SCHEMA_VERSION)
        assert n == len(_raw_records(run))


def test_the_runner_refuses_a_record_of_another_copybench_build(copybench: Path,
                                                                tmp_path: Path) -> None:
    """A copybench that prints another version (a stale build) makes a failed trial that
    says so, never a record of fields this runner's format does not have."""
    from runner.trial.copybench_trial import parse_record
    src = tmp_path / "src.bin"
    src.write_bytes(b"x" * 4096)
    out = subprocess.run(
        [str(copybench), "copy", "--method", "read-write", "--src", str(src), "--dst",
         str(tmp_path / "dst.bin"), "--duration", "0.05", "--warmup", "0.02"],
        capture_output=True, text=True, timeout=60, check=False).stdout
    rec, why = parse_record(out)
    assert why is None and rec is not None and rec["schema_version"] == SCHEMA_VERSION
    stale = json.dumps(dict(rec, schema_version=1)) + "\n"
    rec, why = parse_record(stale)
    assert rec is None and why == ("sender printed a record of schema_version 1; this runner "
                                   "writes 2 (rebuild copybench: make build)")

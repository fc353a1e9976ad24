"""rundir.verify: sealing a run, verifying it, and the trial/manifest schemas.

The run directories here are made by the test (records shaped like src/README.md's record
plus the runner's fields), so these tests need no benchmark run.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rundir import layout, planfile
from rundir import verify as v

ROOT = Path(__file__).resolve().parents[2]
RUN_ID = "20260101T000000Z-test"
COUNTERS = ["task_clock_ns", "context_switches", "cpu_migrations", "page_faults", "cycles",
            "instructions", "cache_references", "cache_misses", "l1d_load_misses",
            "llc_load_misses"]


def side(pmu: bool = True) -> dict[str, Any]:
    counters: dict[str, Any] = {c: 1000 + i for i, c in enumerate(COUNTERS)}
    unavailable: dict[str, str] = {}
    if not pmu:
        for c in COUNTERS[4:]:
            counters[c] = None
            unavailable[c] = "perf_event_open: ENOENT (no PMU in this VM)"
    return {"utime_s": 0.01, "stime_s": 1.9, "vol_ctx_switches": 3, "invol_ctx_switches": 7,
            "minor_faults": 12, "major_faults": 0, "syscalls": None, "counters": counters,
            "counters_unavailable": unavailable, "bytes": 1 << 30}


def copybench_record(index: int, method: str = "zerocopy", pmu: bool = True) -> dict[str, Any]:
    return {
        "schema_version": 2, "tool": "copybench", "tool_version": "0.1.0",
        "run_id": RUN_ID, "trial_id": f"t{index:05d}", "cell": "3f2a9c01",
        "order_index": index, "repetition": index // 2,
        "started_at": "2026-01-01T00:00:0%dZ" % (index % 10),
        "loadavg": [0.12, 0.3, 0.25],
        "config": {
            "command": "send", "method": method, "mode": "stream", "protocol": "tcp",
            "host": "127.0.0.1", "port": 5201, "family": "ipv4", "size": 65536, "fields": 8,
            "threads": 1, "cpus_sender": [0], "cpus_receiver": [1], "duration_s": 2.0,
            "warmup_s": 0.5, "verify": "sample", "seed": 1, "cache": None, "file": None,
            "no_sink": False, "transport": "loopback", "placement": "cross-core",
            "kind": "copybench",
        },
        "status": "ok", "error": None,
        "result": {
            "bytes": 1 << 30, "messages": 16384, "seconds": 2.0, "gbit_per_s": 4.29,
            "msgs_per_s": 8192.0, "rtt_ns": None, "sender": side(pmu), "receiver": side(pmu),
            "zerocopy": {"completions": 16384, "copied": 0, "enobufs": 0, "copied_fraction": 0.0}
            if method == "zerocopy" else None,
            "verify": {"bytes_checked": 1 << 20, "mismatches": 0, "first_mismatch": None},
        },
    }


def failed_record(index: int, status: str = "timeout") -> dict[str, Any]:
    rec = copybench_record(index)
    rec.update(status=status, error="trial exceeded 30 s; killed", result=None)
    return rec


def peer_record(index: int) -> dict[str, Any]:
    rec = copybench_record(index)
    rec.update(tool="iperf3", tool_version="3.12")
    rec["config"] = {"kind": "peer:iperf3", "transport": "veth", "placement": "unpinned",
                     "method": "iperf3", "size": 131072, "threads": 1, "duration_s": 2.0}
    rec["result"] = {"gbit_per_s": 38.5, "seconds": 2.0, "bytes": 9625000000}
    return rec


def copy_record(index: int) -> dict[str, Any]:
    rec = copybench_record(index, method="copy_file_range", pmu=False)
    cfg = rec["config"]
    for key in ("mode", "protocol", "host", "port", "family", "fields", "cpus_receiver"):
        cfg[key] = None
    cfg.update(command="copy", cache="cold", transport=None, placement=None)
    rec["result"].update(receiver=None, zerocopy=None, messages=0, msgs_per_s=0.0)
    return rec


def pingpong_record(index: int) -> dict[str, Any]:
    rec = copybench_record(index, method="sendmsg")
    rec["config"]["mode"] = "pingpong"
    rec["result"]["rtt_ns"] = {"p50": 9000, "p90": 11000, "p99": 15000, "p999": 40000,
                               "max": 90000, "mean": 9800.5, "count": 200000}
    return rec


def sample_records() -> list[dict[str, Any]]:
    return [copybench_record(0), copybench_record(1, "send", pmu=False), pingpong_record(2),
            copy_record(3), peer_record(4), failed_record(5)]


def plan_doc() -> dict[str, Any]:
    """A plan.json valid under plan.schema.json: one cell, one round."""
    cell = {"kind": "copybench", "command": "send", "method": "send", "transport": "loopback",
            "placement": "cross-core", "mode": "stream", "size": 65536, "threads": 1,
            "cache": None, "duration_s": 0.2, "warmup_s": 0.05, "verify": "sample",
            "fields": 8, "mtu": None, "experiment": "m", "timeout_s": None, "dir": None,
            "perf": False}
    return {"run_id": RUN_ID, "created_at": "2026-11-22T00:00:00+00:00",
            "profile_path": "quick.toml", "profile": "quick", "seed": 1,
            "repetitions": {"min": 1, "max": 1}, "cells": {"0123456789ab": cell},
            "skipped": {}, "notes": [], "rounds": [["0123456789ab-1"]], "order": "shuffled",
            "estimate_s": {"min": 1, "expected": 1, "max": 1}}


def make_run(parent: Path, records: list[dict[str, Any]] | None = None) -> Path:
    run = parent / RUN_ID
    (run / "profiles").mkdir(parents=True)
    lines = [json.dumps(r, sort_keys=True) for r in (records or sample_records())]
    (run / "trials.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps({
        "schema_version": 1, "run_id": RUN_ID, "kernel": "6.1.0-test", "git_commit": None,
        "nix_store_path": None, "cpu": {"model": "test", "count": 2}}), encoding="utf-8")
    (run / "plan.json").write_text(json.dumps(plan_doc()), encoding="utf-8")
    (run / "profiles" / "quick.toml").write_text("[sweep]\nmethods = [\"send\"]\n", encoding="utf-8")
    return run


@pytest.fixture
def sealed_run(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    v.seal(run)
    return run


def trial_validator() -> Any:
    return v.validator_for(v.load_schema(v.TRIAL_SCHEMA))


# --- sealing and verifying -------------------------------------------------------------

def test_sealed_run_verifies(sealed_run: Path) -> None:
    report = v.verify(sealed_run)
    assert report.problems == []
    assert report.ok
    assert report.files_checked == 4
    assert report.records_checked == len(sample_records())


def test_sums_file_is_sha256sum_format(sealed_run: Path) -> None:
    if shutil.which("sha256sum") is None:
        pytest.skip("sha256sum not installed")
    done = subprocess.run(["sha256sum", "--check", "--quiet", layout.SUMS], cwd=sealed_run,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_edited_byte_fails(sealed_run: Path) -> None:
    path = sealed_run / "trials.jsonl"
    data = bytearray(path.read_bytes())
    at = data.index(b'"gbit_per_s": 4.29') + len(b'"gbit_per_s": 4.')
    data[at] = ord("3")  # 4.29 -> 4.39: still a valid record, only the hash can tell
    path.write_bytes(bytes(data))
    report = v.verify(sealed_run)
    assert not report.ok
    assert any("trials.jsonl: SHA-256 differs" in p for p in report.problems), report.problems


def test_one_edited_byte_in_manifest_fails(sealed_run: Path) -> None:
    path = sealed_run / "manifest.json"
    path.write_bytes(path.read_bytes().replace(b"6.1.0-test", b"6.1.1-test"))
    assert any(p.startswith("manifest.json: SHA-256") for p in v.verify(sealed_run).problems)


def test_one_record_removed_fails(sealed_run: Path) -> None:
    path = sealed_run / "trials.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:2] + lines[3:]), encoding="utf-8")
    report = v.verify(sealed_run)
    assert not report.ok
    assert report.records_checked == len(lines) - 1
    assert any("trials.jsonl: SHA-256 differs" in p for p in report.problems)


def test_removed_and_added_files_fail(sealed_run: Path) -> None:
    (sealed_run / "plan.json").unlink()
    (sealed_run / "profiles" / "extra.toml").write_text("x = 1\n", encoding="utf-8")
    problems = v.verify(sealed_run).problems
    assert any(p.startswith("plan.json: listed") for p in problems)
    assert any(p.startswith("profiles/extra.toml: not listed") for p in problems)


def test_plan_outside_its_schema_fails_even_when_resealed(tmp_path: Path) -> None:
    """plan.json is checked against plan.schema.json: a wrong type, a key the plan does not
    have and a missing one are each named."""
    run = make_run(tmp_path)
    doc = plan_doc()
    doc["cells"]["0123456789ab"]["size"] = "64K"
    doc["surprise"] = 1
    del doc["rounds"]
    (run / "plan.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert problems and all(p.startswith("plan.json: ") for p in problems), problems
    assert any("cells.0123456789ab.size" in p and "integer" in p for p in problems), problems
    assert any("surprise" in p for p in problems) and any("rounds" in p for p in problems)


def test_committed_plans_fit_the_schema() -> None:
    """Every committed run's plan.json (written by the runner of its day) is valid."""
    plans = sorted((ROOT / "data" / "raw").glob(f"*/{layout.PLAN}"))
    if not plans:
        pytest.skip("no committed run under data/raw")
    validator = v.validator_for(v.load_schema(planfile.SCHEMA))
    for p in plans:
        problems = v.schema_problems(validator, json.loads(p.read_text()), str(p))
        assert problems == [], problems


def test_unsealed_run_fails(tmp_path: Path) -> None:
    report = v.verify(make_run(tmp_path))
    assert any("SHA256SUMS missing" in p for p in report.problems)


def test_invalid_record_fails_even_when_resealed(tmp_path: Path) -> None:
    bad = copybench_record(0)
    bad["result"]["sender"]["counters"]["cycles"] = None  # null without a reason
    run = make_run(tmp_path, [bad, copybench_record(1)])
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert problems and all(p.startswith("trials.jsonl:1:") for p in problems), problems
    assert any("counters_unavailable" in p and "cycles" in p for p in problems)


def test_duplicate_trial_id_and_foreign_run_id_fail(tmp_path: Path) -> None:
    other = copybench_record(1)
    other["run_id"] = "another-run"
    run = make_run(tmp_path, [copybench_record(0), copybench_record(0), other])
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert any("trials.jsonl:2: trial_id 't00000' already used on line 1" in p for p in problems)
    assert any("trials.jsonl:3: run_id 'another-run'" in p for p in problems)


def test_truncated_last_record_fails(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    path = run / "trials.jsonl"
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert any("torn last line" in p for p in problems), problems


def test_a_line_that_is_not_json_fails(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    path = run / "trials.jsonl"
    path.write_bytes(path.read_bytes() + b"{not json\n")
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert any("not a JSON record" in p for p in problems), problems


def test_seal_refuses_symlinks(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    (run / "link.json").symlink_to(run / "plan.json")
    with pytest.raises(v.RunDirUsageError, match="link.json: not a regular file"):
        v.seal(run)


def test_missing_run_dir_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(v.RunDirUsageError, match="does not exist"):
        v.verify(tmp_path / "nope")


# --- command line -----------------------------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rundir", *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_cli_seal_then_verify(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    sealed = run_cli("seal", str(run))
    assert sealed.returncode == 0, sealed.stderr
    assert "sealed" in sealed.stdout and "4 files" in sealed.stdout
    checked = run_cli("verify", str(run))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ": ok;" in checked.stdout


def test_cli_failing_run_exits_1(sealed_run: Path) -> None:
    (sealed_run / "plan.json").write_text("{}", encoding="utf-8")
    done = run_cli("verify", str(sealed_run))
    assert done.returncode == 1
    assert "plan.json: SHA-256 differs" in done.stdout
    assert "FAILED" in done.stdout


@pytest.mark.parametrize("args", [(), ("verify",), ("frobnicate", "x"), ("verify", "/nonexistent/run")])
def test_cli_bad_usage_is_one_line_exit_2(args: tuple[str, ...]) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


# --- the schemas ------------------------------------------------------------------------

def test_schemas_are_valid_json_schemas() -> None:
    for path in (v.TRIAL_SCHEMA, v.MANIFEST_SCHEMA):
        schema = v.load_schema(path)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        v.validator_for(schema)  # check_schema against the metaschema


def _keywords(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            if key in ("properties", "$defs"):
                for sub in value.values():
                    _keywords(sub, out)
            elif key not in ("enum", "const", "required", "description", "title"):
                _keywords(value, out)
    elif isinstance(node, list):
        for item in node:
            _keywords(item, out)
    return out


def test_schemas_use_only_keywords_shared_by_draft7_and_2020_12() -> None:
    # jsonschema 3.x (pinned by cffconvert) knows draft 7 only; these keywords mean the same
    # in both drafts, so the schema gives the same answers under either validator.
    shared = {"$schema", "$id", "$ref", "$defs", "title", "description", "type", "properties",
              "required", "additionalProperties", "propertyNames", "minProperties", "items",
              "minItems", "maxItems", "enum", "const", "oneOf", "anyOf", "allOf", "if", "then",
              "else", "minimum", "maximum", "exclusiveMinimum", "minLength", "pattern"}
    for path in (v.TRIAL_SCHEMA, v.MANIFEST_SCHEMA):
        used = _keywords(v.load_schema(path), set())
        assert used <= shared, f"{path.name}: {sorted(used - shared)}"


@pytest.mark.parametrize("make", [lambda: copybench_record(0), lambda: pingpong_record(1),
                                  lambda: copy_record(2), lambda: peer_record(3),
                                  lambda: failed_record(4), lambda: failed_record(5, "failed"),
                                  lambda: copybench_record(6, "send", pmu=False)])
def test_valid_records(make: Any) -> None:
    record = make()
    assert v.schema_problems(trial_validator(), record, "r") == []


def _mutate(record: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return out


@pytest.mark.parametrize("path,value", [
    ("status", "crashed"),
    ("schema_version", 3),
    ("started_at", "yesterday"),
    ("loadavg", [0.1, 0.2]),
    ("order_index", -1),
    ("trial_id", KeyError),
    ("error", "ok records carry no error"),
    ("result", None),
    ("config.kind", "copybench2"),
    ("config.transport", "wifi"),
    ("config.placement", "same-socket"),
    ("config.method", "memcpy"),
    ("config.verify", True),
    ("config.threads", 0),
    ("result.gbit_per_s", "4.2"),
    ("result.bytes", 1.5),
    ("result.sender", None),
    ("result.sender.counters.cycles", None),
    ("result.sender.counters.cycles", -3),
    ("result.sender.counters.branch_misses", 5),
    ("result.sender.syscalls", "many"),
    ("result.receiver.utime_s", KeyError),
    ("result.zerocopy.copied_fraction", 1.5),
    ("result.verify.mismatches", None),
    ("result.rtt_ns", {"p50": 1}),
])
def test_invalid_records(path: str, value: Any) -> None:
    record = _mutate(copybench_record(0), path, value)
    assert v.schema_problems(trial_validator(), record, "r"), f"{path}={value!r} accepted"


def test_failed_record_needs_an_error() -> None:
    record = failed_record(0, "failed")
    record["error"] = None
    assert v.schema_problems(trial_validator(), record, "r")


def test_copy_record_may_not_name_a_transport() -> None:
    record = copy_record(0)
    record["config"]["transport"] = "loopback"
    assert v.schema_problems(trial_validator(), record, "r")


def test_send_record_needs_transport_and_placement() -> None:
    for key in ("transport", "placement"):
        record = _mutate(copybench_record(0), f"config.{key}", None)
        assert v.schema_problems(trial_validator(), record, "r"), key


def test_peer_result_needs_throughput_or_rtt() -> None:
    record = peer_record(0)
    record["result"] = {"seconds": 2.0}
    assert v.schema_problems(trial_validator(), record, "r")
    record["result"] = {"rtt_ns": {"p50": 8000, "p99": 21000}}
    assert v.schema_problems(trial_validator(), record, "r") == []


def test_manifest_schema_is_loose_but_typed() -> None:
    validator = v.validator_for(v.load_schema(v.MANIFEST_SCHEMA))
    minimal = {"schema_version": 1, "run_id": "r"}
    assert v.schema_problems(validator, {**minimal, "anything": {"goes": 1}}, "m") == []
    assert v.schema_problems(validator, {"run_id": "r"}, "m")
    assert v.schema_problems(validator, [], "m")
    assert v.schema_problems(validator, {**minimal, "run_id": 7}, "m")
    assert v.schema_problems(validator, {**minimal, "cpu": "fast"}, "m")


def test_resume_manifests_are_checked_too(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    (run / "manifest.resume-1.json").write_text('{"schema_version": 1}', encoding="utf-8")
    with pytest.raises(v.RunDirUsageError):  # seal refuses what verify fails
        v.seal(run)
    v.write_seal(run)  # the sweep's own seal, unchecked: what verify then finds
    problems = v.verify(run).problems
    assert any(p.startswith("manifest.resume-1.json:") and "run_id" in p for p in problems)


def test_smoke_run_if_present() -> None:
    """A real run from `make smoke-run`, when one was made: its records must fit the schema."""
    run = ROOT / "build" / "smoke-run"
    candidates = [run] if (run / layout.TRIALS).is_file() else sorted(
        p.parent for p in run.glob(f"*/{layout.TRIALS}")) if run.is_dir() else []
    if not candidates:
        pytest.skip("no build/smoke-run (make smoke-run makes one)")
    for run_dir in candidates:
        problems = [p for p in v.verify(run_dir).problems if layout.SUMS not in p
                    and "SHA-256" not in p and "listed" not in p]
        assert problems == [], f"{run_dir}: " + "; ".join(problems[:10])


def test_manifest_memcpy_offsets_are_checked_and_older_runs_still_fit() -> None:
    """copybench memcpy states where its buffers sat: the schema checks the
    offsets where present, and manifests written before them (a bare number, one 64 MiB
    measurement, at_sizes without offsets) still validate."""
    check = v.validator_for(v.load_schema(v.MANIFEST_SCHEMA))

    def problems(memcpy: Any) -> list[str]:
        return [e.message for e in check.iter_errors(
            {"schema_version": 1, "run_id": "r", "memcpy": memcpy})]

    old = {"memcpy_gbit_per_s": 55.9, "size": 1 << 26, "seconds": 1.0,
           "at_sizes": [{"memcpy_gbit_per_s": None, "size": 64, "unavailable": "below"},
                        {"memcpy_gbit_per_s": 14.5, "size": 65536, "seconds": 0.25}]}
    assert problems(63.1) == [] and problems(None) == [] and problems(old) == []
    new = copy.deepcopy(old)
    new.update(src_offset_mod_4096=0, dst_offset_mod_4096=0)
    new["at_sizes"][1].update(src_offset_mod_4096=0, dst_offset_mod_4096=0)
    assert problems(new) == []
    bad = copy.deepcopy(new)
    bad["at_sizes"][1]["dst_offset_mod_4096"] = 4096
    assert problems(bad) == ["4096 is greater than the maximum of 4095"]
    bad = copy.deepcopy(new)
    bad["dst_offset_mod_4096"] = "0"
    assert problems(bad) == ["'0' is not of type 'integer'"]


# --- the readers' cache (make book, make compare: verify(..., cache=True)) ---------------

@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "verify-cache"
    monkeypatch.setenv("COPYBENCH_VERIFY_CACHE", str(where))
    return where


def test_a_passed_check_is_reused_only_for_the_same_sums(sealed_run: Path, cache: Path) -> None:
    first = v.verify(sealed_run, cache=True)
    assert first.ok and not first.cached
    again = v.verify(sealed_run, cache=True)
    assert again.ok and again.cached
    assert again.records_checked == first.records_checked == len(sample_records())
    assert again.files_checked == first.files_checked == 4  # the files are re-hashed
    assert "reused" in again.summary()
    assert v.passed_before(sealed_run)
    # python -m rundir verify (make verify) checks everything every time
    assert not v.verify(sealed_run).cached


def test_a_tampered_run_never_reuses_a_passed_check(sealed_run: Path, cache: Path) -> None:
    assert v.verify(sealed_run, cache=True).ok
    # an edited byte: its hash no longer matches
    path = sealed_run / "trials.jsonl"
    original = path.read_bytes()
    path.write_bytes(original.replace(b'"gbit_per_s": 4.29', b'"gbit_per_s": 4.39', 1))
    report = v.verify(sealed_run, cache=True)
    assert not report.ok and not report.cached
    assert not v.passed_before(sealed_run)
    # an invalid record, re-sealed so every hash matches: another SHA256SUMS, checked again
    bad = copybench_record(0)
    bad["result"]["sender"]["counters"]["cycles"] = None  # null without a reason
    path.write_text(json.dumps(bad) + "\n" + original.decode().split("\n", 1)[1], encoding="utf-8")
    v.write_seal(sealed_run)  # as a writer would, bypassing seal's own refusal
    report = v.verify(sealed_run, cache=True)
    assert not report.cached
    assert any("counters_unavailable" in p for p in report.problems), report.problems
    assert not v.verify(sealed_run, cache=True).ok  # a failed check is never remembered


def test_the_cache_key_names_the_checker(sealed_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed schema or checking code gives another key: the records are checked again."""
    sums = (sealed_run / layout.SUMS).read_bytes()
    before = v.cache_key(sums)
    assert before == v.cache_key(sums)
    schema = sealed_run / "trial.schema.json"
    schema.write_text(v.TRIAL_SCHEMA.read_text() + " ", encoding="utf-8")
    monkeypatch.setattr(v, "_CHECKER_FILES", [p if p != v.TRIAL_SCHEMA else schema
                                              for p in v._CHECKER_FILES])
    assert v.cache_key(sums) != before


def test_make_book_check_of_a_checked_run_is_fast(sealed_run: Path, cache: Path) -> None:
    """python -m rundir check (make book's check) passes a checked run without the record
    checks, and still refuses it once a file changed."""
    import os
    env = {**os.environ, "COPYBENCH_VERIFY_CACHE": str(cache)}
    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rundir", "check", str(sealed_run)],
                              cwd=ROOT, env=env, capture_output=True, text=True)
    assert check().returncode == 0
    assert len(list(cache.glob("*.json"))) == 1
    assert check().returncode == 0
    (sealed_run / "plan.json").write_text("{}", encoding="utf-8")
    done = check()
    assert done.returncode == 1 and "does not verify" in done.stderr, done.stderr

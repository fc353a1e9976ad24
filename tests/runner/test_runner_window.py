"""Interference is recorded per trial, and a trial whose measured window is
not the asked one is failed (copybench exit 3), retried at once by the runner under the same
trial id, and carries the earlier attempts in ``retries``; a wrong result is never retried."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import until_window_met
from rundir.records import TrialRecord
from rundir.verify import TRIAL_SCHEMA, load_schema, schema_problems, validator_for
from runner.sweep import trials
from runner.trial.copybench_trial import EXIT_WINDOW_MISSED
from runner.plan.cells import Cell, Trial
from runner.trial.transports import make as make_transport
from runner.trial.trialrecord import Context, Outcome


def _record(d: dict[str, Any]) -> TrialRecord:
    """A trial's start with the fields of ``d`` (the rest made up)."""
    return TrialRecord(run_id="r", trial_id=d.get("trial_id", "abc-1"), cell="abc",
                       order_index=0, repetition=1, started_at=d.get("started_at", "t0"),
                       loadavg=d.get("loadavg", [0.0, 0.0, 0.0]))


def _outcome(d: dict[str, Any]) -> Outcome:
    """What a trial reported: the fields of ``d`` (the rest made up)."""
    return Outcome(tool="copybench", tool_version=None, config={"kind": "copybench"},
                   status=d.get("status", "failed"), error=d.get("error"),
                   result=d.get("result"),
                   sections={"invocation": d["invocation"]} if "invocation" in d else {})


def _missed(attempt: int = 1) -> dict[str, Any]:
    why = f"window missed: measured 17 µs of the 150.0 ms asked and 0 bytes moved in it ({attempt})"
    return {"status": "failed", "error": why + "\n--- sender stderr (tail) ---\n...",
            "started_at": f"2026-01-01T00:00:0{attempt}.000+00:00", "loadavg": [2.0, 1.0, 0.5],
            "result": {"bytes": 0, "window": {"asked_s": 0.15, "measured_s": 1.7e-5,
                                               "min_s": 0.135, "max_s": 0.225, "missed": True,
                                               "why": why},
                       "interference": None, "interference_unavailable": "test"},
            "invocation": {"sender_exit": 3, "wall_s": 0.4}}


def _ok() -> dict[str, Any]:
    return {"status": "ok", "error": None,
            "result": {"bytes": 10, "seconds": 0.15, "window": {"missed": False}},
            "invocation": {"sender_exit": 0, "wall_s": 0.4}}


def test_window_missed_is_only_exit_3_with_a_missed_window() -> None:
    assert trials.window_missed(_outcome(_missed()))
    assert not trials.window_missed(_outcome(_ok()))
    wrong = _missed()
    wrong["invocation"]["sender_exit"] = 1  # e.g. verification failed too: a wrong result
    assert not trials.window_missed(_outcome(wrong))
    timeout = {**_missed(), "status": "timeout"}
    assert not trials.window_missed(_outcome(timeout))
    old = {"status": "failed", "error": "x", "result": None, "invocation": {"sender_exit": 3}}
    assert not trials.window_missed(_outcome(old))


def _runner(outcomes: list[dict[str, Any]], first: dict[str, Any] | None = None
            ) -> tuple[Any, Any, list[TrialRecord]]:
    """``run`` reports ``outcomes`` in turn; ``start`` makes each attempt's start (the first
    with the fields of ``first``, later ones at a later time)."""
    seen: list[TrialRecord] = []

    def start() -> TrialRecord:
        d = dict(first or {}) if not seen else {"started_at": f"t{len(seen)}"}
        seen.append(_record(d))
        return seen[-1]

    def run() -> Outcome:
        return _outcome(outcomes[len(seen) - 1])
    return run, start, seen


def test_missed_then_met_is_one_ok_record_with_the_retries() -> None:
    run, start, seen = _runner([_missed(1), _missed(2), _ok()],
                               {"trial_id": "abc-1", "started_at": "t0", "loadavg": [0, 0, 0]})
    rec = trials.with_window_retries(run, start).to_json()
    assert len(seen) == 3 and all(b.trial_id == "abc-1" for b in seen)
    assert rec["status"] == "ok" and rec["trial_id"] == "abc-1"
    assert [r["attempt"] for r in rec["retries"]] == [1, 2]
    assert all(r["reason"].startswith("window missed: ") for r in rec["retries"])
    assert rec["retries"][0]["window"]["measured_s"] == 1.7e-5
    assert [r["started_at"] for r in rec["retries"]] == ["t0", "t1"]  # each attempt's own
    assert rec["started_at"] == "t2"  # the record is the last attempt's


def test_missed_every_time_is_failed_after_two_retries() -> None:
    run, start, seen = _runner([_missed(1), _missed(2), _missed(3), _ok()],
                               {"trial_id": "abc-1"})
    rec = trials.with_window_retries(run, start)
    assert len(seen) == 1 + trials.WINDOW_RETRIES == 3
    assert rec.status == "failed" and trials.window_missed(rec)
    assert len(rec.to_json()["retries"]) == 2


def test_wrong_result_and_ok_are_not_retried() -> None:
    wrong = {**_missed(), "error": "verification failed: 3 mismatches"}
    wrong["invocation"] = {"sender_exit": 1}
    for first in (wrong, _ok()):
        run, start, seen = _runner([first, _ok()])
        rec = trials.with_window_retries(run, start).to_json()
        assert len(seen) == 1 and "retries" not in rec


# --- real trials through the runner ---------------------------------------------------------

def _cell(**kw: Any) -> Cell:
    base: dict[str, Any] = dict(kind="copybench", command="send", method="send",
                                transport="loopback", placement="unpinned", mode="stream",
                                size=65536, threads=1, cache=None, duration_s=0.3,
                                warmup_s=0.05, verify="sample", fields=8, mtu=None,
                                experiment="window-test")
    base.update(kw)
    return Cell(**base)


def _run(tmp_path: Path, binary: Path, cell: Cell) -> dict[str, Any]:
    ctx = Context(binary=binary, run_dir=tmp_path, run_id="window-test", seed=1, janitor=None)
    transport = make_transport(cell.transport or "loopback", None, None)
    transport.setup()
    return trials.run_trial(ctx, cell, Trial(cell.id, 1), transport, 0).to_json()


def _schema_ok(rec: dict[str, Any]) -> None:
    v = validator_for(load_schema(TRIAL_SCHEMA))
    assert schema_problems(v, json.loads(json.dumps(rec)), "record") == []


def test_a_window_that_cannot_be_met_is_retried_then_failed(tmp_path: Path,
                                                            runner_copybench: Path) -> None:
    # one 256 MiB send takes far longer than the 10 ms asked: every attempt misses
    cell = _cell(size=256 << 20, duration_s=0.01, verify="off")
    rec = _run(tmp_path, runner_copybench, cell)
    assert rec["status"] == "failed", rec["error"]
    assert rec["invocation"]["sender_exit"] == EXIT_WINDOW_MISSED
    assert rec["error"].startswith("window missed: ")
    assert rec["result"]["window"]["missed"] is True
    assert len(rec["retries"]) == trials.WINDOW_RETRIES
    for i, r in enumerate(rec["retries"], 1):
        assert r["attempt"] == i and r["reason"].startswith("window missed: ")
        assert r["window"]["missed"] is True
    _schema_ok(rec)


def _missed_all(rec: dict[str, Any]) -> bool:
    """The runner's own retries all missed the window (the machine was busy)."""
    return rec["status"] != "ok" and rec["invocation"]["sender_exit"] == EXIT_WINDOW_MISSED


def test_a_trial_records_interference_and_its_window(tmp_path: Path,
                                                     runner_copybench: Path) -> None:
    cell = _cell(command="copy", method="read-write", transport=None, mode=None, size=1 << 20,
                 placement="same-core")
    rec = until_window_met(lambda: _run(tmp_path, runner_copybench, cell), _missed_all)
    assert rec["status"] == "ok", rec["error"]
    res = rec["result"]
    w = res["window"]
    assert w["missed"] is False and w["min_s"] <= w["measured_s"] <= w["max_s"]
    itf = res["interference"]
    assert itf is not None, res["interference_unavailable"]
    assert itf["source"] == "/proc/stat" and itf["user_hz"] > 0
    assert itf["window_s"] >= w["measured_s"] * 0.9
    cpu0 = [c for c in itf["cpus"] if c["cpu"] == 0][0]  # the copying thread is pinned there
    assert cpu0["busy_frac"] + cpu0["steal_frac"] > 0.8, cpu0
    assert "retries" not in rec or all(r["reason"].startswith("window missed")
                                       for r in rec["retries"])
    _schema_ok(rec)


def test_the_sink_records_its_own_hosts_interference(tmp_path: Path,
                                                     runner_copybench: Path) -> None:
    cell = _cell(placement="cross-core", duration_s=0.5)
    rec = until_window_met(lambda: _run(tmp_path, runner_copybench, cell), _missed_all)
    assert rec["status"] == "ok", rec["error"]
    rv = rec["result"]["receiver"]
    ri = rv["interference"]
    assert ri is not None, rv["interference_unavailable"]
    assert [c["cpu"] for c in ri["cpus"]] == rv["cpus"] == [1]  # the sink's CPU only
    assert ri["window_s"] > 0.4
    _schema_ok(rec)


def test_copybench_exit_codes(runner_copybench: Path, tmp_path: Path) -> None:
    """Exit 3 is the missed window alone; the record says so in status, error and window."""
    p = subprocess.run([str(runner_copybench), "copy", "--method", "read-write", "--size", "64K",
                        "--dir", str(tmp_path), "--duration", "0.2", "--warmup", "0.02"],
                       capture_output=True, text=True, timeout=60, check=False)
    r = json.loads(p.stdout)
    if p.returncode == 3:  # the machine was busy: then it must say so
        assert r["status"] == "failed" and r["result"]["window"]["missed"]
    else:
        assert p.returncode == 0 and r["status"] == "ok" and not r["result"]["window"]["missed"]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))

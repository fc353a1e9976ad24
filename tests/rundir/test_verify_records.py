"""The trial schema against what the C program really prints.

RECORDED holds records copybench printed on the development VM (no PMU, so the hardware
counters are null with reasons); when src/build/copybench exists the test also runs it now
(loopback only: a sink on 127.0.0.1 and short trials). Each C record is wrapped with the
runner's fields, as runner/trial/trialrecord.py does, and must be valid under trial.schema.json.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rundir import records

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "src" / "build" / "copybench"

RECORDED: dict[str, Any] = json.loads(r"""
{
 "copy": {
  "config": {
   "cache": "cold",
   "command": "copy",
   "cpus_sender": [],
   "duration_s": 0.3,
   "family": null,
   "fields": 0,
   "file": null,
   "file_size": 4194304,
   "host": null,
   "method": "copy_file_range",
   "mode": "stream",
   "no_sink": false,
   "port": null,
   "protocol": null,
   "seed": 1,
   "size": 4194304,
   "threads": 1,
   "verify": "sample",
   "warmup_s": 0.1
  },
  "error": null,
  "result": {
   "bytes": 201326592,
   "gbit_per_s": 5.38023112,
   "messages": 48,
   "msgs_per_s": 160.343382,
   "receiver": null,
   "receiver_unavailable": "file to file: no receiver",
   "rtt_ns": null,
   "seconds": 0.299357537,
   "sender": {
    "bytes": 201326592,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 199,
     "cpu_migrations": 1,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 60949114
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "invol_ctx_switches": 9,
    "major_faults": 0,
    "messages": 48,
    "minor_faults": 0,
    "seconds": 0.299357537,
    "stime_s": 0.061882,
    "syscalls": 337,
    "threads": 1,
    "utime_s": 0,
    "vol_ctx_switches": 190
   },
   "verify": {
    "bytes_checked": 1048576,
    "first_mismatch": null,
    "mismatches": 0
   },
   "zerocopy": null
  },
  "schema_version": 1,
  "status": "ok",
  "tool": "copybench",
  "tool_version": "0.1.0"
 },
 "failed_connect": {
  "config": {
   "cache": null,
   "command": "send",
   "cpus_sender": [],
   "duration_s": 0.3,
   "family": "unknown",
   "fields": 8,
   "file": null,
   "file_size": null,
   "host": "127.0.0.1",
   "method": "sendmsg",
   "mode": "stream",
   "no_sink": false,
   "port": 5391,
   "protocol": "tcp",
   "seed": 1,
   "size": 65536,
   "threads": 1,
   "verify": "sample",
   "warmup_s": 0.5
  },
  "error": "connect 127.0.0.1 port 5391: Connection refused",
  "result": null,
  "schema_version": 1,
  "status": "failed",
  "tool": "copybench",
  "tool_version": "0.1.0"
 },
 "pingpong": {
  "config": {
   "cache": null,
   "command": "send",
   "cpus_sender": [],
   "duration_s": 0.3,
   "family": "ipv4",
   "fields": 8,
   "file": null,
   "file_size": null,
   "host": "127.0.0.1",
   "method": "sendmsg",
   "mode": "pingpong",
   "no_sink": false,
   "port": 5398,
   "protocol": "tcp",
   "seed": 1,
   "size": 1024,
   "threads": 1,
   "verify": "sample",
   "warmup_s": 0.1
  },
  "error": null,
  "result": {
   "bytes": 11447296,
   "gbit_per_s": 0.305136173,
   "messages": 11179,
   "msgs_per_s": 37248.068,
   "receiver": {
    "bytes": 11445248,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 11186,
     "cpu_migrations": 0,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 72352088
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "cpus": [],
    "invol_ctx_switches": 3943,
    "major_faults": 0,
    "messages": 11177,
    "minor_faults": 0,
    "seconds": 0.300058175,
    "stime_s": 0.075976,
    "syscalls": 22355,
    "threads": 1,
    "utime_s": 0.006598,
    "vol_ctx_switches": 7243
   },
   "rtt_ns": {
    "count": 11179,
    "max": 3992818,
    "mean": 26776.8691,
    "p50": 14400,
    "p90": 15808,
    "p99": 37120,
    "p999": 3227648
   },
   "seconds": 0.300122949,
   "sender": {
    "bytes": 11447296,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 11188,
     "cpu_migrations": 0,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 79072603
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "invol_ctx_switches": 5510,
    "major_faults": 0,
    "messages": 11179,
    "minor_faults": 0,
    "seconds": 0.300122949,
    "stime_s": 0.076334,
    "syscalls": 22359,
    "threads": 1,
    "utime_s": 0.009107,
    "vol_ctx_switches": 5678
   },
   "verify": {
    "bytes_checked": 1054720,
    "first_mismatch": null,
    "mismatches": 0
   },
   "zerocopy": null
  },
  "schema_version": 1,
  "status": "ok",
  "tool": "copybench",
  "tool_version": "0.1.0"
 },
 "udp_no_sink": {
  "config": {
   "cache": null,
   "command": "send",
   "cpus_sender": [],
   "duration_s": 0.3,
   "family": "ipv4",
   "fields": 8,
   "file": null,
   "file_size": null,
   "host": "127.0.0.1",
   "method": "zerocopy",
   "mode": "stream",
   "no_sink": true,
   "port": 5397,
   "protocol": "udp",
   "seed": 1,
   "size": 1400,
   "threads": 1,
   "verify": "off",
   "warmup_s": 0.1
  },
  "error": null,
  "result": {
   "bytes": 24276000,
   "datagrams": {
    "lost": null,
    "received": null,
    "sent": 21498
   },
   "gbit_per_s": 0.632414305,
   "messages": 17340,
   "msgs_per_s": 56465.5629,
   "receiver": null,
   "receiver_unavailable": "--no-sink: nothing receives",
   "rtt_ns": null,
   "seconds": 0.307089828,
   "sender": {
    "bytes": 24276000,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 65,
     "cpu_migrations": 2,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 151884657
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "invol_ctx_switches": 65,
    "major_faults": 0,
    "messages": 17340,
    "minor_faults": 0,
    "seconds": 0.307089828,
    "stime_s": 0.138123,
    "syscalls": 69361,
    "threads": 1,
    "utime_s": 0.0135,
    "vol_ctx_switches": 0
   },
   "verify": null,
   "zerocopy": {
    "completions": 21498,
    "copied": 21498,
    "copied_fraction": 1,
    "enobufs": 0,
    "sends": 21498
   }
  },
  "schema_version": 1,
  "status": "ok",
  "tool": "copybench",
  "tool_version": "0.1.0"
 },
 "zerocopy_tcp": {
  "config": {
   "cache": null,
   "command": "send",
   "cpus_sender": [],
   "duration_s": 0.5,
   "family": "ipv4",
   "fields": 8,
   "file": null,
   "file_size": null,
   "host": "127.0.0.1",
   "method": "zerocopy",
   "mode": "stream",
   "no_sink": false,
   "port": 5399,
   "protocol": "tcp",
   "seed": 1,
   "size": 65536,
   "threads": 1,
   "verify": "sample",
   "warmup_s": 0.1
  },
  "error": null,
  "result": {
   "bytes": 638058496,
   "gbit_per_s": 10.2058168,
   "messages": 9736,
   "msgs_per_s": 19466.0506,
   "receiver": {
    "bytes": 637608736,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 1773,
     "cpu_migrations": 2,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 223215965
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "cpus": [],
    "invol_ctx_switches": 1727,
    "major_faults": 0,
    "messages": 9730,
    "minor_faults": 0,
    "seconds": 0.500150278,
    "stime_s": 0.186852,
    "syscalls": 2489,
    "threads": 1,
    "utime_s": 0.003165,
    "vol_ctx_switches": 46
   },
   "rtt_ns": null,
   "seconds": 0.500152814,
   "sender": {
    "bytes": 638058496,
    "counters": {
     "cache_misses": null,
     "cache_references": null,
     "context_switches": 1135,
     "cpu_migrations": 0,
     "cycles": null,
     "instructions": null,
     "l1d_load_misses": null,
     "llc_load_misses": null,
     "page_faults": 0,
     "task_clock_ns": 59145912
    },
    "counters_unavailable": {
     "cache_misses": "perf_event_open(cache_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cache_references": "perf_event_open(cache_references): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "cycles": "perf_event_open(cycles): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "instructions": "perf_event_open(instructions): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "l1d_load_misses": "perf_event_open(l1d_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)",
     "llc_load_misses": "perf_event_open(llc_load_misses): No such file or directory (no hardware PMU exposed, e.g. in this VM)"
    },
    "invol_ctx_switches": 39,
    "major_faults": 0,
    "messages": 9736,
    "minor_faults": 0,
    "seconds": 0.500152814,
    "stime_s": 0.064771,
    "syscalls": 20612,
    "threads": 1,
    "utime_s": 0.00413,
    "vol_ctx_switches": 1096
   },
   "verify": {
    "bytes_checked": 50397314,
    "first_mismatch": null,
    "mismatches": 0
   },
   "zerocopy": {
    "completions": 12374,
    "copied": 12374,
    "copied_fraction": 1,
    "enobufs": 0,
    "sends": 12374
   }
  },
  "schema_version": 1,
  "status": "ok",
  "tool": "copybench",
  "tool_version": "0.1.0"
 }
}
""")


def wrap(record: dict[str, Any], index: int = 0) -> dict[str, Any]:
    out = dict(record)
    out.update(run_id="20261122T000000Z-c", trial_id=f"cell-{index}", cell="cell",
               order_index=index, repetition=0, started_at="2026-11-22T02:49:21.123+00:00",
               loadavg=[0.1, 0.2, 0.3])
    config = dict(record["config"])
    is_copy = config["command"] == "copy"
    config.update(kind="copybench", placement="unpinned",
                  transport=None if is_copy else "udp-forward" if config["no_sink"] else "loopback")
    out["config"] = config
    return out


def problems(record: dict[str, Any]) -> list[str]:
    """The reader's check (rundir.records.check): a record of an older version (RECORDED
    holds version-1 prints) is checked as the reader upgrades it."""
    return records.check(record, "record")


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_c_records_fit_the_schema(name: str) -> None:
    assert problems(wrap(RECORDED[name])) == []


def _run(args: list[str], timeout: float = 20) -> dict[str, Any]:
    done = subprocess.run([str(BINARY), *args], capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"{args}: expected one record, got {done.stdout!r} {done.stderr!r}"
    record: dict[str, Any] = json.loads(lines[0])
    return record


def test_live_c_records_fit_the_schema(tmp_path: Path) -> None:
    if not BINARY.is_file():
        pytest.skip("src/build/copybench not built (make build)")
    sink = subprocess.Popen([str(BINARY), "sink", "--port", "0", "--bind", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert sink.stdout is not None
        ready = json.loads(sink.stdout.readline())
        port = str(ready["port"])
        common = ["--host", "127.0.0.1", "--port", port, "--duration", "0.2", "--warmup", "0.05"]
        records = [
            _run(["send", "--method", "sendmsg", "--size", "16K", *common]),
            _run(["send", "--method", "zerocopy", "--size", "64K", *common]),
            _run(["send", "--method", "send", "--mode", "pingpong", "--size", "1K", *common]),
            _run(["copy", "--method", "sendfile", "--size", "1M", "--dir", str(tmp_path),
                  "--duration", "0.2", "--warmup", "0.05"]),
        ]
    finally:
        sink.terminate()
        sink.wait(timeout=10)
    for index, record in enumerate(records):
        assert problems(wrap(record, index)) == [], record["config"]


def _reference_original_record() -> dict[str, Any]:
    """One ok trial of a report's own program from the committed reference run."""
    import gzip

    from conftest import committed_reference_run
    ref = committed_reference_run()
    packed = ref / "trials.jsonl.gz" if ref else None
    if packed is None or not packed.is_file():
        pytest.skip("no packed committed reference run")
    with gzip.open(packed, "rt") as f:
        for line in f:
            rec: dict[str, Any] = json.loads(line)
            if str(rec["config"].get("kind", "")).startswith("original:") \
                    and rec["status"] == "ok":
                return rec
    pytest.skip(f"the reference run {ref.name} has no trial of the reports' programs")


def test_a_report_programs_record_fits_the_schema_and_its_own_branch_of_it() -> None:
    rec = _reference_original_record()
    assert problems(rec) == []
    bad_kind = json.loads(json.dumps(rec))
    bad_kind["config"]["kind"] = "original:anything"
    assert problems(bad_kind)
    no_theirs = json.loads(json.dumps(rec))
    del no_theirs["result"]["theirs"]
    assert problems(no_theirs)
    # a CPU list as taskset takes it is theirs only: copybench's records carry arrays
    mine = wrap(RECORDED[sorted(RECORDED)[0]])
    mine["config"]["cpus_sender"] = "0"
    assert problems(mine)

"""A cell's ``sink = "kept"`` (the noise study's control of a sink kept across trials): its
trials share one copybench sink per transport and sink CPUs, which serves their sessions one
after another, while the other cells' trials each start their own; the records say which
(``config.sink``, ``invocation.kept_sink``). Nothing is left running: the kept sink is
stopped and reaped at the sweep's end, when the sweep is interrupted, and by the reaper when
the sweep is killed.

Real sweeps on loopback (no privilege needed)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, run_runner, runner_cmd, runner_env, runner_tagged_pids, \
    write_sweep_profile
from rundir import verify as v

# real sweeps that start and stop sinks and namespaces (about 30 s): the slower target
pytestmark = [pytest.mark.sweep, pytest.mark.slow]

KEPT = {"name": "kept", "command": "send", "methods": ["send", "sendmsg"], "sizes": ["16K"],
        "transports": ["loopback"], "placements": ["cross-core"], "sink": "kept"}
FRESH = {"name": "fresh", "command": "send", "methods": ["send"], "sizes": ["16K"],
         "transports": ["loopback"], "placements": ["cross-core"]}


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trials.jsonl").read_text().splitlines()]


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_kept_cells_share_one_sink_and_the_others_start_their_own(
        runner_copybench: Path, tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "k", repetitions={"min": 3, "max": 3},
                               experiments=[KEPT, FRESH])
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = sorted(_records(run), key=lambda x: x["order_index"])
    assert len(recs) == 9 and all(x["status"] == "ok" for x in recs), \
        [x["error"] for x in recs if x["status"] != "ok"]
    kept = [x for x in recs if x["config"]["experiment"] == "kept"]
    fresh = [x for x in recs if x["config"]["experiment"] == "fresh"]
    assert {x["config"]["sink"] for x in kept} == {"kept"}
    assert {x["config"]["sink"] for x in fresh} == {"fresh"}
    # one sink process served all six kept trials, one after another ...
    ks = [x["invocation"]["kept_sink"] for x in kept]
    assert len({k["pid"] for k in ks}) == 1, ks
    assert [k["trial"] for k in ks] == list(range(1, 7)) and all(k["alive_after"] for k in ks)
    assert all("--once" not in x["invocation"]["sink"] for x in kept)
    # ... while each fresh trial had a sink of its own, for one session
    assert all("kept_sink" not in x["invocation"] and "--once" in x["invocation"]["sink"]
               for x in fresh)
    # and it is gone with the sweep
    assert not _alive(ks[0]["pid"])
    validator = v.validator_for(v.load_schema(v.TRIAL_SCHEMA))
    assert [p for x in recs for p in v.schema_problems(validator, x, "record")] == []


def _kept_sinks(tag: str) -> list[int]:
    out = []
    for pid in runner_tagged_pids(tag):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"sink" in argv and b"--once" not in argv and any(a.endswith(b"copybench")
                                                            for a in argv):
            out.append(pid)
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_nothing_is_left_when_the_sweep_is_stopped(runner_copybench: Path, tmp_path: Path,
                                                   sig: signal.Signals) -> None:
    """SIGTERM: the sweep stops its kept sink itself; SIGKILL: its reaper does."""
    prof = write_sweep_profile(tmp_path, "k", duration_s=1.0,
                               repetitions={"min": 5, "max": 5}, experiments=[KEPT])
    tag = uuid.uuid4().hex
    p = subprocess.Popen(runner_cmd("sweep", "--profile", str(prof), "--run-dir",
                                    str(tmp_path / "run"), "--no-progress"),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(ROOT),
                         env=runner_env(RUNNER_TEST_TAG=tag))
    deadline = time.monotonic() + 120
    while not _kept_sinks(tag):
        assert p.poll() is None and time.monotonic() < deadline, "no kept sink ever ran"
        time.sleep(0.02)
    time.sleep(0.5)  # into a trial
    p.send_signal(sig)
    p.wait(timeout=60)
    deadline = time.monotonic() + 30
    while runner_tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not runner_tagged_pids(tag)

"""What ``ok`` means is checked by ``verify`` with the rule the runner marks a trial ok by
(rundir.okrule): an ok record edited to carry verification mismatches, a missed window or no
bytes fails verification, and ``seal`` refuses to seal it again. ``seal`` and ``pack`` refuse a
run that is not finished unless told it is final (``--final``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import ROOT, SMALL_RUN_TRIALS, copy_run
from rundir.records import TrialRecord
from rundir.verify import verify
from runner.sweep.trials import held_to_ok_rule

PY = sys.executable

pytestmark = pytest.mark.sweep  # the shared run is made by a real sweep

TAMPER: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "mismatches": (lambda res: res["verify"].update(mismatches=5),
                   "status ok but result.verify.mismatches = 5"),
    "window missed": (lambda res: res["window"].update(missed=True),
                      "status ok but result.window.missed = True"),
    "no bytes": (lambda res: res.update(bytes=0), "status ok but result.bytes = 0"),
}


def _rundir(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "rundir", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


@pytest.mark.parametrize("case", list(TAMPER))
def test_an_ok_record_that_does_not_mean_ok_fails_verify(runner_small_run: Path,
                                                         tmp_path: Path, case: str) -> None:
    change, expected = TAMPER[case]
    run = copy_run(runner_small_run, tmp_path / "run")
    lines = (run / "trials.jsonl").read_text().splitlines(keepends=True)
    rec = json.loads(lines[4])
    assert rec["status"] == "ok" and verify(run).ok
    change(rec["result"])
    lines[4] = json.dumps(rec) + "\n"
    (run / "trials.jsonl").write_text("".join(lines))
    r = _rundir("seal", str(run))  # not sealed again: the records changed since the seal
    assert r.returncode == 2 and "trials.jsonl (changed)" in r.stderr, r.stderr
    r = _rundir("seal", str(run), "--reseal", "as if deliberate")  # nor by the ok rule
    assert r.returncode == 2 and f"trials.jsonl:5: {expected}" in r.stderr, r.stderr
    r = _rundir("verify", str(run))
    assert r.returncode == 1, r.stdout
    assert f"trials.jsonl:5: {expected}" in r.stdout, r.stdout


@pytest.mark.parametrize("case", list(TAMPER))
def test_the_runner_marks_such_a_result_failed(runner_small_run: Path, case: str) -> None:
    """The same rule, where the runner decides a record's status (runner.sweep.trials)."""
    change, expected = TAMPER[case]
    line = json.loads((runner_small_run / "trials.jsonl").read_text().splitlines()[4])
    rec = TrialRecord(**{k: line[k] for k in (
        "run_id", "trial_id", "cell", "order_index", "repetition", "started_at", "loadavg",
        "tool", "tool_version", "config", "status", "error", "result")})
    assert held_to_ok_rule(rec).status == "ok"
    change(rec.result)
    out = held_to_ok_rule(rec)
    assert out.status == "failed"
    assert out.error and expected.removeprefix("status ok but ") in out.error


def test_seal_and_pack_refuse_an_unfinished_run(runner_small_run: Path,
                                                tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=4)
    for cmd in ("seal", "pack"):
        if cmd == "pack":
            assert _rundir("seal", str(run), "--final").returncode == 0
        before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
        r = _rundir(cmd, str(run))
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert (f"{cmd}: {run} is not finished: {SMALL_RUN_TRIALS - 4} of "
                f"{SMALL_RUN_TRIALS} planned trials recorded") in lines[0], lines[0]
        assert f"python -m rundir {cmd} {run} --final" in lines[0], lines[0]
        assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    r = _rundir("pack", str(run), "--final")
    assert r.returncode == 0, r.stderr
    assert (run / "trials.jsonl.gz").is_file() and verify(run).ok

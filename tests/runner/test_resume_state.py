"""Damaged or tampered state is refused before anything runs or is written: ``--resume`` of a
run whose plan, records, profile copy or manifest is broken, or no longer agrees with the
rest, is one line naming the file, the line and what is wrong (exit 2), and the run
directory is byte for byte as it was; so is a profile or inventory that is not UTF-8, and a
copybench that is missing, not executable or not copybench (checked before a run is made).
An interrupted run that is intact resumes to a run that verifies."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import SMALL_RUN_TRIALS, copy_run, run_runner, tree_digest, write_sweep_profile
from rundir.verify import verify
from runner.sweep import cli
from runner.plan.cells import Plan
from runner.plan.rounds import planned_rounds

pytestmark = pytest.mark.sweep

#: the interrupted copy keeps 8 of the 12 trials
KEPT = SMALL_RUN_TRIALS - 4


def _edit_record(i: int, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:
        lines = (d / "trials.jsonl").read_text().splitlines(keepends=True)
        rec = json.loads(lines[i])
        change(rec)
        lines[i] = json.dumps(rec) + "\n"
        (d / "trials.jsonl").write_text("".join(lines))
    return tamper


def _edit_plan(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:
        doc = json.loads((d / "plan.json").read_text())
        change(doc)
        (d / "plan.json").write_text(json.dumps(doc, indent=1) + "\n")
    return tamper


def _garbage_line(d: Path) -> None:
    lines = (d / "trials.jsonl").read_text().splitlines(keepends=True)
    lines.insert(3, "garbage\n")
    (d / "trials.jsonl").write_text("".join(lines))


def _cut_plan(d: Path) -> None:
    data = (d / "plan.json").read_bytes()
    (d / "plan.json").write_bytes(data[:len(data) // 2])


def _drop_planned_trial(doc: dict[str, Any]) -> None:
    doc["rounds"][-1].pop()  # a trial of the last round, not yet run


def _seed_and_rounds(doc: dict[str, Any]) -> None:
    """The seed edited and the rounds made again from it: the plan agrees with itself, the
    records' seeds do not."""
    doc["seed"] += 1
    doc["rounds"] = planned_rounds(Plan.from_json(doc))


def _teleport(doc: dict[str, Any]) -> None:
    next(iter(doc["cells"].values()))["method"] = "teleport"


def _duplicate(d: Path) -> None:
    lines = (d / "trials.jsonl").read_text().splitlines(keepends=True)
    (d / "trials.jsonl").write_text("".join(lines + lines[1:2]))


def _edit_profile_copy(d: Path) -> None:
    """Another window in the run's profile copy: none of the planned cells could be made
    again from it."""
    copy = d / "profiles" / "small.toml"
    copy.write_text(copy.read_text().replace("duration_s = 0.2", "duration_s = 0.3"))
    assert "duration_s = 0.3" in copy.read_text()


CASES = {
    "garbage line in trials.jsonl": (_garbage_line, "trials.jsonl:4: not a JSON record"),
    "plan.json cut in half": (_cut_plan, "plan.json:"),
    "plan.json is [1,2,3]": (lambda d: (d / "plan.json").write_text("[1,2,3]"),
                             "plan.json: a JSON list, not the plan object"),
    "bytes appended to plan.json": (
        lambda d: (d / "plan.json").write_bytes((d / "plan.json").read_bytes() + b"\xff\xfe"),
        "byte 0xff is not UTF-8"),
    "foreign trial_id": (_edit_record(2, lambda r: r.update(trial_id="0123456789ab-1")),
                         "trials.jsonl:3: trial '0123456789ab-1' is not a trial of this run's "
                         "plan"),
    "status maybe": (_edit_record(2, lambda r: r.update(status="maybe")),
                     "trials.jsonl:3: status 'maybe' (allowed: ok, failed, timeout)"),
    "record of another run": (_edit_record(0, lambda r: r.update(run_id="other")),
                              "trials.jsonl:1: run_id 'other' is not this run's"),
    "trial recorded twice": (_duplicate, "recorded twice (first on line 2)"),
    "ok record with mismatches": (
        _edit_record(1, lambda r: r["result"]["verify"].update(mismatches=5)),
        "trials.jsonl:2: status ok but result.verify.mismatches = 5"),
    "plan trial removed": (_edit_plan(_drop_planned_trial), "plan.json: rounds[3]: not the round"),
    "plan seed edited": (_edit_plan(lambda p: p.update(seed=p["seed"] + 1)),
                         "plan.json: rounds[1]: not the round its cells and seed 12 make"),
    "plan seed and rounds edited": (_edit_plan(_seed_and_rounds),
                                    "trials.jsonl:1: config.seed"),
    "plan method teleport": (_edit_plan(_teleport), "unknown method 'teleport'"),
    "manifest.json deleted": (lambda d: (d / "manifest.json").unlink(),
                              f"manifest.json: missing, but {KEPT} trials are recorded"),
    "sessions.json damaged": (lambda d: (d / "sessions.json").write_text("{\"x\": 1}"),
                              "sessions.json: not a JSON list of sessions"),
    "profile copy edited": (_edit_profile_copy, "profiles/small.toml: edited since the plan"),
}


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr[-3000:]
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize("case", list(CASES))
def test_damaged_state_is_refused_and_nothing_is_written(
        runner_small_run: Path, tmp_path: Path, case: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The command's own main(), in this process (the runner's start-up, 1-3 s a process on a
    loaded 2-CPU machine, would make these 15 cases a minute); the first case runs as a
    process too, for its exit status and stderr as a user sees them."""
    tamper, expected = CASES[case]
    run = copy_run(runner_small_run, tmp_path / "run", drop=SMALL_RUN_TRIALS - KEPT)
    tamper(run)
    before = tree_digest(run)
    argv = ["sweep", "--resume", "--run-dir", str(run), "--no-progress"]
    if case == next(iter(CASES)):
        r = run_runner(*argv, timeout=120)
        rc, stderr = r.returncode, r.stderr
    else:
        rc, stderr = cli.main(argv), capsys.readouterr().err
    line = _one_line(stderr)
    assert rc == 2, (rc, line)
    assert expected in line and "nothing was run or written" in line, line
    assert str(run) in line, line
    assert tree_digest(run) == before


def test_an_intact_interrupted_run_resumes_and_verifies(runner_small_run: Path,
                                                       tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=SMALL_RUN_TRIALS - KEPT)
    with open(run / "trials.jsonl", "ab") as f:
        f.write(b'{"trial_id": "torn')  # a write the interruption cut short
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ids = [json.loads(x)["trial_id"] for x in (run / "trials.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == SMALL_RUN_TRIALS
    assert verify(run).ok, verify(run).problems


def test_input_that_is_not_utf8_is_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The profile as a process, the inventory in this process (main())."""
    prof = write_sweep_profile(tmp_path, "u")
    prof.write_bytes(prof.read_bytes().replace(b'name = "u"', b'name = "u\xff"'))
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(tmp_path / "a"),
                   timeout=60)
    line = _one_line(r.stderr)
    assert r.returncode == 2 and "line 2, column 10: byte 0xff is not UTF-8" in line, line
    inv = tmp_path / "inv.toml"
    inv.write_bytes(b'[remote]\nhost = "x\xff"\n')
    good = write_sweep_profile(tmp_path, "g")
    rc = cli.main(["sweep", "--profile", str(good), "--inventory", str(inv), "--run-dir",
                   str(tmp_path / "b")])
    line = _one_line(capsys.readouterr().err)
    assert rc == 2 and f"inventory {inv}: line 2, column 10" in line, line
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("kind", ["missing", "not executable", "not copybench"])
def test_a_bad_copybench_is_refused_before_the_sweep(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """As a process for the first kind, in this process (main()) for the others."""
    binary = {"missing": tmp_path / "nope", "not executable": tmp_path / "plain",
              "not copybench": Path("/bin/true")}[kind]
    if kind == "not executable":
        binary.write_text("#!/bin/sh\n")
        os.chmod(binary, 0o644)
    prof = write_sweep_profile(tmp_path, "b")
    argv = ["sweep", "--profile", str(prof), "--run-dir", str(tmp_path / "run")]
    if kind == "missing":
        r = run_runner(*argv, timeout=60, COPYBENCH_BIN=str(binary))
        rc, stderr = r.returncode, r.stderr
    else:
        monkeypatch.setenv("COPYBENCH_BIN", str(binary))
        rc, stderr = cli.main(argv), capsys.readouterr().err
    line = _one_line(stderr)
    assert rc == 2, line
    said = {"missing": "no such file", "not executable": "not an executable file",
            "not copybench": "not copybench"}[kind]
    assert line.startswith(f"runner: COPYBENCH_BIN={binary}: {said}"), line
    assert not (tmp_path / "run").exists()

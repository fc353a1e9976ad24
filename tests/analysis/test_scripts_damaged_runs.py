"""Every command that reads a run, given a run damaged in the ways a run gets damaged (no
records file, a record with an infinite or a text throughput, a record without its cell, no
records at all, only failed trials), ends in one line naming what is wrong, exit 2, no
traceback, and writes nothing. The scripts read a run through the one loader
(:func:`analysis.loading.run.load_run`, whose error is ``BadRun``; studies/_runs.py for
the scripts); a run with nothing measured has nothing to report and says so.

Real processes on copies of a small synthetic run (tests/fixtures/make_synthetic_run.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT

#: too slow for make test (every run-reading command on every damaged run: about 40 processes
#: that load the analysis stack): make test-slow runs it
pytestmark = pytest.mark.slow

PY = sys.executable


def _record(n: int) -> Callable[[Path, Callable[[dict], None]], None]:
    def change(run: Path, how: Callable[[dict], None]) -> None:
        lines = (run / "trials.jsonl").read_text().splitlines()
        rec = json.loads(lines[n])
        how(rec)
        lines[n] = json.dumps(rec)
        (run / "trials.jsonl").write_text("\n".join(lines) + "\n")
    return change


def _all_failed(run: Path) -> None:
    out = []
    for line in (run / "trials.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec.update(status="failed", error="copybench send: connection refused", result=None)
        out.append(json.dumps(rec))
    (run / "trials.jsonl").write_text("\n".join(out) + "\n")


SIXTH = _record(5)
#: how each damage is made on a copy of a good run
DAMAGE: dict[str, Callable[[Path], None]] = {
    "no-trials-file": lambda run: (run / "trials.jsonl").unlink(),
    "infinite-throughput": lambda run: SIXTH(
        run, lambda r: r["result"].__setitem__("gbit_per_s", float("inf"))),
    "text-throughput": lambda run: SIXTH(
        run, lambda r: r["result"].__setitem__("gbit_per_s", "fast")),
    "missing-cell": lambda run: SIXTH(run, lambda r: r.pop("cell")),
    "no-records": lambda run: (run / "trials.jsonl").write_text(""),
    "all-failed": _all_failed,
}

#: each command that reads a run: its arguments given the damaged run X, a good run G and a
#: scratch directory S (where an output would go)
COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "check_noise_model": lambda x, g, s: ["studies/check_noise_model.py", str(g), str(x)],
    "run_targets": lambda x, g, s: ["studies/run_targets.py", str(x)],
    "findings_text": lambda x, g, s: ["scripts/findings_text.py", str(x), str(s / "text")],
    "noise_sources": lambda x, g, s: ["studies/noise_sources.py", str(x)],
    "reproduction_criterion --pair": lambda x, g, s: [
        "studies/reproduction_criterion.py", "--pair", str(g), str(x)],
    "simulate_designs --run": lambda x, g, s: [
        "studies/simulate_designs.py", "--run", str(x), "--effects", str(g), "--runs", "2",
        "--out", str(s / "table.csv")],
    "shared_time": lambda x, g, s: ["studies/shared_time.py", str(x)],
    "runner noise": lambda x, g, s: ["-m", "runner", "noise", "--out", str(s / "noise.toml"),
                                     str(x)],
}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("runs") / "synthetic"
    subprocess.run([PY, str(ROOT / "tests" / "fixtures" / "make_synthetic_run.py"), str(run),
                    "--small", "--blocks"], check=True, capture_output=True, timeout=120)
    return run


def _start(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run([PY, *argv], capture_output=True, text=True, cwd=str(ROOT), env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def _one_line(r: subprocess.CompletedProcess[str]) -> str:
    said = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 2, (r.returncode, r.stdout[-1500:], r.stderr[-1500:])
    assert len(said) == 1, said[:12]
    return said[0]


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_damaged_run_is_one_line(command: str, damage: str, good_run: Path,
                                   tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    DAMAGE[damage](run)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    line = _one_line(_start(COMMANDS[command](run, good_run, scratch)))
    assert str(run) in line, line  # it names the run (or its file)
    assert not any(scratch.iterdir()), f"written: {sorted(scratch.iterdir())}"


@pytest.mark.parametrize("damage", ["no-records", "all-failed"])
def test_findings_text_says_there_is_nothing_to_report(damage: str, good_run: Path,
                                                        tmp_path: Path) -> None:
    """No trial measured: no findings, said in one line (exit 2), not an empty folder and
    exit 0, which a diff of two commits' words would read as every finding gone."""
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    DAMAGE[damage](run)
    line = _one_line(_start(["scripts/findings_text.py", str(run), str(tmp_path / "text")]))
    assert "nothing to report" in line, line
    assert not (tmp_path / "text").exists()


def test_reproduction_criterion_raw_names_a_damaged_run(good_run: Path,
                                                        tmp_path: Path) -> None:
    """--raw reads every pair of runs below it (a claims run and the paper run made before
    it on the same machine): a damaged one is named, not a traceback."""
    raw = tmp_path / "raw"
    for name, profile, made in (("20261121T000000Z-paper", "paper", "2026-11-21T00:00:00Z"),
                                ("20261122T000000Z-claims", "claims", "2026-11-22T00:00:00Z")):
        shutil.copytree(good_run, raw / name)
        plan = json.loads((raw / name / "plan.json").read_text())
        plan.update(profile=profile, created_at=made)
        (raw / name / "plan.json").write_text(json.dumps(plan))
    SIXTH(raw / "20261122T000000Z-claims", lambda r: r.pop("cell"))
    (raw / "20261122T000000Z-claims" / "trials.jsonl").write_text(
        (raw / "20261122T000000Z-claims" / "trials.jsonl").read_text().replace(
            '"gbit_per_s"', '"gbit_per_s": NaN, "x"', 1))
    line = _one_line(_start(["studies/reproduction_criterion.py", "--raw", str(raw)]))
    assert "20261122T000000Z-claims/trials.jsonl:1" in line, line


def test_check_noise_model_with_one_run_says_why(good_run: Path) -> None:
    """The first run is the pilot; with no other run there is nothing to check."""
    line = _one_line(_start(["studies/check_noise_model.py", str(good_run)]))
    assert "1 run given" in line, line

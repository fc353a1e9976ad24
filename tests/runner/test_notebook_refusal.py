"""``runner notebook --resume`` on a run the sweep refuses (exit 2) writes nothing into it:
no ``sweep.ipynb`` is added to a packed run (which would then fail ``verify``) or to a
damaged one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_run, run_runner, tree_digest
from rundir.verify import verify


def _packed(run: Path, dest: Path) -> Path:
    d = copy_run(run, dest)
    r = subprocess.run([sys.executable, "-m", "rundir", "pack", str(d)], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return d


def _damaged(run: Path, dest: Path) -> Path:
    """Interrupted before its last 2 trials, then a round of its plan edited."""
    d = copy_run(run, dest, drop=2)
    plan = json.loads((d / "plan.json").read_text())
    plan["rounds"][0] = plan["rounds"][0][::-1]
    (d / "plan.json").write_text(json.dumps(plan, indent=1) + "\n")
    return d


@pytest.mark.parametrize("state", ["packed", "damaged"])
def test_a_refused_resume_writes_nothing_into_the_run(runner_small_run: Path, tmp_path: Path,
                                                      state: str) -> None:
    run = (_packed if state == "packed" else _damaged)(runner_small_run, tmp_path / "run")
    before = tree_digest(run)
    r = run_runner("notebook", "--resume", "--run-dir", str(run), timeout=180)
    assert r.returncode == 2, r.stderr[-3000:]
    assert ("is packed" if state == "packed" else "rounds[1]") in r.stderr, r.stderr[-3000:]
    assert tree_digest(run) == before, sorted(set(tree_digest(run)) ^ set(before))
    if state == "packed":
        assert verify(run).ok, verify(run).problems

"""``runner notebook --resume`` on a run the sweep refuses (exit 2) writes nothing into it:
no ``sweep.ipynb`` is added to a packed run (which would then fail ``verify``) or to a
damaged one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import copy_run, tree_digest
from rundir.verify import pack, verify
from runner.sweep import cli


def _packed(run: Path, dest: Path) -> Path:
    d = copy_run(run, dest)
    pack(d)
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
                                                      state: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The command's main() in this process (its start-up, papermill's import, costs
    seconds a process on a loaded machine)."""
    run = (_packed if state == "packed" else _damaged)(runner_small_run, tmp_path / "run")
    before = tree_digest(run)
    code = cli.main(["notebook", "--resume", "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 2, err[-3000:]
    assert ("is packed" if state == "packed" else "rounds[1]") in err, err[-3000:]
    assert tree_digest(run) == before, sorted(set(tree_digest(run)) ^ set(before))
    if state == "packed":
        assert verify(run).ok, verify(run).problems

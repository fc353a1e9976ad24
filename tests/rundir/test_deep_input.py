"""Input nested deeper than any file of the project (100,000 brackets of JSON, 3,000 levels
of TOML) is refused in one line like any other bad input, never a RecursionError traceback:
``rundir verify`` and ``rundir check`` (exit 1: the run does not verify), ``runner sweep
--resume`` (exit 2, the run untouched) and ``runner plan`` (exit 2). In this process."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import tree_digest
from rundir import cli as rundir_cli
from runner.sweep import cli as runner_cli

DEEP_JSON = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def call(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str]]:
    """A command's main in this process: its exit code and its output (stdout + stderr)."""
    def run(main: Callable[[list[str]], int], *args: str) -> tuple[int, str]:
        try:
            code = main(list(args))
        except SystemExit as e:
            code = int(e.code or 0)
        out = capsys.readouterr()
        return code, out.out + out.err
    return run


def _run_with(tmp_path: Path, where: str) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "plan.json").write_text(DEEP_JSON if where == "plan" else "{}\n")
    (run / "trials.jsonl").write_text((DEEP_JSON if where == "record" else "{}") + "\n")
    return run


@pytest.mark.parametrize(("command", "where"), [("verify", "plan"), ("verify", "record"),
                                                ("check", "record")])
def test_rundir_readers_refuse_deep_json(tmp_path: Path, where: str, command: str,
                                         call: Callable[..., tuple[int, str]]) -> None:
    run = _run_with(tmp_path, where)
    code, out = call(rundir_cli.main, command, str(run))
    assert code == 1, out[-2000:]
    assert "nested more than 64 levels deep" in out and "Traceback" not in out
    deep = [ln for ln in out.splitlines() if "nested more than" in ln]
    assert len(deep) == 1 and ("plan.json" if where == "plan" else "trials.jsonl:1") in deep[0]


def test_resume_refuses_a_deep_plan(tmp_path: Path, call: Callable[..., tuple[int, str]]) -> None:
    run = _run_with(tmp_path, "plan")
    before = tree_digest(run)
    code, out = call(runner_cli.main, "sweep", "--resume", "--run-dir", str(run),
                     "--no-progress")
    assert code == 2, out[-2000:]
    lines = out.strip().splitlines()
    assert len(lines) == 1 and "plan.json" in lines[0] and "nested more than" in lines[0], out
    assert tree_digest(run) == before


def test_plan_refuses_a_deep_profile(tmp_path: Path, call: Callable[..., tuple[int, str]]) -> None:
    prof = tmp_path / "deep.toml"
    prof.write_text('[profile]\nname = "deep"\nx = ' + "[" * 3000 + "]" * 3000 + "\n")
    code, out = call(runner_cli.main, "plan", "--profile", str(prof))
    assert code == 2, out[-2000:]
    lines = out.strip().splitlines()
    assert len(lines) == 1 and "deep.toml" in lines[0] and "nested more than" in lines[0], out


def test_inventory_noise_model_and_planning_file_refuse_deep_toml(tmp_path: Path) -> None:
    """The other TOML inputs a user names (``--inventory``, a profile's noise model and
    planning file): one UsageError line each."""
    from runner.plan import blocks as design
    from runner.host import inventory
    from runner.plan import topup
    from runner.host.errors import UsageError
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    for load in (lambda: inventory.load_inventory(str(deep)),
                 lambda: design.Noise.load(deep), lambda: topup.load_effects(deep)):
        with pytest.raises(UsageError, match="nested more than 64 levels deep"):
            load()

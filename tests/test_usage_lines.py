"""Usage of the command lines a user types (#51, defects 14 and 16): help is help (exit 0),
an empty value is an error that says so, and a seed outside a plan's is refused alike by
every command that takes one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_runner, write_sweep_profile


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_rundir_help_is_help(flag: str) -> None:
    r = subprocess.run([sys.executable, "-m", "rundir", flag], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout and "seal" in r.stdout and "verify" in r.stdout
    assert len(r.stdout.splitlines()) > 3  # the commands explained, not one usage line


def test_make_book_with_an_empty_run_says_so() -> None:
    """``make book RUN=`` (empty) is not "no committed reference run" (there is one)."""
    r = subprocess.run(["make", "--no-print-directory", "-s", "book", "RUN=", "SETUP_DONE=1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "RUN is empty" in r.stderr and "no committed reference run" not in r.stderr


@pytest.mark.parametrize("command", ["notebook", "sweep", "plan"])
def test_a_negative_seed_is_refused_alike(command: str, tmp_path: Path) -> None:
    """``runner notebook --seed -1`` used to take the profile's seed, where ``sweep`` and
    ``plan`` planned with -1, which plan.json's schema refuses (a run that fails verify):
    all three now refuse it in one line, exit 2, before anything is created."""
    profile = write_sweep_profile(tmp_path, "nb", seed=7)
    args = [command, "--profile", str(profile), "--seed", "-1"]
    if command != "plan":
        args += ["--run-dir", str(tmp_path / "run")]
    r = run_runner(*args, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and "--seed" in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()

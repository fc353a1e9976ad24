"""``--seed`` is a profile's seed, 0 to 2**63-1, for ``sweep``, ``plan`` and ``notebook``
alike: ``--seed -1`` is refused by each (``notebook`` does not take the profile's seed in
its place, nor ``sweep`` and ``plan`` plan with -1, a plan its schema refuses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_runner, write_sweep_profile


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

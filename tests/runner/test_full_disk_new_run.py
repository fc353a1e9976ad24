"""A disk that fills while a new run is created (its profile copy or plan.json cannot be
written: ENOSPC) leaves nothing: not ``run/profiles/``, after which a new sweep said "not
empty, use --resume" and ``--resume`` said "no plan.json" (#51, defect 9). A real full file
system: a tmpfs of one page, mounted here (root)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run_runner, write_sweep_profile

pytestmark = [pytest.mark.root, pytest.mark.sweep]


@pytest.fixture
def full_disk(runner_root: None, tmp_path: Path):  # type: ignore[no-untyped-def]
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(mnt)],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, check=False)


def test_enospc_while_creating_a_run_leaves_nothing(full_disk: Path, tmp_path: Path) -> None:
    # a profile copy larger than the file system's one page: its write fails with ENOSPC
    profile = write_sweep_profile(tmp_path, "full", seed=3, duration_s=0.1,
                                  repetitions={"min": 1, "max": 1})
    profile.write_text(profile.read_text() + "#" * 8192 + "\n")
    run_dir = full_disk / "run"
    r = run_runner("sweep", "--profile", str(profile), "--run-dir", str(run_dir),
                   "--no-progress", timeout=120)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "No space left on device" in r.stderr, r.stderr[-2000:]
    assert not run_dir.exists() or list(run_dir.iterdir()) == [], list(run_dir.rglob("*"))

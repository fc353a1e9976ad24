"""A disk that fills while a new run is created (its profile copy or plan.json cannot be
written: ENOSPC) leaves nothing: not ``run/profiles/``, after which a new sweep would say "not
empty, use --resume" and ``--resume`` "no plan.json". A real full file
system: a tmpfs of one page, mounted here (root)."""

from __future__ import annotations

import json
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from conftest import run_runner, write_sweep_profile

pytestmark = [pytest.mark.root, pytest.mark.sweep]


@contextmanager
def tmpfs(mnt: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``mnt`` for the block (skipped where none can be)."""
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, check=False)


@pytest.fixture
def full_disk(runner_root: None, tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "mnt", "4k") as mnt:
        yield mnt


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


PROFILED = """[profile]
name = "pf"
seed = 3
duration_s = 1.0
warmup_s = 0.05

[repetitions]
min = 1
max = 1

[[experiment]]
name = "cpu-profile"
command = "send"
methods = ["zerocopy"]
sizes = ["16K"]
transports = ["loopback"]
placements = ["cross-core"]
perf = true
"""


@pytest.fixture
def small_disk(runner_root: None, tmp_path: Path) -> Iterator[Path]:
    """Room for a run's plan, manifest and records, not for a second of perf.data."""
    with tmpfs(tmp_path / "small", "256k") as mnt:
        yield mnt


def test_a_profiled_trial_on_a_full_disk_stops_the_sweep_and_resumes(
        small_disk: Path, tmp_path: Path, runner_copybench: Path) -> None:
    """The profiled trial's perf.data fills the disk: the sweep stops, saying ENOSPC (perf
    record -q says nothing; not "sender printed no JSON record" or "sender killed by signal
    15"), and records no result for it; with room again, a resume runs it (recorded failed
    with "free space ... and resume it", it would stay failed: a resume runs only what is not
    recorded)."""
    from runner.host import cpuprofile
    ok, why = cpuprofile.available()
    if not ok:
        pytest.skip(f"perf record does not work here: {why}")
    profile = tmp_path / "pf.toml"
    profile.write_text(PROFILED)
    run_dir = small_disk / "run"
    r = run_runner("sweep", "--profile", str(profile), "--run-dir", str(run_dir),
                   "--no-progress", timeout=180)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "No space left on device" in r.stderr and "(ENOSPC)" in r.stderr \
        and "resume with" in r.stderr, \
        r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    trials = run_dir / "trials.jsonl"
    recs = [json.loads(x) for x in trials.read_text().splitlines()] if trials.exists() else []
    assert not [x for x in recs if x["config"].get("profiled")], recs
    assert not list((run_dir / "perf").glob("*.perf.data*")), "perf.data left behind"
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    r = run_runner("sweep", "--resume", "--run-dir", str(run_dir), "--no-progress",
                   timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    recs = [json.loads(x) for x in trials.read_text().splitlines()]
    profiled = [x for x in recs if x["config"].get("profiled")]
    assert len(profiled) == 1 and profiled[0]["status"] == "ok", profiled


@pytest.fixture
def filled_disk(runner_root: None, tmp_path: Path) -> Iterator[Path]:
    """A file system with no byte free: not even the lock file's holder line fits."""
    with tmpfs(tmp_path / "filled", "64k") as mnt:
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:  # ENOSPC: full
            pass
        finally:
            os.close(fd)
        yield mnt


def test_a_notebook_on_a_full_disk_says_the_disk_is_full(filled_disk: Path, tmp_path: Path,
                                                         runner_copybench: Path) -> None:
    """With no room for the holder line of the driver's lock file, the sweep in the notebook's
    kernel, the borrower of that lock, is not refused as if "being written by another
    process": the full disk is said."""
    profile = write_sweep_profile(tmp_path, "nb", seed=3, duration_s=0.1,
                                  repetitions={"min": 1, "max": 1})
    run_dir = filled_disk / "run"
    r = run_runner("notebook", "--profile", str(profile), "--run-dir", str(run_dir),
                   timeout=300)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "No space left on device" in r.stderr, r.stderr[-2000:]
    assert "being written by" not in r.stderr, r.stderr[-2000:]
    assert not run_dir.exists() or list(run_dir.iterdir()) == [], list(run_dir.rglob("*"))

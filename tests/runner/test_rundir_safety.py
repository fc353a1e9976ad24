"""Nothing is lost or corrupted when a run directory cannot be written, and every such
failure is one line: a sweep that fills its file system, a run directory removed
while the sweep runs, `make pack` and `make book` on a full file system, and corrupt records
read by `make book`, `make compare` and `make verify`. Full file systems are real tmpfs
mounts (root); the rest needs no privilege."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, run_runner, runner_cmd, runner_env, sweep_profile
from rundir.verify import verify

PROFILE = sweep_profile("full", seed=3)


#: make's own closing line for a failed target ("make: *** [...] Error 1", "make[1]: ..."
#: when make runs inside make, as in `make test`): not one of ours
MAKE_TRAILER = re.compile(r"^make(\[\d+\])?: (\*\*\*|Leaving|Entering)")


def _lines(text: str) -> list[str]:
    """stderr without the runner's headline, notes and progress lines."""
    return [ln for ln in text.splitlines() if ln.strip() and " cells, " not in ln
            and not ln.startswith("[") and "sweep summary" not in ln]


def _tree(d: Path) -> dict[str, str]:
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        msg = "needs root and mount(8): mounts a small tmpfs to fill it"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)
    mnt = tmp_path / "fs"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _grow(mnt: Path, size: str = "8m") -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mnt)], check=True)


def _fill(mnt: Path) -> None:
    """Take every free block of the file system."""
    with open(mnt / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass


def _small_run(tmp_path: Path) -> Path:
    prof = tmp_path / "full.toml"
    prof.write_text(PROFILE)
    run = tmp_path / "made"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return run


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
@pytest.mark.root
@pytest.mark.sweep
def test_sweep_fills_its_file_system_then_resumes(runner_copybench: Path, tmpfs: Path,
                                                  tmp_path: Path) -> None:
    prof = tmp_path / "full.toml"
    prof.write_text(PROFILE)
    run = tmpfs / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=300)
    assert r.returncode == 1, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    errors = _lines(r.stderr)
    assert len(errors) == 1, errors
    line = errors[0]
    trials = run / "trials.jsonl"
    kept = trials.read_text().splitlines(keepends=True)
    assert kept and all(x.endswith("\n") for x in kept)  # no partial last line
    assert "No space left on device (ENOSPC)" in line and str(run) in line
    assert f"{len(kept)} trial" in line and "safely recorded" in line
    assert f"--resume --run-dir {run}" in line
    assert len(kept) < 8
    _grow(tmpfs)
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ids = [json.loads(x)["trial_id"] for x in trials.read_text().splitlines()]
    plan = json.loads((run / "plan.json").read_text())
    assert sorted(ids) == sorted(t for rnd in plan["rounds"] for t in rnd)
    assert max(Counter(ids).values()) == 1
    assert verify(run).ok, verify(run).problems
    assert not [p for p in run.rglob(".*.tmp")]


def test_run_directory_removed_while_the_sweep_runs(runner_copybench: Path,
                                                    tmp_path: Path) -> None:
    prof = tmp_path / "full.toml"
    prof.write_text(sweep_profile("full", seed=3, repetitions={"min": 4, "max": 4}))
    run = tmp_path / "run"
    p = subprocess.Popen(runner_cmd("sweep", "--profile", str(prof), "--run-dir", str(run),
                                    "--no-progress"), stderr=subprocess.PIPE, text=True,
                         cwd=str(ROOT), env=runner_env(),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    trials = run / "trials.jsonl"
    while time.monotonic() < deadline:
        if trials.exists() and len(trials.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    shutil.rmtree(run)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1, err[-3000:]
    assert "Traceback" not in err
    errors = _lines(err)
    assert len(errors) == 1 and "removed while the sweep ran" in errors[0], errors
    assert "safely recorded" in errors[0] and "--resume" in errors[0]


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
@pytest.mark.root
def test_pack_on_a_full_file_system_leaves_the_run_as_it_was(runner_copybench: Path,
                                                             tmpfs: Path,
                                                             tmp_path: Path) -> None:
    made = _small_run(tmp_path)
    _grow(tmpfs, "1m")
    run = tmpfs / "run"
    shutil.copytree(made, run)
    _fill(tmpfs)
    before = _tree(run)
    r = subprocess.run(["make", "--no-print-directory", "pack", f"RUN={run}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    ours = [ln for ln in r.stderr.splitlines() if not MAKE_TRAILER.match(ln)]
    assert len(ours) == 1 and "No space left on device" in ours[0], r.stderr
    assert "Traceback" not in r.stderr
    assert _tree(run) == before  # no .gz, no temporary file, SHA256SUMS unchanged
    assert verify(run).ok


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
@pytest.mark.root
def test_book_on_a_full_file_system_is_one_line(runner_copybench: Path, tmpfs: Path,
                                                tmp_path: Path) -> None:
    run = _small_run(tmp_path)
    before = _tree(run)
    _fill(tmpfs)
    r = subprocess.run(["make", "--no-print-directory", "book", f"RUN={run}",
                        f"BOOK_GEN={tmpfs}/generated"], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode != 0
    ours = [ln for ln in r.stderr.splitlines() if not MAKE_TRAILER.match(ln)]
    assert len(ours) == 1 and ours[0].startswith("make book: cannot write"), r.stderr
    assert "Traceback" not in r.stderr
    assert _tree(run) == before


def test_corrupt_records_are_one_line_naming_file_and_line(runner_copybench: Path,
                                                           tmp_path: Path) -> None:
    run = _small_run(tmp_path)
    lines = (run / "trials.jsonl").read_text().splitlines(keepends=True)
    lines[4] = '{"trial_id": "x", broken\n'
    (run / "trials.jsonl").write_text("".join(lines))
    where = f"{run / 'trials.jsonl'}:5: not a JSON record"
    for target, extra in (("book", [f"BOOK_GEN={tmp_path}/gen"]), ("compare", []),
                          ("verify", [])):
        r = subprocess.run(["make", "--no-print-directory", target, f"RUN={run}", *extra],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode != 0, target
        assert "Traceback" not in r.stderr + r.stdout, target
        said = [ln for ln in (r.stderr + r.stdout).splitlines()
                if "trials.jsonl:5" in ln]
        assert said, (target, r.stderr, r.stdout)
        if target != "verify":
            ours = [ln for ln in r.stderr.splitlines() if not MAKE_TRAILER.match(ln)
                    and "executing" not in ln]
            assert len(ours) == 1 and where in ours[0], (target, r.stderr)

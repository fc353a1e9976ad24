"""Every reader and writer of a run directory stays inside it:

* a symbolic link planted at ``<run>/.lock`` (by whoever may write the run directory) is never
  written through by a writer running as root (``rundir seal``, ``runner sweep --resume``):
  refused in one line, exit 2, its target and the run as they were;
* ``verify`` (and ``seal``, ``check``, ``pack``) never open a file through a link in the run,
  nor enter a linked directory: a link to a FIFO, which blocks whoever opens it, shows it;
* a resume refuses, before it runs or writes anything, a run with both records files (it
  sealed one that verify then failed) or a link for its records (a traceback);
* a tree nested 1500 directories deep is walked like any other (a RecursionError before).

Real commands in subprocesses, on a copy of the session's small sealed run."""

from __future__ import annotations

import ctypes
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, copy_run, runner_env, tree_digest

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

DEPTH = 1500


def _cmd(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=str(ROOT), env=runner_env(), check=False)


def _one_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    return lines[0]


@pytest.fixture
def run(runner_small_run: Path, tmp_path: Path) -> Path:
    return copy_run(runner_small_run, tmp_path / "run")


@pytest.mark.parametrize("planted", ["symlink", "fifo", "hard-link"])
@pytest.mark.parametrize("command", ["seal", "resume"])
def test_a_planted_lock_is_never_written_through(run: Path, tmp_path: Path, planted: str,
                                                 command: str) -> None:
    """Root's seal never writes its holder line into the target of a link at .lock."""
    (run / "SHA256SUMS").unlink()
    victim = tmp_path / "victim"
    victim.write_text("the user's file\n")
    lock = run / ".lock"
    if planted == "symlink":
        lock.symlink_to(victim)
    elif planted == "fifo":
        os.mkfifo(lock)
    else:
        os.link(victim, lock)
    before = tree_digest(run)
    args = (["-m", "rundir", "seal", str(run)] if command == "seal" else
            ["-m", "runner", "sweep", "--resume", "--run-dir", str(run), "--no-progress"])
    r = _cmd(*args)
    assert r.returncode == 2, r.stderr[-2000:]
    assert ".lock" in _one_line(r)
    assert victim.read_text() == "the user's file\n"
    assert tree_digest(run) == before and not (run / "SHA256SUMS").exists()
    assert os.path.lexists(lock)


class OpenWatch:
    """Whether anything opened a file, from the kernel's own account (inotify IN_OPEN, through
    libc): a reader that follows a link to it is seen whatever it does with the bytes."""

    IN_OPEN, IN_NONBLOCK = 0x20, os.O_NONBLOCK

    def __init__(self, path: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(self.IN_NONBLOCK)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(str(path)), self.IN_OPEN)
        assert wd >= 0, os.strerror(ctypes.get_errno())

    def opened(self) -> bool:
        try:
            return bool(os.read(self.fd, 4096))
        except BlockingIOError:
            return False
        finally:
            os.close(self.fd)


def _links_out(run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """In place of the profile copy a link to a file outside the run (as to /etc/shadow),
    and a linked directory holding a FIFO (whoever opens it blocks forever): the secret file
    and the FIFO."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret"
    secret.write_text("not the run's\n")
    fifo = outside / "fifo"
    os.mkfifo(fifo)
    prof = next((run / "profiles").glob("*.toml"))
    prof.unlink()
    prof.symlink_to(secret)
    (run / "elsewhere").symlink_to(outside, target_is_directory=True)
    return secret, fifo


@pytest.mark.parametrize("command", ["verify", "check", "seal", "pack"])
def test_no_reader_follows_a_link_out_of_the_run(run: Path, tmp_path: Path,
                                                 command: str) -> None:
    """verify never opens /etc/shadow through profiles/smoke.toml -> /etc/shadow.
    The kernel says whether the file behind the link was opened (inotify); the FIFO in the
    linked directory would block a command that entered it until its timeout."""
    secret, _ = _links_out(run, tmp_path)
    if command == "seal":  # a run never sealed: seal checks its content
        (run / "SHA256SUMS").unlink()
    watch = OpenWatch(secret)
    r = _cmd("-m", "rundir", command, str(run), timeout=60)
    assert not watch.opened(), f"{command} opened the file behind a link of the run"
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out[-3000:]
    assert r.returncode in (1, 2) and "symbolic link" in out, out[-3000:]
    assert not (run / "trials.jsonl.gz").exists()


def test_resume_reads_no_file_through_a_link(run: Path, tmp_path: Path) -> None:
    """The records of an unsealed run a link: one line, exit 2 (a traceback before)."""
    (run / "SHA256SUMS").unlink()
    outside = tmp_path / "trials.jsonl"
    shutil.move(run / "trials.jsonl", outside)
    (run / "trials.jsonl").symlink_to(outside)
    before = outside.read_bytes()
    r = _cmd("-m", "runner", "sweep", "--resume", "--run-dir", str(run), "--no-progress")
    assert r.returncode == 2 and "trials.jsonl" in _one_line(r), r.stderr[-2000:]
    assert outside.read_bytes() == before and (run / "trials.jsonl").is_symlink()


def test_resume_refuses_both_records_files(run: Path) -> None:
    """With trials.jsonl and trials.jsonl.gz a resume refuses the run (sealed, verify would
    then fail it)."""
    (run / "SHA256SUMS").unlink()
    (run / "trials.jsonl.gz").write_bytes(gzip.compress((run / "trials.jsonl").read_bytes()))
    before = tree_digest(run)
    r = _cmd("-m", "runner", "sweep", "--resume", "--run-dir", str(run), "--no-progress")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "both trials.jsonl and trials.jsonl.gz" in _one_line(r)
    assert tree_digest(run) == before and not (run / "SHA256SUMS").exists()


def _deep(where: Path, depth: int = DEPTH) -> None:
    """``depth`` nested directories below ``where`` (made relative to each other: the path
    would outgrow what one call takes)."""
    fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nfd
    finally:
        os.close(fd)


def _undeep(where: Path, depth: int = DEPTH) -> None:
    """Remove what :func:`_deep` made, bottom up, without recursion (pytest's own removal of
    old temporary directories, shutil.rmtree, recurses: a tree left behind would break it)."""
    fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    for _ in range(depth):
        parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        os.rmdir("d", dir_fd=parent)
        fd = parent
    os.close(fd)


@pytest.fixture
def deep_run(run: Path) -> Iterator[Path]:
    _deep(run)
    try:
        yield run
    finally:
        _undeep(run)


@pytest.mark.parametrize("command", ["verify", "check", "seal", "pack", "resume"])
def test_a_deep_tree_in_a_run_is_no_traceback(deep_run: Path, command: str) -> None:
    """1500 nested directories in a run give no RecursionError in verify, seal,
    check, pack or a resume. An empty directory is no file of the run: each command does
    what it does on the run without it."""
    run = deep_run
    args = (["-m", "rundir", command, str(run)] if command != "resume" else
            ["-m", "runner", "sweep", "--resume", "--run-dir", str(run), "--no-progress"])
    r = _cmd(*args, timeout=300)
    assert "Traceback" not in r.stderr and "RecursionError" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-2000:]
    assert _cmd("-m", "rundir", "verify", str(run)).returncode == 0

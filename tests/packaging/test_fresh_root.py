"""``make fresh-root`` (scripts/fresh-root) checks every FRESH_ROOT_* value before it builds
anything, and removes only what it made.

The root itself is never built here (it takes about an hour): a stand-in ``mmdebstrap`` first
on PATH records its call and fails as the real one fails, so the script's own checks and its
clean-up on that failure run for real; the tests that reach the stand-in need root (the script
refuses to build a root as anyone else)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fresh-root"


def _fresh_root(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The script with a stand-in mmdebstrap (it writes a file into the root it is given, as
    the real one starts to, then fails); the file its calls are recorded in."""
    calls = tmp_path / "mmdebstrap.calls"
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "mmdebstrap").write_text(
        "#!/bin/sh\n"
        f"echo \"$@\" >> {calls}\n"
        "for a; do case $a in -*) ;; bookworm) ;; *) [ -d \"$a\" ] && { : > \"$a/etc-partial\"; "
        "break; } ;; esac; done\n"
        "echo 'E: stand-in mmdebstrap fails' >&2; exit 1\n")
    (fake / "mmdebstrap").chmod(0o755)
    e = {k: v for k, v in os.environ.items() if not k.startswith("FRESH_ROOT_")}
    e.update(PATH=f"{fake}{os.pathsep}{os.environ['PATH']}", **env)
    r = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=120, env=e,
                       cwd=str(ROOT), check=False)
    return r, calls


@pytest.mark.parametrize("name,value,words", [
    ("FRESH_ROOT_LIMIT_S", "abc", "not a whole number of seconds"),
    ("FRESH_ROOT_LIMIT_S", "-5", "not a whole number of seconds"),
    ("FRESH_ROOT_LIMIT_S", "", "not a whole number of seconds"),
    ("FRESH_ROOT_KEEP", "yes", "allowed 0"),
    ("FRESH_ROOT_REV", "no-such-revision", "no such commit"),
    ("FRESH_ROOT_SHARED", "/nonexistent/shared", "not a directory"),
    ("FRESH_ROOT_COMMANDS", " ; ", "is empty"),
    ("FRESH_ROOT_DIR", "", "is empty"),
])
def test_a_bad_value_is_one_line_before_anything_is_built(tmp_path: Path, name: str,
                                                          value: str, words: str) -> None:
    """FRESH_ROOT_LIMIT_S=abc and the others are checked before the root is built (not an
    hour later, where the limit would read as 0)."""
    r, calls = _fresh_root(tmp_path, **{name: value})
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, r.stderr
    assert len(lines) == 1 and name in lines[0] and words in lines[0], lines
    assert not calls.exists(), "mmdebstrap was started"


def test_a_directory_that_is_not_empty_is_refused_and_kept(tmp_path: Path) -> None:
    """``FRESH_ROOT_DIR=/tmp/m`` holding a file is refused, and no clean-up removes /tmp/m
    with the user's file."""
    mine = tmp_path / "m"
    mine.mkdir()
    (mine / "f").write_text("x\n")
    r, calls = _fresh_root(tmp_path, FRESH_ROOT_DIR=str(mine))
    assert r.returncode == 2, r.stderr
    assert "not empty" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert (mine / "f").read_text() == "x\n" and sorted(os.listdir(mine)) == ["f"]
    assert not calls.exists()


def _need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("scripts/fresh-root builds a root only as root (it refuses otherwise)")


def test_an_empty_directory_of_the_users_is_kept(tmp_path: Path) -> None:
    """An empty directory given is used; on the way out only what the script put in it goes,
    the directory stays."""
    _need_root()
    mine = tmp_path / "empty"
    mine.mkdir()
    r, calls = _fresh_root(tmp_path, FRESH_ROOT_DIR=str(mine))
    assert r.returncode == 1 and "mmdebstrap failed" in r.stderr, r.stderr
    assert calls.exists(), "the stand-in was not reached"
    assert mine.is_dir() and os.listdir(mine) == []


def test_a_directory_it_made_is_removed_again(tmp_path: Path) -> None:
    _need_root()
    new = tmp_path / "new-root"
    r, calls = _fresh_root(tmp_path, FRESH_ROOT_DIR=str(new))
    assert r.returncode == 1 and calls.exists(), r.stderr
    assert not new.exists()


def test_a_shared_folder_reached_through_a_link_is_accepted(tmp_path: Path) -> None:
    """../shared may be a link to a directory (a clone placed beside a linked ../shared): it is
    read (copied into the root), not written, so only a value that is no directory is refused.
    With the next value bad, that value is the one named."""
    real = tmp_path / "real-shared"
    real.mkdir()
    link = tmp_path / "shared-link"
    link.symlink_to(real)
    r, calls = _fresh_root(tmp_path, FRESH_ROOT_SHARED=str(link), FRESH_ROOT_DIR="")
    assert r.returncode == 2, r.stderr
    assert "FRESH_ROOT_DIR" in r.stderr and "FRESH_ROOT_SHARED" not in r.stderr, r.stderr
    assert not calls.exists(), "mmdebstrap was started"

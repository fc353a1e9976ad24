"""copybench never destroys its own source nor anything else of the user's: `copy
--dst` naming the source in any way, or naming anything that exists (a file, a
read-only one, a symbolic link, something that is not a regular file), is a usage error (exit
2, one stderr line naming the paths) and leaves it as it was: bytes, size, mtime and ctime.

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN (not built: the tests fail). The
bind-mount case needs root (`root` marker) and is skipped with the reason otherwise. A copy
that must succeed is a timed trial: one that missed its window on a busy machine (exit 3) is
taken again, as the C suite does (src/tests/run_tests.sh), since the window is not what
these tests check.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from conftest import EXIT_WINDOW_MISSED, until_window_met

FILE_METHODS = ["read-write", "sendfile", "splice", "splice2", "copy_file_range"]
QUICK = ["--duration", "0.05", "--warmup", "0.02"]
# an mtime far in the past: any write or truncation would move it to now
OLD_NS = 1_000_000_000_123_456_789


@pytest.fixture(scope="module")
def available(copybench: Path) -> set[str]:
    out = subprocess.run([str(copybench), "methods", "--json"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {m["name"] for m in json.loads(out) if m["available"]}


def run(copybench: Path, *args: str, cwd: Path | None = None, stdout=subprocess.PIPE,
        timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(copybench), *args], cwd=cwd, stdout=stdout, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, timeout=timeout, check=False)


def missed(r: subprocess.CompletedProcess[str]) -> bool:
    """copybench missed its measured window (the machine was busy): a reading to take
    again (conftest.until_window_met), not a copy that went wrong."""
    return r.returncode == EXIT_WINDOW_MISSED


def make_source(path: Path, size: int = 200_001) -> bytes:
    data = os.urandom(size)
    path.write_bytes(data)
    os.utime(path, ns=(OLD_NS, OLD_NS))
    return data


def snapshot(path: Path) -> tuple[bytes, int, int, int]:
    st = os.stat(path)
    return path.read_bytes(), st.st_size, st.st_mtime_ns, st.st_ctime_ns


def assert_usage_error(r: subprocess.CompletedProcess[str], *names: str) -> None:
    assert r.returncode == 2, f"exit {r.returncode}, expected 2 (usage error): {r.stderr!r}"
    assert r.stdout == "", f"a usage error printed on stdout: {r.stdout[:200]!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    for name in names:
        assert name in lines[0], f"{name!r} not named in {lines[0]!r}"


# Each alias: (how --src is given, how --dst is given), both naming the file `src.bin` in tmp.
# Paths are relative to the working directory tmp unless absolute.
def _aliases(tmp: Path, src: Path) -> dict[str, tuple[str, str]]:
    (tmp / "sub").mkdir(exist_ok=True)
    os.link(src, tmp / "hard.bin")
    os.symlink(src, tmp / "sym.bin")
    os.symlink(tmp / "sym.bin", tmp / "sym2.bin")
    return {
        "same-path": (str(src), str(src)),
        "dot-relative": (str(src), "./src.bin"),
        "dotdot": ("src.bin", str(tmp / "sub" / ".." / "src.bin")),
        "hard-link": (str(src), "hard.bin"),
        "symlink": (str(src), "sym.bin"),
        "symlink-to-symlink": (str(src), "sym2.bin"),
        "src-is-the-symlink": ("sym2.bin", str(src)),
        # copybench's first open is its --src, so its own fd 3 is the source
        "proc-self-fd": ("src.bin", "/proc/self/fd/3"),
    }


ALIASES = ["same-path", "dot-relative", "dotdot", "hard-link", "symlink", "symlink-to-symlink",
           "src-is-the-symlink", "proc-self-fd"]


@pytest.mark.parametrize("method", FILE_METHODS)
@pytest.mark.parametrize("alias", ALIASES)
def test_source_as_destination_is_refused(copybench: Path, available: set[str], tmp_path: Path,
                                          method: str, alias: str) -> None:
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    src = tmp_path / "src.bin"
    make_source(src)
    src_arg, dst_arg = _aliases(tmp_path, src)[alias]
    before = snapshot(src)
    r = run(copybench, "copy", "--method", method, "--src", src_arg, "--dst", dst_arg, *QUICK,
            cwd=tmp_path)
    assert_usage_error(r, src_arg, dst_arg)
    assert "same file" in r.stderr
    assert snapshot(src) == before, "the source changed (bytes, size, mtime or ctime)"


@pytest.mark.parametrize("method", FILE_METHODS)
def test_source_named_by_another_process_fd_is_refused(copybench: Path, available: set[str],
                                                       tmp_path: Path, method: str) -> None:
    """/proc/<this test's pid>/fd/N: a magic link copybench opens to the same inode."""
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    src = tmp_path / "src.bin"
    make_source(src)
    fd = os.open(src, os.O_RDONLY)
    try:
        dst = f"/proc/{os.getpid()}/fd/{fd}"
        before = snapshot(src)
        r = run(copybench, "copy", "--method", method, "--src", str(src), "--dst", dst, *QUICK)
        assert_usage_error(r, str(src), dst)
        assert snapshot(src) == before
    finally:
        os.close(fd)


@pytest.mark.parametrize("method", FILE_METHODS)
def test_generated_source_as_destination_is_refused(copybench: Path, available: set[str],
                                                    tmp_path: Path, method: str) -> None:
    """--size: the source is a nameless file copybench made; its own /proc/self/fd/3 names it."""
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    r = run(copybench, "copy", "--method", method, "--size", "64K", "--dir", str(tmp_path),
            "--dst", "/proc/self/fd/3", *QUICK)
    assert_usage_error(r, "/proc/self/fd/3", "generated source")
    assert list(tmp_path.iterdir()) == []


def _mount_points() -> set[str]:
    with open("/proc/self/mountinfo") as f:
        return {line.split()[4] for line in f}


@pytest.mark.root
@pytest.mark.parametrize("method", FILE_METHODS)
def test_source_through_a_bind_mount_is_refused(copybench: Path, available: set[str], tmp_path: Path,
                                                method: str) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        msg = "needs root and mount(8): bind-mounts a directory onto another"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    src = a / "src.bin"
    make_source(src)
    subprocess.run(["mount", "--bind", str(a), str(b)], check=True, capture_output=True)
    try:
        dst = b / "src.bin"
        # (os.path.ismount cannot see a bind of the same file system: same st_dev)
        assert str(b) in _mount_points() and dst.exists()
        before = snapshot(src)
        r = run(copybench, "copy", "--method", method, "--src", str(src), "--dst", str(dst), *QUICK)
        assert_usage_error(r, str(src), str(dst))
        assert snapshot(src) == before
    finally:
        subprocess.run(["umount", str(b)], check=True, capture_output=True)


# --- destinations that exist and are not regular files ---------------------------------------

def _make_socket(p: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(p))
    return s


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket", "chardev"])
def test_destination_that_is_not_a_regular_file_is_refused(copybench: Path, tmp_path: Path,
                                                           kind: str) -> None:
    keep = None
    if kind == "directory":
        dst = tmp_path / "d"
        dst.mkdir()
    elif kind == "fifo":
        dst = tmp_path / "f"
        os.mkfifo(dst)
    elif kind == "socket":
        dst = tmp_path / "s"
        keep = _make_socket(dst)
    else:
        dst = Path("/dev/null")
    try:
        st = os.stat(dst)
        entries = sorted(os.listdir(tmp_path))
        r = run(copybench, "copy", "--method", "read-write", "--size", "4K", "--dir", str(tmp_path),
                "--dst", str(dst), *QUICK, timeout=20)
        assert_usage_error(r, str(dst))
        assert "regular file" in r.stderr
        after = os.stat(dst)
        assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(st.st_mode)
        assert sorted(os.listdir(tmp_path)) == entries, "something was created"
        if kind == "directory":
            assert list(dst.iterdir()) == [] and after.st_mtime_ns == st.st_mtime_ns
    finally:
        if keep is not None:
            keep.close()


def test_destination_that_is_the_record_file_is_refused(copybench: Path, tmp_path: Path) -> None:
    """--dst naming the file stdout is redirected to would mix copy data into the record."""
    out = tmp_path / "record.json"
    with open(out, "w") as f:
        r = run(copybench, "copy", "--method", "read-write", "--size", "4K", "--dst", str(out),
                "--dir", str(tmp_path), *QUICK, stdout=f)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and str(out) in r.stderr
    assert out.read_bytes() == b""


def test_fifo_as_source_is_refused_without_blocking(copybench: Path, tmp_path: Path) -> None:
    """open(O_RDONLY) of a FIFO waits for a writer; --src must be refused, not hang."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    r = run(copybench, "copy", "--method", "read-write", "--src", str(fifo), *QUICK, timeout=10)
    assert_usage_error(r, str(fifo))


# --- what must keep working (regression guards: these pass before and after the fix) -------

@pytest.mark.parametrize("method", FILE_METHODS)
def test_copy_to_a_new_path(copybench: Path, available: set[str], tmp_path: Path,
                            method: str) -> None:
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    src = tmp_path / "src.bin"
    data = make_source(src)
    before = snapshot(src)
    new = tmp_path / "new.bin"

    def to_new() -> subprocess.CompletedProcess[str]:
        new.unlink(missing_ok=True)  # each reading copies to a path that does not exist
        return run(copybench, "copy", "--method", method, "--src", str(src), "--dst", str(new),
                   *QUICK)
    r = until_window_met(to_new, missed)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "ok"
    assert new.read_bytes() == data
    assert stat.S_IMODE(os.stat(new).st_mode) & 0o600 == 0o600
    assert snapshot(src) == before


def _victim(tmp_path: Path, kind: str) -> tuple[Path, Callable[[], None]]:
    """A --dst path that is something of the user's; a check that it is as it was."""
    mine = tmp_path / "mine.txt"
    mine.write_bytes(b"the user's own file\n" * 1000)
    os.utime(mine, ns=(OLD_NS, OLD_NS))
    if kind == "file":
        dst = mine
    elif kind == "read-only":
        mine.chmod(0o444)  # root writes it anyway unless copybench refuses
        dst = mine
    elif kind == "symlink":
        dst = tmp_path / "link"
        dst.symlink_to(mine)
    else:  # a link that points nowhere yet: following it would create a file there
        dst = tmp_path / "dangling"
        dst.symlink_to(tmp_path / "elsewhere.bin")
    before = snapshot(mine)

    def unchanged() -> None:
        assert snapshot(mine) == before, "the user's file changed"
        assert not (tmp_path / "elsewhere.bin").exists(), "a file was created through a link"
        if kind in ("symlink", "dangling"):
            assert dst.is_symlink()
    return dst, unchanged


@pytest.mark.parametrize("kind", ["file", "read-only", "symlink", "dangling"])
def test_destination_that_exists_is_refused_and_left_as_it_was(copybench: Path, tmp_path: Path,
                                                               kind: str) -> None:
    """--dst LINK never truncates the link's target (copybench runs as root: nor a
    read-only file). --dst is only ever a new file: what is there is refused, untouched."""
    dst, unchanged = _victim(tmp_path, kind)
    r = run(copybench, "copy", "--method", "read-write", "--size", "1M", "--dst", str(dst),
            "--dir", str(tmp_path), *QUICK)
    assert_usage_error(r, str(dst))
    assert ("symbolic link" if kind in ("symlink", "dangling") else "exists") in r.stderr
    unchanged()


@pytest.mark.parametrize("method", FILE_METHODS)
def test_generated_copy_verifies_and_leaves_nothing(copybench: Path, available: set[str],
                                                    tmp_path: Path, method: str) -> None:
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    d = tmp_path / "dir"
    d.mkdir()
    dst = tmp_path / "dst.bin"

    def generated() -> subprocess.CompletedProcess[str]:
        dst.unlink(missing_ok=True)  # --dst is a new file for each reading
        return run(copybench, "copy", "--method", method, "--size", "65537", "--verify", "full",
                   "--dir", str(d), "--dst", str(dst), *QUICK)
    r = until_window_met(generated, missed)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["status"] == "ok" and rec["result"]["verify"]["bytes_checked"] == 65537
    assert dst.stat().st_size == 65537
    assert list(d.iterdir()) == [], "scratch or generated files left in --dir"
    r = until_window_met(lambda: run(copybench, "copy", "--method", method, "--size", "4K",
                                     "--verify", "full", "--dir", str(d), *QUICK), missed)
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "ok", r.stderr
    assert list(d.iterdir()) == []

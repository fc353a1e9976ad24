"""Faults during `copybench copy --dst` (and `send --method mmap-write --file`): the message
names the call, the file it concerns and what to do; a `--dst` copybench created is removed
when the trial fails or is stopped by SIGINT/SIGTERM, so the same command can be run again.

* a `--dst` on a full tmpfs: exit 1, the error names `--dst`, the full file system and ENOSPC;
  nothing is left on the tmpfs;
* copy_file_range between two file systems (a tmpfs and the test's directory): the error says
  the kernel cannot and names both files and file systems; no `--dst` is left;
* SIGINT/SIGTERM mid-copy of a large file: copybench dies by the signal, says what it removed,
  leaves no `--dst`, and the same command then succeeds;
* a `--file` truncated while `mmap-write` sends it: the error says the file changed size.

Real binary (src/build/copybench or $COPYBENCH_BIN), real mounts (`root` marker: tmpfs mounts
need root), real signals and a real sink over loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXIT_WINDOW_MISSED, running_sink, until_window_met

QUICK = ["--duration", "0.05", "--warmup", "0.02"]
FILE_METHODS = ["read-write", "sendfile", "splice", "splice2", "copy_file_range"]
ENOSPC = os.strerror(28)


@pytest.fixture(scope="module")
def available(copybench: Path) -> set[str]:
    out = subprocess.run([str(copybench), "methods", "--json"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {m["name"] for m in json.loads(out) if m["available"]}


def need_root_and_mount() -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        msg = "needs root and mount(8): mounts a small tmpfs"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


def mount_tmpfs(d: Path, size: str) -> None:
    d.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)], check=True,
                   capture_output=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 6 MiB tmpfs, unmounted afterwards."""
    need_root_and_mount()
    d = tmp_path / "tmpfs"
    mount_tmpfs(d, "6m")
    try:
        yield d
    finally:
        subprocess.run(["umount", str(d)], check=True, capture_output=True)


def copy(copybench: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    r = subprocess.run([str(copybench), "copy", *args, *QUICK], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60, check=False)
    lines = r.stdout.splitlines()
    assert len(lines) == 1, f"expected one record, got {r.stdout!r} (stderr {r.stderr!r})"
    return r, json.loads(lines[0])


@pytest.mark.root
@pytest.mark.parametrize("method", FILE_METHODS)
def test_dst_on_a_full_file_system(copybench: Path, available: set[str], tmpfs: Path,
                                   method: str) -> None:
    """The generated 4 MiB source fills 4 of the tmpfs's 6 MiB; the --dst beside it cannot fit."""
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    dst = tmpfs / "out.bin"
    r, rec = copy(copybench, "--method", method, "--size", "4M", "--dir", str(tmpfs), "--dst", str(dst))
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (runtime failure): {r.stderr!r}"
    err = rec["error"]
    assert ENOSPC in err, f"the error does not name the cause: {err!r}"
    assert f"--dst '{dst}'" in err, f"the error does not name the --dst: {err!r}"
    assert "full" in err and "put --dst on a file system with room" in err, err
    assert not dst.exists(), "the partial --dst was left behind"
    assert list(tmpfs.iterdir()) == []


@pytest.mark.root
def test_copy_file_range_across_file_systems(copybench: Path, available: set[str], tmp_path: Path,
                                             tmpfs: Path) -> None:
    if "copy_file_range" not in available:
        pytest.skip("copy_file_range is not available here (copybench methods)")
    if os.stat(tmp_path).st_dev == os.stat(tmpfs).st_dev:
        pytest.fail("the tmpfs has the device of its mount point's directory")
    src = tmpfs / "src.bin"
    src.write_bytes(os.urandom(1 << 20))
    dst = tmp_path / "out.bin"
    # relative names, as a user types them (a record's error holds 320 characters)
    r = subprocess.run([str(copybench), "copy", "--method", "copy_file_range", "--src", "tmpfs/src.bin",
                        "--dst", "out.bin", "--verify", "off", *QUICK], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60, check=False, cwd=tmp_path)
    if r.returncode == 0:
        pytest.skip("this kernel copies with copy_file_range between these file systems")
    assert r.returncode == 1, f"exit {r.returncode}, expected 1: {r.stderr!r}"
    err = json.loads(r.stdout)["error"]
    assert "cannot copy between file systems" in err, err
    assert "--src 'tmpfs/src.bin'" in err and "--dst 'out.bin'" in err, f"the files are not named: {err!r}"
    here = os.stat(tmp_path).st_dev
    assert "on tmpfs (device" in err and f"(device {os.major(here)}:{os.minor(here)})" in err, (
        f"the error does not name both file systems: {err!r}")
    assert "put --dst on the same file system" in err, err
    assert not dst.exists(), "the --dst copybench created was left behind"


def _start_long_copy(copybench: Path, tmp_path: Path, dst: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([str(copybench), "copy", "--method", "read-write", "--size", "64M",
                             "--dir", str(tmp_path), "--dst", str(dst), "--cache", "cold",
                             "--duration", "20", "--warmup", "0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, preexec_fn=_sigint_default)


def _sigint_default() -> None:
    """In the child: SIGINT's default action, as at a terminal. A job started in the
    background of a non-interactive shell inherits SIGINT ignored, and copybench, as a Unix
    program should, leaves an ignored SIGINT ignored (src/dstfile.c)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_mid_copy_removes_the_dst(copybench: Path, tmp_path: Path, sig: signal.Signals) -> None:
    dst = tmp_path / "out.bin"
    p = _start_long_copy(copybench, tmp_path, dst)
    try:
        deadline = time.monotonic() + 20
        while not (dst.exists() and dst.stat().st_size > 0):  # mid-copy: bytes written
            assert p.poll() is None, f"copy ended early: {p.communicate()}"
            assert time.monotonic() < deadline, "the copy never wrote its --dst"
            time.sleep(0.01)
        p.send_signal(sig)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == -sig, f"exit {p.returncode}, expected death by {sig.name}: {err!r}"
    assert not dst.exists(), f"the partial --dst was left ({dst.stat().st_size} bytes)"
    assert f"{sig.name}" in err and str(dst) in err, f"stderr does not say what was removed: {err!r}"

    def again() -> tuple[subprocess.CompletedProcess[str], dict]:
        if dst.exists():
            dst.unlink()  # a missed window's run removed it already; never reached otherwise
        return copy(copybench, "--method", "read-write", "--size", "1M", "--dir", str(tmp_path),
                    "--dst", str(dst))

    r, rec = until_window_met(again, lambda o: o[0].returncode == EXIT_WINDOW_MISSED)
    assert r.returncode == 0, f"the retry failed: {r.stderr!r}"
    assert dst.stat().st_size == 1 << 20


def test_failed_trial_keeps_a_file_it_did_not_create(copybench: Path, tmp_path: Path) -> None:
    """A --dst that exists is refused before anything is opened, and stays as it was."""
    dst = tmp_path / "mine.bin"
    dst.write_bytes(b"keep me")
    r = subprocess.run([str(copybench), "copy", "--method", "read-write", "--size", "64K",
                        "--dir", str(tmp_path), "--dst", str(dst), *QUICK], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert r.returncode == 2
    assert dst.read_bytes() == b"keep me"


# --- a source that shrinks under mmap-write ----------------------------------------------------

@pytest.fixture
def sink(copybench: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    with running_sink(copybench) as got:
        yield got


def test_file_that_shrinks_under_mmap_write(copybench: Path, tmp_path: Path,
                                            sink: tuple[subprocess.Popen[str], int]) -> None:
    """The file is truncated once the sink's receiver runs (the passes have begun, the window
    lasts 10 s): the next write from the mapping past the new end fails, deterministically."""
    sink_p, port = sink
    src = tmp_path / "src.bin"
    with open(src, "wb") as f:
        f.truncate(64 << 20)  # sparse: no time spent writing it
    p = subprocess.Popen([str(copybench), "send", "--method", "mmap-write", "--file", str(src),
                          "--host", "127.0.0.1", "--port", str(port), "--duration", "10",
                          "--warmup", "0.1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         text=True)
    try:
        deadline = time.monotonic() + 10
        while len(os.listdir(f"/proc/{sink_p.pid}/task")) < 2:
            assert p.poll() is None, f"send ended early: {p.communicate()}"
            assert time.monotonic() < deadline, "the session never started"
            time.sleep(0.005)
        os.truncate(src, 4096)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 1, f"exit {p.returncode}, expected 1: {err!r}"
    rec = json.loads(out)
    msg = rec["error"]
    assert "changed size" in msg and str(src) in msg, f"the error does not say the file changed: {msg!r}"
    assert "67108864" in msg and "4096" in msg, f"the error does not give both sizes: {msg!r}"


@pytest.mark.parametrize("method", FILE_METHODS)
def test_src_that_shrinks_during_copy(copybench: Path, available: set[str], tmp_path: Path,
                                      method: str) -> None:
    """--src truncated once the copy has written to --dst (passes repeat for 10 s): the next
    pass meets the new end of file; the error says the source changed size."""
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    src, dst = tmp_path / "src.bin", tmp_path / "out.bin"
    with open(src, "wb") as f:
        f.truncate(32 << 20)
    p = subprocess.Popen([str(copybench), "copy", "--method", method, "--src", str(src), "--dst", str(dst),
                          "--verify", "off", "--duration", "10", "--warmup", "0.02"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 10
        while not (dst.exists() and dst.stat().st_size > 0):
            assert p.poll() is None, f"copy ended early: {p.communicate()}"
            assert time.monotonic() < deadline, "the copy never wrote its --dst"
            time.sleep(0.005)
        os.truncate(src, 4096)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 1, f"exit {p.returncode}, expected 1: {err!r}"
    msg = json.loads(out)["error"]
    assert msg.startswith(f"--src '{src}' changed size during the copy (33554432 bytes at the start, 4096 now)"), msg
    assert not dst.exists(), "the --dst copybench created was left behind"
    assert src.stat().st_size == 4096, "the user's source was touched"

"""`copybench copy --dir DIR` on a file system that fills up names the cause, never "Success".

A short write (the file system filled up midway through one call) returns a byte count and
sets no errno; reporting strerror(errno) then printed whatever errno held, "Success". The
generated source is written again for the rest, which fails with ENOSPC. Each case mounts a
1 MiB tmpfs (`root` marker) and runs the real binary (src/build/copybench or $COPYBENCH_BIN).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

QUICK = ["--duration", "0.05", "--warmup", "0.02"]
FILE_METHODS = ["read-write", "sendfile", "splice", "splice2", "copy_file_range"]
ENOSPC = os.strerror(28)  # "No space left on device"
pytestmark = pytest.mark.root


@pytest.fixture(scope="module")
def available(copybench: Path) -> set[str]:
    out = subprocess.run([str(copybench), "methods", "--json"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {m["name"] for m in json.loads(out) if m["available"]}


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        msg = "needs root and mount(8): mounts a 1 MiB tmpfs"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)
    d = tmp_path / "small"
    d.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)], check=True,
                   capture_output=True)
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


def assert_names_enospc(r: subprocess.CompletedProcess[str], rec: dict) -> None:
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (runtime failure): {r.stderr!r}"
    assert rec["status"] == "failed"
    err = rec["error"]
    assert "Success" not in err, f"the error names no cause: {err!r}"
    assert ENOSPC in err, f"the error does not say the device is full: {err!r}"
    assert "Success" not in r.stderr


def test_source_cut_short_by_a_full_file_system(copybench: Path, small_fs: Path) -> None:
    """Half of the tmpfs is taken: the first 1 MiB write of the generated source is short."""
    (small_fs / "filler").write_bytes(b"\0" * (512 << 10))
    r, rec = copy(copybench, "--method", "read-write", "--size", "1M", "--dir", str(small_fs))
    assert_names_enospc(r, rec)
    assert str(small_fs) in rec["error"], f"the error does not name where: {rec['error']!r}"
    assert sorted(p.name for p in small_fs.iterdir()) == ["filler"], "something was left behind"


def test_source_larger_than_the_file_system(copybench: Path, small_fs: Path) -> None:
    r, rec = copy(copybench, "--method", "read-write", "--size", "3M", "--dir", str(small_fs))
    assert_names_enospc(r, rec)
    assert list(small_fs.iterdir()) == []


@pytest.mark.parametrize("method", FILE_METHODS)
def test_destination_fills_the_file_system(copybench: Path, available: set[str], small_fs: Path,
                                           method: str) -> None:
    """The source fits (768 KiB of 1 MiB); the scratch destination beside it does not."""
    if method not in available:
        pytest.skip(f"{method} is not available here (copybench methods)")
    r, rec = copy(copybench, "--method", method, "--size", "768K", "--dir", str(small_fs))
    assert_names_enospc(r, rec)
    assert list(small_fs.iterdir()) == []

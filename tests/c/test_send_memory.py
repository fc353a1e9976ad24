"""`copybench send` refuses, before allocating anything, buffers that do not fit in the memory
available to it: the least of /proc/meminfo's MemAvailable and what its memory cgroup (and each
cgroup above it) leaves under its limit. One line on stderr naming the need and what is
available, exit 2, nothing on stdout; without the check the sender is OOM-killed mid-trial
with no record.

The cgroup case needs root and a cgroup file system with the memory controller (v2, or v1 where
the host binds memory to v1): it makes a child cgroup with a 2 GiB limit and runs copybench in
it through `sh -c 'echo $$ > cgroup.procs; exec copybench ...'`. Real binary
(src/build/copybench or $COPYBENCH_BIN). No sink is needed: the refusal comes before the
connection (port 9, where nothing listens, fails fast with exit 1 otherwise).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

GiB = 1 << 30
LIMIT = 2 * GiB


def mem_available() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def send(copybench: Path, *args: str, wrap: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [str(copybench), "send", "--host", "127.0.0.1", "--port", "9", "--duration", "0.1",
           "--warmup", "0.05", *args]
    if wrap is not None:  # join the cgroup, then become copybench (the same pid)
        cmd = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(wrap), *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                          check=False)


def assert_refused(r: subprocess.CompletedProcess[str], *names: str) -> str:
    assert r.returncode == 2, f"exit {r.returncode}, expected 2 (refused): {r.stderr[-400:]!r}"
    assert r.stdout == "", f"a refusal printed on stdout: {r.stdout[:200]!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    for name in names:
        assert name in lines[0], f"{name!r} not named in {lines[0]!r}"
    return lines[0]


def test_buffers_beyond_available_memory_are_refused(copybench: Path) -> None:
    """zerocopy keeps 8 messages of 1 GiB in flight per connection, plus its send buffer:
    64 connections need 576 GiB."""
    need = 64 * 9 * GiB
    if mem_available() > need:
        pytest.skip(f"this machine has {mem_available() / GiB:.0f} GiB available (> 576 GiB)")
    line = assert_refused(send(copybench, "--method", "zerocopy", "--size", "1G", "--threads", "64"),
                          "576.0 GiB", "MemAvailable", "--size", "--threads")
    assert "available" in line


def test_pingpong_echo_buffer_counts(copybench: Path) -> None:
    """send pingpong: per connection one message, its send buffer and the echo buffer (3 GiB)."""
    need = 64 * 3 * GiB
    if mem_available() > need:
        pytest.skip(f"this machine has {mem_available() / GiB:.0f} GiB available (> 192 GiB)")
    assert_refused(send(copybench, "--method", "send", "--mode", "pingpong", "--size", "1G",
                        "--threads", "64", "--counters", "rusage"), "192.0 GiB")


def _cgroup_mounts() -> list[tuple[str, Path]]:
    """(version, mount point) of the cgroup hierarchies that have the memory controller."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _, opts = right.split()[:3]
            mnt = Path(left.split()[4])
            if fstype == "cgroup2" and "memory" in (mnt / "cgroup.controllers").read_text().split():
                found.append(("v2", mnt))
            elif fstype == "cgroup" and "memory" in opts.split(","):
                found.append(("v1", mnt))
    return found


@pytest.fixture
def cgroup_2g() -> Iterator[Path]:
    """A child cgroup limited to 2 GiB; yields the file a process joins it by."""
    if os.geteuid() != 0:
        msg = "needs root: creates a memory cgroup"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)
    mounts = _cgroup_mounts()
    if not mounts:
        msg = "no cgroup hierarchy (v2 or v1) has the memory controller here"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)
    version, mnt = sorted(mounts)[-1]  # v2 first
    d = mnt / f"copybench-test-{uuid.uuid4().hex[:8]}"
    if version == "v2" and "memory" not in (mnt / "cgroup.subtree_control").read_text().split():
        (mnt / "cgroup.subtree_control").write_text("+memory")
    d.mkdir()
    try:
        (d / ("memory.max" if version == "v2" else "memory.limit_in_bytes")).write_text(str(LIMIT))
        yield d / "cgroup.procs"
    finally:
        d.rmdir()  # its one process has exited


@pytest.mark.root
def test_cgroup_limit_is_the_bound(copybench: Path, cgroup_2g: Path) -> None:
    """send, 8 connections of 1 GiB messages: a message and its send buffer each, 16 GiB,
    in a 2 GiB cgroup (the case that was OOM-killed with no record)."""
    r = send(copybench, "--method", "send", "--size", "1G", "--threads", "8", wrap=cgroup_2g)
    line = assert_refused(r, "16.0 GiB", "cgroup", str(cgroup_2g.parent.name))
    if mem_available() > 16 * GiB:  # only the cgroup can have refused it
        assert "2.0 GiB" in line, f"the cgroup's limit is not named: {line!r}"


@pytest.mark.root
def test_cgroup_with_room_lets_it_run(copybench: Path, cgroup_2g: Path) -> None:
    """64 KiB messages fit: the check passes and the send goes on to connect (exit 1: nothing
    listens on port 9)."""
    r = send(copybench, "--method", "send", "--size", "64K", "--threads", "8", wrap=cgroup_2g)
    assert r.returncode == 1, f"exit {r.returncode}: {r.stderr[-400:]!r}"
    assert "memory" not in r.stderr

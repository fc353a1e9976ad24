"""The record never lands in the file copybench reads: `copy --src F >> F` and `send --file F >> F`
(or standard output on any other name of F's inode) are usage errors — exit 2, one stderr line
naming the argument, the path and standard output — and F is left as it was. `--dst` naming
the file standard output goes to is refused already (test_copy_safety.py).

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

QUICK = ["--duration", "0.05", "--warmup", "0.02"]
OLD_NS = 1_000_000_000_123_456_789  # an mtime far in the past: any write moves it to now


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_source(path: Path) -> tuple[bytes, int]:
    data = os.urandom(100_003)
    path.write_bytes(data)
    os.utime(path, ns=(OLD_NS, OLD_NS))
    return data, OLD_NS


def command(copybench: Path, cmd: str, src: str) -> list[str]:
    if cmd == "copy":
        return [str(copybench), "copy", "--method", "read-write", "--src", src, *QUICK]
    # nothing listens on the port: the refusal must come before any connection
    return [str(copybench), "send", "--method", "sendfile", "--host", "127.0.0.1", "--port",
            str(unused_port()), "--file", src, *QUICK]


@pytest.mark.parametrize("cmd,arg", [("copy", "--src"), ("send", "--file")])
@pytest.mark.parametrize("stdout_name", ["same-path", "hard-link", "symlink"])
def test_record_appended_to_the_source_is_refused(copybench: Path, tmp_path: Path, cmd: str, arg: str,
                                                  stdout_name: str) -> None:
    src = tmp_path / "src.bin"
    data, mtime = make_source(src)
    out = src
    if stdout_name == "hard-link":
        out = tmp_path / "hard.bin"
        os.link(src, out)
    elif stdout_name == "symlink":
        out = tmp_path / "sym.bin"
        os.symlink(src, out)
    with open(out, "ab") as f:  # the shell's `>> FILE`
        r = subprocess.run(command(copybench, cmd, str(src)), stdout=f, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=30, check=False)
    assert r.returncode == 2, f"exit {r.returncode}, expected 2 (usage error): {r.stderr!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    for needle in (arg, str(src), "standard output"):
        assert needle in lines[0], f"{needle!r} not named in {lines[0]!r}"
    assert src.read_bytes() == data, "the record (or anything) was written into the source"
    assert os.stat(src).st_mtime_ns == mtime


@pytest.mark.parametrize("cmd,arg", [("copy", "--src"), ("send", "--file")])
def test_source_emptied_by_the_redirection_names_standard_output(copybench: Path, tmp_path: Path,
                                                                 cmd: str, arg: str) -> None:
    """`> FILE` truncates the source before copybench runs: the error says why it is empty."""
    src = tmp_path / "src.bin"
    make_source(src)
    with open(src, "w") as f:  # the shell's `> FILE`
        r = subprocess.run(command(copybench, cmd, str(src)), stdout=f, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=30, check=False)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "standard output" in r.stderr and arg in r.stderr, r.stderr
    assert src.read_bytes() == b""


def test_record_to_another_file_still_works(copybench: Path, tmp_path: Path) -> None:
    src = tmp_path / "src.bin"
    data, _ = make_source(src)
    rec = tmp_path / "record.json"
    with open(rec, "a") as f:
        r = subprocess.run(command(copybench, "copy", str(src)), stdout=f, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=30, check=False)
    # 3: a missed window on a busy machine, not a refusal; the record is written either way
    assert r.returncode in (0, 3), r.stderr
    record = json.loads(rec.read_text())
    assert record["config"]["file"] == str(src) and record["result"]["bytes"] > 0, record
    assert src.read_bytes() == data

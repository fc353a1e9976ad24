"""Every path a command reads goes through one helper (:func:`rundir.utf8.read_bytes`): a
regular file within its kind's size cap, else one line, exit 2. A FIFO would
block the reader forever and /dev/zero never ends; both are refused before a byte is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import run_runner
from rundir import utf8


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-large"])
@pytest.mark.parametrize("command", ["plan", "sweep"])
def test_inventory_special_or_huge_file_is_refused(kind: str, command: str,
                                                   tmp_path: Path) -> None:
    if kind == "fifo":
        path = tmp_path / "inventory.toml"
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "inventory.toml"
        with open(path, "wb") as f:
            f.truncate(utf8.INPUT_CAPS["inventory"] + 1)  # sparse: no disk used
    args = ["--profile", "smoke", "--inventory", str(path)]
    if command == "sweep":
        args += ["--run-dir", str(tmp_path / "run")]
    r = run_runner(command, *args, timeout=60)
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and "inventory" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "run").exists()


def test_read_bytes_reads_a_regular_file_and_a_link_to_one(tmp_path: Path) -> None:
    p = tmp_path / "p.toml"
    p.write_text("[x]\n")
    (tmp_path / "link.toml").symlink_to(p)
    assert utf8.read(tmp_path / "link.toml", "profile") == "[x]\n"
    with pytest.raises(utf8.BadInput, match="a directory"):
        utf8.read_bytes(tmp_path, "profile")

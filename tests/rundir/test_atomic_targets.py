"""The atomic writer of a run's files replaces only a regular file: rename(2) over a symbolic
link replaces the link (its target keeps the old bytes), over a device node replaces the node."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from rundir import atomic


def test_a_link_or_fifo_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("old\n")
    link = tmp_path / "link"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (link, fifo):
        with pytest.raises(OSError) as exc:
            atomic.write_text(path, "new\n")
        assert exc.value.errno == errno.EEXIST and exc.value.filename == str(path)
    assert link.is_symlink() and target.read_text() == "old\n"
    assert fifo.exists() and not fifo.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link", "target"]


def test_a_regular_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("old\n")
    atomic.write_text(path, "new\n")
    assert path.read_text() == "new\n"

"""The sweep notebook's kernel talks over Unix sockets named after its connection file
("<file>-N"); a socket's path holds at most 107 bytes, so a run directory at a long path
puts the connection file in a short private directory, removed afterwards."""

from __future__ import annotations

import os
from pathlib import Path

from runner.sweep.notebook import _kernel_connection_file


def test_a_short_path_keeps_the_file_beside_the_run(tmp_path: Path) -> None:
    with _kernel_connection_file(tmp_path) as f:
        assert f == tmp_path / "kernel.json"


def test_a_long_path_gets_a_short_private_directory(tmp_path: Path) -> None:
    deep = tmp_path / ("a-long-checkout-path-" * 5)
    deep.mkdir()
    with _kernel_connection_file(deep) as f:
        assert len(os.fsencode(f)) + 4 <= 107
        assert f.parent.is_dir() and f.parent.stat().st_mode & 0o077 == 0  # mkdtemp: private
        f.write_text("{}")
        made = f.parent
    assert not made.exists()

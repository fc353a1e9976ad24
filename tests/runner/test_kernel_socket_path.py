"""The sweep notebook's kernel talks over Unix sockets named after its connection file
("kernel.json" -> "kernel-ipc-N"); a socket's path holds at most 107 bytes, so a run
directory at a long path talks over TCP on localhost instead of failing "File name too
long"."""

from __future__ import annotations

import os
from pathlib import Path

from runner.sweep.notebook import kernel_transport


def test_unix_sockets_where_their_paths_fit(tmp_path: Path) -> None:
    assert kernel_transport(tmp_path / "kernel.json") == "ipc"
    edge = Path("/" + "d" * (107 - len("/kernel-ipc-5") - 1)) / "kernel.json"
    assert len(os.fsencode(edge.parent / "kernel-ipc-5")) == 107
    assert kernel_transport(edge) == "ipc"


def test_tcp_where_they_would_not(tmp_path: Path) -> None:
    edge = Path("/" + "d" * (107 - len("/kernel-ipc-5"))) / "kernel.json"
    assert len(os.fsencode(edge.parent / "kernel-ipc-5")) == 108
    assert kernel_transport(edge) == "tcp"

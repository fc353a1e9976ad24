"""Whole-or-nothing writes of a run's files (``SHA256SUMS``, ``manifest.json``, ``plan.json``,
``sessions.json``, ``perf/*.json``, the packed records).

The bytes go to a temporary file beside the target (the same file system), are fsync'd, and
the temporary file is renamed over the target: rename(2) within one file system replaces the
name atomically, so a reader sees the old file or the new one, never half of one. The
directory is fsync'd so the rename itself survives a crash. On any failure (ENOSPC, EDQUOT,
EROFS, EIO, a vanished directory) the temporary file is removed, the target is as it was,
and the error is raised with the target's name.

Only a regular file is ever replaced: a symbolic link, FIFO, device node or directory at the
target is refused (``EEXIST``) before anything is written, since rename(2) would replace the
link itself (not its target) or the device node with a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def is_temporary(path: Path) -> bool:
    """A temporary file of a write that has not finished (or was killed)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; it replaces ``path`` only when
    the block ends without an error."""
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OSError(errno.EEXIST, "exists and is not a regular file (a link, FIFO, device "
                      "or directory is never replaced)", str(path))
    tmp = _tmp_name(path)
    try:
        with open(tmp, "xb") as f:
            if mode is not None:  # the file replaced keeps its permissions
                os.fchmod(f.fileno(), stat.S_IMODE(mode))
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        _discard(tmp)
        if exc.filename is None or Path(str(exc.filename)) == tmp:
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        _discard(tmp)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    with replacing(path) as f:
        f.write(data)


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def _discard(tmp: Path) -> None:
    try:
        tmp.unlink()
    except OSError:
        pass

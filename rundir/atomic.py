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

A command's output file (a bench's ``--json``, a script's ``--out``) is written with
:func:`output` / :func:`write_output`: the same whole-or-nothing write, from a temporary file
``mkstemp`` makes beside the target (a name no one can predict or plant a link at, created
with ``O_EXCL``), and a read-only target is refused too. Its path is checked before the
command does any work with :func:`rundir.outpath.output_file_problem`.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
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
def _discarded_on_error(tmp: Path, path: Path) -> Iterator[None]:
    """The block writes ``tmp`` and renames it over ``path``: when it fails (an interruption
    too), ``tmp`` is removed, and an OSError about ``tmp`` (or about no file) names ``path``,
    the file the user asked for."""
    try:
        yield
    except OSError as exc:
        _discard(tmp)
        if exc.filename is None or Path(str(exc.filename)) == tmp:
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        _discard(tmp)
        raise


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
    with _discarded_on_error(tmp, path):
        with open(tmp, "xb") as f:
            if mode is not None:  # the file replaced keeps its permissions
                os.fchmod(f.fileno(), stat.S_IMODE(mode))
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)


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


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _target_problem(path: Path) -> tuple[int | None, OSError | None]:
    """The mode of the regular, writable file at ``path`` (None: nothing is there), or the
    error that refuses it."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, None
    if not stat.S_ISREG(st.st_mode):
        return None, OSError(errno.EEXIST, "exists and is not a regular file (a link, FIFO, "
                             "device or directory is never replaced)", str(path))
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        return None, OSError(errno.EACCES, "is read-only (a read-only file is never "
                             "replaced)", str(path))
    return stat.S_IMODE(st.st_mode), None


@contextmanager
def output(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write a command's output ``path`` into; it replaces ``path`` only when
    the block ends without an error, and otherwise nothing is left (``path`` is as it was).

    The bytes go to a file ``tempfile.mkstemp`` makes in ``path``'s directory (named
    ``.<name>.<random>.tmp``, created exclusively: a link or file planted beside the target is
    never opened), are fsync'd, and the file is renamed over ``path`` (``os.replace``), then
    the directory fsync'd. Only nothing, or a regular writable file, is replaced: a link,
    FIFO, device node or directory at ``path`` raises ``OSError(EEXIST)``, a read-only file
    ``OSError(EACCES)``, checked before the write and again just before the rename. The new
    file has the replaced file's permissions, or 0666 less the umask. Errors name ``path``."""
    path = Path(path)
    mode, problem = _target_problem(path)
    if problem:
        raise problem
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                    dir=path.parent)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    tmp = Path(name)
    with _discarded_on_error(tmp, path):
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode if mode is not None else 0o666 & ~_umask())
            yield f
            f.flush()
            os.fsync(f.fileno())
        _, problem = _target_problem(path)  # it may have changed while the work ran
        if problem:
            raise problem
        os.replace(tmp, path)
        _fsync_dir(path.parent)


def write_output(path: Path, data: bytes | str) -> None:
    """Write a command's output file ``path`` whole or not at all (:func:`output`); ``str``
    is written as UTF-8. Check ``path`` before the work with
    :func:`rundir.outpath.output_file_problem`; this raises ``OSError`` naming ``path`` when
    it cannot be written (a link or read-only file put there since, ENOSPC, ...)."""
    with output(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)

"""A directory read without leaving it: a run directory's readers (``verify``, ``seal``, a
resume, the analysis) and a report's writer never follow a symbolic link out of it, and never
recurse (a tree 1500 directories deep is walked like any other).

* :func:`open_inside` opens a file below a directory one part at a time with ``O_NOFOLLOW``;
* :func:`walk` lists every entry below a directory, iteratively, links listed as links
  (never followed);
* :class:`BadInput` is what a path that must not be read raises (an ``OSError``, so every
  command's one-line handling of ``OSError`` names it).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterator


class BadInput(OSError):
    """An input path that is not read at all: not a regular file (a FIFO would block the
    reader forever, a device such as /dev/zero never ends), or larger than its kind's cap.
    An OSError (EINVAL), so every caller's one-line ``strerror`` handling names it."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(errno.EINVAL, why, str(path))


def open_inside(path: Path, inside: Path | None = None, flags: int = os.O_RDONLY) -> int:
    """A file descriptor of ``path``, opened non-blocking; with ``inside`` (a run directory),
    ``path`` must lie below it and no part of it below ``inside`` may be a symbolic link:
    each part is opened in turn with ``O_NOFOLLOW`` from the one above it, so a link planted
    in a run (``profiles/x.toml`` -> ``/etc/shadow``, ``perf`` -> ``/``) is never followed out
    of it, not even when swapped in after a check. ``inside`` itself may be named through a
    link (the user named it). A link or a path that leaves ``inside`` raises
    :class:`BadInput`."""
    path = Path(path)
    extra = os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if inside is None:
        return os.open(path, flags | extra)
    try:
        rel = path.relative_to(inside)
    except ValueError:
        raise BadInput(path, f"is not inside {inside}; a reader of a run stays inside "
                       "it") from None
    if not rel.parts or ".." in rel.parts:
        raise BadInput(path, f"is not a file inside {inside}; a reader of a run stays "
                       "inside it")
    fd = os.open(inside, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, part in enumerate(rel.parts):
            last = i == len(rel.parts) - 1
            how = (flags | extra) if last else (os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                nfd = os.open(part, how | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(
                        os.path.join(inside, *rel.parts[:i + 1])):
                    raise BadInput(path, f"{Path(*rel.parts[:i + 1])} is a symbolic link; a "
                                   f"reader of the run {inside} never follows a link (a run "
                                   "holds its own files)") from None
                raise OSError(exc.errno, exc.strerror, str(path)) from None
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def walk(root: Path) -> Iterator[tuple[str, Path, int]]:
    """``(relative POSIX path, path, lstat mode)`` of every entry below ``root``, sorted by
    name within each directory, parents before their entries; a symbolic link (to a file or
    a directory) is listed and never followed, a directory is entered only when it is one.
    Iterative: no depth makes it raise ``RecursionError``. An ``OSError`` of a directory that
    cannot be listed is raised, naming it."""
    root = Path(root)
    stack: list[tuple[str, Path]] = [("", root)]
    while stack:
        rel, d = stack.pop()
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
        subdirs = []
        for e in entries:
            r = f"{rel}/{e.name}" if rel else e.name
            try:
                mode = e.stat(follow_symlinks=False).st_mode
            except FileNotFoundError:  # removed since it was listed (a temporary file)
                continue
            yield r, Path(e.path), mode
            if stat.S_ISDIR(mode):
                subdirs.append((r, Path(e.path)))
        stack.extend(reversed(subdirs))

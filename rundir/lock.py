"""One writer per run directory: an exclusive ``flock(2)`` on ``<run>/.lock``.

Every command that writes a run (``python -m runner sweep``, its ``--resume``, ``python -m
runner notebook``, ``python -m rundir seal|pack``) takes the lock before it reads or writes
anything and keeps it until it is done; a second writer is refused, naming the holder. A
flock belongs to the open file, so the kernel drops it when the holder exits however it exits
(SIGKILL included): a lock is never stale, and the file a killed holder leaves behind is
simply taken over. The file holds the holder's pid, command and start time (one JSON line),
for the message a refused writer prints. It is not part of the run: ``seal`` never lists it,
``verify`` ignores it, and the holder removes it when it releases the lock.

Readers (``make book``, ``make compare``) call :func:`holder`: a run whose lock cannot be
shared is being written.

Removing the file on release races with a writer that opened it a moment before: that
writer's flock then succeeds on a file that no longer has the name. :func:`acquire` checks
that the name still refers to the file it locked and starts over if not.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rundir import layout

#: a refused flock is tried again this often, this far apart: a reader's momentary shared
#: lock (:func:`holder`) must not refuse a writer
_TRIES, _PAUSE_S = 5, 0.02


@dataclass(frozen=True)
class Holder:
    """Who holds a run's lock, as its lock file says (fields None when it does not say)."""

    pid: int | None
    command: str | None
    since: str | None

    def describe(self) -> str:
        if self.pid is None:
            return "another process"
        what = ", ".join(x for x in (self.command, f"since {self.since}" if self.since else "")
                         if x)
        return f"pid {self.pid}" + (f" ({what})" if what else "")


class Locked(Exception):
    """The run is being written by another process."""

    def __init__(self, run_dir: Path, holder: Holder) -> None:
        self.run_dir, self.holder = run_dir, holder
        super().__init__(f"run {run_dir} is being written by {holder.describe()}")


class RunLock:
    """The lock of one run, held; :meth:`release` (or leaving a ``with``) lets it go."""

    def __init__(self, run_dir: Path, fd: int | None, made_dir: bool) -> None:
        self.run_dir, self._fd, self._made_dir = run_dir, fd, made_dir

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file (still holding the lock), then let the lock go; a directory
        this lock created is removed again when nothing else was put in it."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if _same_file(fd, self.run_dir / layout.LOCK):
                (self.run_dir / layout.LOCK).unlink()
        except OSError:
            pass  # a lock file left behind is unlocked: the next writer takes it over
        finally:
            os.close(fd)
        if self._made_dir:
            try:
                self.run_dir.rmdir()
            except OSError:
                pass  # not empty: the run was made

    def __enter__(self) -> "RunLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = path.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _read(fd: int) -> Holder:
    try:
        doc = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
    except (OSError, ValueError):
        return Holder(None, None, None)
    if not isinstance(doc, dict):
        return Holder(None, None, None)
    pid = doc.get("pid")
    return Holder(pid if isinstance(pid, int) else None,
                  str(doc["command"]) if doc.get("command") else None,
                  str(doc["since"]) if doc.get("since") else None)


def _flock(fd: int, how: int) -> bool:
    for i in range(_TRIES):
        try:
            fcntl.flock(fd, how | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
        if i + 1 < _TRIES:
            time.sleep(_PAUSE_S)
    return False


class NotALockFile(OSError):
    """What is at ``<run>/.lock`` is not a lock file this command may write (a symbolic link,
    a FIFO, a device, a file with other names): refused, never written through."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(errno.EEXIST, f"is {what}, not a lock file; a run's lock file is "
                         "only ever a regular file of its own, never written through a link "
                         "(remove it if you put it there)", str(path))


def _open_lock(path: Path) -> int:
    """The lock file, opened (created when absent) without following a link: a link planted
    at ``.lock`` (by whoever may write the run directory) would make a writer running as
    root write its holder line into the link's target. O_NONBLOCK: a FIFO put there does
    not block the open either; anything but a regular file with one name is refused."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_NOCTTY | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotALockFile(path, "a symbolic link") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise NotALockFile(path, "not a regular file" if not stat.S_ISREG(st.st_mode)
                           else f"a file with {st.st_nlink} names (a hard link)")
    return fd


def acquire(run_dir: Path, command: str) -> RunLock:
    """Take the run's lock for ``command`` (what the refused writer's message names);
    creates the run directory when there is none (removed again on release if left empty).
    Raises :class:`Locked` when another process holds it."""
    run_dir = Path(run_dir)
    made = not run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / layout.LOCK
    while True:
        try:
            fd = _open_lock(path)
        except BaseException:
            if made:
                _rmdir_quietly(run_dir)
            raise
        try:
            if not _flock(fd, fcntl.LOCK_EX):
                raise Locked(run_dir, _read(fd))
        except BaseException:
            os.close(fd)
            if made:
                _rmdir_quietly(run_dir)
            raise
        if _same_file(fd, path):
            break
        os.close(fd)  # the holder before removed it between our open and our flock
    doc = {"pid": os.getpid(), "command": command,
           "since": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    try:  # who holds it, for a refused writer's message; the lock holds without it
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(doc) + "\n").encode(), 0)
    except OSError:
        pass  # a full file system: the command itself will say so
    return RunLock(run_dir, fd, made)


def _rmdir_quietly(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def holder(run_dir: Path) -> Holder | None:
    """Who is writing the run now, or None when nobody is (for readers: takes no lock that
    outlives the call, creates nothing)."""
    try:
        fd = os.open(Path(run_dir) / layout.LOCK,
                     os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None  # no lock file (or one this user cannot read): nobody writes
    try:
        if not _flock(fd, fcntl.LOCK_SH):
            return _read(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)

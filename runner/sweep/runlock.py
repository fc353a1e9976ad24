"""The sweep's side of the run lock (:mod:`rundir.lock`): one writer per run directory.

``python -m runner sweep`` (new or ``--resume``) takes the lock of its run directory before
it reads or writes anything there and releases it when it is done. ``python -m runner
notebook`` takes it in the driver, for the whole execution (the notebook moved in and the
run sealed after the kernel ends), and *lends* it to the sweep inside the notebook's kernel:
it names itself in ``COPYBENCH_RUN_LOCK_LENT`` (``<pid>:<run dir>``), and a sweep whose parent
process is that pid and holds that run's lock runs under it instead of being refused. A
borrower must not outlive the lender (the lock would be gone while it writes): it asks the
kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import os
from pathlib import Path

from rundir import lock
from runner.host.errors import RunnerError, UsageError
from runner.host.proc import die_with_parent

LENT = "COPYBENCH_RUN_LOCK_LENT"


class Borrowed(lock.RunLock):
    """The lock of the parent process, lent to this one: nothing to release."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(run_dir, None, False)


def lend_env(held: lock.RunLock) -> dict[str, str]:
    """What the lender puts in its children's environment."""
    return {LENT: f"{os.getpid()}:{held.run_dir.resolve()}"}


def _lent_to_me(run_dir: Path, holder: lock.Holder) -> bool:
    """The parent lends this process the run's lock: it names itself and the run in
    ``COPYBENCH_RUN_LOCK_LENT``, and the lock file names it as the holder, or names nobody (on
    a full file system the holder's line could not be written: the lender's claim alone,
    made only by a process that holds the lock, to its own children, decides; the refusal
    said "being written by another process" and hid the full disk)."""
    pid, _, where = os.environ.get(LENT, "").partition(":")
    return (pid.isdigit() and int(pid) == os.getppid() and holder.pid in (None, int(pid))
            and where == str(run_dir.resolve()))


def take(run_dir: Path, command: str) -> lock.RunLock:
    """The run's lock, or the one lent by the parent; a second writer gets one line naming
    the run and the holder (:class:`RunnerError`, exit 1) and nothing is written."""
    try:
        return lock.acquire(run_dir, command)
    except lock.Locked as e:
        if _lent_to_me(run_dir, e.holder):
            parent = os.getppid()
            die_with_parent()
            if os.getppid() == parent:  # the lender is still there: from now on, we die with it
                return Borrowed(run_dir)
        pid = e.holder.pid
        raise RunnerError(f"{e}; nothing was written (wait for it to end"
                          + (f", or stop it: kill {pid})" if pid else ")")) from None
    except lock.NotALockFile as e:  # a link or FIFO planted at .lock: refused, untouched
        raise UsageError(f"{e.filename}: {e.strerror}; nothing was written") from None
    except OSError as e:
        raise RunnerError(f"{e.filename or run_dir}: {e.strerror or e}; cannot lock the run "
                          "directory (nothing was written)") from None

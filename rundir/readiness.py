"""What a reader of a run (``make book``, ``make compare``) must know before it reads one:
whether the run is being written (:mod:`rundir.lock`) and whether it verifies
(:mod:`rundir.verify`). A reader refuses such a run unless the user asks for it explicitly,
and then says the run is not verified."""

from __future__ import annotations

from pathlib import Path

from rundir import lock
from rundir.verify import verify


def being_written(run_dir: Path) -> str | None:
    """``run X is being written by pid N (...)`` while a writer holds the run, else None
    (asked first: a run being written may end in a torn line, which is no damage)."""
    holder = lock.holder(run_dir)
    return None if holder is None else str(lock.Locked(run_dir, holder))


def unverified_reason(run_dir: Path) -> str | None:
    """Why the run cannot be read as a verified run (``run X is being written by pid N
    (...)``, ``run X does not verify: ...``), or None."""
    writing = being_written(run_dir)
    if writing is not None:
        return writing
    report = verify(run_dir, cache=True)  # re-hashed; the record checks reused when passed before
    if report.ok:
        return None
    more = len(report.problems) - 1
    return (f"run {run_dir} does not verify: {report.problems[0]}"
            + (f" (and {more} more: python -m rundir verify {run_dir})" if more else ""))

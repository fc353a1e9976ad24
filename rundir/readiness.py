"""What a reader of a run (``make book``, ``make compare``) must know before it reads one:
whether the run is being written (:mod:`rundir.lock`) and whether it verifies
(:mod:`rundir.verify`). A reader refuses such a run unless the user asks for it explicitly,
and then says the run is not verified."""

from __future__ import annotations

from pathlib import Path

import hashlib

from rundir import layout, lock, records, utf8
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


def _identity(run_dir: Path) -> str | None:
    """What names one run whatever directory holds it: its ``plan.json`` (run id, creation
    time, seed, every cell and round: a copy keeps it, packing leaves it), else its first
    record's run id, trial id and start; None when neither can be read."""
    try:
        return "plan " + hashlib.sha256(utf8.read_bytes(run_dir / layout.PLAN, inside=run_dir)
                                        ).hexdigest()
    except OSError:
        pass
    path = records.trials_file(run_dir)
    try:
        first = next(records.read(path), None) if path is not None else None
    except (OSError, ValueError, EOFError):
        return None
    key = [first.get(k) for k in ("run_id", "trial_id", "started_at")] \
        if isinstance(first, dict) else []
    return f"record {key!r}" if key and all(isinstance(k, str) for k in key) else None


def same_run(a: Path, b: Path) -> bool:
    """Whether two directories hold the same run (one a copy of the other, packed or not):
    comparing them says nothing."""
    ia = _identity(Path(a))
    return ia is not None and ia == _identity(Path(b))

"""Whether a run is finished: it has at least as many records as its ``plan.json`` lists
trials (the fixed rounds; the rounds run in order, so a run short of them is missing some),
and its last session (``sessions.json``) ended complete, not interrupted.

``seal`` and ``pack`` refuse a run that is not, unless told it is final (an interrupted run
sealed or packed by mistake could no longer be resumed as it was); a run without a
``plan.json`` (made by hand, or by an older runner) says nothing, and is taken as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rundir import layout, planfile, records, utf8


def _recorded(run_dir: Path) -> set[str]:
    """The trial ids of the run's readable records (a line that is not one is skipped: what
    is wrong with it is ``verify``'s to say)."""
    path = records.trials_file(run_dir)
    if path is None:
        return set()
    return {str(line.record.get("trial_id")) for line in records.lines(path)
            if line.record is not None}


def _last_session(run_dir: Path) -> dict[str, Any] | None:
    """The last entry of the run's ``sessions.json``; None when there is none, or when it
    cannot be read as the run's own file (a link, a FIFO, a device, too large, not JSON:
    what is wrong with it is ``verify``'s and ``seal``'s to say, :func:`rundir.verify.
    content_problems`). Read bounded and never through a link (:func:`rundir.utf8.read`)."""
    try:
        sessions = utf8.json_loads(utf8.read(run_dir / layout.SESSIONS, inside=run_dir))
    except (OSError, ValueError):
        return None
    last = sessions[-1] if isinstance(sessions, list) and sessions else None
    return last if isinstance(last, dict) else None


def incomplete(run_dir: Path) -> str | None:
    """Why the run is not finished (``"11 of 25 planned trials recorded"``, ``"its last
    session was interrupted (SIGINT)"``), or None."""
    try:
        plan = planfile.read(run_dir)
    except (OSError, ValueError):
        return f"its {layout.PLAN} cannot be read"
    if plan is None:
        return None
    rounds = plan.get("rounds")
    planned = {str(t) for rnd in (rounds if isinstance(rounds, list) else [])
               if isinstance(rnd, list) for t in rnd}
    recorded = len(_recorded(run_dir))
    if recorded < len(planned):
        return f"{recorded} of {len(planned)} planned trials recorded (in {layout.PLAN})"
    last = _last_session(run_dir)
    if last is not None and last.get("complete") is False:
        why = last.get("interrupted") or last.get("error") or "not complete"
        return f"its last session ended interrupted ({str(why).splitlines()[0][:120]})"
    return None

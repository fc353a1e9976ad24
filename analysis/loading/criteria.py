"""The criteria file of the shared-time validation run (``runner/profiles/
shared-time-criteria.toml``, :mod:`analysis.statistics.adoption`) read from disk: its TOML
parsed and every key checked, or one line saying what is wrong; and whether git shows it
committed before a run's first record."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from analysis.loading import run as A
from analysis.statistics.adoption import Criteria, CriteriaError, parse
from decision.profiles import profile_path
from rundir import utf8

#: the committed criteria file
DEFAULT = profile_path("shared-time-criteria")


def read(path: Path = DEFAULT) -> Criteria:
    """The criteria in ``path``; :class:`CriteriaError` (one line) when it cannot be read,
    is not TOML, or is incomplete or inconsistent."""
    try:  # a regular file of a profile's size, never waiting on a FIFO or reading a device
        text = utf8.read(path, "profile")
    except (OSError, utf8.NotUtf8) as e:
        raise CriteriaError(f"{path}: cannot read the criteria file "
                            f"({getattr(e, 'strerror', None) or e})") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CriteriaError(f"{path}: not TOML ({e})") from None
    return parse(doc, str(path))


def declared_before(path: Path, run: A.Run) -> str:
    """Whether the criteria file's last commit (git log) is older than the run's first
    record, in words."""
    first = None
    if "started_at" in run.trials:
        stamps = [A.instant(str(x)) for x in run.trials["started_at"].dropna()]
        first = min(stamps) if stamps else None
    path = path.resolve()
    try:
        r = subprocess.run(["git", "log", "-1", "--format=%cI", "--", path.name],
                           cwd=path.parent, capture_output=True, text=True)
        changed = subprocess.run(["git", "status", "--porcelain", "--", path.name],
                                 cwd=path.parent, capture_output=True, text=True)
    except OSError as e:
        return f"criteria file: git could not be run ({e.strerror}), so not shown older"
    if r.returncode != 0 or not r.stdout.strip():
        return "criteria file: not committed in git, so not shown older than the run"
    committed = A.instant(r.stdout.strip())
    local = " (with uncommitted changes)" if changed.stdout.strip() else ""
    if first is None:
        return f"criteria committed {committed:%Y-%m-%d %H:%M} UTC{local}; the run has no record"
    when = "before" if committed < first else "AFTER"
    return (f"criteria committed {committed:%Y-%m-%d %H:%M:%S} UTC{local}, {when} the run's "
            f"first record ({first:%Y-%m-%d %H:%M:%S} UTC)")

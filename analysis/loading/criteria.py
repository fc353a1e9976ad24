"""The criteria file of the shared-time validation run (``runner/profiles/
shared-time-criteria.toml``, :mod:`analysis.statistics.adoption`) read from disk: its TOML
parsed and every key checked, or one line saying what is wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path

from analysis.statistics.adoption import Criteria, CriteriaError, parse
from decision.profiles import profile_path

#: the committed criteria file
DEFAULT = profile_path("shared-time-criteria")


def read(path: Path = DEFAULT) -> Criteria:
    """The criteria in ``path``; :class:`CriteriaError` (one line) when it cannot be read,
    is not TOML, or is incomplete or inconsistent."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CriteriaError(f"{path}: cannot read the criteria file "
                            f"({getattr(e, 'strerror', None) or e})") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CriteriaError(f"{path}: not TOML ({e})") from None
    return parse(doc, str(path))

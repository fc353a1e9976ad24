"""What is known of a committed run that its records do not carry (``data/raw/run-notes.toml``):
a stretch of rounds that overlapped other activity on the machine, from the operator's account
at the time. Written by hand, not measured: the book says so wherever it uses one.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from analysis.loading.run import BadRun
from rundir import utf8

#: the notes file, beside the committed runs
NOTES = Path(__file__).resolve().parents[2] / "data" / "raw" / "run-notes.toml"


@dataclass(frozen=True)
class Overlap:
    """Rounds ``first``..``last`` of a run overlapped other activity (``what``) for about
    ``minutes``; ``source`` says where that is known from."""

    first: int
    last: int
    minutes: float
    what: str
    source: str

    @property
    def rounds(self) -> range:
        return range(self.first, self.last + 1)


def overlap(run: str, path: Path = NOTES) -> Overlap | None:
    """The overlap noted for the run named ``run`` (its directory's name), or None (no note,
    or no notes file). A notes file that cannot be read as one (a FIFO or a device, too
    large, not UTF-8 or TOML: read as any input file is, :func:`rundir.utf8.read`) is a
    :class:`BadRun` naming it."""
    try:
        notes = utf8.toml_loads(utf8.read(path, kind="profile"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, tomllib.TOMLDecodeError) as exc:
        raise BadRun(f"{path}: cannot be read as the runs' notes "
                     f"({getattr(exc, 'strerror', None) or exc})") from None
    n = notes.get(run) or {}
    if "overlap_rounds" not in n:
        return None
    first, last = (int(x) for x in n["overlap_rounds"])
    return Overlap(first, last, float(n.get("overlap_minutes", float("nan"))),
                   str(n.get("overlap_what", "other activity")), str(n.get("source", "")))

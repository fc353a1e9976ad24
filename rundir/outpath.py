"""Where a command may write its output: only where nothing is, or over what is provably an
earlier output of the same command. Anything else (a symbolic link, a FIFO, a device node, a
directory, a run, a file the command did not write) is refused before the command does any
work, in one line that says what is there and what is allowed.

Two kinds of output:

* a file (``runner noise --out``, ``runner planning --out``): replaced only when it is a
  regular file that begins with the header line the command writes;
* a report directory (``analysis.compare_report --out``): replaced only when it is a real
  directory (not a link), not a run, and holds the marker file the command writes into
  every report it makes (:data:`REPORT_MARKER`) with the command's marker text.

``lstat`` is used throughout: a link is judged as a link, never by what it points to, so
neither the link nor its target is ever replaced.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rundir import layout

#: the file every report directory of a command holds (its content names the command)
REPORT_MARKER = ".copybench-report"
#: files that make a directory a run (or part of one): never an output directory
_RUN_FILES = (layout.PLAN, layout.TRIALS, layout.TRIALS_PACKED, layout.SUMS, layout.MANIFEST)


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISLNK(mode):
        return "a symbolic link (never followed or replaced)"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device node"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a file" if stat.S_ISREG(mode) else "not a regular file"


def _lstat(path: Path, option: str) -> os.stat_result | str | None:
    """What is at ``path`` (not following a link): None when nothing is, the one-line reason
    when it cannot be examined."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{option} {path}: cannot be examined ({exc.strerror or exc})"


def file_problem(path: Path, header: str, option: str = "--out") -> str | None:
    """Why the command must not write its file to ``path`` (None: nothing is there, or an
    earlier output of the command is, whose first line begins with ``header``)."""
    st = _lstat(path, option)
    if st is None or isinstance(st, str):
        return st
    if not stat.S_ISREG(st.st_mode):
        return (f"{option} {path}: is {_kind(st.st_mode)}; the output is written only where "
                "nothing is, or over a file this command wrote before")
    try:
        with open(path, "rb") as f:
            start = f.read(len(header.encode("utf-8")))
    except OSError as exc:
        return f"{option} {path}: cannot be read ({exc.strerror or exc})"
    if start != header.encode("utf-8"):
        return (f"{option} {path}: exists and is not a file this command wrote (it does not "
                f"begin with {header!r}); choose another path or remove it yourself")
    return None


def report_dir_problem(path: Path, marker_text: str, option: str = "--out") -> str | None:
    """Why the command must not write its report directory at ``path`` (None: nothing is
    there, or an earlier report of the command is: a directory with the marker file whose
    content is ``marker_text``)."""
    st = _lstat(path, option)
    if st is None or isinstance(st, str):
        return st
    if not stat.S_ISDIR(st.st_mode):
        return (f"{option} {path}: is {_kind(st.st_mode)}; "
                "the report is written only where nothing is, or over a report this command "
                "wrote before")
    runs = [n for n in _RUN_FILES if os.path.lexists(path / n)]
    if runs:
        return (f"{option} {path}: is a run directory (it holds {', '.join(runs)}); a run is "
                "never replaced by a report: choose another directory")
    marker = path / REPORT_MARKER
    try:
        mst = os.lstat(marker)
        ok = stat.S_ISREG(mst.st_mode) and marker.read_text(encoding="utf-8") == marker_text
    except (OSError, UnicodeDecodeError):
        ok = False
    if not ok:
        return (f"{option} {path}: exists and is not a report this command wrote (no "
                f"{REPORT_MARKER} of it inside); choose another directory or remove it "
                "yourself")
    return None

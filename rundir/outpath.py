"""Where a command may write its output: only where nothing is, or over what is provably an
earlier output of the same command. Anything else (a symbolic link, a FIFO, a device node, a
directory, a run, a file the command did not write) is refused before the command does any
work, in one line that says what is there and what is allowed.

Two kinds of output:

* a file (``runner noise --out``, ``runner planning --out``): replaced only when it is a
  regular file that begins with the header line the command writes;
* a report directory (``analysis.compare_report --out``): replaced only when it is a real
  directory (not a link), not a run, and everything in it is the command's own earlier
  output: the marker file the command writes into every report it makes
  (:data:`REPORT_MARKER`: the command's marker line, then ``<sha256>  <path>`` of every file
  the report holds, :func:`write_marker`) lists every file there, with its content. A file a
  user added or edited, a run copied in, a link: the directory is refused, nothing touched.

Neither kind of output is ever written inside a run directory (:func:`run_above`): a run is
written by the sweep and the run tools only, and a file added to it fails ``verify``. A
read-only file is never replaced (:func:`file_problem`).

``lstat`` is used throughout: a link is judged as a link, never by what it points to, so
neither the link nor its target is ever replaced.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from rundir import layout

#: the file every report directory of a command holds (its content names the command)
REPORT_MARKER = ".copybench-report"
#: the largest marker file read (a report lists a few dozen files)
MARKER_MAX = 1 << 20
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


def run_above(path: Path) -> Path | None:
    """The run directory ``path`` would be written into (the nearest directory above it,
    links resolved, that holds a run's files), or None."""
    here = Path(os.path.realpath(Path(path).parent))
    for d in (here, *here.parents):
        if any(os.path.lexists(d / n) for n in _RUN_FILES):
            return d
    return None


def _inside_run(path: Path, option: str) -> str | None:
    run = run_above(path)
    if run is None:
        return None
    return (f"{option} {path}: is inside the run directory {run}; no command but the sweep "
            "and the run tools writes into a run (a file added to it fails verify): choose a "
            "path outside it, e.g. under build/")


def file_problem(path: Path, header: str, option: str = "--out") -> str | None:
    """Why the command must not write its file to ``path`` (None: nothing is there, or an
    earlier output of the command is, whose first line begins with ``header``, and may be
    written). Never inside a run, never over a read-only file."""
    inside = _inside_run(path, option)
    if inside:
        return inside
    st = _lstat(path, option)
    if st is None or isinstance(st, str):
        return st
    if not stat.S_ISREG(st.st_mode):
        return (f"{option} {path}: is {_kind(st.st_mode)}; the output is written only where "
                "nothing is, or over a file this command wrote before")
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        return (f"{option} {path}: is read-only (mode {stat.S_IMODE(st.st_mode):04o}); a "
                "read-only file is never replaced: make it writable or choose another path")
    try:
        with open(path, "rb") as f:
            start = f.read(len(header.encode("utf-8")))
    except OSError as exc:
        return f"{option} {path}: cannot be read ({exc.strerror or exc})"
    if start != header.encode("utf-8"):
        return (f"{option} {path}: exists and is not a file this command wrote (it does not "
                f"begin with {header!r}); choose another path or remove it yourself")
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def write_marker(directory: Path, marker_line: str) -> None:
    """Write ``directory``'s marker file: ``marker_line``, then ``<sha256>  <path>`` of every
    regular file below it (what a later run of the command may replace, and nothing else)."""
    lines = [marker_line.rstrip("\n")]
    for base, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            p = Path(base) / name
            rel = p.relative_to(directory).as_posix()
            if rel != REPORT_MARKER and stat.S_ISREG(os.lstat(p).st_mode):
                lines.append(f"{_sha256(p)}  {rel}")
    (Path(directory) / REPORT_MARKER).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _not_listed(path: Path, listed: dict[str, str]) -> str | None:
    """The first thing under ``path`` that its marker does not list as it is (a file added,
    edited, a link, a directory of its own), or None."""
    wanted_dirs = {Path(r).parent.as_posix() for r in listed}
    wanted_dirs |= {p.as_posix() for r in listed for p in Path(r).parents}
    for base, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            p = Path(base) / name
            rel = p.relative_to(path).as_posix()
            if rel == REPORT_MARKER:
                continue
            mode = os.lstat(p).st_mode
            if stat.S_ISDIR(mode):
                if rel not in wanted_dirs:
                    return f"{rel}/ (not written by this command)"
            elif not stat.S_ISREG(mode):
                return f"{rel} ({_kind(mode)})"
            elif rel not in listed:
                return f"{rel} (not written by this command)"
            elif _sha256(p) != listed[rel]:
                return f"{rel} (changed since this command wrote it)"
    return None


def report_dir_problem(path: Path, marker_text: str, option: str = "--out",
                       legacy: tuple[str, ...] = ()) -> str | None:
    """Why the command must not write its report directory at ``path`` (None: nothing is
    there, or an earlier report of the command is: a directory with the marker file whose
    content is ``marker_text``)."""
    inside = _inside_run(path, option)
    if inside:
        return inside
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
    head = marker_text.rstrip("\n")
    try:
        mst = os.lstat(marker)
        lines = (marker.read_text(encoding="utf-8").splitlines()
                 if stat.S_ISREG(mst.st_mode) and mst.st_size <= MARKER_MAX else [])
    except (OSError, UnicodeDecodeError):
        lines = []
    if not lines or lines[0] != head:
        return (f"{option} {path}: exists and is not a report this command wrote (no "
                f"{REPORT_MARKER} of it inside); choose another directory or remove it "
                "yourself")
    listed = {}
    for line in lines[1:]:
        digest, sep, rel = line.partition("  ")
        if sep and len(digest) == 64:
            listed[rel] = digest
    if len(lines) == 1 and legacy:  # a report made before markers listed their files:
        # its own files are the command's known names (``legacy``), at any content
        for name in legacy:
            p = path / name
            try:
                if stat.S_ISREG(os.lstat(p).st_mode):
                    listed[name] = _sha256(p)
            except OSError:
                continue
    try:
        extra = _not_listed(path, listed)
    except OSError as exc:
        extra = f"{exc.filename} (cannot be examined: {exc.strerror or exc})"
    if extra:
        return (f"{option} {path}: holds {extra}, which its {REPORT_MARKER} does not list as "
                "this command's earlier output; a report directory is replaced only when "
                "everything in it is: choose another directory, or move that away yourself "
                "(nothing was touched)")
    return None

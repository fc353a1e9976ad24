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

A command that writes one output file checks it with :func:`output_file_problem` before it
does any work (the directory too: a missing one is found before the measuring, not after),
and writes it with :func:`rundir.atomic.write_output`.

``lstat`` is used throughout: a link is judged as a link, never by what it points to, so
neither the link nor its target is ever replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tarfile
from pathlib import Path
from typing import Callable

from rundir import layout
from rundir.inside import walk

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


def file_problem(path: Path, header: str | None, option: str = "--out",
                 own: Callable[[Path], bool] | None = None,
                 own_text: str = "") -> str | None:
    """Why the command must not write its file to ``path`` (None: nothing is there, or an
    earlier output of the command is, which may be written). The command's own earlier
    output is a regular file whose first line begins with ``header``, or, for output that
    has no text header (an archive), one ``own`` accepts (``own_text`` says what it looks
    for). Never inside a run, never over a read-only file, a link or anything but a regular
    file."""
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
    if own is not None:
        if own(path):
            return None
        return (f"{option} {path}: exists and is not a file this command wrote ({own_text}); "
                "choose another path or remove it yourself")
    assert header is not None
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                               | os.O_CLOEXEC), "rb") as f:
            start = f.read(len(header.encode("utf-8")))
    except OSError as exc:
        return f"{option} {path}: cannot be read ({exc.strerror or exc})"
    if start != header.encode("utf-8"):
        return (f"{option} {path}: exists and is not a file this command wrote (it does not "
                f"begin with {header!r}); choose another path or remove it yourself")
    return None


def output_file_problem(path: Path, option: str = "--out", *, header: str | None = None,
                        own: Callable[[Path], bool] | None = None,
                        own_text: str = "") -> str | None:
    """Why a command must not write its output file to ``path`` (None: it may), checked before
    the command measures or computes anything: the path is not empty; the directory it goes
    in exists, is a directory and is writable (the temporary file is made there); and
    :func:`file_problem`: nothing is at ``path``, or a regular, writable file that is the
    command's own earlier output (its first line begins with ``header``, or ``own`` accepts
    it, ``own_text`` saying what it looks for), never a link, FIFO, device, directory, a
    read-only file, or a path inside a run. Write the file afterwards with
    :func:`rundir.atomic.write_output` (a ``mkstemp`` file beside it, renamed over it)."""
    if header is None and own is None:
        raise ValueError("output_file_problem: give header or own")
    if not str(path).strip():
        return f"{option}: is empty; give a file's path"
    path = Path(path)
    parent = path.parent
    try:
        pst = os.stat(parent)
    except FileNotFoundError:
        return (f"{option} {path}: its directory {parent} does not exist; make it first "
                "(nothing is created for the output but the file itself)")
    except OSError as exc:
        return f"{option} {path}: its directory {parent} cannot be examined ({exc.strerror or exc})"
    if not stat.S_ISDIR(pst.st_mode):
        return f"{option} {path}: {parent} is {_kind(pst.st_mode)}, not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return (f"{option} {path}: its directory {parent} is not writable (a read-only "
                "directory or file system); choose another path")
    return file_problem(path, header, option, own=own, own_text=own_text)


def json_with_keys(keys: tuple[str, ...], also: Callable[[dict], bool] | None = None,
                   limit: int = 64 << 20) -> Callable[[Path], bool]:
    """An ``own`` test for :func:`file_problem` and :func:`output_file_problem`, for output
    that is one JSON object with no text header: a regular file of at most ``limit`` bytes
    (opened without following a link, never waiting on a FIFO) holding a JSON object with
    every key of ``keys``, which ``also`` (when given) accepts too."""
    def own(path: Path) -> bool:
        try:
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                                   | os.O_CLOEXEC), "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return False
                raw = f.read(limit + 1)
        except OSError:
            return False
        if len(raw) > limit:
            return False
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return False
        return (isinstance(obj, dict) and all(k in obj for k in keys)
                and (also is None or bool(also(obj))))
    return own


def new_dir_problem(path: Path, option: str, what: str = "the output",
                    ignore: tuple[str, ...] = ()) -> str | None:
    """Why a command must not make ``path`` the directory it creates and fills (a new run,
    a root, a folder of generated files), or None: nothing is there, or an empty directory
    (not a link to one), and it is not inside a run. A directory that holds anything is
    refused, never cleaned (what is in it is not the command's); a link, even one that
    points nowhere yet, is refused (the command would write wherever it points). Names in
    ``ignore`` do not count (a run's ``.lock`` left by a killed sweep)."""
    st = _lstat(path, option)
    if isinstance(st, str):
        return st
    if st is not None:
        if not stat.S_ISDIR(st.st_mode):
            return (f"{option} {path}: is {_kind(st.st_mode)}; {what} is written only into "
                    "a new or an empty directory")
        try:
            entries = sorted(n for n in os.listdir(path) if n not in ignore)
        except OSError as exc:
            return f"{option} {path}: cannot be listed ({exc.strerror or exc})"
        if entries:
            more = f" and {len(entries) - 3} more" if len(entries) > 3 else ""
            return (f"{option} {path}: exists and is not empty (it holds "
                    f"{', '.join(entries[:3])}{more}); {what} is written only into a new or "
                    "an empty directory, and nothing in one is ever removed: choose another "
                    "path, or empty it yourself")
    return _inside_run(path, option)


def gzip_tar_of(top: str) -> Callable[[Path], bool]:
    """An ``own`` test for :func:`file_problem`: a gzip-compressed tar whose every member
    lies in the directory ``top`` (what a command that packs ``top/`` wrote before)."""
    def own(path: Path) -> bool:
        try:
            with tarfile.open(path, "r:gz") as t:
                names = [m.name.rstrip("/") for m in t.getmembers()]
        except (OSError, EOFError, tarfile.TarError):
            return False
        return bool(names) and all(n == top or n.startswith(f"{top}/") for n in names)
    return own


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC),
                   "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def write_marker(directory: Path, marker_line: str) -> None:
    """Write ``directory``'s marker file: ``marker_line``, then ``<sha256>  <path>`` of every
    regular file below it (what a later run of the command may replace, and nothing else)."""
    lines = [marker_line.rstrip("\n")]
    for rel, p, mode in walk(directory):  # iterative, links never followed
        if rel != REPORT_MARKER and stat.S_ISREG(mode):
            lines.append(f"{_sha256(p)}  {rel}")
    (Path(directory) / REPORT_MARKER).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _not_listed(path: Path, listed: dict[str, str]) -> str | None:
    """The first thing under ``path`` that its marker does not list as it is (a file added,
    edited, a link, a directory of its own), or None."""
    wanted_dirs = {Path(r).parent.as_posix() for r in listed}
    wanted_dirs |= {p.as_posix() for r in listed for p in Path(r).parents}
    for rel, p, mode in walk(path):  # iterative, links never followed
        if rel == REPORT_MARKER:
            continue
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


USAGE = ("usage: python -m rundir.outpath dir PATH NAME | tar PATH NAME TOP\n"
         "  dir: PATH may become a new directory NAME names (nothing there, or an empty one)\n"
         "  tar: PATH may become an archive of TOP/ (nothing there, or such an archive)\n"
         "Prints why not (one line, exit 2); nothing and exit 0 when it may. For the shell\n"
         "scripts (scripts/fresh-root, scripts/bundle): standard library only.")


def main(argv: list[str]) -> int:
    """The checks for a shell script's output path: the same rules as the Python commands'.
    The reason for a refusal goes to stdout (the script captures it and says it in its own
    words); the usage asked for with --help to stdout too, exit 0."""
    if argv in (["--help"], ["-h"]):
        print(USAGE)
        return 0
    if len(argv) in (3, 4) and not argv[1].strip():  # Path("") would be "."
        problem = f"{argv[2]} is empty; give a path"
    elif argv[:1] == ["dir"] and len(argv) == 3:
        problem = new_dir_problem(Path(argv[1]), argv[2])
    elif argv[:1] == ["tar"] and len(argv) == 4:
        problem = file_problem(Path(argv[1]), None, argv[2], own=gzip_tar_of(argv[3]),
                               own_text=f"not a .tar.gz of {argv[3]}/")
    else:
        print(USAGE, file=sys.stderr)
        return 2
    if problem:
        print(problem)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

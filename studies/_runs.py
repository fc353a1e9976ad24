"""How the scripts beside the analysis read a run: through the one loader
(:func:`analysis.loading.run.load_run`), a run that cannot be read (``BadRun``: a damaged
record or file; ``OSError``: no records, a path that cannot be opened) or that holds no
measured trial ending the script in one line, ``<script>: <what is wrong>``, exit 2.

A helper module of the scripts (its name starts with ``_``: not a command).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, NoReturn

from analysis.loading.run import BadRun, Run, load_run
from analysis.study import Study
from analysis.study import open as open_study

#: the exit status of every refused input
BAD_INPUT = 2


def fail(prog: str, message: str) -> NoReturn:
    """One line on stderr, exit 2."""
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(BAD_INPUT)


def load(prog: str, run_dir: Path, measured: bool = True) -> Run:
    """The run in ``run_dir``; with ``measured``, one that holds at least one trial that
    measured (status ok): a run of no records, or of failed trials only, has nothing to
    report, which is said rather than printed as an empty result."""
    return _checked(prog, run_dir, measured, load_run)


def study(prog: str, run_dir: Path) -> Study:
    """The Study of the run in ``run_dir`` (:func:`analysis.study.open`: loaded and its claims
    evaluated once, kept per sealed run), refused as :func:`load` refuses a run."""
    kept: list[Study] = []

    def opened(d: Path) -> Run:
        kept.append(open_study(d, tables=False))
        return kept[-1].run

    _checked(prog, run_dir, True, opened)
    return kept[-1]


def _checked(prog: str, run_dir: Path, measured: bool, read: Callable[[Path], Run]) -> Run:
    if not Path(run_dir).is_dir():
        fail(prog, f"{run_dir}: not a run directory (no such directory; expected "
                   "data/raw/<run-id>)")
    try:
        run = read(Path(run_dir))
    except BadRun as exc:
        fail(prog, str(exc))
    except OSError as exc:  # no records in it, or a file that cannot be opened
        fail(prog, f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror
             else str(exc))
    if measured and run.measured.empty:
        n = len(run.trials)
        fail(prog, f"{run_dir}: nothing to report: "
             + ("the run holds no trial record" if n == 0 else
                f"none of its {n} trial records measured (no status ok)"))
    return run

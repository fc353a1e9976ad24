"""``make compare``: execute ``notebooks/compare.ipynb`` on a run and the reference run and
write the report (executed notebook, HTML without code, ``cells.csv``, ``claims.csv``).
``cells.csv`` carries each cell's side that set its rate in each run (``bound_run``,
``bound_ref``: :mod:`decision.reading`'s labels, from
:func:`analysis.statistics.bottleneck.cell_bound`), so a cell that differs where copybench's
receiver set the rate is read as the receiver's, not the method's.

    python -m analysis.compare_report RUN REF [--threshold T] [--out DIR] [--unverified]

Exit codes: 0 report written; 1 the notebook failed, or a run is being written or does not
verify (:mod:`rundir.readiness`; ``--unverified`` reports on such a run anyway, saying so); 2
bad input, in one line (a missing run directory, a run whose records cannot be read: the
file and line, a threshold outside (0, 1), an ``--out`` that holds anything but an earlier
report, or lies inside a run: :mod:`rundir.outpath`; RUN and REF the same run). The report is
assembled in a temporary directory and moved into place only when complete, so a failure
leaves no partial report; every report holds the marker file that lets a later report
replace it. The kernel's connection file lives in that temporary directory, and the kernel
and the directory go with this process even when it is killed with SIGKILL
(:mod:`analysis.comparison.orphans`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from decision.band import SESOI
from rundir import records
from rundir.outpath import report_dir_problem, write_marker
from rundir.readiness import being_written, same_run, unverified_reason

NOTEBOOK = "notebooks/compare.ipynb"
#: the content of every report's marker file (:data:`rundir.outpath.REPORT_MARKER`)
MARKER_TEXT = "a report of python -m analysis.compare_report\n"
#: the files of a report made before its marker listed them (a marker of the first line
#: only): such a report is still replaced when it holds these and nothing else
LEGACY_FILES = ("compare.ipynb", "compare.html", "cells.csv", "claims.csv", "reproduced.csv",
                "unmatched.csv")
#: the notebook kernel's connection file, kept in the report's temporary directory
KERNEL_FILE = ".kernel.json"
#: The checkout this package lives in (notebooks/ and build/ are beside it).
ROOT = Path(__file__).resolve().parents[2]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        print(f"compare: {message}", file=sys.stderr)
        sys.exit(2)


def _run_dir(p: argparse.ArgumentParser, label: str, value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_dir():
        p.error(f"{label}={value}: no such run directory "
                "(expected data/raw/<run-id> or build/smoke-run)")
    if records.trials_file(path) is None:
        p.error(f"{label}={value}: not a run directory (no {records.TRIALS} "
                f"or {records.TRIALS_PACKED})")
    return path.resolve()


#: a report's temporary directory: ".<report name>.<pid of its compare>.<random>"
_TMP_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>[1-9][0-9]*)\.[A-Za-z0-9_]{8}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(parent: Path) -> list[Path]:
    """Remove the temporary directories of compares that are dead (the process whose id is
    in the name), whose watchdog was killed too: a partial report and the kernel's
    connection file, which holds the key to run code in a kernel. A directory of a live
    process, and anything not named like one, is left alone. Returns what was removed."""
    gone = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return gone
    for e in entries:
        m = _TMP_NAME.fullmatch(e.name)
        if m is None or not e.is_dir(follow_symlinks=False) or _alive(int(m["pid"])):
            continue
        shutil.rmtree(e.path, ignore_errors=True)
        gone.append(Path(e.path))
    return gone


#: the default threshold as the messages write it: the claims' band
_EXAMPLE = f"{SESOI:g} for ±{SESOI * 100:g} %"


def _threshold(text: str) -> float:
    try:
        t = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (allowed: 0 < T < 1, "
                                         f"e.g. {_EXAMPLE})") from None
    if not 0 < t < 1:
        raise argparse.ArgumentTypeError(f"{text} is outside 0 < T < 1 (e.g. {_EXAMPLE})")
    return t


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="python -m analysis.compare_report",
                description="Compare RUN with the reference run REF cell by cell and claim "
                            "by claim; write an HTML report and CSV tables.")
    p.add_argument("run", metavar="RUN", help="the run to compare (data/raw/<run-id>)")
    p.add_argument("ref", metavar="REF", help="the reference run (data/raw/<run-id>)")
    p.add_argument("--threshold", type=_threshold, default=SESOI, metavar="T",
                   help="ratios within 1 ± T count as the same (default "
                        f"{SESOI:g}, the band the paper reads its comparisons against)")
    p.add_argument("--out", metavar="DIR", help="report directory (default "
                   "build/compare/<run-id>-vs-<ref-id>)")
    p.add_argument("--unverified", action="store_true", help="report on a run that is being "
                   "written or does not verify (the report's log says so)")
    args = p.parse_args(argv)
    run, ref = _run_dir(p, "RUN", args.run), _run_dir(p, "REF", args.ref)
    if run == ref:
        p.error(f"RUN and REF are the same run ({run}); a run compared with itself says "
                "nothing: give the reference run as REF (make compare RUN=<your run>)")
    if args.out is not None and not args.out.strip():
        p.error("--out is empty; give the report directory, or leave --out out for "
                "build/compare/<run-id>-vs-<ref-id>")
    out = Path(args.out) if args.out else ROOT / "build" / "compare" / f"{run.name}-vs-{ref.name}"
    problem = report_dir_problem(out, MARKER_TEXT, legacy=LEGACY_FILES)
    if problem:  # before anything runs: nothing is touched
        p.error(f"{problem}; no report written")
    if same_run(run, ref):  # a copy of the run (its plan.json, or first record, the same)
        p.error(f"RUN {run} and REF {ref} hold the same run (one is a copy of the "
                "other); a run compared with itself says nothing: give the "
                "reference run as REF (make compare RUN=<your run>)")
    for left in remove_leftovers(out.parent):
        print(f"compare: removed {left} (left by a compare that was killed)", file=sys.stderr)
    for label, d in (("RUN", run), ("REF", ref)):
        why = being_written(d)
        problem = None if why else records.first_problem(d)
        if problem:  # a damaged record: bad input, named by file and line
            print(f"compare: {problem}; no report written", file=sys.stderr)
            return 2
        why = why or unverified_reason(d)
        if why and not args.unverified:
            print(f"compare: {label}: {why}; no report written (to compare it anyway: "
                  "make compare UNVERIFIED=1, or --unverified)", file=sys.stderr)
            return 1
        if why:
            print(f"compare: warning: {label} is NOT verified: {why}; compared anyway, as "
                  "asked (--unverified)", file=sys.stderr)
    try:
        return _report(run, ref, args, out)
    except OSError as exc:
        print(f"compare: {exc.filename or out}: {exc.strerror or exc}; no report written "
              "(the runs are only read)", file=sys.stderr)
        return 1


def _report(run: Path, ref: Path, args: argparse.Namespace, out: Path) -> int:
    root = ROOT
    out.parent.mkdir(parents=True, exist_ok=True)

    import nbformat
    import papermill

    from analysis.comparison.notebook_html import render

    from traitlets.config import Config

    from analysis.comparison.orphans import KernelDyingWithDriver, Watchdog

    # named after this process: a later compare removes it once this process is dead, even
    # when the watchdog was killed too (:func:`remove_leftovers`)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.{os.getpid()}.", dir=out.parent))
    watchdog = Watchdog(tmp)  # removes tmp (partial report, connection file) if this is killed
    # over Unix sockets where their paths fit (jupyter_client names them after the connection
    # file, one byte longer: ".kernel-ipc-N"; a socket's path holds 107 bytes), else over TCP
    # on localhost: a checkout at a long path would otherwise fail "File name too long"
    connection = tmp / KERNEL_FILE
    transport = "ipc" if len(os.fsencode(connection)) + 1 <= 107 else "tcp"
    try:
        executed = tmp / "compare.ipynb"
        print(f"compare: executing {NOTEBOOK} (run {run.name}, reference {ref.name}, "
              f"threshold {args.threshold:g})", file=sys.stderr)
        try:
            papermill.execute_notebook(
                str(root / NOTEBOOK), str(executed), cwd=str(root), kernel_name="python3",
                progress_bar=False, log_output=False,
                parameters={"run_dir": str(run), "ref_dir": str(ref),
                            "threshold": args.threshold, "out_dir": str(tmp)},
                kernel_manager_class=KernelDyingWithDriver,
                # over Unix sockets, not TCP: ipykernel warns of plain-text TCP on every start
                config=Config({"KernelManager": {"connection_file": str(connection),
                                                 "transport": transport}}))
        except papermill.PapermillExecutionError as exc:
            print(f"compare: the notebook failed: {exc.ename}: {exc.evalue} "
                  f"(no report written)", file=sys.stderr)
            return 1
        page = render(nbformat.read(executed, as_version=4),
                      f"copybench: {run.name} against {ref.name}")
        (tmp / "compare.html").write_text(page, encoding="utf-8")
        connection.unlink(missing_ok=True)  # the kernel's key is no part of a report
        write_marker(tmp, MARKER_TEXT)  # lists every file: what a later report may replace
        tmp.chmod(0o755)  # mkdtemp made it private
        problem = report_dir_problem(out, MARKER_TEXT, legacy=LEGACY_FILES)  # again: the notebook took a while
        if problem:
            print(f"compare: {problem}; no report written", file=sys.stderr)
            return 2
        if os.path.lexists(out):  # an earlier report of this command (its marker says so)
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
        watchdog.close()
    print(f"compare: report {out / 'compare.html'} (tables: cells.csv, claims.csv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

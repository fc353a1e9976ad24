"""``python -m analysis.study build RUN [--siblings] [--jobs N]``: each run's Study made (or
found current) under ``book/_generated/study/<run-id>/`` before the notebooks read it; with
``--siblings``, also the Study of every committed run beside it (those the notebooks read
beside the run: other machines, reruns, the noise study), of its records and verdicts only
(what the notebooks read of them). The Studies are independent, so
they are made in ``--jobs`` processes at once (default: one per CPU this process may use). A
run that cannot be read is one line naming what is wrong, exit status 2."""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from analysis import study as SD
from analysis.loading.run import BadRun, packed_siblings

PROG = "python -m analysis.study"


def _made(run_dir: Path, tables: bool = True) -> str:
    """Make (or find current) one run's Study: the line that says so; a damaged run raises
    its BadRun."""
    s = SD.open(run_dir, tables=tables)
    f = s.facts
    return (f"study {f['run_id']}: {f['trials']:,} trials, {f['claims']} claims"
            f"{'' if s.key else ' (not sealed as it is: not kept)'}")


def _sibling(run_dir: Path) -> str | None:
    """A run beside: studied ahead only, so a damaged one is left to the notebook that reads
    it (which raises its BadRun itself, naming the file and line)."""
    try:
        return _made(run_dir, tables=False)
    except BadRun:
        return None


def _jobs(text: str) -> int:
    n = int(text) if text.isdigit() else 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: not a number of processes (1 or more)")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="make each run's Study (or find it current)")
    b.add_argument("runs", nargs="+", metavar="RUN", help="a run directory (data/raw/<run-id>)")
    b.add_argument("--siblings", action="store_true",
                   help="also every committed run beside each RUN")
    b.add_argument("--jobs", type=_jobs, default=len(os.sched_getaffinity(0)), metavar="N",
                   help="Studies made at once (default: one per CPU this process may use)")
    args = ap.parse_args(argv)
    beside: list[Path] = []
    given = {Path(r).resolve() for r in args.runs}  # studied whole, never also as a sibling
    for r in args.runs if args.siblings else ():
        try:
            beside += [sib.path for sib in packed_siblings(r)
                       if sib.path not in beside and sib.path.resolve() not in given]
        except BadRun:
            continue
    try:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            mine = [pool.submit(_made, Path(r)) for r in args.runs]
            theirs = [pool.submit(_sibling, p) for p in beside]
            try:
                for f in mine:
                    print(f.result(), flush=True)  # a damaged RUN: its BadRun, one line
            except BadRun:
                pool.shutdown(cancel_futures=True)  # nothing beside it is wanted then
                raise
            for f in theirs:
                line = f.result()
                if line:
                    print(line, flush=True)
    except BadRun as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m analysis.study build RUN [--siblings]``: each run's Study made (or found
current) under ``book/_generated/study/<run-id>/`` before the notebooks read it; with
``--siblings``, also the Study of every committed run beside it (those the notebooks read
beside the run: other machines, reruns, the noise study). A run that cannot be read is one
line naming what is wrong, exit status 2."""

from __future__ import annotations

import argparse
import sys

from analysis import study as S
from analysis.loading.run import BadRun, packed_siblings

PROG = "python -m analysis.study"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="make each run's Study (or find it current)")
    b.add_argument("runs", nargs="+", metavar="RUN", help="a run directory (data/raw/<run-id>)")
    b.add_argument("--siblings", action="store_true",
                   help="also every committed run beside each RUN")
    args = ap.parse_args(argv)
    try:
        runs = [S.open(r) for r in args.runs]  # a damaged RUN: BadRun, one line
        for s in runs:
            _say(s)
        # the runs beside are studied ahead only: a notebook that reads a damaged one
        # raises its BadRun itself (naming the file and line), one that does not never fails
        for r in args.runs if args.siblings else ():
            try:
                beside = packed_siblings(r)
            except BadRun:
                continue
            for sib in beside:
                try:
                    _say(S.open(sib.path))
                except BadRun:
                    continue
    except BadRun as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return 0


def _say(s: S.Study) -> None:
    f = s.facts
    print(f"study {f['run_id']}: {f['trials']:,} trials, {f['claims']} claims"
          f"{'' if s.key else ' (not sealed as it is: not kept)'}")


if __name__ == "__main__":
    sys.exit(main())

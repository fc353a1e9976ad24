"""``python -m analysis.study build RUN [--siblings]``: each run's Study made (or found
current) under ``book/_generated/study/<run-id>/`` before the notebooks read it; with
``--siblings``, also the Study of every committed run beside it (those the notebooks read
beside the run: other machines, reruns, the noise study). A run that cannot be read is one
line naming what is wrong, exit status 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
        todo: list[Path] = []
        for r in args.runs:
            if not Path(r).is_dir():
                raise BadRun(f"{r}: not a run directory (expected data/raw/<run-id>/)")
            todo.append(Path(r))
            if args.siblings:
                todo += [s.path for s in packed_siblings(r)]
        for d in dict.fromkeys(p.resolve() for p in todo):
            s = S.open(d)
            f = s.facts
            print(f"study {f['run_id']}: {f['trials']:,} trials, {f['claims']} claims"
                  f"{'' if s.key else ' (not sealed as it is: not kept)'}")
    except BadRun as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

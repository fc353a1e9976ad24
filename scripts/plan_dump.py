"""Dump ``python -m runner plan`` for every profile x seeds 0-9 (text, --json, --cells) into
one folder, one file per invocation, so that two commits' plans can be diffed byte for byte:

    python scripts/plan_dump.py OUTDIR

Runs the runner's command line in one process (``runner.sweep.cli.main``), which prints what
``python -m runner plan`` prints. Standard library and the runner only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.sweep.cli import main as runner_main, out_dir_problem  # noqa: E402

MODES = {"text": [], "json": ["--json"], "cells": ["--cells"]}


def profiles() -> list[str]:
    return sorted(p.stem for p in (ROOT / "runner" / "profiles").glob("*.toml"))


def dump(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for prof in profiles():
        for seed in range(10):
            for mode, extra in MODES.items():
                buf, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
                    try:
                        rc = runner_main(["plan", "--profile", prof, "--seed", str(seed), *extra])
                    except SystemExit as e:
                        rc = e.code
                (out / f"{prof}-{seed}-{mode}.txt").write_text(
                    f"rc={rc}\n{buf.getvalue()}--- stderr\n{err.getvalue()}")
                n += 1
    print(f"plan_dump: {n} plans under {out}")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/plan_dump.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path, metavar="OUTDIR",
                    help="a new or empty directory (outside any run) for the dumps")
    a = ap.parse_args(argv)
    # OUTDIR holds only the dumps: a folder of the user's, a link or a path inside a run is
    # refused before anything is written (it made ./--help/ of `--help`)
    problem = out_dir_problem(a.outdir, "OUTDIR")
    if problem:
        print(f"plan_dump: {problem}; nothing written", file=sys.stderr)
        return 2
    return dump(a.outdir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Write the text the findings notebook generates for the book on one run into a folder, so
that two commits' words can be diffed without building the book:

    python scripts/findings_text.py RUN_DIR OUTDIR

Runs ``notebooks/findings.py`` in one process with its ``run_dir`` parameter set, as
papermill would: OUTDIR gets the abstract (``abstract.inc``, ``abstract-latex.inc``), the
front page's findings (``findings.inc``), the results chapter's list (``comparisons.inc``),
every glued string (``glued.txt``) and every Markdown or table it displays (``shown.txt``;
a table's HTML carries a random id, so diff with ``sed -E 's/T_[0-9a-f]{5}/T_x/g'``).
About two minutes on the reference run.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARAMETER = 'run_dir = "../build/smoke-run"'


USAGE = ("usage: python scripts/findings_text.py RUN_DIR OUTDIR (RUN_DIR: a run directory; "
         "OUTDIR: a new or empty directory, outside any run)")


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(f"{USAGE}\n\n{__doc__.strip()}")
        return 0
    if len(argv) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    sys.path[:0] = [str(ROOT), str(ROOT / "studies")]  # the packages; studies/_runs.py
    from _runs import load
    from analysis.words.output import output_dir_problem

    # OUTDIR holds only what this script writes: a folder of the user's files (its own
    # findings.inc), a link or a path inside a run is refused before anything runs
    problem = output_dir_problem(Path(argv[1]), "OUTDIR")
    if problem:
        print(f"findings_text: {problem}; nothing written", file=sys.stderr)
        return 2
    # a missing, damaged or empty run (no trial, or failed trials only: no findings to
    # write, and an empty folder would diff as if every finding had gone) is one line
    # before anything is written
    load("findings_text", Path(argv[0]))
    run_dir, out = str(Path(argv[0]).resolve()), Path(argv[1]).resolve()
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["COPYBENCH_FIGDATA"] = str(out / "figdata")
    os.environ["MPLBACKEND"] = "Agg"
    os.chdir(ROOT)
    import IPython.display as display

    import analysis.words.output as output

    shown: list[str] = []
    glued: dict[str, str] = {}
    display.display = lambda *objs, **_: shown.extend(
        str(getattr(o, "data", o)) for o in objs)
    output.glue_text = lambda name, text: glued.__setitem__(name, str(text))
    # the page includes the notebook glues (make book's finalize step writes them) go here
    output.include = lambda name, text: (out / name).write_text(text)
    output.include_figure = lambda name, fig: fig.savefig(out / name, dpi=150, format="png")
    src = (ROOT / "notebooks" / "findings.py").read_text()
    if PARAMETER not in src:
        print(f"notebooks/findings.py has no line {PARAMETER!r} to set", file=sys.stderr)
        return 2
    src = src.replace(PARAMETER, f"run_dir = {run_dir!r}")
    from analysis.loading.run import BadRun

    try:
        exec(compile(src, "notebooks/findings.py", "exec"), {"__name__": "__main__"})
        (out / "glued.txt").write_text("".join(f"{k}: {v}\n" for k, v in sorted(glued.items())))
        (out / "shown.txt").write_text("\n----\n".join(shown) + "\n")
    except BaseException as exc:  # no partial folder: the one this script made goes
        if made:
            shutil.rmtree(out, ignore_errors=True)
        if isinstance(exc, BadRun):  # a damaged run: one line naming the file
            print(f"findings_text: {exc}; nothing written", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

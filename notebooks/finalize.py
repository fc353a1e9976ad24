"""Prepare a papermill-executed notebook for the book: hide the parameter cells (the
source default and papermill's injected values) by tagging them ``remove-cell``; the run
directory is stated on the testbed page instead.

    python notebooks/finalize.py EXECUTED.ipynb

The notebook is rewritten in place, whole or not at all (a temporary file beside it renamed
over it: :func:`rundir.atomic.write_output`). Only a regular file that holds a valid notebook
is read: a missing file, a link, a FIFO or device, a file over the size cap, or one that is
not a notebook is refused in one line, exit 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from rundir import utf8  # noqa: E402
from rundir.atomic import write_output  # noqa: E402

PROG = "finalize"
#: what a file that is no notebook raises in nbformat's reading and validation
NOT_A_NOTEBOOK = (ValueError, TypeError, AttributeError, KeyError, IndexError,
                  RecursionError, nbformat.ValidationError)


class Refused(Exception):
    """Why the file is not finalized: one line."""


def read(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path``: a regular file (not a link: it is rewritten in place) of at
    most :data:`rundir.utf8.INPUT_CAPS` ``["file"]`` bytes, valid nbformat 4."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise Refused(f"{path}: is a symbolic link; the notebook is rewritten in place, so "
                          "give the file itself")
        text = utf8.read(path)  # a regular file, bounded, never waiting on a FIFO
    except OSError as exc:
        raise Refused(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:  # not UTF-8
        raise Refused(f"{path}: not a notebook ({exc})") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except NOT_A_NOTEBOOK as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Refused(f"{path}: not a notebook (nbformat 4): {first[:200]}") from None
    return nb


def finalize(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Tag the parameter cells ``remove-cell``."""
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    return nb


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python notebooks/finalize.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("notebook", type=Path, metavar="EXECUTED.ipynb",
                    help="the notebook papermill executed (rewritten in place)")
    a = ap.parse_args(argv)
    try:
        nb = finalize(read(a.notebook))
        text = nbformat.writes(nb)
        write_output(a.notebook, text if text.endswith("\n") else text + "\n")
    except Refused as exc:
        print(f"{PROG}: {exc}; nothing written", file=sys.stderr)
        return 2
    except OSError as exc:  # the rewrite: the notebook is as it was
        print(f"{PROG}: {a.notebook}: cannot be written ({exc.strerror or exc}); nothing "
              "written", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

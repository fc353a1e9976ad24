#!/usr/bin/env python3
"""Compare the glued values (myst-nb/papermill glue: every number and verdict the book's prose
shows) of two sets of executed notebooks, e.g. the book built with the pip path's packages and
the one built with nixpkgs' versions (make compare-nix-book).

    python nix/compare_glue.py DIR_A DIR_B     (each a book/_generated/ directory)

Each notebook is read as a bounded regular file (a link, FIFO or device is refused, never
read); a directory that is missing, or a notebook that is not JSON, is one line, exit 2.

Text values (text/plain, text/markdown, text/html) are compared exactly; images only by
presence, since a different matplotlib renders different bytes. Prints each difference and
exits 1 if any text value or glue name differs, 0 if all are the same.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rundir import utf8  # noqa: E402  (the bounded regular-file reader)


class BadNotebook(ValueError):
    """A notebook that cannot be read: the message names it and why."""


PREFIX = "application/papermill.record/"
TEXT = ("text/plain", "text/markdown", "text/html")


def glue(directory: Path) -> dict[str, dict[str, str]]:
    """'notebook:name' -> {mime: value} for every glued output."""
    out: dict[str, dict[str, str]] = {}
    if not directory.is_dir():
        raise BadNotebook(f"{directory}: not a directory (give a book/_generated/ directory)")
    for path in sorted(directory.glob("*.ipynb")):
        try:
            nb = json.loads(utf8.read(path, inside=directory))
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise BadNotebook(f"{path}: cannot be read as a notebook ({why})") from None
        if not isinstance(nb, dict) or not isinstance(nb.get("cells", []), list):
            raise BadNotebook(f"{path}: not a notebook (a JSON object with a list of cells)")
        for cell in nb.get("cells", []):
            if not isinstance(cell, dict):
                raise BadNotebook(f"{path}: not a notebook (a cell that is not an object)")
            for output in cell.get("outputs", []):
                name = output.get("metadata", {}).get("scrapbook", {}).get("name")
                if name is None:
                    continue
                values = {}
                for mime, value in output.get("data", {}).items():
                    mime = mime.removeprefix(PREFIX)
                    text = "".join(value) if isinstance(value, list) else value
                    values[mime] = text if mime in TEXT else "<binary>"
                out[f"{path.stem}:{name}"] = values
    return out


class _OneLine(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (not usage + error)
        self.exit(2, f"compare_glue: {message} (usage: compare_glue.py DIR_A DIR_B)\n")


def main(argv: list[str] | None = None) -> int:
    ap = _OneLine(prog="compare_glue.py", description=__doc__,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir_a", type=Path, help="a book/_generated/ directory")
    ap.add_argument("dir_b", type=Path, help="another book/_generated/ directory")
    args = ap.parse_args(argv)
    try:
        a, b = glue(args.dir_a), glue(args.dir_b)
    except BadNotebook as exc:
        print(f"compare_glue: {exc}", file=sys.stderr)
        return 2
    if not a or not b:
        print(f"compare_glue: no glued outputs in {args.dir_a if not a else args.dir_b}",
              file=sys.stderr)
        return 2
    differ = 0
    for key in sorted(a.keys() | b.keys()):
        if key not in a or key not in b:
            differ += 1
            print(f"only in {'A' if key in a else 'B'}: {key}")
            continue
        for mime in sorted(a[key].keys() | b[key].keys()):
            va, vb = a[key].get(mime), b[key].get(mime)
            if va != vb:
                differ += 1
                print(f"{key} [{mime}]:\n  A: {va!s:.300}\n  B: {vb!s:.300}")
    print(f"compare_glue: {len(a.keys() & b.keys())} glued values in both, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

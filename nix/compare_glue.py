#!/usr/bin/env python3
"""Compare the glued values (myst-nb/papermill glue: every number and verdict the book's prose
shows) of two sets of executed notebooks, e.g. the book built with the pip path's packages and
the one built with nixpkgs' versions (make compare-nix-book).

    python nix/compare_glue.py DIR_A DIR_B     (each a book/_generated/ directory)

Text values (text/plain, text/markdown, text/html) are compared exactly; images only by
presence, since a different matplotlib renders different bytes. Prints each difference and
exits 1 if any text value or glue name differs, 0 if all are the same.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

PREFIX = "application/papermill.record/"
TEXT = ("text/plain", "text/markdown", "text/html")


def glue(directory: Path) -> dict[str, dict[str, str]]:
    """'notebook:name' -> {mime: value} for every glued output."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted(directory.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
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


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = (glue(Path(d)) for d in sys.argv[1:])
    if not a or not b:
        print(f"compare_glue: no glued outputs in {sys.argv[1] if not a else sys.argv[2]}", file=sys.stderr)
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

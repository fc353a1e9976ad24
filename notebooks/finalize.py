"""Prepare a papermill-executed notebook for the book: hide the parameter cells (the
source default and papermill's injected values) by tagging them ``remove-cell``; the run
directory is stated on the testbed page instead.

    python notebooks/finalize.py EXECUTED.ipynb
"""

from __future__ import annotations

import sys

import nbformat


def main(path: str) -> int:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    nbformat.write(nb, path)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python notebooks/finalize.py EXECUTED.ipynb", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

"""Regenerate notebooks/*.ipynb (stored without outputs) from the percent-format sources in
notebooks/_src/*.py, so the notebooks can be reviewed and diffed as text.

    python notebooks/py2nb.py            # write every notebook
    python notebooks/py2nb.py --check    # exit 1 if any notebook is out of date

Cell markers: ``# %%`` (code), ``# %% [markdown]`` (markdown, lines prefixed ``# ``), and an
optional ``tags=["parameters", ...]`` after the marker.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
MARKER = re.compile(r"^# %%(?P<md> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")


def convert(text: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python",
                                  "name": "python3"},
                   "language_info": {"name": "python"}}
    cells: list[tuple[bool, list[str], list[str]]] = []
    for line in text.splitlines():
        m = MARKER.match(line)
        if m:
            cells.append((bool(m.group("md")), json.loads(m.group("tags") or "[]"), []))
        elif cells:
            cells[-1][2].append(line)
    for i, (md, tags, lines) in enumerate(cells):
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if md:
            src = "\n".join(re.sub(r"^# ?", "", ln) for ln in lines)
            cell = nbformat.v4.new_markdown_cell(src)
        else:
            cell = nbformat.v4.new_code_cell("\n".join(lines))
        cell.id = f"c{i:02d}"
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


def render(src: Path) -> str:
    return nbformat.writes(convert(src.read_text()), version=4) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for src in sorted((HERE / "_src").glob("*.py")):
        out = HERE / f"{src.stem}.ipynb"
        text = render(src)
        if check:
            if not out.is_file() or out.read_text() != text:
                stale.append(out.name)
        elif not out.is_file() or out.read_text() != text:
            out.write_text(text)
            print(f"wrote {out.relative_to(HERE.parent)}")
    if stale:
        print("out of date (run python notebooks/py2nb.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

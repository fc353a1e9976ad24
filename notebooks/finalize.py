"""Prepare a papermill-executed notebook for the book: hide the parameter cells (the
source default and papermill's injected values) by tagging them ``remove-cell``; the run
directory is stated on the testbed page instead. With ``--includes DIR``, write the page
includes the notebook glued (:data:`analysis.words.output.INCLUDE`: the abstract, a list in
Markdown, the front page's figure) into DIR, each whole or not at all, and drop them from the
notebook: a notebook never writes a file of the book itself. With ``--facts FILE``, write every
text the notebook glued for the book's prose (key -> text, JSON) to FILE: the book's facts,
one file per notebook under ``book/_generated/facts/``, so that two builds' facts compare
file by file (:func:`read_facts`).

    python notebooks/finalize.py EXECUTED.ipynb [--includes DIR] [--facts FILE]

The notebook is rewritten in place, whole or not at all (a temporary file beside it renamed
over it: :func:`rundir.atomic.write_output`). Only a regular file that holds a valid notebook
is read: a missing file, a link, a FIFO or device, a file over the size cap, or one that is
not a notebook is refused in one line, exit 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import ast
import base64
import binascii
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, Mapping

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from analysis.words.output import INCLUDE  # noqa: E402
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


#: an include's file name: one plain name with its extension, never a path
INCLUDE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\.(inc|png)")


def glued(output: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A glued output's key and data (mime type -> value), or None for an output nothing was
    glued to. A glue not displayed keeps its data under its mime prefix, taken off here."""
    glue = output.get("metadata", {}).get("scrapbook", {})
    key, prefix = glue.get("name", ""), glue.get("mime_prefix", "")
    if not key:
        return None
    return key, {k[len(prefix):]: v for k, v in output.get("data", {}).items()
                 if k.startswith(prefix)}


def includes(nb: nbformat.NotebookNode) -> dict[str, str | bytes]:
    """The page includes the notebook glued (name -> Markdown text or PNG bytes), taken out of
    its outputs; a name that is not a plain file name (:data:`INCLUDE_NAME`), one glued
    twice, or one without Markdown or PNG data is refused."""
    out: dict[str, str | bytes] = {}
    for cell in nb.cells:
        if "outputs" not in cell:
            continue
        keep = []
        for o in cell.outputs:
            g = glued(o)
            if g is None or not (o.get("output_type") == "display_data"
                                 and g[0].startswith(INCLUDE)):
                keep.append(o)
                continue
            name, data = g[0][len(INCLUDE):], g[1]
            if not INCLUDE_NAME.fullmatch(name) or name in out:
                raise Refused(f"glued include {name!r}: not one plain file name "
                              "(name.inc or name.png), or glued twice")
            try:
                out[name] = (base64.b64decode(data["image/png"], validate=True)
                             if name.endswith(".png") else str(data["text/markdown"]))
            except (KeyError, binascii.Error):
                raise Refused(f"glued include {name!r}: no "
                              f"{'PNG' if name.endswith('.png') else 'Markdown'} data") from None
        cell.outputs = keep
    return out


def facts(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Every text the notebook glued (key -> the text a page pastes): a ``glue_text`` value
    (its ``text/plain`` is the string's repr) or glued Markdown. Figures, tables and the page
    includes are not facts (figures keep their data under ``figdata/``)."""
    out: dict[str, str] = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            g = glued(o)
            if g is None or g[0].startswith(INCLUDE):
                continue
            key, data = g
            if "text/markdown" in data:
                out[key] = str(data["text/markdown"])
            elif set(data) == {"text/plain"}:
                try:
                    value = ast.literal_eval(str(data["text/plain"]))
                except (ValueError, SyntaxError):
                    value = str(data["text/plain"])
                out[key] = str(value)
    return out


def read_facts(folder: Path) -> dict[str, dict[str, str]]:
    """The facts a build wrote (``--facts``): notebook -> key -> text."""
    return {p.stem: json.loads(utf8.read(p)) for p in sorted(Path(folder).glob("*.json"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python notebooks/finalize.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("notebook", type=Path, metavar="EXECUTED.ipynb",
                    help="the notebook papermill executed (rewritten in place)")
    ap.add_argument("--includes", type=Path, metavar="DIR",
                    help="write the notebook's glued page includes here (an existing folder)")
    ap.add_argument("--facts", type=Path, metavar="FILE",
                    help="write every text the notebook glued here (JSON, key -> text; its "
                         "folder must exist)")
    a = ap.parse_args(argv)
    try:
        if a.includes is not None and not a.includes.is_dir():
            raise Refused(f"--includes {a.includes}: not a folder")
        if a.facts is not None and not a.facts.parent.is_dir():
            raise Refused(f"--facts {a.facts}: its folder does not exist")
        if a.facts is not None and a.facts.is_dir():
            raise Refused(f"--facts {a.facts}: a folder, not a file")
        nb = finalize(read(a.notebook))
        known = facts(nb)
        # without --includes, the glued includes stay in the notebook
        pages = includes(nb) if a.includes is not None else {}  # refused before any write
        if a.facts is not None:
            write_output(a.facts, json.dumps(known, indent=1, sort_keys=True,
                                             ensure_ascii=False) + "\n")
        for name, data in pages.items():
            write_output(a.includes / name, data)
        text = nbformat.writes(nb)
        write_output(a.notebook, text if text.endswith("\n") else text + "\n")
    except Refused as exc:
        print(f"{PROG}: {exc}; nothing written", file=sys.stderr)
        return 2
    except OSError as exc:  # a write failed: the notebook is as it was, its facts taken back
        if a.facts is not None:
            a.facts.unlink(missing_ok=True)
        print(f"{PROG}: {exc.filename or a.notebook}: cannot be written "
              f"({exc.strerror or exc}); nothing written", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

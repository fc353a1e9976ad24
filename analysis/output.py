"""What a notebook shows: glued text for the book's prose, visible notes, tables that render
in both the HTML and the PDF book."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd


def glue_text(name: str, text: str) -> None:
    """``myst_nb.glue`` a string for the book's prose (without displaying it here).

    Its ``text/plain`` form is the string's repr; myst-nb's ``{glue:text}`` evaluates that
    literal back to the exact string (so "5,705" stays text, not a tuple). Reference it from
    another page as ``{glue:text}`path/to/notebook.ipynb::key:s```."""
    from myst_nb import glue

    # pasted as plain text: markup such as `code` would show literally
    glue(name, str(text).replace("`", ""), display=False)


def note(text: str) -> None:
    """A visible remark in a notebook (e.g. why a figure is absent from this run)."""
    from IPython.display import Markdown, display

    display(Markdown(f"> **Note.** {text}"))


def show_table(df: pd.DataFrame, floatfmt: str = "{:.3g}") -> None:
    """Display a table without its index, floats in a compact format: HTML for the web
    book, a MyST list-table for the PDF (myst-nb prefers text/markdown to text/plain for
    LaTeX; see :func:`list_table`), plain text otherwise."""
    from IPython.display import display

    if df.empty:
        note("no rows for this table in this run")
        return
    fmt = {c: floatfmt for c in df.columns if pd.api.types.is_float_dtype(df[c])}

    def cell(c: str, v: Any) -> str:
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            return "—"
        text = fmt[c].format(v) if c in fmt else str(v)
        return text.replace("|", "\\|").replace("\n", " ").replace("`", "")

    body = [[cell(c, v) for c, v in zip(df.columns, r)] for r in df.itertuples(index=False)]
    html = df.style.hide(axis="index").format(fmt, na_rep="—").to_html()
    display({"text/html": html, "text/markdown": list_table([str(c) for c in df.columns], body),
             "text/plain": df.to_string(index=False)}, raw=True)


def list_table(header: list[str], body: list[list[str]]) -> str:
    """A MyST list-table for the PDF: a longtable (breaks across pages, so no row is
    printed over the footer) with column widths from the text each column holds (a long
    column gets room, a short one does not take it)."""
    def need(i: int) -> float:
        cells = [header[i], *(r[i] for r in body)]
        longest_word = max((len(w) for c in cells for w in c.split()), default=1)
        typical = sorted(len(c) for c in cells)[int(0.9 * (len(cells) - 1))]
        return max(longest_word, min(typical, 60), 3)

    widths = [need(i) for i in range(len(header))]
    total = sum(widths)
    w = [max(1, round(100 * x / total)) for x in widths]
    lines = ["```{list-table}", ":header-rows: 1", ":class: longtable",
             f":widths: {' '.join(map(str, w))}", ""]
    for r in [header, *body]:
        for k, c in enumerate(r):
            c = c.strip() or "—"
            if c[0] in "#*+->|=:":
                c = "\\" + c  # not a heading, list item or directive option
            c = re.sub(r"^(\d+)([.)])(\s)", r"\1\\\2\3", c)  # "1. x" is no list item
            if len(c) <= 10:
                c = c.replace(" ", "\u00a0")  # "256 KiB" stays on one line
            lines.append(("* - " if k == 0 else "  - ") + c)
    lines.append("```")
    return "\n".join(lines)

"""What a notebook shows: glued text for the book's prose, visible notes, tables that render
in both the HTML and the PDF book."""

from __future__ import annotations

import math
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
    book, a Markdown (pipe) table for the PDF (myst-nb prefers text/markdown to text/plain
    for LaTeX), plain text otherwise."""
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

    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    rows = ["| " + " | ".join(cell(c, v) for c, v in zip(df.columns, r)) + " |"
            for r in df.itertuples(index=False)]
    html = df.style.hide(axis="index").format(fmt, na_rep="—").to_html()
    display({"text/html": html, "text/markdown": "\n".join([header, rule, *rows]),
             "text/plain": df.to_string(index=False)}, raw=True)

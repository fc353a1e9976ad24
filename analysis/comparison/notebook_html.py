"""An executed notebook as one self-contained HTML page without its code: markdown cells
rendered (markdown-it-py, already a dependency of the book's MyST parser), outputs as the
richest form they carry (HTML tables, PNG figures inlined as data URIs, markdown, text).

nbconvert would do the same with more ceremony; it is not in the pinned environment, and the
compare report needs nothing it adds.
"""

from __future__ import annotations

import html
from typing import Any

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable("table")

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.45rem; text-align: left; }
th { background: #f3f3f3; }
pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; font-size: 0.8rem; }
pre.error { background: #fee; }
blockquote { border-left: 4px solid #88a; margin: 0.5rem 0; padding: 0.1rem 0.8rem;
             background: #f5f5fb; }
img { max-width: 100%; }
"""


def _output(out: dict[str, Any]) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        return f'<pre class="{html.escape(out.get("name", ""))}">{html.escape(_text(out.get("text")))}</pre>'
    if kind == "error":
        return (f'<pre class="error">{html.escape(out.get("ename", ""))}: '
                f'{html.escape(out.get("evalue", ""))}</pre>')
    data = out.get("data", {})
    if "text/html" in data:
        return _text(data["text/html"])
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            b64 = _text(data[mime]).replace("\n", "")
            return f'<img alt="figure" src="data:{mime};base64,{b64}">'
    if "image/svg+xml" in data:
        return _text(data["image/svg+xml"])
    if "text/markdown" in data:
        return _MD.render(_text(data["text/markdown"]))
    if "text/plain" in data:
        return f"<pre>{html.escape(_text(data['text/plain']))}</pre>"
    return ""


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def render(nb: Any, title: str) -> str:
    """The notebook (an nbformat node or its dict) as an HTML page, code cells' inputs left out."""
    parts = []
    for cell in nb["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown":
            parts.append(_MD.render(_text(cell["source"])))
        elif cell["cell_type"] == "code":
            parts.extend(_output(o) for o in cell.get("outputs", []))
    body = "\n".join(p for p in parts if p)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
            f"<body>\n{body}\n</body></html>\n")

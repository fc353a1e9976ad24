"""What a notebook shows: glued text for the book's prose, visible notes, tables that render
in both the HTML and the PDF book."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd


#: the glue key prefix of a file another page of the book includes whole (the abstract, a
#: list in Markdown, the front page's figure): a notebook glues it into its own outputs and
#: never writes a file; ``make book``'s finalize step (``notebooks/finalize.py --includes``)
#: writes each beside the executed notebooks, as ``book/_generated/<name>``
INCLUDE = "include:"


def include(name: str, text: str) -> None:
    """Glue ``text`` (Markdown, or LaTeX for the PDF's abstract page) as the page include
    ``name`` (``abstract.inc``), not displayed here (:data:`INCLUDE`)."""
    from IPython.display import Markdown
    from myst_nb import glue

    glue(INCLUDE + name, Markdown(text), display=False)


def include_figure(name: str, fig: Any, dpi: int = 150) -> None:
    """Glue ``fig`` as the PNG page include ``name`` (``decision-map.png``), drawn at ``dpi``,
    not displayed here (:data:`INCLUDE`)."""
    import io

    from IPython.display import Image
    from myst_nb import glue

    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    glue(INCLUDE + name, Image(data=buf.getvalue(), format="png"), display=False)


def output_dir_problem(path: Path, option: str) -> str | None:
    """Why a command must not write its folder of generated text to ``path`` (a directory
    that holds anything, a link, a path inside a run), or None: the project's one rule for a
    new output directory (:func:`rundir.outpath.new_dir_problem`), for the scripts beside the
    analysis (``scripts/findings_text.py``), which reach the run format only through it."""
    from rundir.outpath import new_dir_problem

    return new_dir_problem(path, option, "the text")


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


#: the reader's words for the raw field names that the analysis' tables carry (summaries of
#: cells, drift, comparisons, crossovers, the compare report's cells): :func:`show_table`
#: shows a table's column under these words, so that no snake_case name of a record or a
#: data frame reaches a reader (the one place they are worded)
COLUMN_WORDS: dict[str, str] = {
    "lo": "CI low", "hi": "CI high",
    "ci_half_width_rel": "CI half-width (relative)",
    "median_ci_half_width": "CI half-width (relative, median)",
    "median_n": "trials per cell (median)",
    "outliers_low": "low outliers", "outliers_high": "high outliers",
    "shapiro_p": "Shapiro–Wilk p",
    "spearman_rho": "Spearman ρ",
    "p_adj": "adjusted p",
    "p_none": "P(no crossover)",
    "trial_id": "trial",
    "window_s": "window (s)", "duration_s": "window (s)", "warmup_s": "warm-up (s)",
    "order_index": "run order",
    "sender_busy": "sender busy", "receiver_busy": "receiver busy",
    "gbit_per_s": "Gbit/s", "rtt_p50_us": "p50 RTT (µs)",
    "sender_cpu_s_per_gb": "sender CPU-s/GB", "receiver_cpu_s_per_gb": "receiver CPU-s/GB",
    "trial_cv": "per-trial CV", "log_ratio_sd": "paired log-ratio sd",
    # the compare report's cells (run against the reference run)
    "n_run": "trials (run)", "n_ref": "trials (reference)",
    "median_run": "median (run)", "median_ref": "median (reference)",
    "speed_ratio": "speed ratio (run / reference)", "machine_factor": "machine factor",
    "shape_ratio": "ratio ÷ machine factor", "shape_verdict": "after the machine factor",
}

#: CI-end columns (after :data:`COLUMN_WORDS`) that :func:`show_table` prints as a pair
CI_ENDS = ("CI low", "CI high")


#: names with an underscore that are words to a reader: the kernel interface's own name
PROPER_NAMES = frozenset({"io_uring"})
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def raw_header(name: Any) -> bool:
    """Whether a column header reads as a program's identifier rather than words: one of the
    raw field names of :data:`COLUMN_WORDS`, or any word of it a snake_case name
    (``trial_id``, ``sender_busy (median)``; a proper name such as ``io_uring`` is a word)."""
    text = str(name).strip()
    if text in COLUMN_WORDS:
        return True
    return any(_SNAKE.fullmatch(w) and w not in PROPER_NAMES
               for w in re.split(r"[\s/(),:;\[\]]+", text))


class RawHeaderError(ValueError):
    """A table about to show a reader a raw identifier as a column header."""


def reader_table(df: pd.DataFrame, floatfmt: str = "{:.3g}") -> pd.DataFrame:
    """The table as a reader sees it: raw field names worded (:data:`COLUMN_WORDS`); a CI
    pair ("CI low", "CI high") printed with ``floatfmt``, "—" where there is no CI, and
    "unbounded" in both cells where the CI is (:func:`decision.rule.unbounded`: its ends more
    than a factor 1000 apart) instead of "0.000" and "4.18e+04". Raises
    :class:`RawHeaderError` for a header that still reads as an identifier
    (:func:`raw_header`), naming it: the notebook words it."""
    from decision.rule import unbounded

    out = df.rename(columns={c: COLUMN_WORDS[c] for c in df.columns
                             if isinstance(c, str) and c in COLUMN_WORDS})
    bad = [str(c) for c in out.columns if raw_header(c)]
    if bad:
        raise RawHeaderError(f"show_table: column header(s) {bad} read as identifiers; "
                             "word them (analysis.words.output.COLUMN_WORDS or a rename)")
    lo_c, hi_c = CI_ENDS
    if (lo_c in out.columns and hi_c in out.columns
            and pd.api.types.is_numeric_dtype(out[lo_c])
            and pd.api.types.is_numeric_dtype(out[hi_c])):
        def end(v: Any, open_: bool) -> str:
            if open_:
                return "unbounded"
            if v is None or not math.isfinite(float(v)):
                return "—"
            return floatfmt.format(v)
        wide = [unbounded(a, b) for a, b in zip(out[lo_c], out[hi_c])]
        out = out.assign(**{lo_c: [end(v, w) for v, w in zip(out[lo_c], wide)],
                            hi_c: [end(v, w) for v, w in zip(out[hi_c], wide)]})
    return out


def key(text: str) -> None:
    """A table's key, shown beside it: what its columns' words mean."""
    from IPython.display import Markdown, display

    display(Markdown(f"**Key.** {text}"))


def show_table(df: pd.DataFrame, floatfmt: str = "{:.3g}") -> None:
    """Display a table without its index, floats in a compact format: HTML for the web
    book, a MyST list-table for the PDF (myst-nb prefers text/markdown to text/plain for
    LaTeX; see :func:`list_table`), plain text otherwise. Headers and CI ends as a reader
    reads them (:func:`reader_table`: raw field names worded, an unbounded CI said so; a
    header that still reads as an identifier is refused)."""
    from IPython.display import display

    if df.empty:
        note("no rows for this table in this run")
        return
    df = reader_table(df, floatfmt)
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


#: the PDF's table geometry (book/_config.yml: a4 text width, longtables in \small with
#: 4 pt column separation): characters of \small text per text width, and what each
#: column's separation and rules cost in characters
LINE_CHARS = 95
COLUMN_CHARS = 2.2
#: room beside a column's longest word, in characters (digits are wider than the average)
WORD_SLACK = 1.5
#: a token longer than this gets break opportunities (zero-width spaces after / _ . , = : -)
LONG_TOKEN = 14
ZWSP = "\u200b"


def breakable(cell: str) -> str:
    """Break opportunities inside long tokens (paths, hashes, flags), so that a narrow PDF
    column wraps them instead of printing them over the next column; invisible in HTML."""
    def split(tok: str) -> str:
        if len(tok) <= LONG_TOKEN:
            return tok
        tok = re.sub(r"([/_.,=:;|-])(?=\S)", lambda m: m.group(1) + ZWSP, tok)
        parts = tok.split(ZWSP)  # what is still long: every LONG_TOKEN characters
        return ZWSP.join(ZWSP.join(p[i:i + LONG_TOKEN] for i in range(0, len(p), LONG_TOKEN))
                         for p in parts)
    return " ".join(split(t) for t in cell.split(" "))


#: the table fonts the PDF can fall back to when a table's words do not fit at \small, and
#: how many more characters a line holds in each (book/_config.yml: \cbtablefont)
TABLE_FONTS = (("small", 1.0), ("footnotesize", 9 / 8), ("scriptsize", 9 / 7))


def _words(c: str) -> list[str]:
    """The unbreakable pieces of a cell as the PDF sets it (a short cell is one piece: its
    spaces are non-breaking)."""
    if len(c.strip()) <= 10:
        return [c.strip()]
    return [w for w in re.split(r"[ \u200b]", c) if w]


def table_font(header: list[str], body: list[list[str]]) -> tuple[str, float]:
    """The largest table font whose line holds every column's longest word."""
    n = len(header)
    least = [max((len(w) for c in [header[i], *(r[i] for r in body)] for w in _words(c)),
                 default=1) + WORD_SLACK for i in range(n)]
    need = sum(least) + COLUMN_CHARS * n
    for name, scale in TABLE_FONTS:
        if need <= LINE_CHARS * scale:
            return name, scale
    return TABLE_FONTS[-1]


def _least(header: list[str], body: list[list[str]]) -> list[float]:
    """Each column's least width in characters: its longest unbreakable piece and slack."""
    return [max((len(w) for c in [header[i], *(r[i] for r in body)] for w in _words(c)),
                default=1) + WORD_SLACK for i in range(len(header))]


_NUMBER = re.compile(r"[\d.,;:\[\]()%+×−-]+")


def fit_words(header: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """The table with break opportunities (zero-width spaces) inside the longest words of
    its widest columns until every column's longest piece fits a line of the smallest table
    font: a table of many columns squeezed its columns under their longest word, and the
    PDF printed one column's text over the next ("AMD EPY" under the next column). A number
    is never broken (a column whose longest piece is one is left as it is); a table that
    fits is returned unchanged."""
    line = LINE_CHARS * TABLE_FONTS[-1][1]
    header, body = list(header), [list(r) for r in body]
    done: set[int] = set()
    for _ in range(200):
        least = _least(header, body)
        if sum(least) + COLUMN_CHARS * len(header) <= line:
            break
        open_ = [i for i in range(len(header)) if i not in done]
        if not open_:
            break
        i = max(open_, key=lambda k: least[k])
        longest = int(least[i] - WORD_SLACK)
        target = longest - 1
        if target < 4:
            done.add(i)
            continue

        def cut(c: str) -> str:
            if len(c.strip()) <= 10:
                return c
            out = []
            for w in c.split(" "):
                pieces = []
                for p in w.split(ZWSP):
                    if len(p) > target and not _NUMBER.fullmatch(p):
                        n = math.ceil(len(p) / target)
                        step = math.ceil(len(p) / n)
                        p = ZWSP.join(p[j:j + step] for j in range(0, len(p), step))
                    pieces.append(p)
                out.append(ZWSP.join(pieces))
            return " ".join(out)

        new_h = header[:i] + [cut(header[i])] + header[i + 1:]
        new_b = [r[:i] + [cut(r[i])] + r[i + 1:] for r in body]
        if _least(new_h, new_b)[i] >= least[i]:
            done.add(i)  # its longest piece is a number or a short cell: not broken
            continue
        header, body = new_h, new_b
    return header, body


def column_widths(header: list[str], body: list[list[str]], scale: float = 1.0) -> list[int]:
    """Percent widths: every column at least its longest unbreakable word (a number is
    never cut), the room left shared by how much text each column holds; ``scale``: how
    many more characters the table's font fits on a line than the book's table font."""
    n = len(header)
    cells = [[header[i], *(r[i] for r in body)] for i in range(n)]
    least = [max((len(w) for c in col for w in _words(c)), default=1) + WORD_SLACK
             for col in cells]
    typical = [sorted(len(c) for c in col)[int(0.9 * (len(col) - 1))] for col in cells]
    line = LINE_CHARS * scale
    room = line - COLUMN_CHARS * n - sum(least)
    want = [max(0.0, min(t, 60) - m) for t, m in zip(typical, least)]
    extra = [room * w / sum(want) if room > 0 and sum(want) else 0.0 for w in want]
    chars = [m + e + COLUMN_CHARS for m, e in zip(least, extra)]
    total = max(sum(chars), line)
    return [max(1, round(100 * c / total)) for c in chars]


def list_table(header: list[str], body: list[list[str]]) -> str:
    """A MyST list-table for the PDF: a longtable (breaks across pages, so no row is
    printed over the footer) whose columns are at least as wide as their longest word (a
    number or a method name is never cut) and share the rest by the text they hold; long
    tokens get break opportunities (:func:`breakable`)."""
    # plain text: an underscore or asterisk is no emphasis (kernel symbols, file names)
    body = [[breakable(re.sub(r"([*_])", r"\\\1", c)) for c in r] for r in body]
    header, body = fit_words(header, body)  # a table too wide even at the smallest font
    font, scale = table_font(header, body)
    lines = ["```{list-table}", ":header-rows: 1", ":class: longtable",
             f":widths: {' '.join(map(str, column_widths(header, body, scale)))}", ""]
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
    if font != "small":  # a smaller font for this table only (PDF; HTML ignores raw LaTeX)
        lines = ["```{raw} latex", f"\\begingroup\\renewcommand{{\\cbtablefont}}{{\\{font}}}",
                 "```", "", *lines, "", "```{raw} latex", "\\endgroup", "```"]
    return "\n".join(lines)

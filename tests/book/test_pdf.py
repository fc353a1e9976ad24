"""The PDF of the book built from the reference run (`make test-pdf`, part of `make
test-slow`), read back with pdftotext: a title page with the authors as CITATION.cff names
them, the abstract before the table of contents, the verdict table whole (no verdict
hyphenated or clipped), no unresolved glue key or raw LaTeX. Skips unless COPYBENCH_BOOK_RUN
is set and pdftotext (poppler-utils) is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "book" / "_build" / "latex" / "copybench.pdf"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")

pytestmark = [
    pytest.mark.book, pytest.mark.pdf,
    pytest.mark.skipif(not RUN, reason="set by `make test-pdf` after building the PDF"),
    pytest.mark.skipif(not shutil.which("pdftotext"),
                       reason="pdftotext missing (apt-get install poppler-utils; scripts/setup "
                              "does as root)"),
]


def pages() -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True,
                          text=True, check=True).stdout
    return text.split("\f")


def test_title_page_abstract_then_contents() -> None:
    from ruamel.yaml import YAML

    cff = YAML(typ="safe").load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    authors = [a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
               for a in cff["authors"]]
    p = pages()
    assert "copybench" in p[0]
    for a in authors:
        assert a in p[0], f"title page lacks the author {a!r}"
    abstract = next((k for k, page in enumerate(p[:8]) if re.search(r"^\s*Abstract\s*$", page,
                                                                      re.M)), None)
    toc = next((k for k, page in enumerate(p[:8]) if re.search(r"(\. ){8}", page)), None)
    assert abstract is not None, "no abstract page"
    assert toc is not None, "no table of contents"
    assert 0 < abstract < toc, "the abstract must come after the title and before the contents"
    text = re.sub(r"-\n|\s+", " ", p[abstract])
    # the abstract's first sentence answers the paper's question
    assert "avoiding a copy" in text and re.search(r"\bpa(y|id)\b", text), text[:400]
    # the results sentences the findings notebook worded from the run (abstract-latex.inc)
    gen = (ROOT / "book" / "_generated" / "abstract.inc").read_text(encoding="utf-8")
    words = re.sub(r"[`*]", "", gen).split()[:8]
    # LaTeX may break any of these words at a line end with a hyphen of its own ("mea-
    # sured"): compare without hyphens and spaces
    flat = re.sub(r"[-\s]", "", p[abstract])
    assert re.sub(r"[-\s]", "", "".join(words)) in flat, ("the generated abstract is not on "
                                                          "the abstract page", words)


#: the paper a reader finishes: pages before the appendices (front matter excluded)
MAIN_TEXT_PAGES = 30


def _chapters() -> list[tuple[str, str, int]]:
    """The PDF's chapters as its table of contents lists them: (number or letter, title,
    page)."""
    toc = (PDF.parent / "copybench.toc").read_text(encoding="utf-8", errors="replace")
    return [(m.group(1), m.group(2), int(m.group(3))) for m in re.finditer(
        r"\\contentsline \{chapter\}\{\\numberline \{([0-9A-Z]+)\}(.*?)\}\{(\d+)\}", toc)]


def test_the_main_text_is_at_most_30_pages() -> None:
    """The findings, the method, the results, the claims' verdict table, the threats and the
    references fit in 30 pages; everything else is an appendix."""
    ch = _chapters()
    first = next((page for num, _, page in ch if num.isalpha()), None)
    assert first is not None, ("no appendix in the table of contents", ch)
    assert first - 1 <= MAIN_TEXT_PAGES, (f"the main text runs {first - 1} pages", ch)


def test_the_abstract_page_holds_the_whole_abstract_in_at_most_200_words() -> None:
    gen = (ROOT / "book" / "_generated" / "abstract.inc").read_text(encoding="utf-8")
    assert len(gen.replace("`", "").split()) <= 200, len(gen.split())
    p = pages()
    abstract = next(k for k, page in enumerate(p[:8]) if re.search(r"^\s*Abstract\s*$", page,
                                                                     re.M))
    flat = re.sub(r"[-\s]", "", p[abstract])
    last = re.sub(r"[`*]", "", gen).split()[-6:]
    assert re.sub(r"[-\s]", "", "".join(last)) in flat, ("the abstract runs past its page", last)


def test_environment_table_in_an_appendix() -> None:
    flat = re.sub(r"\s+", " ", "\n".join(pages()))
    assert re.search(r"Appendix [A-Z]\b", flat) or "APPENDIX" in flat.upper()
    assert re.search(r"\bB\s+Testbed and run quality", "\n".join(pages()[:8])), \
        "the testbed and its environment table are not appendix B"


def test_verdict_table_whole() -> None:
    text = "\n".join(pages())
    flat = re.sub(r"\s+", " ", text)
    for bad in ("in-con", "incon- clu", "inconclu- sive", "testab here", "not testab "):
        assert bad not in flat, f"a verdict is hyphenated or clipped: {bad!r}"
    for c in (f"C{i}" for i in range(1, 16)):
        assert re.search(rf"\b{c}\b", flat), c


def test_no_unresolved_text() -> None:
    flat = re.sub(r"\s+", " ", "\n".join(pages()))
    for rx in (r"\{glue", r"\.ipynb::", r"Traceback \(most recent", r"\\frac", r"\\begin\{"):
        assert not re.search(rx, flat), rx


LOG = PDF.with_suffix(".log")


def test_no_undefined_reference() -> None:
    """Every cross-reference and citation resolved in the final LaTeX pass (the log of the
    last pdflatex run: latexmk reruns until the references settle)."""
    log = LOG.read_text(encoding="latin-1")
    undefined = sorted(set(re.findall(r"(?:Reference|Citation) `([^']+)' on page \d+ undefined",
                                      log)))
    assert not undefined, f"{len(undefined)} undefined references: {undefined[:10]}"
    assert "There were undefined references" not in log


def test_no_latex_error() -> None:
    """The final pdflatex pass reported no error: a character the preamble does not declare
    ("Unicode character ... not set up for use with LaTeX") or any other "! ..." line, which
    latexmk survives with a PDF that silently lacks the text."""
    log = LOG.read_text(encoding="latin-1")
    errors = [line for line in log.splitlines() if line.startswith("! ")]
    assert not errors, f"{len(errors)} LaTeX errors, first: {errors[:3]}"


def _image_pages() -> set[int]:
    out = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True,
                         check=True).stdout.splitlines()[2:]
    return {int(line.split()[0]) for line in out if line.strip()}


def test_no_blank_page() -> None:
    """Every page shows text or a figure (the back of the title page and the pages LaTeX
    leaves empty before a chapter on an odd page were blank)."""
    text_pages = pages()
    if text_pages and not text_pages[-1].strip():
        text_pages = text_pages[:-1]  # pdftotext ends with a form feed
    images = _image_pages() if shutil.which("pdfimages") else set()
    blank = [k + 1 for k, page in enumerate(text_pages)
             if not page.strip() and k + 1 not in images]
    assert not blank, f"blank pages: {blank}"


@pytest.mark.skipif(not shutil.which("pdfimages"), reason="pdfimages (poppler-utils) missing")
def test_figures_at_the_size_their_fonts_were_checked_at() -> None:
    """The figure checks (analysis.figures.plots.font_problems) measure each font at the scale LaTeX
    shows the figure at: the PNG's own size (its dpi) unless wider than the text block
    (plots.PDF_TEXT_WIDTH_IN). Here, in the PDF: the text block is that wide, and no figure is
    shown smaller than that rule says."""
    from analysis.figures import plots

    log = LOG.read_text(encoding="latin-1")
    m = re.search(r"copybench-textwidth=([\d.]+)pt", log)
    assert m, "the preamble's \\typeout of the text width is not in the log"
    width_in = float(m.group(1)) / 72.27
    assert abs(width_in - plots.PDF_TEXT_WIDTH_IN) < 0.02, width_in
    m = re.search(r"copybench-figure-maxheight=([\d.]+)pt", log)
    assert m, "the preamble's \\typeout of the figure height cap is not in the log"
    assert abs(float(m.group(1)) / 72.27 - plots.PDF_FIGURE_MAX_HEIGHT_IN) < 0.05
    rows = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True,
                          check=True).stdout.splitlines()[2:]
    dpi = 100  # analysis.figures.plots.setup: savefig.dpi
    shrunk = []
    for line in rows:
        f = line.split()
        if len(f) < 14 or f[2] != "image":
            continue
        page, w, h, xppi, yppi = int(f[0]), int(f[3]), int(f[4]), float(f[12]), float(f[13])
        expect = min(1.0, plots.PDF_TEXT_WIDTH_IN * dpi / w, plots.PDF_FIGURE_MAX_HEIGHT_IN * dpi / h)
        shown = dpi / xppi  # the fraction of its size the PDF shows it at
        if shown < expect * 0.97:
            shrunk.append(f"page {page}: {w}x{h} px shown at {shown:.0%}, checked at {expect:.0%}")
    assert not shrunk, "\n".join(shrunk)


def test_no_raw_column_name_or_cut_verdict() -> None:
    """No table prints a data frame's raw column names (the placement table once printed
    ``same_core_ratio`` and its neighbours over each other) or a verdict cut by a column
    too narrow for it ("inconclus")."""
    flat = re.sub(r"\s+", " ", "\n".join(pages()))
    for raw in ("same_core", "cross_core", "ratio_of_ratios", "distance_rounds"):
        assert raw not in flat, f"raw column name {raw!r} in the PDF"
    cut = re.findall(r"\b(?:inconclus(?!ive)|refut(?!ed|ation|es|ing|e\b)|equival(?!en))\w*",
                     flat)
    assert not cut, f"verdicts cut short: {sorted(set(cut))[:10]}"


def test_no_cpu_model_name_cut() -> None:
    """The replication chapter's table of runs (a column per category) was too wide for a
    page: its CPU column, squeezed under its longest word, printed "AMD EPYC" over the next
    column ("AMD EPY("). A CPU model name is printed whole."""
    flat = re.sub(r"\s+", " ", "\n".join(pages()))
    cut = re.findall(r"\b(?:EPY(?!C)|Xeo(?!n)|Intel\(R(?!\)))\S*", flat)
    assert not cut, f"CPU model names cut short: {sorted(set(cut))[:10]}"

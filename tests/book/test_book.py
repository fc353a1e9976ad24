"""The book as built by `make book` (run by `make test-book` on the smoke run): every
chapter, every figure, a verdict row per claim, offline assets, no notebook errors. The
HTML checks skip unless COPYBENCH_BOOK_RUN names the run the book was built from (the
make target sets it); the notebook-source checks always run."""

from __future__ import annotations

import html as html_mod
import json
import os
import re
from pathlib import Path

import nbformat
import pytest

from analysis.claims.base import VERDICTS  # every state a verdict can take, "undetermined" too

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
HTML = BOOK / "_build" / "html"
GEN = BOOK / "_generated"
NOTEBOOKS = ["testbed", "message", "latency", "cpu_cost", "zerocopy", "files", "fidelity",
             "copies", "claims", "replication"]
CHAPTERS = ["intro", "background", "method", "results", "verdicts", "details", "copies",
            "_generated/replication",
            "threats", "artifact", "references"]
CLAIMS = [f"C{i}" for i in range(1, 16)]
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
_skip = pytest.mark.skipif(not RUN, reason="set by `make test-book` after building the book")


def built(test):  # noqa: ANN001, ANN201 - a decorator: checks a built book (marker "book")
    return pytest.mark.book(_skip(test))


def test_notebook_sources_in_sync_and_without_outputs() -> None:
    # that each .ipynb is what jupytext makes of its .py source: tests/test_layout.py
    for name in NOTEBOOKS:
        nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        tags = [c.metadata.get("tags", []) for c in nb.cells]
        assert any("parameters" in t for t in tags), f"{name}: no cell tagged parameters"
        params = next(c for c, t in zip(nb.cells, tags) if "parameters" in t)
        assert "run_dir" in params.source
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), name


def test_toc_lists_every_chapter_and_notebook() -> None:
    toc = (BOOK / "_toc.yml").read_text()
    for ch in CHAPTERS[1:]:
        assert f"file: {ch}" in toc
    for nb in NOTEBOOKS:
        assert f"_generated/{nb}" in toc


@built
def test_generated_notebooks_ran_on_the_run_without_errors() -> None:
    assert (GEN / ".run").read_text().strip() == str((ROOT / RUN).resolve())
    for name in NOTEBOOKS:
        nb = nbformat.read(GEN / f"{name}.ipynb", as_version=4)
        assert nb.metadata["papermill"]["parameters"]["run_dir"] == str((ROOT / RUN).resolve())
        for c in nb.cells:
            for o in c.get("outputs", []):
                assert o.get("output_type") != "error", f"{name}: {o.get('ename')}"
                assert o.get("name") != "stderr" or "Traceback" not in o.get("text", "")


@built
def test_every_chapter_is_in_the_html() -> None:
    for ch in CHAPTERS:
        assert (HTML / f"{ch}.html").is_file(), ch
    for nb in NOTEBOOKS:
        assert (HTML / "_generated" / f"{nb}.html").is_file(), nb
    index = (HTML / "intro.html").read_text()
    for ch in CHAPTERS[1:]:
        assert f'href="{ch}.html"' in index, f"{ch} missing from the navigation"


def _png_outputs(name: str) -> int:
    nb = nbformat.read(GEN / f"{name}.ipynb", as_version=4)
    return sum("image/png" in o.get("data", {}) for c in nb.cells
               for o in c.get("outputs", []))


@built
def test_every_figure_is_in_the_html() -> None:
    total = 0
    for name in NOTEBOOKS:
        html = (HTML / "_generated" / f"{name}.html").read_text()
        imgs = re.findall(r'<img[^>]+src="([^"]+\.png)"', html)
        n = _png_outputs(name)
        total += n
        assert len(imgs) >= n, f"{name}: {n} figures in the notebook, {len(imgs)} in the HTML"
        for src in imgs:
            assert (HTML / "_generated" / src).resolve().is_file(), src
    assert total >= 1, "the book has no figure at all"


@built
def test_a_verdict_row_for_every_claim() -> None:
    for page in ("_generated/replication.html", "_generated/claims.html"):
        html = (HTML / page).read_text()
        text = re.sub(r"<[^>]+>", " ", html)
        text = re.sub(r"\s+", " ", text)
        for c in CLAIMS:
            m = re.search(rf"\b{c}\b .{{0,400}}?({'|'.join(VERDICTS)})", text)
            assert m, f"{page}: no verdict row for {c}"
    claims = nbformat.read(GEN / "claims.ipynb", as_version=4)
    glued = json.dumps([o for c in claims.cells for o in c.get("outputs", [])])
    for c in CLAIMS:
        assert f"verdict_{c}" in glued


@built
def test_glue_pasted_and_no_placeholders() -> None:
    for ch in ("intro", "method", "results", "_generated/replication", "threats", "artifact"):
        html = (HTML / f"{ch}.html").read_text()
        assert "pasted-text" in html or ch == "background", ch
        assert "TODO" not in html and "XXX" not in html and "{glue" not in html


@built
def test_a_rerun_that_tests_the_rule_is_judged_by_the_criterion_too() -> None:
    """A committed rerun made, like the run the book is built from, after the rule's last
    revision is the rule's real test: the replication chapter gives its verdicts' total and
    the run-level criterion's judgement of it (study reproduced or not, and why)."""
    import pandas as pd

    from analysis.comparison import reproduce as RP
    from analysis.loading.run import Run

    def meta(d: Path) -> Run:  # the rule reads when a run was made: its plan and manifest
        return Run(d, pd.DataFrame(), json.loads((d / "manifest.json").read_text()),
                   json.loads((d / "plan.json").read_text()), None)

    run = (ROOT / RUN).resolve()
    tests = [d for d in RP.reruns(run) if RP.tests_the_rule(meta(d), meta(run))]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_mod.unescape(
        (HTML / "_generated" / "replication.html").read_text())))
    for d in tests:
        assert re.search(rf"run {re.escape(d.name)} \([^)]*\): \d+ claim verdicts compared"
                         r".{0,600}?by the run-level criterion: study (not )?reproduced, ",
                         text), d.name


#: Markdown a glued text would show as typed ({glue:text} pastes plain text): emphasis, strong,
#: a code span
MARKUP = re.compile(r"(?<![\w*])\*[^*\s][^*]{0,80}\*(?![\w*])|\*\*|`[^`]+`")


@built
def test_no_glued_text_shows_markdown_as_typed() -> None:
    """A glued sentence written with Markdown emphasis (``*not reproduced*``) would show its
    asterisks on the page: every pasted text of every page is free of Markdown markup."""
    found = []
    for page in HTML.rglob("*.html"):
        for span in re.findall(r'<span class="pasted-text">(.*?)</span>', page.read_text(),
                               re.S):
            text = html_mod.unescape(re.sub(r"<[^>]+>", "", span))
            found += [f"{page.relative_to(HTML)}: {m}" for m in MARKUP.findall(text)]
    assert not found, found[:10]


@built
def test_offline_assets() -> None:
    for page in HTML.rglob("*.html"):
        html = page.read_text()
        ext = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not ext, f"{page.name} loads {ext}"
    mj = HTML / "_static" / "mathjax" / "tex-chtml.js"
    assert mj.is_file()
    assert re.search(r'src="_static/mathjax/tex-chtml\.js(\?[^"]*)?"',
                     (HTML / "method.html").read_text())


def raw_headers(html_dir: Path) -> list[str]:
    """Every table header (``<th>``) of the built book that reads as an identifier (a
    snake_case name such as ``trial_id`` or one of the raw field names show_table words:
    analysis.words.output.raw_header), as "page: header"."""
    from analysis.words.output import raw_header

    found = []
    for page in sorted(html_dir.rglob("*.html")):
        if {"_sources", "_static"} & set(page.relative_to(html_dir).parts):
            continue
        for th in re.findall(r"<th\b[^>]*>(.*?)</th>", page.read_text(), re.S):
            text = html_mod.unescape(re.sub(r"<[^>]+>", "", th)).strip()
            if text and raw_header(text):
                found.append(f"{page.relative_to(html_dir)}: {text}")
    return found


@built
def test_no_table_heads_a_column_with_a_raw_identifier() -> None:
    """A reader of the HTML book never sees a column named ``ci_half_width_rel``,
    ``spearman_rho`` or ``p_adj``: every table header is words."""
    found = raw_headers(HTML)
    assert not found, found[:20]

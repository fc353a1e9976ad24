"""The built book says what it decided without placeholders: no "n/a B", "nan" or "None" in
its HTML or LaTeX text, no value cut with "…" in a table; one title for the HTML and the PDF;
the environment table names properties in words, not manifest keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
HTML = BOOK / "_build" / "html"
LATEX = BOOK / "_build" / "latex"
#: what a placeholder looks like in a reader's text
PLACEHOLDER = re.compile(r"n/a B|\bnan\b|\bNone\b")


def _title() -> str:
    m = re.search(r'^title:\s*"([^"]+)"', (BOOK / "_config.yml").read_text(), re.M)
    assert m, "book/_config.yml has no title"
    return m.group(1)


def test_one_title_for_the_html_and_the_pdf() -> None:
    """The PDF's title (book/_config.yml) is the first chapter's heading, the HTML's title."""
    heading = (BOOK / "intro.md").read_text().splitlines()[0].lstrip("# ").strip()
    assert _title() == heading


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S))


@pytest.mark.book
def test_the_built_book_has_no_placeholder() -> None:
    pages = sorted(HTML.glob("*.html")) + sorted((HTML / "_generated").glob("*.html"))
    if not pages:
        pytest.skip("no built book under book/_build/html (make book)")
    bad = []
    for p in pages:
        html = p.read_text(errors="replace")
        for m in PLACEHOLDER.finditer(_text(html)):
            bad.append(f"{p.relative_to(HTML)}: {m.group(0)!r}")
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.S):
            if "…" in cell:
                bad.append(f"{p.relative_to(HTML)}: a table value cut with '…': {cell[:80]}")
    for tex in sorted(LATEX.glob("*.tex")):
        body = tex.read_text(errors="replace")
        bad += [f"{tex.name}: {m.group(0)!r}" for m in PLACEHOLDER.finditer(body)]
        if f"\\title{{{_title()}}}" not in body:
            bad.append(f"{tex.name}: the title is not {_title()!r}")
    assert not bad, "\n".join(bad[:40])


@pytest.mark.book
def test_the_environment_table_names_properties_in_words() -> None:
    page = HTML / "_generated" / "testbed.html"
    if not page.is_file():
        pytest.skip("no built book under book/_build/html (make book)")
    text = _text(page.read_text(errors="replace"))
    assert "Linux kernel" in text
    for raw in ("sysctls.net.core", "pmu.perf_stat", "cpu.flags_of_interest"):
        assert raw not in text, raw

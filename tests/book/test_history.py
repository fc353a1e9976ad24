"""History out of the prose: the book states the rules in force; how they came to be is one
table in the artifact appendix (analysis/words/revisions.py, from the code that holds the
revisions). No other page narrates a revision ("mended", "first stated", "was changed", a
revision's date and time), and a verdict judged under rules revised after its run was made
carries "post hoc" beside it.

The source checks run in `make test` (book/*.md, the notebooks, the generated text of
analysis/); the HTML checks need the built book (``COPYBENCH_BOOK_RUN``)."""

from __future__ import annotations

import ast
import html as H
import os
import re
from pathlib import Path

import pytest

from analysis.words import revisions as RV

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
#: the one page that holds the revisions table
APPENDIX = "artifact"
#: words that narrate how a rule was mended
NARRATION = re.compile(r"\b(mended|first stated|was changed|were changed|was revised|"
                       r"were revised|last revised|committed at|committed on|laxer)\b", re.I)


def revision_stamps() -> list[str]:
    """Every revision's time as a page could print it: "2026-11-24 08:04", "08:04 UTC"."""
    out = []
    for _, when, _ in RV.versions():
        out += [f"{when:%Y-%m-%d} {when:%H:%M}", f"{when:%Y-%m-%d} at {when:%H:%M}",
                f"{when:%H:%M} UTC", f"{when:%Y-%m-%dT%H:%M}"]
    return out


def narrations(text: str) -> list[str]:
    """What in ``text`` narrates a revision: its words, or a revision's date and time."""
    found = [m.group(0) for m in NARRATION.finditer(text)]
    return found + [s for s in revision_stamps() if s in text]


def formatted_from(literal: str, texts: list[str]) -> bool:
    """Whether ``literal`` with ``{name}`` fields is one of ``texts`` once formatted (a
    revision's "what changed" that names the criterion's number it declared)."""
    if not re.search(r"\{\w*\}", literal):
        return False
    template = re.compile(".+?".join(map(re.escape, re.split(r"\{\w*\}", literal))), re.S)
    return any(template.fullmatch(t) for t in texts)


def _strings(path: Path, drop: list[str] = []) -> str:  # noqa: B006 (read only)
    """The string literals of a Python file (what its code can print) and its notebook
    markdown (lines starting "# " in a percent-format notebook), docstrings left out, and
    the literals that format to one of ``drop``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
           and isinstance(n.value, str) and id(n) not in docs
           and not n.value.isidentifier()  # a name ("MENDED" in __all__) is no text
           and not formatted_from(n.value, drop)]
    if path.parent.name == "notebooks":
        out += [ln[2:] for ln in path.read_text(encoding="utf-8").splitlines()
                if ln.startswith("# ")]
    return "\n".join(out)


def test_narrations_are_found() -> None:
    # the kind of sentence the replication chapter and the appendix printed
    old = ("This statement of the rule was committed on 2026-11-26 at 03:44 UTC, after the "
           "committed reruns had been judged by an earlier, laxer one. The rule was mended "
           "on 2026-11-24 (committed at 07:38 UTC); as first stated it compared ...")
    assert {"committed on", "laxer", "mended", "committed at", "first stated",
            "2026-11-26 at 03:44", "03:44 UTC"} <= set(narrations(old))
    assert not narrations("The rules in force decide every verdict; post hoc: made before.")


def test_a_formatted_revision_text_is_recognised() -> None:
    what = "the criterion (92 %) counts sets; mended after the run"
    assert formatted_from("the criterion ({p} %) counts sets; mended after the run", [what])
    assert not formatted_from("the criterion ({p} %) counts sets; mended later", [what])
    assert not formatted_from("the criterion (92 %) counts sets; mended after the run", [what])


def test_no_source_narrates_a_revision() -> None:
    """Book pages, notebooks and the text the analysis prints, except the revisions' own
    data (analysis/words/revisions.py, and the REVISIONS tuples it reads)."""
    bad = []
    pages = [p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts
             and "_generated" not in p.parts and p.name != "README.md"]
    for p in pages:
        bad += [f"{p.relative_to(ROOT)}: {n}" for n in narrations(p.read_text(encoding="utf-8"))]
    code = [*(ROOT / "notebooks").glob("*.py"), *(ROOT / "analysis").rglob("*.py")]
    for p in code:
        if p.name == "revisions.py":
            continue
        # the revisions' own data: the "what changed" of each version, printed only in the
        # appendix's table (typed whole, or formatted from a template)
        text = _strings(p, drop=[what for _, _, what in RV.versions()])
        for _, when, what in RV.versions():
            text = text.replace(what, "").replace(f"{when:%Y-%m-%dT%H:%M}Z", "")
        for part in re.split(r"(?<=[.;])\s", text):
            bad += [f"{p.relative_to(ROOT)}: {n}" for n in narrations(part)]
    assert not bad, "\n".join(bad)


def test_the_table_has_every_version_and_its_runs() -> None:
    from datetime import datetime, timezone
    vs = RV.versions()
    t0 = min(v[1] for v in vs)
    runs = [("early", t0.replace(year=t0.year - 1)), ("late", datetime(2100, 1, 1,
                                                                       tzinfo=timezone.utc))]
    t = RV.table(runs)
    assert len(t) == len(vs) and list(t.columns) == RV.COLUMNS
    # the run made after every version is under the last of each rule; the early one is
    # named as made before the first
    for rule in (RV.CLAIM_RULES, RV.REPRODUCED_RULE):
        mine = t[t["rule"] == rule]
        assert mine["runs made under it"].iloc[-1].startswith("late")
        assert "made before it: early" in mine["runs made under it"].iloc[0]
    assert "post hoc" in RV.in_force_text(t0.replace(year=t0.year - 1))


def _page(path: Path) -> str:
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return " ".join(H.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


@pytest.mark.book
@pytest.mark.skipif(not RUN, reason="set by `make test-book` after the build")
def test_only_the_appendix_tells_the_revisions() -> None:
    bad = []
    for page in sorted(HTML.rglob("*.html")):
        if page.stem in (APPENDIX, "genindex", "search") or "_static" in page.parts:
            continue
        bad += [f"{page.relative_to(HTML)}: {n}" for n in narrations(_page(page))]
    assert not bad, "\n".join(bad)
    app = _page(HTML / f"{APPENDIX}.html")
    assert "Revisions of the rules" in app
    for _, when, _ in RV.versions():
        assert f"{when:%Y-%m-%d %H:%M}" in app, when


@pytest.mark.book
@pytest.mark.skipif(not RUN, reason="set by `make test-book` after the build")
def test_a_post_hoc_verdict_says_so_beside_it() -> None:
    from analysis import claims as C
    from analysis.loading import run as A
    run = A.load_run(ROOT / RUN)
    page = _page(HTML / "_generated" / "replication.html")
    if C.post_hoc(run):
        assert "(post hoc)" in page and "Post hoc:" in page
        return
    assert "Post hoc:" not in page
    # the run's own verdicts say nothing post hoc; the columns of other machines' runs made
    # before the rules say it beside each of theirs
    from bs4 import BeautifulSoup
    soup = BeautifulSoup((HTML / "_generated" / "replication.html").read_text(encoding="utf-8"),
                         "html.parser")
    seen = 0
    for table in soup.find_all("table"):
        head = [th.get_text(" ", strip=True) for th in table.find_all("th")]
        if "direction" not in head:
            continue
        col = head.index("direction")
        for tr in table.find_all("tr"):
            cells = tr.find_all("td")
            if len(cells) > col:
                seen += 1
                assert "post hoc" not in cells[col].get_text(" "), cells[col].get_text(" ")
    assert seen, "no verdict table with a direction column"

"""The build's facts (``book/_generated/facts/<notebook>.json``, written by
``notebooks/finalize.py --facts``): every text a page pastes from a notebook is one of them,
with the value the notebook glued, and the run they describe is the run the book was built
from. Skips unless COPYBENCH_BOOK_RUN names that run (set by the make targets after the
build)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "book" / "_generated"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
pytestmark = [pytest.mark.book,
              pytest.mark.skipif(not RUN, reason="set by `make test-book` after the build")]
#: a page's paste of another page's glued text: {glue:text}`_generated/<nb>.ipynb::<key>[:fmt]`
PASTE = re.compile(r"\{glue:text\}`_generated/([a-z_]+)\.ipynb::([A-Za-z0-9_]+)(?::[a-z])?`")


def _finalize():  # noqa: ANN202 - the module notebooks/finalize.py
    spec = importlib.util.spec_from_file_location("finalize", ROOT / "notebooks" / "finalize.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def facts() -> dict[str, dict[str, str]]:
    return _finalize().read_facts(GEN / "facts")


def test_every_text_a_page_pastes_is_a_fact(facts: dict[str, dict[str, str]]) -> None:
    pasted = {(nb, key) for page in (ROOT / "book").glob("*.md")
              for nb, key in PASTE.findall(page.read_text(encoding="utf-8"))}
    assert len(pasted) > 50, "the pages paste fewer glued texts than they do"
    missing = sorted(f"{nb}::{key}" for nb, key in pasted if key not in facts.get(nb, {}))
    assert not missing, f"pasted but not among the build's facts: {missing}"


def test_the_facts_are_what_the_notebooks_glued(facts: dict[str, dict[str, str]]) -> None:
    """Each notebook's facts file is its executed notebook's glue, read again now."""
    fin = _finalize()
    built = [nb for nb in sorted(facts) if (GEN / f"{nb}.ipynb").is_file()]
    assert "testbed" in built and "claims" in built, built
    for nb in built:
        executed = nbformat.read(GEN / f"{nb}.ipynb", as_version=4)
        assert fin.facts(executed) == facts[nb], nb
    from analysis import study as SD
    study = SD.open(ROOT / RUN, tables=False)
    assert facts["testbed"]["run_id"] == study.run_id
    assert json.loads((GEN / "facts" / "testbed.json").read_text())["run_id"] == study.run_id

"""The report of `make compare` on a real pair: the smoke run against the committed
reference run (`make test-book` runs `make compare RUN=build/smoke-run` first and passes
the report directory in COPYBENCH_COMPARE_REPORT)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from analysis.comparison import compare as K
from analysis.words import reproduction as RW

pytestmark = pytest.mark.compare_report

AGREEMENTS = {K.BOTH_HOLD, K.BOTH_REFUTED, K.SAME_VERDICT, K.BOTH_UNDECIDED, K.ONE_SIDE,
              K.NEITHER, K.DISAGREE}
VERDICTS = {K.FASTER, K.SLOWER, K.SAME, K.INCONCLUSIVE}


@pytest.fixture(scope="module")
def report() -> Path:
    value = os.environ.get("COPYBENCH_COMPARE_REPORT")
    if not value:
        pytest.skip("COPYBENCH_COMPARE_REPORT not set (make test-book sets it after "
                    "make compare RUN=build/smoke-run)")
    path = Path(value)
    assert path.is_dir(), f"{path}: make compare wrote no report"
    return path


def test_notebook_ran_without_errors(report: Path) -> None:
    nb = nbformat.read(report / "compare.ipynb", as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []


def test_html_has_every_section_and_the_figure(report: Path) -> None:
    html = (report / "compare.html").read_text(encoding="utf-8")
    for heading in ("the reference", "The two machines", "Which configurations both runs measured",
                    "Verdicts per scenario", "Every matched cell", "Claims on both machines"):
        assert heading in html, heading
    assert "<img" in html  # the ratio figure
    assert "def " not in html and "import " not in html  # code hidden


def test_cells_compare_the_shared_configurations(report: Path) -> None:
    cells = pd.read_csv(report / "cells.csv")
    # compare matches like with like: the smoke run's 0.2 s copybench windows are not the
    # reference run's 1 s ones, so only the peer cells (whole seconds either way) match, and
    # the report says which configurations it left out for their window
    assert len(cells) >= 1, cells
    assert set(cells["verdict"]) <= VERDICTS
    html = (report / "compare.html").read_text(encoding="utf-8")
    assert "have no counterpart in the reference; each with the reason" in html
    unmatched = pd.read_csv(report / "unmatched.csv")
    assert len(unmatched) and unmatched["reason"].str.contains(
        "the reference measured it with a 1 s window, not 0.2 s").any()
    assert (cells["speed_ratio"] > 0).all()
    ok = cells["lo"].notna()
    assert (cells.loc[ok, "lo"] <= cells.loc[ok, "speed_ratio"]).all()
    assert (cells.loc[ok, "speed_ratio"] <= cells.loc[ok, "hi"]).all()


def test_claims_side_by_side(report: Path) -> None:
    claims = pd.read_csv(report / "claims.csv")
    # one row per claim and placement (and reading, where the source has two), in order
    order = list(dict.fromkeys(claims["claim"]))
    assert order == [f"C{i}" for i in range(1, 16)], order
    assert set(claims["agreement"]) <= AGREEMENTS


def test_verdicts_judged_by_the_reproduced_rule(report: Path) -> None:
    from analysis.comparison import reproduce as RP
    t = pd.read_csv(report / "reproduced.csv")
    assert set(t["status"]) <= set(RP.CATEGORIES)
    assert t["why"].str.len().gt(10).all()
    # the smoke profile declares no claim: its verdicts are not run or not testable, so no
    # claim was compared (the lax rule said "6 of 6 comparable verdicts reproduced")
    assert not set(t["status"]) & set(RP.COMPARED)
    html = (report / "compare.html").read_text(encoding="utf-8")
    # no tally of reproduced verdicts ("26 reproduced (..."), though the rule's statement
    # names the category "reproduced (the same decided verdict, ...)"
    assert "0 claims compared" in html and not re.search(r"\d+ reproduced \(", html)
    assert RP.rule_text()[:60] in html
    # the study as a whole, by the run-level criterion: nothing decided was tested in both
    assert "Study not reproduced" in html and "nothing of the study was reproduced" in html
    assert RW.criterion_text()[:60] in html

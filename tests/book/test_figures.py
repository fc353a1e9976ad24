"""Every figure of the book built from the committed reference run, checked against the data
it claims to show (`make test-figures`, part of `make test-slow`). analysis/figures/plots.show writes,
beside each notebook, the figure's data (book/_generated/figdata/<notebook>-NN.csv) and its
check (NN.check.json): not drawn from an empty or single-point selection where the run has
more; every x-value and facet of the data it claims to show present; and as a reader
sees it: no overlapping labels, no legend over plotted points, no line off its axis, no font
under 7 pt in the PDF.
Skips unless COPYBENCH_BOOK_RUN names the run the book was built from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "book" / "_generated"
FIGDATA = GEN / "figdata"
HTML = ROOT / "book" / "_build" / "html"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")
# the notebooks whose figures are all drawn through analysis.figures.plots.show
CHECKED = ["findings", "message", "latency", "cpu_cost", "zerocopy", "files", "fidelity",
           "testbed", "copies", "claims"]

pytestmark = [pytest.mark.book, pytest.mark.reference,
              pytest.mark.skipif(not RUN, reason="set by `make test-slow` after building "
                                 "the book from the reference run")]


def test_built_from_the_run() -> None:
    assert (GEN / ".run").read_text().strip() == str((ROOT / RUN).resolve())


#: the problems of a figure's layout as a reader sees it (analysis.figures.plots: labels_problems,
#: legend_problems, off_axis_problems, font_problems), apart from its data's
LAYOUT = ("labels overlap: ", "legend over ", " off the axis in ", "font ")


def _is_layout(problem: str) -> bool:
    return problem.startswith(LAYOUT[:2] + LAYOUT[3:]) or LAYOUT[2] in problem


def _problems() -> tuple[list[str], list[str]]:
    checks = sorted(FIGDATA.glob("*.check.json"))
    assert checks, "no figure check written (analysis/figures/plots.show with COPYBENCH_FIGDATA)"
    data, layout = [], []
    for f in checks:
        d = json.loads(f.read_text())
        for p in d["problems"]:
            (layout if _is_layout(p) else data).append(f"{d['figure']} ({d['title']}): {p}")
    return data, layout


def test_every_figure_shows_its_data() -> None:
    data, _ = _problems()
    assert not data, f"{len(data)} figure problems:\n" + "\n".join(data)


def test_every_figure_reads_as_a_reader_sees_it() -> None:
    """Legends off the data, marks inside their axes, labels apart, fonts >= 7 pt in the PDF:
    any layout problem of any figure fails."""
    _, layout = _problems()
    assert not layout, f"{len(layout)} layout problems:\n" + "\n".join(layout)


@pytest.mark.parametrize("name", CHECKED)
def test_every_figure_has_its_data_beside_it(name: str) -> None:
    nb = nbformat.read(GEN / f"{name}.ipynb", as_version=4)
    pngs = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    checks = sorted(FIGDATA.glob(f"{name}-[0-9][0-9].check.json"))
    assert len(checks) == pngs, f"{name}: {pngs} figures, {len(checks)} checked"
    for f in checks:
        d = json.loads(f.read_text())
        if d["csv"]:
            assert (FIGDATA / d["csv"]).stat().st_size > 0
            html = (HTML / "_generated" / f"{name}.html").read_text()
            assert d["csv"] in html, f"{name}: no link to {d['csv']} in the HTML"

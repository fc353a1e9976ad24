"""The placement table as the book prints it (analysis.claims.placement.placement_view): words
for column names and every cell whole, so that the PDF's table fits its line (it once printed
the data frame's fifteen raw columns, ``same_core_ratio`` over its neighbours, and cut
"inconclusive" to "inconclus")."""

from __future__ import annotations

import pytest

from analysis.claims import placement_hypothesis
from analysis.claims.placement import placement_view
from analysis.words.output import LINE_CHARS, TABLE_FONTS, _words, table_font
from analysis.loading.run import load_run
from conftest import committed_reference_run

pytestmark = pytest.mark.reference


def test_the_placement_table_reads_as_words_and_fits_the_pdf_line() -> None:
    ref = committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout)")
    _, table = placement_hypothesis(load_run(ref))
    assert len(table), "the reference run searches P1's cells"
    view = placement_view(table)
    assert len(view) == len(table)
    assert not [c for c in view.columns if "_" in c], list(view.columns)
    # each placement's cell is its ratio, its CI and the ordering it decides
    for pl in ("same-core", "cross-core"):
        col = view[f"{pl} [CI], ordering"]
        assert col.str.match(r"^[\d.]+ \[[\d.]+, [\d.]+\] "
                             r"(greater|less|equivalent|inconclusive)$").all(), col.tolist()
    header = list(view.columns)
    body = [[str(v) for v in r] for r in view.itertuples(index=False)]
    font, scale = table_font(header, body)
    need = sum(max(len(w) for c in [header[i], *(r[i] for r in body)] for w in _words(c))
               for i in range(len(header)))
    assert need <= LINE_CHARS * scale, (font, need)
    assert font != TABLE_FONTS[-1][0] or need <= LINE_CHARS * TABLE_FONTS[-1][1]

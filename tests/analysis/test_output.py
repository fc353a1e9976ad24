"""analysis/words/output.py list_table, the tables the PDF prints: a column is never narrower than
its longest word (a number or a method name is never cut: the PDF once printed "0.74…" and
"sendm"), long tokens get break opportunities, and underscores are no emphasis."""

from __future__ import annotations

import re

from analysis.words import output as O


def widths(md: str) -> list[int]:
    return [int(x) for x in re.search(r":widths: ([\d ]+)", md).group(1).split()]


def test_a_long_column_does_not_squeeze_the_numbers() -> None:
    header = ["configuration", "method", "size", "ratio", "CI low", "CI high", "why"]
    body = [["loopback, cross-core, 1 s", "sendmsg", "64 KiB", "0.741", "0.528", "1.019",
             "CI [0.528, 1.019] straddles 0.970 and 1.030 " * 3]] * 5
    md = O.list_table(header, body)
    w = widths(md)
    assert "cbtablefont" not in md  # it fits at the book's table font
    chars = O.LINE_CHARS  # the characters a PDF line holds in the table's font
    for k, col in enumerate(header):
        longest = max(len(x) for c in [col, *(r[k] for r in body)] for x in c.split())
        assert w[k] / sum(w) * chars >= longest, (col, w)


def test_long_tokens_break_and_underscores_stay_literal() -> None:
    md = O.list_table(["path"], [["/work/main/src/build/copybench_with_a_long_name"]])
    row = md.split("\n")[-2]
    assert O.ZWSP in row and "\\_" in row
    assert all(len(t) <= O.LONG_TOKEN + 2 for t in re.split(r"[ \u200b]", row[4:]))


def test_a_table_too_wide_for_its_font_gets_a_smaller_one() -> None:
    header = [f"column {i}" for i in range(12)]
    body = [["file→socket", "0.000", "64 KiB", "sender"] * 3] * 3
    md = O.list_table(header, body)
    assert md.startswith("```{raw} latex\n\\begingroup\\renewcommand{\\cbtablefont}")
    assert md.rstrip().endswith("\\endgroup\n```")
    font, scale = O.table_font(header, body)
    w = widths(md)
    for k in range(12):
        assert w[k] / sum(w) * O.LINE_CHARS * scale >= len(body[0][k]), (k, w)

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
    cells = _cells(md)  # as printed: "file→socket" with a break opportunity if it must
    font, scale = O.table_font(cells[0], cells[1:])
    w = widths(md)
    for k in range(12):
        longest = max(len(x) for r in cells[1:] for x in O._words(r[k]))
        assert w[k] / sum(w) * O.LINE_CHARS * scale >= longest, (k, w)


def test_a_raw_identifier_never_heads_a_shown_column() -> None:
    """show_table words the analysis' raw field names (ci_half_width_rel, outliers_high,
    spearman_rho, trial_id, window_s, p_adj, lo/hi) and refuses any header that still reads
    as an identifier, so a new raw column fails the notebook instead of reaching a reader."""
    import pandas as pd
    import pytest

    raw = ["trial_id", "window_s", "spearman_rho", "p_adj", "ci_half_width_rel",
           "outliers_low", "outliers_high", "lo", "hi"]
    shown = O.reader_table(pd.DataFrame([[1.0] * len(raw)], columns=raw))
    assert not any(O.raw_header(c) for c in shown.columns), list(shown.columns)
    assert {"trial", "window (s)", "Spearman ρ", "adjusted p", "high outliers", "CI low",
            "CI high"} <= set(shown.columns)
    with pytest.raises(O.RawHeaderError, match="sender_cpu_per_call"):
        O.reader_table(pd.DataFrame({"method": ["send"], "sender_cpu_per_call": [1.0]}))
    assert O.raw_header("median_n") and O.raw_header("lo") and not O.raw_header("CI low")
    assert not O.raw_header("read-write")  # data, not an identifier
    assert not O.raw_header("errqueue / io_uring completion")  # a proper name is a word
    assert O.raw_header("sender_busy (median)")


def test_an_unbounded_ci_in_a_table_is_marked_not_printed() -> None:
    """The CI columns of a table print "unbounded" where the CI is (decision.rule), not
    "0.000" and "4.18e+04"; a bounded CI keeps its numbers, a missing one is "—"."""
    import math

    import pandas as pd

    df = pd.DataFrame({"method": ["a", "b", "c"], "ratio": [1.3, 1.0, 1.0],
                       "lo": [0.0, 0.95, math.nan], "hi": [4.18e4, 1.05, math.nan]})
    t = O.reader_table(df)
    assert list(t["CI low"]) == ["unbounded", "0.95", "—"]
    assert list(t["CI high"]) == ["unbounded", "1.05", "—"]


def _cells(md: str) -> list[list[str]]:
    rows: list[list[str]] = []
    for line in md.split("```{list-table}")[1].split("\n"):
        if line.startswith("* - "):
            rows.append([line[4:]])
        elif line.startswith("  - "):
            rows[-1].append(line[4:])
    return rows


def test_a_table_too_wide_even_for_the_smallest_font_never_cuts_a_word() -> None:
    """The replication chapter's table of runs (a column per category: twelve columns) did
    not fit a line even at the smallest table font; every column was squeezed under its
    longest word and the PDF printed "AMD EPYC" over the next column ("AMD EPY("). Its
    long words get break opportunities instead, until every column holds its longest piece;
    numbers are never broken."""
    header = ["run", "profile", "CPU", "reproduced: same verdict and magnitude",
              "reproduced: same verdict", "same verdict, not reproduced in size",
              "not reproduced", "newly decided", "both undecided", "both not testable",
              "not comparable", "not reproduced (claim, placement)"]
    body = [["20261123T062509Z-paper", "paper", cpu, "9", "2", "3", "6", "1", "1", "9", "16",
             "C1 cross-core, C3 same-core (not in size), C10 cross-core"]
            for cpu in ("AMD EPYC", "Intel(R) Xeon(R) Processor 1234.5678")]
    md = O.list_table(header, body)
    cells = _cells(md)
    font, scale = O.table_font(cells[0], cells[1:])
    w = widths(md)
    line = O.LINE_CHARS * scale
    for k in range(len(header)):
        longest = max(len(x) for c in [r[k] for r in cells] for x in O._words(c))
        assert w[k] / sum(w) * line - O.COLUMN_CHARS >= longest, (header[k], w)
    assert "1234.5678" in md  # a number is never broken
    assert "AMD\u00a0EPYC" in md  # a short cell stays whole

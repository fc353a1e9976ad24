"""A ratio with its CI is written one way, by ``analysis.fmt.fmt_ratio_ci``: each number to
three significant digits, wherever the book prints one (the claims' verdicts, their
sensitivity analyses, why a report differs, the findings and the headlines)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from analysis import headlines
from analysis.fmt import fmt_ratio_ci

ROOT = Path(__file__).resolve().parents[2]


def test_three_significant_digits_whatever_the_magnitude() -> None:
    assert fmt_ratio_ci(1.7123, 1.1111, 2.6444) == "1.71× [1.11, 2.64]"
    assert fmt_ratio_ci(0.5312, 0.4601, 0.6149, times=False) == "0.531 [0.460, 0.615]"
    assert fmt_ratio_ci(12.34, 9.876, 15.0) == "12.3× [9.88, 15.0]"
    assert fmt_ratio_ci(1.0, math.nan, None) == "1.00× [n/a, n/a]"


def test_rounds_are_counted_in_words() -> None:
    assert fmt_ratio_ci(2, 1, 3, rounds=1) == "2.00× [1.00, 3.00], 1 round"
    assert fmt_ratio_ci(2, 1, 3, rounds=4) == "2.00× [1.00, 3.00], 4 rounds"
    row = {"ratio": 2.0, "lo": 1.0, "hi": 3.0, "n": 4}
    assert headlines.ci(row, rounds=True) == fmt_ratio_ci(2, 1, 3, rounds=4)
    assert headlines.ci({**row, "n": None}, rounds=True) == fmt_ratio_ci(2, 1, 3)


#: a value, then a bracketed pair of formatted numbers: a CI written by hand
HAND_WRITTEN = re.compile(r"\{[^{}]*\}×?\s*\[\{[^{}]*\},\s*\{[^{}]*\}\]")


#: the modules that write an estimate and its CI that is not a ratio
NOT_RATIOS = {"fmt.py": "fmt_est: a value in its unit",
              "copycount.py": "copies per byte, a count, to two decimals"}


def hand_written(source: str) -> list[int]:
    return [source.count("\n", 0, m.start()) + 1 for m in HAND_WRITTEN.finditer(source)]


def test_no_other_module_writes_a_ratio_ci_by_hand() -> None:
    found = [f"{f.relative_to(ROOT)}:{n}" for f in sorted((ROOT / "analysis").rglob("*.py"))
             if f.name not in NOT_RATIOS for n in hand_written(f.read_text())]
    assert found == []


def test_the_check_sees_a_hand_written_ci() -> None:
    src = ('x = f"{fmt_num(r[\'ratio\'])}× [{fmt_num(r[\'lo\'])}, {fmt_num(r[\'hi\'])}]"\n'
           'y = f"{e.value:.2f} [{e.lo:.2f}, {e.hi:.2f}]"\n')
    assert hand_written(src) == [1, 2]

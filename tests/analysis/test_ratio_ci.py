"""A ratio with its CI is written one way, by ``analysis.statistics.fmt.fmt_ratio_ci``: each number to
three significant digits, wherever the book prints one (the claims' verdicts, their
sensitivity analyses, why a report differs, the findings and the headlines)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from analysis.words import phrases
from analysis.statistics.fmt import fmt_ratio_ci

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
    assert phrases.ratio_ci(row, rounds=True) == fmt_ratio_ci(2, 1, 3, rounds=4)
    assert phrases.ratio_ci({**row, "n": None}, rounds=True) == fmt_ratio_ci(2, 1, 3)


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


def test_an_estimate_prints_its_own_level() -> None:
    """``fmt_est`` writes the level the estimate was computed at, not a fixed "95%": a CI at a
    family's Bonferroni level says so."""
    from analysis.statistics import stats as S
    from analysis.statistics.fmt import fmt_est, fmt_level

    assert fmt_est(S.Estimate(12.34, 11.9, 12.8, 5), "Gbit/s") == \
        "12.3 Gbit/s (95% CI 11.9–12.8, n=5)"
    assert fmt_est(S.Estimate(1.5, 1.2, 1.8, 30, confidence=1 - S.ALPHA / 4)) == \
        "1.50 (98.75% CI 1.20–1.80, n=30)"
    assert fmt_level(S.CONFIDENCE) == "95%" and fmt_level(0.99) == "99%"
    assert S.CONFIDENCE == 1 - S.ALPHA == 0.95


def test_an_unbounded_ci_is_said_as_one_not_printed_as_numbers() -> None:
    """A CI from two rounds, [0.000439, 960] or [0, 4.18e4], bounds nothing: the book says so
    (with the rounds that gave it where the row holds them) instead of printing its ends;
    the factor is decision.rule's, not typed here."""
    from decision.rule import UNBOUNDED_FACTOR, ci_text, unbounded

    lo = 0.5
    assert unbounded(lo, lo * UNBOUNDED_FACTOR * 1.01) and not unbounded(lo, lo * 10)
    assert unbounded(0.0, 4.18e4) and not unbounded(math.nan, 2.0)
    for lo_, hi_ in ((0.000439, 960.0), (0.0, 4.18e4)):
        row = {"ratio": 1.3, "lo": lo_, "hi": hi_, "n": 2}
        text = phrases.ratio_ci(row)
        assert "unbounded" in text and "2 rounds" in text and text.startswith("1.30×")
        assert "0.000" not in text and "e+" not in text and "960" not in text
        assert f"{UNBOUNDED_FACTOR:,.0f}×" in text
        assert "[" not in fmt_ratio_ci(1.3, lo_, hi_)
        assert "unbounded" in ci_text(lo_, hi_) and "0.000" not in ci_text(lo_, hi_)
    # a bounded CI is printed as before
    assert phrases.ratio_ci({"ratio": 2.0, "lo": 1.0, "hi": 3.0, "n": 2}) == "2.00× [1.00, 3.00]"

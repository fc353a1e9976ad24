"""The claims' rule table (decision.claimtable) is the one source of each verdict's
comparisons, sizes, expected outcomes, band and family: the analysis's rules are its rows
(every row but P1's, which analysis.claims.placement decides, is a rule), their cells read the
comparison the row names in the orientation its band states, and the runner's readings
(decision.families) follow the rows."""

from __future__ import annotations

import pytest

from analysis.claims import rules as RU
from analysis.claims.throughput import C11_PAIRS
from decision import claimtable as T
from decision import families
from decision import rule as R
from decision import band as B
from decision.band import SESOI

#: the rule metrics on the inverse of the runner's primary ratio (time per message against
#: throughput), and those the runner does not read at all (hardware counters)
INVERSE_METRICS = {"inv_msg_rate_us"}
COUNTER_METRICS = {"sender_llc_load_misses_per_kib", "sender_l1d_load_misses_per_kib"}


def comparisons(rule: RU.Rule) -> tuple[str, ...]:
    """The comparisons a rule's cells make, in the profiles' names."""
    if rule.combine == RU.THREADS:
        return (f"{rule.numerator}t/{rule.denominator}t",)
    if rule.combine == RU.BEST_THREADS:
        return tuple(f"{a}t/{b}t" for a, b in C11_PAIRS)
    return (f"{rule.numerator}/{rule.denominator}",)


def test_every_row_but_p1_is_a_rule_and_every_rule_a_row() -> None:
    rows = {(r.claim, r.reading) for r in T.TABLE if r.claim != "P1"}
    ruled = {(r.claim, r.reading) for rs in RU.RULES.values() for r in rs}
    assert rows == ruled
    assert len(ruled) == sum(len(rs) for rs in RU.RULES.values())  # no rule twice


def test_a_rules_cells_make_its_rows_comparison_in_its_bands_orientation() -> None:
    for rs in RU.RULES.values():
        for rule in rs:
            row = T.row(rule.claim, rule.reading)
            assert comparisons(rule) == row.comparisons, rule.claim
            assert row.inverse == (rule.metric in INVERSE_METRICS), rule.claim
            assert row.counter == (rule.metric in COUNTER_METRICS), rule.claim
            if row.combine in (T.EVERY, T.THREADS):
                assert len(row.expected) == (len(row.sizes) or 1), rule.claim


def test_the_table_holds_one_constant_and_the_bands_form() -> None:
    t = SESOI
    assert B.band() == (round(1 - t, 6), round(1 + t, 6))
    lo, hi = B.inverse_band()
    assert (lo, hi) == (round(1 / (1 + t), 6), round(1 / (1 - t), 6))
    assert T.row("C10", "S3's code: stream").boundaries() == (lo, hi)
    assert all(r.band in B.NAMED for r in T.TABLE)
    assert RU.RULES["C4"][0].decision.boundaries() == pytest.approx(B.band())


def test_the_runners_readings_follow_the_rows() -> None:
    """A row that expects one outcome at every size reads it at any size; a row whose outcome
    differs by size (C5, C8) reads each size's own edge and nothing at sizes it does not name;
    the hardware-counter rows are not the runner's."""
    (c4,) = families.READINGS["C4"]
    assert c4.expect(32 * 1024) == R.Expect(R.GREATER)
    (c5,) = families.READINGS["C5"]
    assert c5.expect(512) == R.Expect(R.AT_MOST)  # not ahead at 512 B: at most 1 + t
    assert c5.expect(4096) == R.Expect(R.GREATER)
    assert c5.expect(16384) is None
    (c11,) = families.READINGS["C11"]
    assert c11.expect(16384, "2t/1t") == R.Expect(R.GREATER)
    assert c11.expect(16384, "8t/4t") == R.Expect(R.LESS)
    assert not c11.refutes_alone
    assert [r.inverse for r in families.READINGS["C10"]] == [False, True]
    assert not {"C2", "C7", "C12"} & set(families.READS)
    assert families.READ_SIZES["C1"] == (64, 512)
    assert "C3" not in families.READ_SIZES and "C14" not in families.READ_SIZES

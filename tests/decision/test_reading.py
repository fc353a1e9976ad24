"""One reading per comparison (decision.reading): the labels are inputs of the reading."""

from __future__ import annotations

import math

import pytest

from decision import reading as RD


@pytest.mark.parametrize("limits,want", [
    (["sender", "sender"], RD.SENDER),
    (["sender", "receiver"], RD.RECEIVER),     # either cell bounded by the receiver
    (["receiver", "neither"], RD.RECEIVER),
    (["sender", "neither"], RD.NEITHER),
    (["sender", "unknown"], RD.UNKNOWN),
    (["sender", "bogus"], RD.UNKNOWN),         # a label it does not know is not a side
    ([], RD.UNKNOWN),
])
def test_bound_of_two_cells(limits: list[str], want: str) -> None:
    assert RD.bound(limits) == want


def test_under_minimum() -> None:
    assert RD.under_minimum(3, 6) and RD.under_minimum(5, 6)
    assert not RD.under_minimum(6, 6) and not RD.under_minimum(30, 6)
    assert RD.under_minimum(math.nan, 6) and RD.under_minimum(None, 6)
    assert not RD.under_minimum(3, None)  # a run that declares no minimum


def test_reading_precedence() -> None:
    assert RD.reading("greater", RD.SENDER, False) == "greater"
    assert RD.reading("greater", RD.RECEIVER, False) == RD.RECEIVER_BOUND
    assert RD.reading("less", RD.RECEIVER, True) == RD.NOT_READ  # under the minimum first
    # a metric that is not a rate one side sets is not bounded by the receiver
    assert RD.reading("less", RD.RECEIVER, False, "sender_cpu_s_per_gb") == "less"
    assert RD.reading("greater", RD.SENDER, True) == RD.NOT_READ


def test_claim_verdict_only_a_sender_test_refutes() -> None:
    assert RD.claim_verdict("refuted", [16384]) == "refuted"
    assert RD.claim_verdict("holds", [16384]) == RD.RECEIVER_BOUND
    assert RD.claim_verdict("inconclusive", [16384]) == RD.RECEIVER_BOUND
    assert RD.claim_verdict("holds", []) is None


def test_in_force_is_a_utc_minute() -> None:
    from analysis.loading.run import instant
    assert instant(RD.IN_FORCE) is not None

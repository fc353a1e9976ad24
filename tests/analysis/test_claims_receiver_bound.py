"""A claim verdict resting on a receiver-bound size (analysis.claims.engine): a size whose
cell copybench's receiver set the rate of neither agrees with the claim nor contradicts it;
only a size that tests the sender refutes it."""

from __future__ import annotations

from analysis.claims import engine as E
from analysis.claims.base import (HOLDS, NOT_TESTABLE, REFUTED, ClaimResult, Compared)
from analysis.claims.rules import RULES
from analysis.statistics import stats as S
from decision import reading as RD
from decision import rule as R

C4 = RULES["C4"][0]  # sendmsg / send > 1.12 at every size


def _compared(size: int, lo: float, hi: float) -> Compared:
    e = C4.expects(size)
    ratio = S.Estimate((lo * hi) ** 0.5, lo, hi, 10)
    test = S.RatioTest(kind="paired", ratio=ratio, p=0.01, p_adj=0.02, p_sens=0.01,
                       p_sens_adj=0.02, family=2, alpha=0.05)
    return Compared(size, test, R.decide(C4.decision, lo, hi), read=e.read(lo, hi))


def _result() -> ClaimResult:
    return ClaimResult("C4", "S2", "sendmsg beats send", "")


def _verdict(comps: dict[int, Compared], bound: list[int]) -> ClaimResult:
    r = _result()
    E._every(C4, r, comps, [], list(comps), bound)
    r.reason = "per-size reason"
    if bound:
        E._receiver_bound(r, bound)
    return r


def test_a_receiver_bound_size_alone_does_not_refute() -> None:
    comps = {512: _compared(512, 1.2, 1.4), 16384: _compared(16384, 0.85, 1.05)}
    assert _verdict(comps, []).verdict == REFUTED  # read as a decision: refuted at 16 KiB
    r = _verdict(comps, [16384])
    assert r.verdict == NOT_TESTABLE and r.direction == ""
    assert r.reason.startswith(f"{RD.RECEIVER_BOUND} at 16 KiB")
    assert r.condition.startswith(f"{RD.RECEIVER_BOUND} at 16 KiB")


def test_it_cannot_make_a_claim_hold() -> None:
    comps = {512: _compared(512, 1.2, 1.4), 16384: _compared(16384, 1.2, 1.3)}
    assert _verdict(comps, []).verdict == HOLDS
    assert _verdict(comps, [16384]).verdict == NOT_TESTABLE


def test_a_size_that_tests_the_sender_still_refutes() -> None:
    comps = {512: _compared(512, 0.8, 1.0), 16384: _compared(16384, 0.85, 1.05)}
    r = _verdict(comps, [16384])
    assert r.verdict == REFUTED and "512 B" in r.direction
    assert r.verdict_text.startswith(f"refuted ({RD.RECEIVER_BOUND} at 16 KiB): ")

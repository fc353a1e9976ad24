"""The "Results Reproduced" rule (analysis/reproduce.py) on planted pairs of verdicts."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

import claim_runs as R
from analysis import claims as C
from analysis import reproduce as RP
from analysis import run as A


def _r(verdict: str, value: float = math.nan, lo: float = math.nan, hi: float = math.nan,
       reason: str = "", claim: str = "C4") -> C.ClaimResult:
    r = C.ClaimResult(claim, "S2", "statement", "published", verdict=verdict, value=value,
                      lo=lo, hi=hi, reason=reason)
    r.rule_id, r.placement = f"{claim}:", "cross-core"
    return r


def test_same_verdict_and_statistic_inside_the_widened_ci() -> None:
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.HOLDS, 1.43, 1.3, 1.5))
    assert j.status == RP.REPRODUCED and "inside [1.16, 1.44]" in j.why


def test_statistic_outside_the_widened_ci_is_not_reproduced() -> None:
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.HOLDS, 1.6, 1.5, 1.7))
    assert j.status == RP.NOT_REPRODUCED and "outside" in j.why


def test_inconclusive_against_decided_with_overlapping_cis() -> None:
    ref = _r(C.REFUTED, 0.8, 0.75, 0.85)
    assert RP.judge(ref, _r(C.INCONCLUSIVE, 0.84, 0.7, 1.02)).status == RP.REPRODUCED
    j = RP.judge(ref, _r(C.INCONCLUSIVE, 1.0, 0.9, 1.1))  # CIs do not overlap
    assert j.status == RP.NOT_REPRODUCED and "do not overlap" in j.why
    # either side may be the undecided one
    assert RP.judge(_r(C.INCONCLUSIVE, 0.84, 0.7, 1.02), ref).status == RP.REPRODUCED


def test_opposite_verdicts_never_reproduce() -> None:
    j = RP.judge(_r(C.HOLDS, 1.04, 1.031, 1.05), _r(C.REFUTED, 1.0, 0.98, 1.02))
    assert j.status == RP.NOT_REPRODUCED and "opposite" in j.why


def test_speed_normalisation() -> None:
    ref = _r(C.HOLDS, 1.3, 1.2, 1.4)
    run = _r(C.HOLDS, 1.82, 1.7, 1.9)  # 1.4x: the run's machine favours the numerator
    assert RP.judge(ref, run).status == RP.NOT_REPRODUCED
    j = RP.judge(ref, run, speed=1.4)
    assert j.status == RP.REPRODUCED and "speed-normalised" in j.why
    # the factors come from the matched cells: per method, geometric mean of speed ratios
    cells = pd.DataFrame({"metric": ["gbit_per_s"] * 4,
                          "method": ["sendmsg", "sendmsg", "send", "send"],
                          "speed_ratio": [1.4, 1.4 * 1.21, 1.0, 1.21]})
    f = RP.method_factors(cells)
    assert f["sendmsg"] / f["send"] == __import__("pytest").approx(1.4)


def test_a_crossover_size_is_compared_by_its_ci() -> None:
    ref = _r(C.REFUTED, 341_635, 235_092, 539_249)
    j = RP.judge(ref, _r(C.REFUTED, 226_693, 199_368, 307_978), size=True)
    assert j.status == RP.REPRODUCED and "overlaps" in j.why  # point outside, CIs overlap
    j = RP.judge(ref, _r(C.REFUTED, 120_000, 100_000, 140_000), size=True)
    assert j.status == RP.NOT_REPRODUCED
    # as a ratio, the same point would fail: a size is not judged like one
    assert RP.judge(ref, _r(C.REFUTED, 226_693, 199_368, 307_978)).status == RP.NOT_REPRODUCED


def test_not_testable_for_the_same_reason_vs_a_new_result() -> None:
    why = "needs hardware cache counters (a PMU); this run has none: perf_event_open ENOENT"
    ref = _r(C.NOT_TESTABLE, reason=why, claim="C2")
    assert RP.judge(ref, _r(C.NOT_TESTABLE, reason=why.replace("ENOENT", "EACCES"),
                            claim="C2")).status == RP.REPRODUCED
    j = RP.judge(ref, _r(C.HOLDS, 9.0, 8.0, 10.0, claim="C2"))
    assert j.status == RP.NOT_COMPARABLE and "new result" in j.why
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.NOT_TESTABLE, reason="needs >= 16 CPUs; 2"))
    assert j.status == RP.NOT_COMPARABLE
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.NOT_RUN, reason="no cells"))
    assert j.status == RP.NOT_COMPARABLE and "profile" in j.why


def test_table_and_total() -> None:
    ref = [_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.REFUTED, 0.8, 0.75, 0.85, claim="C5")]
    run = [_r(C.HOLDS, 1.35, 1.2, 1.5), _r(C.HOLDS, 1.1, 1.05, 1.2, claim="C5")]
    t = RP.table(ref, run)
    assert list(t["status"]) == [RP.REPRODUCED, RP.NOT_REPRODUCED]
    assert RP.total(t).startswith("1 of 2 comparable verdicts reproduced")
    assert "never opposite decided verdicts" in RP.rule_text()


def test_only_runs_both_made_after_the_mend_test_the_rule(tmp_path: Path) -> None:
    """A judgement is the mended rule's real test only when the reviewer's run and its
    reference were both made after the rule was committed (to the minute, on the same day)."""
    cells = R.pair(R.pingpong("zerocopy", 64, "cross-core"),
                   R.pingpong("send", 64, "cross-core"), 3.0, 3.3)

    def made(name: str, at: str) -> A.Run:
        return A.load_run(R.write(tmp_path / name / "run", cells, ["C1"], created_at=at))

    morning = made("morning", "2026-11-24T06:13:49+00:00")  # before 07:38 UTC that day
    ref = made("ref", "2026-11-24T13:37:00+00:00")
    later = made("later", "2026-11-24T16:18:38+00:00")
    assert RP.tests_the_rule(later, ref)
    assert not RP.tests_the_rule(morning, ref)
    assert not RP.tests_the_rule(later, morning)
    assert "committed at 07:38 UTC" in RP.rule_text() and "real test" in RP.rule_text()

"""The "Results Reproduced" rule (analysis/comparison/reproduce.py) on planted pairs of verdicts."""

from __future__ import annotations

import math
from pathlib import Path

import claim_runs as R
from analysis import claims as C
from analysis.comparison import reproduce as RP
from analysis.loading import run as A


def _r(verdict: str, value: float = math.nan, lo: float = math.nan, hi: float = math.nan,
       reason: str = "", claim: str = "C4") -> C.ClaimResult:
    r = C.ClaimResult(claim, "S2", "statement", "published", verdict=verdict, value=value,
                      lo=lo, hi=hi, reason=reason)
    r.rule_id, r.placement = f"{claim}:", "cross-core"
    return r


def test_same_decided_verdict_with_overlapping_cis() -> None:
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.HOLDS, 1.43, 1.3, 1.5))
    assert j.status == RP.SAME_DECIDED and j.reproduced


def test_same_decided_verdict_with_disjoint_cis_is_not_reproduced_in_size() -> None:
    """No widened band and no speed normalisation: the CIs must overlap. The same decided
    direction with disjoint CIs is its own category (C10's round trip same-core in the
    committed claims rerun: [1.47, 1.89] against [2.21, 2.47])."""
    j = RP.judge(_r(C.HOLDS, 1.67, 1.47, 1.89), _r(C.HOLDS, 2.33, 2.21, 2.47))
    assert j.status == RP.NOT_IN_SIZE and "do not overlap" in j.why and not j.reproduced
    assert RP.NOT_IN_SIZE in RP.COMPARED and RP.NOT_IN_SIZE not in RP.REPRODUCED


def test_both_undecided_is_its_own_category_never_reproduced() -> None:
    """A wide reference CI agrees with anything: two inconclusive verdicts are not a
    reproduction (the lax rule counted them as one)."""
    j = RP.judge(_r(C.INCONCLUSIVE, 1.0, 0.5, 2.0), _r(C.INCONCLUSIVE, 1.01, 0.9, 1.1))
    assert j.status == RP.BOTH_UNDECIDED and not j.reproduced


def test_inconclusive_reference_decided_run_is_newly_decided() -> None:
    j = RP.judge(_r(C.INCONCLUSIVE, 0.84, 0.7, 1.02), _r(C.REFUTED, 0.8, 0.75, 0.85))
    assert j.status == RP.NEWLY_DECIDED and not j.reproduced


def test_decided_reference_left_undecided_is_not_reproduced() -> None:
    j = RP.judge(_r(C.REFUTED, 0.8, 0.75, 0.85), _r(C.INCONCLUSIVE, 0.84, 0.7, 1.02))
    assert j.status == RP.NOT_REPRODUCED and "left inconclusive" in j.why


def test_opposite_verdicts_never_reproduce() -> None:
    j = RP.judge(_r(C.HOLDS, 1.04, 1.031, 1.05), _r(C.REFUTED, 1.0, 0.98, 1.02))
    assert j.status == RP.NOT_REPRODUCED and "opposite" in j.why


def test_direction_decides_first_and_magnitude_only_adds() -> None:
    """The published number decided the same way on both never stands in for the direction:
    undecided on both stays both undecided (C10, S3's program, same-core: 0.908 [0.695, 1.19]
    against 0.654 [0.281, 1.52]); a decided reference the rerun leaves undecided is not
    reproduced (the headline C13 same-core, 1.99 [1.84, 2.15] against 0.914 [0.745, 1.12],
    both missing the published 1.42); with the direction reproduced, the same magnitude
    verdict adds to it."""
    ref, run = _r(C.INCONCLUSIVE, 0.908, 0.695, 1.19), _r(C.INCONCLUSIVE, 0.654, 0.281, 1.52)
    ref.magnitude = run.magnitude = C.ABOVE
    assert RP.judge(ref, run).status == RP.BOTH_UNDECIDED
    ref, run = _r(C.HOLDS, 1.99, 1.84, 2.15), _r(C.INCONCLUSIVE, 0.914, 0.745, 1.12)
    ref.magnitude = run.magnitude = C.ABOVE
    j = RP.judge(ref, run)
    assert j.status == RP.NOT_REPRODUCED and not j.reproduced
    ref, run = _r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.HOLDS, 1.35, 1.25, 1.45)
    ref.magnitude = run.magnitude = C.INSIDE
    j = RP.judge(ref, run)
    assert j.status == RP.SAME_AND_MAGNITUDE and j.reproduced
    run.magnitude = C.INCONCLUSIVE
    j = RP.judge(ref, run)
    assert j.status == RP.SAME_DECIDED and j.reproduced and "inconclusive" in j.why


def test_a_crossover_size_is_compared_by_its_ci() -> None:
    ref = _r(C.REFUTED, 341_635, 235_092, 539_249)
    assert RP.judge(ref, _r(C.REFUTED, 226_693, 199_368, 307_978)).status == RP.SAME_DECIDED
    assert RP.judge(ref, _r(C.REFUTED, 120_000, 100_000, 140_000)).status == RP.NOT_IN_SIZE
    # no crossover in range on both sides: refuted without an estimate, the same verdict
    assert RP.judge(_r(C.REFUTED), _r(C.REFUTED)).status == RP.SAME_DECIDED
    # a crossover on one side only: the same verdict, sizes that cannot be compared
    j = RP.judge(_r(C.REFUTED), ref)
    assert j.status == RP.NOT_IN_SIZE and "cannot be compared" in j.why


def test_not_testable_on_both_vs_a_new_result() -> None:
    why = "needs hardware cache counters (a PMU); this run has none: perf_event_open ENOENT"
    ref = _r(C.NOT_TESTABLE, reason=why, claim="C2")
    j = RP.judge(ref, _r(C.NOT_TESTABLE, reason=why.replace("ENOENT", "EACCES"), claim="C2"))
    assert j.status == RP.BOTH_NOT_TESTABLE and not j.reproduced
    j = RP.judge(ref, _r(C.HOLDS, 9.0, 8.0, 10.0, claim="C2"))
    assert j.status == RP.NOT_COMPARABLE and "new result" in j.why
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.NOT_TESTABLE, reason="needs >= 16 CPUs; 2"))
    assert j.status == RP.NOT_COMPARABLE
    j = RP.judge(_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.NOT_RUN, reason="no cells"))
    assert j.status == RP.NOT_COMPARABLE and "profile" in j.why


def test_table_and_total_by_category() -> None:
    ref = [_r(C.HOLDS, 1.3, 1.2, 1.4), _r(C.REFUTED, 0.8, 0.75, 0.85, claim="C5"),
           _r(C.INCONCLUSIVE, 1.0, 0.8, 1.2, claim="C8"),
           _r(C.INCONCLUSIVE, 1.0, 0.8, 1.2, claim="C9")]
    run = [_r(C.HOLDS, 1.35, 1.2, 1.5), _r(C.HOLDS, 1.1, 1.05, 1.2, claim="C5"),
           _r(C.INCONCLUSIVE, 1.0, 0.8, 1.2, claim="C8"), _r(C.HOLDS, 1.3, 1.2, 1.4, claim="C9")]
    t = RP.table(ref, run)
    assert list(t["status"]) == [RP.SAME_DECIDED, RP.NOT_REPRODUCED, RP.BOTH_UNDECIDED,
                                 RP.NEWLY_DECIDED]
    assert RP.total(t).startswith(
        "4 claim verdicts compared: 1 reproduced (0 in verdict and magnitude, 1 in verdict "
        "only), 0 the same verdict not reproduced in size, 1 not reproduced, 1 newly decided, "
        "1 both undecided")
    assert "both undecided" in RP.rule_text() and "never" not in RP.total(t)


def test_a_compare_that_tested_no_claim_says_0_claims_compared() -> None:
    """A smoke run tests no claim: the lax rule said "6 of 6 comparable verdicts
    reproduced" for it."""
    why = "needs hardware cache counters (a PMU); this run has none"
    ref = [_r(C.NOT_TESTABLE, reason=why, claim="C2"), _r(C.HOLDS, 1.3, 1.2, 1.4)]
    run = [_r(C.NOT_TESTABLE, reason=why, claim="C2"), _r(C.NOT_RUN, reason="no cells")]
    text = RP.total(RP.table(ref, run))
    assert text.startswith("0 claims compared") and "reproduced" not in text
    assert "1 both not testable, 1 not comparable" in text


def test_only_runs_both_made_after_the_mend_test_the_rule(tmp_path: Path) -> None:
    """A judgement is the mended rule's real test only when the reviewer's run and its
    reference were both made after the rule was committed (to the minute, on the same day)."""
    cells = R.pair(R.pingpong("zerocopy", 64, "cross-core"),
                   R.pingpong("send", 64, "cross-core"), 3.0, 3.3)

    def made(name: str, at: str) -> A.Run:
        return A.load_run(R.write(tmp_path / name / "run", cells, ["C1"], created_at=at))

    when = A.instant(RP.MENDED)
    at = lambda minutes: (when + __import__("datetime").timedelta(minutes=minutes)).isoformat()
    morning = made("morning", at(-1))  # a minute before the rule in force was committed
    ref = made("ref", at(60))
    later = made("later", at(120))
    assert RP.tests_the_rule(later, ref)
    assert not RP.tests_the_rule(morning, ref)
    assert not RP.tests_the_rule(later, morning)
    # the rule's words state the rule; when it took effect is the appendix's revisions table
    assert f"{when:%H:%M} UTC" not in RP.rule_text()


def test_every_revision_is_kept_oldest_first() -> None:
    whens = [A.instant(r.when) for r in RP.REVISIONS]
    assert whens == sorted(whens) and RP.MENDED == RP.REVISIONS[-1].when

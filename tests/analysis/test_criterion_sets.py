"""The run-level criterion counts comparison sets, not verdicts: two readings of one claim
that read the same comparisons (C9 'never beats' and 'at best ~52 %', C3's two crossover
readings) rest on one set of CIs and count once."""

from __future__ import annotations

from analysis import claims as C
from analysis.comparison import reproduce as RP


def _r(claim: str, reading: str, placement: str, verdict: str, lo: float = 0.4,
       hi: float = 0.5) -> C.ClaimResult:
    r = C.ClaimResult(claim, "S", "s", "p", verdict=verdict, placement=placement)
    r.rule_id, r.reading = f"{claim}:{reading}", reading
    r.value, r.lo, r.hi = (lo + hi) / 2, lo, hi
    return r


def _pair(ref_v: dict, run_v: dict):
    ref = [_r(c, rd, pl, v) for (c, rd, pl), v in ref_v.items()]
    run = [_r(c, rd, pl, v) for (c, rd, pl), v in run_v.items()]
    return RP.table(ref, run)


def test_two_readings_of_one_comparison_set_count_once() -> None:
    ref = {("C9", "never beats", "same-core"): C.HOLDS,
           ("C9", "at best ~52 %", "same-core"): C.HOLDS,
           ("C4", "", "same-core"): C.REFUTED}
    t = _pair(ref, ref)
    j = RP.run_judgement(t)
    assert (j.same, j.decided) == (2, 2)
    assert RP.comparison_sets(t) == 2


def test_a_set_is_reproduced_only_when_all_its_readings_are() -> None:
    ref = {("C9", "never beats", "same-core"): C.HOLDS,
           ("C9", "at best ~52 %", "same-core"): C.HOLDS,
           ("C4", "", "same-core"): C.REFUTED}
    run = {**ref, ("C9", "at best ~52 %", "same-core"): C.INCONCLUSIVE}
    j = RP.run_judgement(_pair(ref, run))
    assert (j.same, j.decided, j.reversed) == (1, 2, 0)


def test_a_reversed_reading_reverses_its_set_once() -> None:
    ref = {("C3", "report's words: 32 KB message", "cross-core"): C.REFUTED,
           ("C3", "S1's code: 32 KB per field", "cross-core"): C.REFUTED}
    run = {k: C.HOLDS for k in ref}
    j = RP.run_judgement(_pair(ref, run))
    assert (j.decided, j.reversed) == (1, 1)

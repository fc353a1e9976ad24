"""A published effect inside the band is treated the same whatever the engine decided: no
verdict is changed after the engine decides (holds, refuted and inconclusive of the same
rule stay as decided), and each carries the same note that the report's own number lies
inside the band. Before, only verdicts that did not hold were turned into "not testable at
this noise" (and so left the reproduction criterion's denominator)."""

from __future__ import annotations

from analysis import claims as C
from analysis.claims import magnitude as M
from analysis.claims import sesoi as Z


def _r(rows, verdict: str) -> C.ClaimResult:
    r = C.ClaimResult("C8", "S", "s", "p", verdict=verdict)
    r.details = [{"size": s, "ratio": v, "lo": lo, "hi": hi, "n": 30} for s, v, lo, hi in rows]
    r.rule_id = "C8:"
    return r


BASE = [(1024, 1.3, 1.2, 1.4), (4096, 1.3, 1.2, 1.4), (16384, 1.3, 1.2, 1.4)]


def test_every_direction_is_treated_alike() -> None:
    holds = _r(BASE + [(65536, 0.8, 0.75, 0.85)], C.HOLDS)
    undecided = _r(BASE + [(65536, 0.95, 0.85, 1.05)], C.INCONCLUSIVE)
    refuted = _r(BASE + [(65536, 0.97, 0.90, 1.05)], C.REFUTED)
    Z.untestable_at_noise([holds, undecided, refuted], M.PUBLISHED)
    assert [x.verdict for x in (holds, undecided, refuted)] == \
        [C.HOLDS, C.INCONCLUSIVE, C.REFUTED]
    for x in (holds, undecided, refuted):
        assert Z.AT_THIS_NOISE in x.condition and "0.936 at 64 KiB" in x.condition


def test_a_rule_without_a_published_effect_inside_the_band_has_no_note() -> None:
    c4 = C.ClaimResult("C4", "S", "s", "p", verdict=C.INCONCLUSIVE)
    c4.details = [{"size": 512, "ratio": 1.0, "lo": 0.9, "hi": 1.1, "n": 30}]
    c4.rule_id = "C4:"
    Z.untestable_at_noise([c4], M.PUBLISHED)
    assert c4.verdict == C.INCONCLUSIVE and Z.AT_THIS_NOISE not in c4.condition

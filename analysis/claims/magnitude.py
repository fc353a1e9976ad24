"""The second question of every claim: is the report's *published number* inside our CI's
band? A claim's direction ("X beats Y") is decided by its rule (:mod:`.rules`, against the
smallest effect of interest); its magnitude separately, here, for every claim whose report
published the two numbers of its ratio.

Rule (fixed with the direction rules, before the next reference run): per size the claim
compares and the report published, the published ratio R (in the rule's orientation,
numerator / denominator) is *inside* when our CI at that size (at the verdict's family
level) lies within [R / 1.25, R x 1.25] (the "~R" tolerance), *outside* when it lies wholly
outside that band, else undecided. The magnitude verdict **holds** when every published size
is inside, is **refuted** when any is outside, else is **inconclusive**; a claim without a
published ratio (C3, C11: qualitative; C15: a table of counts) has none.
"""

from __future__ import annotations

import math
from typing import Sequence

from analysis import stats as S
from analysis.claims.base import HOLDS, INCONCLUSIVE, REFUTED, ClaimResult
from analysis.claims.rules import APPROX_TOL, MiB, fmt_size

#: the published ratios per claim and message size, numerator / denominator as the claim's
#: rule orients them (CLAIMS.md); size 0: the report's one number for every size it averaged
PUBLISHED: dict[str, dict[int, float]] = {
    "C1": {512: 7111.74 / 58.82, 64: 7111.74 / 58.82},  # S1's code (8 x 64 B) | words (64 B)
    "C2": {MiB: 23 / 2.5},  # LLC misses, two-copy / zero-copy
    "C4": {512: 5.44 / 1.14, 4096: 8.82 / 2.79, 16384: 30.61 / 5.13, 65536: 66.42 / 17.80},
    "C5": {512: 1.11 / 1.14, 4096: 7.62 / 2.79},
    "C6": {65536: 23.73 / 58.63},  # 8 threads / 4 threads
    "C7": {512: 61.04 / 23.77},
    "C8": {1024: 2.63 / 2.33, 4096: 7.03 / 6.01, 16384: 22.31 / 19.98, 65536: 43.90 / 46.89},
    "C9": {1024: 0.91 / 2.63, 4096: 2.74 / 7.03, 16384: 9.13 / 22.31, 65536: 22.91 / 43.90},
    "C10": {65536: 65.54 / 19.22},
    "C12": {16384: 68 / 41},
    "C13": {100_000_000: 695.33 / 490.83},
    "C14": {0: 418.56 / 65.60},  # S5's average over its file sizes
}
#: the rule's tolerance, as for "~R" claims
TOLERANCE = APPROX_TOL
#: rules that read the same comparisons as another rule of their claim: the published
#: number is judged once per claim and reading (C9's "never beats" and "at best ~52 %" read
#: the same four ratios; the magnitude belongs to "at best ~52 %")
SAME_COMPARISONS = frozenset({"C9:never beats"})


def _published(claim: str, size: float) -> float | None:
    pub = PUBLISHED.get(claim, {})
    if not pub or not math.isfinite(size):
        return None
    return pub.get(int(size), pub.get(0))


def assess(r: ClaimResult) -> None:
    """Fill ``r.magnitude`` and ``r.magnitude_text`` from its per-size CIs (``details``)."""
    if r.claim not in PUBLISHED or not r.details or r.rule_id in SAME_COMPARISONS \
            or r.verdict not in (HOLDS, REFUTED, INCONCLUSIVE):
        return
    parts, outcomes = [], []
    for d in r.details:
        size = float(d.get("size", math.nan))
        pub = _published(r.claim, size)
        if pub is None or "lo" not in d:
            continue
        rule = S.DecisionRule("approx", value=pub, tolerance=TOLERANCE)
        dec = S.decide(rule, S.Estimate(d["ratio"], d["lo"], d["hi"], int(d.get("n") or 0)))
        lo, hi = rule.boundaries()
        word = {"holds": "inside", "refuted": "outside"}.get(dec.outcome, "undecided")
        outcomes.append(dec.outcome)
        parts.append(f"{fmt_size(size)}: published {pub:.3g}, band [{lo:.3g}, {hi:.3g}], "
                     f"CI [{d['lo']:.3g}, {d['hi']:.3g}]: {word}")
    if not outcomes:
        return
    r.magnitude = (REFUTED if "refuted" in outcomes else
                   HOLDS if all(o == "holds" for o in outcomes) else INCONCLUSIVE)
    r.magnitude_text = "; ".join(parts)


def assess_all(results: Sequence[ClaimResult]) -> None:
    for r in results:
        assess(r)


def rule_text() -> str:
    return (f"magnitude: the published ratio R inside our CI's band, per published size "
            f"(holds if every CI lies within [R/{TOLERANCE:g}, R×{TOLERANCE:g}], refuted if "
            "one lies wholly outside, else inconclusive)")

"""The second question of every claim: is the report's *published number* what we measured?
A claim's direction ("X beats Y") is decided by its rule (:mod:`.rules`, against the smallest
effect of interest); its magnitude separately, here, for every claim whose report published the
two numbers of its ratio.

Rule (revised before the next reference run; the appendix's table of revisions records it),
per size the rule reads and the report published, the published ratio R (in the rule's
orientation, numerator / denominator) against our CI at that size (at the verdict's family
level):

* **consistent**: R lies inside our CI, the replication criterion of the Open Science
  Collaboration (Science 349, 2015: "original effect size within the replication's 95 % CI");
* **smaller than published**: the CI lies wholly on the side of R toward 1 (R > 1: its upper
  end below R; R < 1: its lower end above R), so the effect is detectably smaller than the
  report's, the report overstated it (the one-sided question of Simonsohn, Psychological
  Science 26, 2015: is the replication's effect detectably smaller than the original's?); a
  CI beyond 1 on the other side is smaller still (the direction rule says it is reversed);
* **larger than published**: the CI lies wholly beyond R, away from 1: the effect is there and
  larger than reported, which refutes nothing the report claimed, so it is its own outcome;
* **not measured**: a published size the run has no CI for, never left out.

The magnitude verdict is **refuted** (smaller than published) when any size is smaller, else
**larger than published** when any is larger, else **holds** when every published size is
measured and consistent, else **inconclusive** (consistent where measured, a size not
measured). C9's "at best ~52 %" is tested once more as the claim states it: the size with the
largest ratio against 0.52 (:data:`AT_BEST`). A claim without a published ratio (C3, C11:
qualitative; C15: a table of counts) has none.
"""

from __future__ import annotations

import math
from typing import Sequence

from analysis.claims.base import HOLDS, INCONCLUSIVE, LARGER, REFUTED, ClaimResult
from analysis.claims.rules import RULES
from decision import claimtable
from decision import rule as R
from analysis.statistics.fmt import fmt_size

#: the published ratios per claim and message size, numerator / denominator as the claim's
#: rule orients them (the claims' table types them once: decision.claimtable.REPORTED); size
#: 0: the report's one number for every size it averaged
PUBLISHED: dict[str, dict[int, float]] = {c: claimtable.published(c) for c in claimtable.REPORTED}
#: rules that read the same comparisons as another rule of their claim: the published
#: number is judged once per claim and reading (C9's "never beats" and "at best ~52 %" read
#: the same four ratios; the magnitude belongs to "at best ~52 %")
SAME_COMPARISONS = frozenset({"C9:never beats"})
#: the claims' own bound on their best size ("at best ~52 %"): rule -> the published bound
AT_BEST = {"C9:at best ~52 %": 0.52}
#: per-size words
CONSISTENT, SMALLER, BIGGER, NOT_MEASURED = ("consistent", "smaller than published",
                                             "larger than published", "not measured")


def classify(published: float, lo: float, hi: float) -> str:
    """One size: the published ratio against our CI [lo, hi] (the module doc's words)."""
    if R.holds(lo, hi, published):
        return CONSISTENT
    below = R.side(lo, hi, published, published) == "below"  # the CI lies wholly below R
    return (SMALLER if below == (published > 1.0) else BIGGER)


def _sizes(r: ClaimResult) -> list[int]:
    """The published sizes this result's rule reads (size 0: the report's one number for
    every size: the sizes measured)."""
    pub = PUBLISHED[r.claim]
    claim, _, reading = r.rule_id.partition(":")
    rule = next((x for x in RULES.get(claim, ()) if x.reading == reading), None)
    if 0 in pub:
        return sorted({int(d["size"]) for d in r.details if "size" in d
                       and math.isfinite(float(d["size"]))}) or [0]
    if rule is not None and rule.sizes:
        return [s for s in pub if s in rule.sizes] or sorted(pub)
    return sorted(pub)


def assess(r: ClaimResult) -> None:
    """Fill ``r.magnitude`` and ``r.magnitude_text`` from its per-size CIs (``details``)."""
    if r.claim not in PUBLISHED or not r.details or r.rule_id in SAME_COMPARISONS \
            or r.verdict not in (HOLDS, REFUTED, INCONCLUSIVE):
        return
    pub = PUBLISHED[r.claim]
    cis = {}
    for d in r.details:
        size = float(d.get("size", math.nan))
        if math.isfinite(size) and all(math.isfinite(float(d.get(k, math.nan)))
                                       for k in ("lo", "hi", "ratio")):
            cis.setdefault(int(size), d)
    parts, words = [], []
    for size in _sizes(r):
        value = pub.get(size, pub.get(0))
        d = cis.get(size)
        if d is None:
            words.append(NOT_MEASURED)
            parts.append(f"{fmt_size(size) if size else 'every size'}: published "
                         f"{value:.3g}, {NOT_MEASURED}")
            continue
        w = classify(value, d["lo"], d["hi"])
        words.append(w)
        parts.append(f"{fmt_size(size)}: published {value:.3g}, CI [{d['lo']:.3g}, "
                     f"{d['hi']:.3g}]: {w}")
    bound = AT_BEST.get(r.rule_id)
    if bound is not None and cis:
        best = max(cis.values(), key=lambda d: d["ratio"])
        w = classify(bound, best["lo"], best["hi"])
        words.append(w)
        parts.append(f"best size ({fmt_size(best['size'])}): published at best {bound:.2g}, "
                     f"CI [{best['lo']:.3g}, {best['hi']:.3g}]: {w}")
    if not words:
        return
    r.magnitude = (REFUTED if SMALLER in words else LARGER if BIGGER in words else
                   HOLDS if all(w == CONSISTENT for w in words) else INCONCLUSIVE)
    r.magnitude_text = "; ".join(parts)


def assess_all(results: Sequence[ClaimResult]) -> None:
    for r in results:
        assess(r)


def verdict_key() -> str:
    """The key of a verdict table that shows a claim's two verdicts side by side (direction,
    magnitude), in the rules' own words: what each column asks and what its words mean (the
    band from :data:`decision.band.SESOI`, the magnitude rule from :func:`rule_text`), and
    that the two are separate questions, so "holds" beside "refuted" is no contradiction."""
    from analysis.statistics.fmt import fmt_band

    return (f"Direction: is the claimed effect there? The claim's verdict against the band "
            f"{fmt_band()} of no difference: {HOLDS} where every size's CI agrees with the "
            f"claim (for an effect: wholly beyond the band's edge on the claimed side), "
            f"{REFUTED} as soon as one contradicts it (wholly on the near side of that edge), "
            f"else {INCONCLUSIVE} (naming the edge a CI straddles). "
            f"Magnitude: is the published number what we measured? "
            + rule_text().removeprefix("magnitude: ")
            + "; — where the report published no ratio. The two questions are apart: a "
            f"direction that {HOLDS} beside a magnitude {REFUTED} is an effect that is there "
            "but detectably smaller than published.")


def rule_text() -> str:
    return ("magnitude: per published size, the published ratio R against our CI: holds if R "
            "lies inside every CI (Open Science Collaboration 2015), refuted if a CI lies "
            "wholly on R's side toward 1 (the effect is detectably smaller than published; "
            "cf. Simonsohn 2015), larger than published if a CI lies wholly beyond R away from "
            "1 and none is smaller, inconclusive if a published size was not measured and "
            "the others are consistent")

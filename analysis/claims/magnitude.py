"""The second question of every claim: where does the report's *published number* lie
against what we measured? A claim's direction ("X beats Y") is decided by its rule
(:mod:`.rules`, against the smallest effect of interest); its magnitude separately, here, for
every claim whose report published the two numbers of its ratio.

The published number was measured on another testbed in another configuration, so it is not
an estimate of the same quantity as our CI, and a difference between the two says where the
report's number lies on this testbed, not that the report misstated it. The reading is the
same for every claim and both sides: per size the rule reads and the report published, the
published ratio R (in the rule's orientation, numerator / denominator) is placed against our
CI at that size (at the verdict's family level) by :func:`place`:

* **inside our CI** (ends included): the replication criterion of the Open Science
  Collaboration (Science 349, 2015: "original effect size within the replication's 95 % CI");
* **above our CI**: R lies above its upper end; **below our CI**: R lies below its lower end,
  whatever side of 1 R and the CI are on;
* **not measured**: a published size the run has no CI for, never left out.

A claim's magnitude is **above and below our CI** when its published sizes lie above at some
sizes and below at others, else **above** (**below**) when any lies above (below), else
**inside** when every published size is measured and inside, else **inconclusive** (inside
where measured, a size not measured). A published bound ("at best ~52 %", :data:`AT_BEST`)
is placed as a point: its number against our CI at the size with the largest ratio. A claim
without a published ratio (C3, C11: qualitative; C15: a table of counts) has none.
"""

from __future__ import annotations

import math
from typing import Sequence

from analysis.claims.base import (ABOVE, ABOVE_AND_BELOW, BELOW, HOLDS, INCONCLUSIVE,
                                  INSIDE, REFUTED, ClaimResult)
from analysis.claims.rules import RULES
from decision import claimtable
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size

#: the published ratios per claim and message size, numerator / denominator as the claim's
#: rule orients them (the claims' table types them once: decision.claimtable.REPORTED); size
#: 0: the report's one number for every size it averaged
PUBLISHED: dict[str, dict[int, float]] = {c: claimtable.published(c) for c in claimtable.REPORTED}
#: rules that read the same comparisons as another rule of their claim: the published
#: number is placed once per claim and reading (C9's "never beats" and "at best ~52 %" read
#: the same four ratios; the magnitude belongs to "at best ~52 %")
SAME_COMPARISONS = frozenset({"C9:never beats"})
#: the claims' own bound on their best size ("at best ~52 %"): rule -> the published bound
AT_BEST = {"C9:at best ~52 %": 0.52}
#: a published size the run has no CI for
NOT_MEASURED = "not measured"


def place(published: float, lo: float, hi: float) -> str:
    """Where a published number lies against our CI [lo, hi] on this testbed: above it,
    inside it (its ends included) or below it, the same way on either side of 1."""
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"a CI needs two finite ends, lower first; got [{lo}, {hi}]")
    return ABOVE if published > hi else BELOW if published < lo else INSIDE


def overall(words: Sequence[str]) -> str:
    """A claim's magnitude from its sizes' places (the module doc)."""
    placed = set(words) - {NOT_MEASURED}
    if {ABOVE, BELOW} <= placed:
        return ABOVE_AND_BELOW
    for where in (ABOVE, BELOW):
        if where in placed:
            return where
    return INCONCLUSIVE if NOT_MEASURED in words else INSIDE


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


def _ours(d: dict) -> str:
    """Our ratio at one size with its CI, as the book writes a ratio (``0.700 [0.650, 0.750]``)."""
    return fmt_ratio_ci(float(d["ratio"]), float(d["lo"]), float(d["hi"]), times=False)


def assess(r: ClaimResult) -> None:
    """Fill ``r.magnitude`` and ``r.magnitude_text`` from its per-size CIs (``details``): where
    each published number lies against our CI."""
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
        w = place(value, d["lo"], d["hi"])
        words.append(w)
        parts.append(f"{fmt_size(size)}: published {value:.3g} lies {w} ({_ours(d)})")
    bound = AT_BEST.get(r.rule_id)
    if bound is not None and cis:
        best = max(cis.values(), key=lambda d: d["ratio"])
        w = place(bound, best["lo"], best["hi"])
        words.append(w)
        parts.append(f"best size ({fmt_size(best['size'])}): published at best {bound:.2g} "
                     f"lies {w} ({_ours(best)})")
    if not words:
        return
    r.magnitude = overall(words)
    r.magnitude_text = "; ".join(parts) + " (on this testbed)"


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
            f"Magnitude: where does the report's published number lie against our CI on "
            "this testbed? " + rule_text().removeprefix("magnitude: ")
            + "; — where the report published no ratio. The two questions are apart, and the "
            "second places a number measured on another testbed, it does not judge the report: "
            f"a direction that {HOLDS} beside a published number {ABOVE} or {BELOW} is an "
            "effect that is there, of another size here than the report's number.")


def rule_text() -> str:
    return ("magnitude: per published size, where the published ratio R lies against our CI "
            "on this testbed, the same way for every claim: inside it (ends included; Open "
            "Science Collaboration 2015), above it or below it (an 'at best' bound placed as "
            "a point at the best size); a claim's magnitude is above and below our CI if "
            "its sizes lie on both sides, else above (below) if any lies above (below), "
            "inside if every published size is measured and inside, inconclusive if a "
            "published size was not measured and the others lie inside")

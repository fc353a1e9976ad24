"""The smallest effect of interest of a claim's *direction* ("X beats Y"), derived from what
this testbed resolves under the design the reference profile runs, not chosen: a ratio within
1 ± SESOI is no difference here.

Derivation (fixed before the next reference run; the inputs are committed; the function is
:func:`decision.sesoi.derive`, which the planner calls too):

* sigma: the per-round sd of the log ratio of two cells measured back to back, the larger of
  (a) the noise study's median paired per-round sd over its comparisons (run
  :data:`NOISE_STUDY`, ``analysis.statistics.noise_sources.comparisons``; this VM class) and (b) the A/A
  control of the reference run ``20261124T133652Z-paper-e8c3`` (``send`` against itself, 30
  rounds: ratio CI [0.94955, 1.053503] at 95 %, so sigma = half the CI's log width
  x sqrt(30) / t(0.975, 29));
* the design the reference profile runs (``runner/profiles/paper.toml``: its ``[design]``
  ``sequential`` looks, spending and maximum, alpha = 1 - ``confidence``): the quantile of its
  last look's repeated CI at the Bonferroni level of the largest family a direction verdict
  combines (4 sizes);
* SESOI: the smallest band inside which that CI falls with 80 % probability when the true
  ratio is 1, rounded up to a whole percent (a smaller band could not say "equivalent" even
  for a claim whose effect is exactly zero).

A claim whose published ratio lies inside the band cannot be decided in its favour even if its
report was exactly right. That is known before the data, so it is said of every verdict of
such a rule alike, whatever the engine decided (:func:`untestable_at_noise` notes it in the
verdict's condition, with the band and sigma); no verdict is changed after the engine decides.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from scipy import stats as st

from decision import sequential as sq
from decision import sesoi as derivation
from decision import verdict as V
from decision import rule as R
from decision.band import SESOI, band
from decision.profiles import read_profile

#: the A/A control of the reference run e8c3: (CI low, CI high, rounds), 95 %
AA_CONTROL = (0.94955, 1.053503, 30)
#: the run that A/A control comes from (the reference when the band was derived)
AA_RUN = "20261124T133652Z-paper-e8c3"
#: the noise study the sigma comes from: (run, median paired per-round sd of the log ratio,
#: comparisons it is the median of); a test recomputes it from the committed run
NOISE_STUDY = ("20261127T082138Z-noise-study-9374", 0.1289, 18)
#: the reference profile, whose design (looks, spending, maximum, level) the derivation uses
REFERENCE_PROFILE = "paper"
#: the largest family a direction verdict combines (4 sizes)
FAMILY = derivation.FAMILY
#: the verdict of a claim whose published effect lies inside the band (its reason says so)
AT_THIS_NOISE = V.AT_THIS_NOISE


def reference_design(profile: str = REFERENCE_PROFILE) -> sq.SequentialDesign:
    """The group-sequential design the reference profile declares (``[design] sequential``)."""
    des = read_profile(profile)["design"]
    seq = des["sequential"]
    return sq.SequentialDesign(spending=seq["spending"], alpha=round(1 - des["confidence"], 12),
                               first_look=seq["first_look"], look_every=seq["look_every"],
                               rounds_max=seq["rounds_max"])


def aa_sigma(lo: float, hi: float, rounds: int) -> float:
    """The per-round log-ratio sd behind a paired 95 % t CI [lo, hi] over ``rounds``."""
    return (math.log(hi) - math.log(lo)) / 2 * math.sqrt(rounds) / st.t.ppf(0.975, rounds - 1)


def sigma() -> float:
    """The per-round sd the band is derived for: the larger of the noise study's and the
    A/A control's."""
    return max(NOISE_STUDY[1], aa_sigma(*AA_CONTROL))


@lru_cache(maxsize=8)
def derive(s: float | None = None, family: int = FAMILY) -> derivation.Derivation:
    """The derivation of the module doc (:func:`decision.sesoi.derive`) on its inputs."""
    return derivation.derive(sigma() if s is None else s, reference_design(), family)


def text() -> str:
    """The derivation in one sentence (the book prints it beside the direction rule)."""
    d = derive()
    lo, hi, n = AA_CONTROL
    run, sd, k = NOISE_STUDY
    return (f"a ratio within 1 ± {SESOI:.0%} is no difference: the smallest effect this "
            f"testbed resolves under the design the reference profile runs, "
            f"{d.text().split(': ', 1)[1]}; the sd is the larger of the noise study's median "
            f"paired per-round sd ({sd:.3f} over its {k} comparisons, run {run}) and the "
            f"A/A control of the run {AA_RUN} ([{lo:.3f}, {hi:.3f}] over {n} rounds: "
            f"{aa_sigma(lo, hi, n):.3f})")


def inside_band(published: float, t: float = SESOI) -> bool:
    """Whether a published ratio lies inside the band [1 - t, 1 + t] (its direction could not
    be decided in the claim's favour even if the report were exactly right)."""
    return R.holds(*band(t), published)


def _rule(rule_id: str):
    """The direction rule a verdict comes from (claim:reading), or None."""
    from analysis.claims.rules import RULES

    claim, _, reading = rule_id.partition(":")
    return next((r for r in RULES.get(claim, ()) if r.reading == reading
                 and r.decision.kind == "direction" and r.expected), None)


def inside_band_sizes(rule, published: dict[int, float]) -> list[tuple[int, float]]:
    """The sizes (with the report's published ratio) at which ``rule`` expects an effect
    (greater or less) although the published ratio lies inside the band: known before any
    data (the rule, the report and the band), so the same for every verdict of the rule
    (size 0 of ``published``: every size the rule reads)."""
    sizes = rule.sizes or (0,)
    effect = {int(s) for s in sizes if (e := rule.expects(s or None)) is not None
              and e.kind in (R.GREATER, R.LESS)}
    return sorted((s, v) for s, v in published.items()
                  if (s in effect or (s == 0 and effect)) and inside_band(v))


def untestable_at_noise(results: Sequence, published: dict[str, dict[int, float]]) -> None:
    """Every direction verdict whose rule expects an effect at a size where the claim's
    published ratio lies inside the band (:func:`inside_band_sizes`) gets the same note in
    its condition, whatever the engine decided: the report's own number predicts no
    difference the design resolves there. No verdict is changed here (the engine's holds,
    refuted and inconclusive all stay), so a reading of the verdicts (the counts, the
    reproduction criterion's denominator) treats every direction alike."""
    d = derive()
    for r in results:
        if r.claim not in published:
            continue
        rule = _rule(r.rule_id)
        if rule is None:
            continue
        inside = inside_band_sizes(rule, published[r.claim])
        if not inside:
            continue
        where = ", ".join(f"{v:.3g} at {_size(s)}" for s, v in inside)
        note = (f"{AT_THIS_NOISE}: the published ratio ({where}) lies inside the band 1 ± {SESOI:.0%} derived "
                f"for a per-round sd of the log ratio of {d.sigma:.3f}")
        r.condition = f"{r.condition}; {note}" if r.condition else note


def _size(s: float) -> str:
    from analysis.statistics.fmt import fmt_size

    return fmt_size(s) if s else "every size"

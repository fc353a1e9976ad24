"""The claims' decision band, declared once, below both sides: the runner's profiles name it
(``"band"``, ``"inverse band"`` in an experiment's ``comparisons``) and the analysis's rules
read with it (``analysis.claims.sesoi.SESOI`` is :data:`SESOI`; its module derives the value
with :func:`blockstats.sesoi.derive` from the noise study's and the A/A control's sd and the
reference profile's design, and a test holds the derivation equal to it).

The band's form, the one the verdicts use: a direction rule reads a claim's ratio r against
[1 - t, 1 + t] (``analysis.stats.DecisionRule("direction", threshold=t)``): "greater" when
the CI lies above 1 + t, "less" below 1 - t, "equivalent" inside. Where the runner reads the
comparison on the inverse of the rule's ratio (a stream's inverse message rate is the inverse
of its throughput), the same band reads as [1 / (1 + t), 1 / (1 - t)] on that ratio: the
inverted band, not a second one. Profiles write boundaries to six decimals, so the inverted
band is rounded to six decimals here, once (0.892857, 1.136364 for t = 0.12).

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

#: the smallest effect of interest of a claim's direction: a ratio within 1 +- SESOI is no
#: difference here (derived in analysis.claims.sesoi: 0.07 until 2026-11-27, derived then for
#: the fixed design's 30-round t quantile; 0.12 for the looks' last quantile at 80 % power)
SESOI = 0.12
#: the decimals profiles write a boundary to
DECIMALS = 6
#: the names a profile's comparison may give instead of numbers -> the boundaries they stand for
BAND, INVERSE_BAND = "band", "inverse band"


def band(t: float = SESOI) -> tuple[float, float]:
    """The band [1 - t, 1 + t] on the rule's own ratio."""
    return round(1.0 - t, DECIMALS), round(1.0 + t, DECIMALS)


def inverse_band(t: float = SESOI) -> tuple[float, float]:
    """The same band on the inverse ratio: [1 / (1 + t), 1 / (1 - t)]."""
    return round(1.0 / (1.0 + t), DECIMALS), round(1.0 / (1.0 - t), DECIMALS)


#: a profile's name of a band -> its boundaries
NAMED: dict[str, tuple[float, float]] = {BAND: band(), INVERSE_BAND: inverse_band()}

"""The band of "no difference" and the error rate, declared once: every reading of a ratio's
CI (a claim's verdict, the decision map, the placement question, the A/A control, the
comparison of two runs, the top-up's stopping) takes its edges from here.

* :data:`SESOI`: the smallest effect of interest t; a ratio within [1 - t, 1 + t] is no
  difference here (derived in analysis.claims.sesoi with :func:`decision.sesoi.derive` from
  the noise study's and the A/A control's sd and the reference profile's design; a test holds
  the derivation equal to it).
* :data:`ALPHA`, :data:`CONFIDENCE` (:mod:`decision.schedule`, re-exported): the two-sided
  error of a family and the level of one comparison's CI.
* :func:`band`, :func:`inverse_band`: the edges on the rule's own ratio and on its inverse
  (a stream's time per message is the inverse of its throughput: the runner reads the
  throughput ratio, so a rule about the time per message reads the inverted band there, not a
  second one). Profiles write edges to :data:`DECIMALS` decimals.

Only the standard library: the profile loader and the runner import it.
"""

from __future__ import annotations

from decision.schedule import ALPHA, CONFIDENCE  # noqa: F401  (the one error rate)

#: the smallest effect of interest of a direction: a ratio within 1 +- SESOI is no difference
#: here (derived in analysis.claims.sesoi for the looks' last quantile at 80 % power; its
#: earlier value and when it changed are rows of the rules' revisions table,
#: analysis.claims.rules.REVISIONS, printed by analysis.words.revisions)
SESOI = 0.12
#: the decimals profiles and plans write an edge to
DECIMALS = 6
#: the names a profile's comparison may give instead of numbers -> the edges they stand for
BAND, INVERSE_BAND = "band", "inverse band"


def band(t: float = SESOI) -> tuple[float, float]:
    """The band [1 - t, 1 + t] on the rule's own ratio."""
    return round(1.0 - t, DECIMALS), round(1.0 + t, DECIMALS)


def inverse_band(t: float = SESOI) -> tuple[float, float]:
    """The same band on the inverse ratio: [1 / (1 + t), 1 / (1 - t)]."""
    return round(1.0 / (1.0 + t), DECIMALS), round(1.0 / (1.0 - t), DECIMALS)


def on_ratio(edge: float, inverse: bool) -> float:
    """An edge of the rule's ratio on the ratio the runner reads (its inverse where
    ``inverse``), to :data:`DECIMALS` decimals."""
    return round(1.0 / edge, DECIMALS) if inverse else round(edge, DECIMALS)


#: a profile's name of a band -> its edges
NAMED: dict[str, tuple[float, float]] = {BAND: band(), INVERSE_BAND: inverse_band()}

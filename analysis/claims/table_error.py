"""The verdict table's error as a whole. Each verdict reads its comparisons at the Bonferroni
level of its own family (1 - alpha/m each, alpha = 0.05; the sequential design's repeated CIs
hold at every look at once), or stricter where a comparison is read by a larger family too
(each comparison has one family, the largest of its readers': decision.families), so the
chance that a verdict is wrong (decided holds where the claim is false, or refuted where it
is true; likewise a magnitude verdict) is at most alpha,
whatever the other verdicts. Over the table nothing more is controlled; what follows from the
rules' levels alone, without any assumption of independence between verdicts:

* the expected number of wrong verdicts is at most the sum of their levels, alpha x T over the
  T verdicts the rules decide from CIs (linearity of expectation: it holds for dependent
  verdicts too); an undecided verdict cannot be wrong, but it counts, since it could have been
  decided;
* the chance that at least one verdict of the table is wrong is at most min(1, alpha x T)
  (the union bound).

A verdict "not testable" on this testbed or "not run" read no CI and counts in neither; one
not testable at this noise read its CIs and counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from analysis.statistics import stats as S
from analysis.claims.base import (HOLDS, INCONCLUSIVE, MAGNITUDES, NOT_TESTABLE, REFUTED,
                                  ClaimResult)
from analysis.claims.sesoi import AT_THIS_NOISE

#: the direction verdicts a rule decides from CIs (one not testable at this noise read them)
READ = (HOLDS, REFUTED, INCONCLUSIVE)


def _read(r: ClaimResult) -> bool:
    return r.verdict in READ or (r.verdict == NOT_TESTABLE
                                 and r.reason.startswith(AT_THIS_NOISE))


@dataclass(frozen=True)
class TableError:
    alpha: float  # each verdict's level (its family's error)
    tested: int  # direction verdicts decided from CIs (holds, refuted, inconclusive)
    decided: int  # of which holds or refuted
    magnitudes: int  # magnitude verdicts (each read from the same CIs)
    magnitudes_decided: int

    @property
    def expected_wrong(self) -> float:
        """The bound on the expected number of wrong direction verdicts."""
        return self.alpha * self.tested

    @property
    def any_wrong(self) -> float:
        """The bound on the chance that at least one direction verdict is wrong."""
        return min(1.0, self.alpha * self.tested)

    @property
    def expected_wrong_magnitudes(self) -> float:
        return self.alpha * self.magnitudes

    @property
    def union_bound_informative(self) -> bool:
        """Whether the union bound says anything: alpha x T under 1. At 1 or more it bounds
        a probability by a number no probability exceeds, and the text says so instead of
        quoting "at most 100 %"."""
        return self.alpha * self.tested < 1.0

    def text(self) -> str:
        if not self.tested:
            return "no verdict in this table was decided from a CI"
        if self.union_bound_informative:
            anyone = (f"the chance that any is wrong at most {self.any_wrong:.0%} (a union "
                      f"bound; the table as a whole is not corrected further)")
        else:
            anyone = (f"the union bound over the {self.tested} verdicts ({self.tested} x "
                      f"{self.alpha:g} = {self.alpha * self.tested:.2f}) reaches 1 or more, "
                      f"so it does not bound the chance that one of them is wrong (the table "
                      f"as a whole is not corrected further)")
        return (f"each verdict is read at the level of its own family or stricter, so it is "
                f"wrong with probability at most {self.alpha:g}; over the {self.tested} "
                f"direction verdicts read from CIs ({self.decided} decided) the expected "
                f"number of wrong ones is at most {self.expected_wrong:.2f} and {anyone}; "
                f"of the {self.magnitudes} magnitude "
                f"verdicts ({self.magnitudes_decided} decided), at most "
                f"{self.expected_wrong_magnitudes:.2f} are expected to be wrong")


def table_error(results: Sequence[ClaimResult], alpha: float = S.ALPHA) -> TableError:
    """The verdict table's error bounds from the rules' levels (the module doc)."""
    tested = [r for r in results if _read(r)]
    mags = [r for r in results if r.magnitude in MAGNITUDES]
    return TableError(alpha, len(tested), sum(r.verdict in (HOLDS, REFUTED) for r in tested),
                      len(mags), sum(r.magnitude != INCONCLUSIVE for r in mags))

"""Hardware-counter claims: C2 (S1), C7 (S2), C12 (S3). They need a PMU; without one
they are "not testable here" with the machine's reason. Rules: :mod:`analysis.claims.rules`
(counts per byte moved, sender side)."""

from __future__ import annotations

from analysis.claims.base import ClaimResult
from analysis.claims.engine import evaluate_rules
from analysis.claims.rules import RULES
from analysis.loading.run import Run
from decision.claimtable import quote

C2 = ("S1", "At 1 MB, zero-copy has ~10x fewer LLC misses than two-copy",
      f"{quote('C2', 1 << 20, unit=True, swap=True)} LLC misses")
C7 = ("S2", "At 512 B / 1 thread zero-copy has 2.6x the L1 misses of two-copy",
      quote("C7", 512, unit=True))
C12 = ("S3", "One-copy has 65% more LLC misses than two-copy at 16 KB", quote("C12", 16384, unit=True))


def c2(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C2"], C2)


def c7(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C7"], C7)


def c12(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C12"], C12)

"""Where zero-copy starts to pay: C3 (S1, a crossover size, under both readings of S1's size
argument) and C5 (S2, "overtakes between 512 B and 4 KB": not ahead at 512 B, ahead at
4 KiB). Rules: :mod:`analysis.claims.rules`."""

from __future__ import annotations

from analysis.claims.base import ClaimResult
from analysis.claims.engine import evaluate_rules
from analysis.claims.rules import RULES
from analysis.loading.run import Run
from decision.claimtable import quote

C3 = ("S1", "Zero-copy pays off above ~32 KB", "qualitative")
C5 = ("S2", "Zero-copy overtakes two-copy between 512 B and 4 KB",
      f"512 B {quote('C5', 512)}; 4 KB {quote('C5', 4096)} Gbit/s")


def c3(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C3"], C3)


def c5(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C5"], C5)

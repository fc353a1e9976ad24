"""Where zero-copy starts to pay: C3 (S1, a crossover size, under both readings of S1's size
argument) and C5 (S2, "overtakes between 512 B and 4 KB": not ahead at 512 B, ahead at
4 KiB). Rules: :mod:`analysis.claims.rules`."""

from __future__ import annotations

from analysis.claims.base import ClaimResult
from analysis.claims.engine import evaluate_rules
from analysis.claims.rules import RULES
from analysis.loading.run import Run

C3 = ("S1", "Zero-copy pays off above ~32 KB", "qualitative")
C5 = ("S2", "Zero-copy overtakes two-copy between 512 B and 4 KB",
      "512 B 1.11 vs 1.14; 4 KB 7.62 vs 2.79 Gbit/s")


def c3(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C3"], C3)


def c5(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C5"], C5)

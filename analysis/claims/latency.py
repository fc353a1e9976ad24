"""Latency claims: C1 (S1, 64 B) and C10 (S3, 64 KB), each under both readings of the
source's "latency" (its code's and its report's words), per placement; the rules are in
:mod:`analysis.claims.rules`."""

from __future__ import annotations

from analysis.claims.base import ClaimResult
from analysis.claims.engine import evaluate_rules
from analysis.claims.rules import RULES
from analysis.loading.run import Run
from decision.claimtable import published, quote

C1 = ("S1", "For 64 B messages, zero-copy latency is >100x that of two-copy",
      f"1 thread: {quote('C1', 64, swap=True).replace(' vs ', ' us two-copy vs ')} us "
      f"zero-copy ({published('C1')[64]:.0f}x)")
C10 = ("S3", "At 64 KB zero-copy latency is ~3.4x two-copy", quote("C10", 65536, unit=True))


def c1(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C1"], C1)


def c10(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C10"], C10)

"""File-transfer claims: C13 (S4, sendfile against read+send on a 100 MB file over
localhost) and C14 (S5, dual-pipe splice). Rules: :mod:`analysis.claims.rules`."""

from __future__ import annotations

from analysis.claims.base import ClaimResult
from analysis.claims.engine import evaluate_rules
from analysis.claims.rules import RULES
from analysis.loading.run import Run
from decision.claimtable import quote

C13 = ("S4", "Sending a 100 MB file over localhost TCP, sendfile() is ~1.42x faster than "
       "read()+sendall()", quote("C13", 100_000_000, unit=True))
C14 = ("S5", "Splice through two pipes in parallel (dual pipe) copies a file faster than "
       "splice through one pipe", f"{quote('C14', 0)} B/ms")


def c13(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C13"], C13)


def c14(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C14"], C14)

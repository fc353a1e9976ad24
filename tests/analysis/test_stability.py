"""Each claim's stability across runs and CPU classes (analysis.comparison.stability), on
synthetic verdict tables: the labels, the table's columns grouped by class with post hoc
runs marked, the counts and the pairwise agreement."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.claims import ClaimResult
from analysis.comparison import stability as S

AMD, INTEL = "AMD EPYC", "Intel Xeon"
H, R, I, N = "holds", "refuted", "inconclusive", "not testable"


@pytest.mark.parametrize("verdicts, expected", [
    ([(AMD, H), (AMD, H), (INTEL, H)], S.SAME),
    ([(AMD, H), (AMD, I), (INTEL, N)], S.SAME),  # undecided runs agree with anything
    ([(AMD, R), (AMD, R), (INTEL, H), (INTEL, H)], S.DEPENDS),
    ([(AMD, R), (AMD, H), (INTEL, H)], S.UNSTABLE),  # flips within a class
    ([(AMD, R), (AMD, H), (INTEL, R), (INTEL, H)], S.UNSTABLE),
    ([(AMD, I), (INTEL, N)], S.NEVER),
    ([], S.NEVER),
])
def test_labels(verdicts, expected) -> None:
    assert S.label(verdicts) == expected


RUNS = [S.RunInfo("r1", AMD, True), S.RunInfo("r2", INTEL, True),
        S.RunInfo("r3", AMD, False), S.RunInfo("r4", INTEL, False)]


def _long(rows: dict[str, dict[str, str]]) -> pd.DataFrame:
    """{claim: {run: verdict}} as the long table, one placement each."""
    cls = {i.run: i for i in RUNS}
    return pd.DataFrame([{"claim": c, "reading": "—", "placement": "cross-core",
                          "basis": "copybench", "run": run, "cpu_class": cls[run].cpu_class,
                          "post_hoc": cls[run].post_hoc, "verdict": v}
                         for c, by in rows.items() for run, v in by.items()],
                        columns=S.COLUMNS)


def test_the_table_groups_runs_by_class_and_marks_post_hoc() -> None:
    long = _long({"C1": {"r1": H, "r2": H, "r3": H, "r4": H},
                  "C2": {"r1": R, "r2": H, "r3": R, "r4": H},
                  "C3": {"r1": R, "r2": H, "r3": H},
                  "C4": {"r1": I, "r3": N}})
    t = S.table(long, RUNS)
    runs = [c for c in t.columns if c not in S.KEY + ["label"]]
    assert runs == ["AMD EPYC: r1", "AMD EPYC: r3", "Intel Xeon: r2", "Intel Xeon: r4"]
    by = t.set_index("claim")
    assert by.loc["C1", "AMD EPYC: r1"] == "holds (post hoc)"
    assert by.loc["C1", "AMD EPYC: r3"] == "holds"
    assert by.loc["C3", "Intel Xeon: r4"] == "—"
    assert list(by["label"]) == [S.SAME, S.DEPENDS, S.UNSTABLE, S.NEVER]
    assert S.counts(t) == {S.SAME: 1, S.DEPENDS: 1, S.UNSTABLE: 1, S.NEVER: 1}
    assert S.counts(S.table(_long({}), RUNS)) == dict.fromkeys(S.LABELS, 0)


def test_agreement_counts_pairs_that_both_decided() -> None:
    long = _long({"C1": {"r1": H, "r2": H, "r3": H, "r4": I},
                  "C2": {"r1": R, "r2": H, "r3": H, "r4": H}})
    # C1: AMD r1-r3 agree; C2: AMD r1-r3 differ
    assert S.agreement(long, within=AMD) == S.Agreement(1, 2)
    # C2: r2-r4 agree (r4's C1 undecided)
    assert S.agreement(long, within=INTEL) == S.Agreement(1, 1)
    # C1: r1-r2, r3-r2; C2: r1-r2 (no), r1-r4 (no), r3-r2, r3-r4
    a = S.agreement(long, across=True)
    assert (a.same, a.pairs) == (4, 6) and a.share == pytest.approx(4 / 6)


def test_rows_from_results() -> None:
    r = ClaimResult("C7", "S1", "x", "y", verdict=H, placement="same-core")
    got = S.rows(S.RunInfo("r9", INTEL, False), [r])
    assert got == [{"claim": "C7", "reading": got[0]["reading"], "placement": "same-core",
                    "basis": "copybench", "run": "r9", "cpu_class": INTEL, "post_hoc": False,
                    "verdict": H}]


def test_what_holds_everywhere_is_named_by_claim_and_placement() -> None:
    long = _long({"C1": {"r1": H, "r2": H, "r3": I},
                  "C2": {"r1": R, "r2": R},  # the same everywhere, but refuted
                  "C3": {"r1": H, "r3": R},  # unstable
                  "C4": {"r1": I}})
    t = S.table(long, RUNS)
    assert S.holding_everywhere(t) == [("C1", "cross-core")]
    assert S.holding_everywhere(S.table(_long({}), RUNS)) == []


def test_what_holds_everywhere_keeps_the_tables_order() -> None:
    """C9 before C10, as the claims are numbered, not as their names sort."""
    t = S.table(_long({"C9": {"r1": H, "r2": H}, "C10": {"r1": H, "r2": H}}), RUNS)
    assert S.holding_everywhere(t) == [("C9", "cross-core"), ("C10", "cross-core")]

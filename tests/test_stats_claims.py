"""The claims analysis on synthetic runs (tests/fixtures/make_synthetic_run.py): every claim
gets a verdict from the allowed set, absent data gives "not testable here" with a reason,
the PMU claims are computed when counters exist, and run-level drift is found when planted."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import make_synthetic_run  # noqa: E402

from analysis import run as A  # noqa: E402
from analysis import claims as C  # noqa: E402

VERDICTS = {C.HOLDS, C.REFUTED, C.INCONCLUSIVE, C.NOT_TESTABLE}


def _run(tmp_path_factory: pytest.TempPathFactory, *args: str) -> A.Run:
    d = tmp_path_factory.mktemp("run") / "synthetic"
    assert make_synthetic_run.main([str(d), *args]) == 0
    return A.load_run(d)


@pytest.fixture(scope="module")
def full_pmu(tmp_path_factory: pytest.TempPathFactory) -> A.Run:
    return _run(tmp_path_factory, "--pmu")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> A.Run:
    return _run(tmp_path_factory, "--small")


def test_every_claim_has_an_allowed_verdict(full_pmu: A.Run, small: A.Run) -> None:
    for run in (full_pmu, small):
        res = C.evaluate(run)
        assert [r.claim for r in res] == [f"C{i}" for i in range(1, 16)]
        for r in res:
            assert r.verdict in VERDICTS, r
            if r.verdict == C.NOT_TESTABLE:
                assert r.reason, r.claim
            else:
                assert r.statistic and r.configuration, r.claim


def test_pmu_claims_computed_only_with_counters(full_pmu: A.Run, small: A.Run) -> None:
    with_pmu = {r.claim: r for r in C.evaluate(full_pmu)}
    without = {r.claim: r for r in C.evaluate(small)}
    for c in ("C2", "C7", "C12"):
        assert with_pmu[c].verdict != C.NOT_TESTABLE, with_pmu[c].reason
        assert math.isfinite(with_pmu[c].value)
        assert without[c].verdict == C.NOT_TESTABLE
        assert "hardware" in without[c].reason


def test_missing_cells_named_in_the_reason(small: A.Run) -> None:
    res = {r.claim: r for r in C.evaluate(small)}
    assert res["C6"].verdict == C.NOT_TESTABLE and "8-thread" in res["C6"].reason
    assert res["C1"].verdict == C.NOT_TESTABLE and "64 B" in res["C1"].reason


def test_run_with_nothing_but_one_method(tmp_path: Path, small: A.Run) -> None:
    d = tmp_path / "one"
    d.mkdir()
    lines = [ln for ln in (small.path / "trials.jsonl").read_text().splitlines()
             if '"method": "send"' in ln][:6]
    (d / "trials.jsonl").write_text("\n".join(lines) + "\n")
    run = A.load_run(d)
    res = C.evaluate(run)
    assert all(r.verdict == C.NOT_TESTABLE for r in res if r.claim not in ("C13",))
    p1, table = C.placement_hypothesis(run)
    assert p1.verdict in VERDICTS


def test_planted_run_drift_detected(tmp_path_factory: pytest.TempPathFactory,
                                    small: A.Run) -> None:
    drifting = _run(tmp_path_factory, "--small", "--drift", "0.15")
    d = A.drift_by_scenario(drifting).set_index("scenario")
    assert d.loc["message", "drift"] == "detected" and d.loc["message", "spearman_rho"] < 0
    # without a planted drift the correlation is small (its false-alarm rate at the raw
    # level is tested in test_stats.py over many seeds)
    clean = A.drift_by_scenario(small).set_index("scenario")
    assert abs(clean.loc["message", "spearman_rho"]) < 0.2 < abs(d.loc["message", "spearman_rho"])


def test_copies_per_byte_ranks_planted_copy_shares(full_pmu: A.Run) -> None:
    """The fixture plants a copy share for read-write three times that of splice (3 vs 1
    copies including the receiver's); the synthetic CPU times are not modelled, so only the
    ranking is asserted."""
    cp = C.copies_per_byte(full_pmu)
    fs = cp[cp["scenario"] == "file→socket"].sort_values("size").groupby("method").last()
    assert fs.loc["read-write", "copies"] > fs.loc["splice", "copies"]

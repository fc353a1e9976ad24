"""The A/A control is judged by one rule (decision.sesoi.AA_RULE: its 95 % CI contains 1),
declared once and read by analysis.claims.baselines.twin_pairs; the design's false-positive
rate is the share of pairs that fail it, with a Clopper-Pearson CI."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest

from analysis.claims import baselines as BL
from analysis.loading import run as A
from decision import sesoi as Z

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "data" / "raw" / "20261128T171229Z-paper-5394"


def test_the_rule_is_the_ci_containing_1() -> None:
    assert Z.aa_passes(0.95, 1.02) and Z.aa_passes(1.0, 1.0)
    assert not Z.aa_passes(0.956, 0.991) and not Z.aa_passes(1.01, 1.2)
    assert not Z.aa_passes(math.nan, 1.1)
    assert "contains 1" in Z.AA_RULE


def test_the_false_positive_rate_has_an_exact_ci() -> None:
    f = Z.false_positives(1, 20)
    assert f.rate == pytest.approx(0.05)
    # Clopper-Pearson 95 % for 1 of 20: [0.00127, 0.249]
    assert f.lo == pytest.approx(0.00127, abs=1e-4) and f.hi == pytest.approx(0.2487, abs=1e-3)
    assert "1 of 20 A/A pairs miss 1" in f.text()
    assert math.isnan(Z.false_positives(0, 0).rate)
    with pytest.raises(ValueError, match="misses must lie"):
        Z.false_positives(3, 2)


@pytest.mark.skipif(not REF.is_dir(), reason="the committed reference run is absent")
def test_the_reference_a_a_fails_the_rule() -> None:
    """5394's A/A (send twice, veth 16 KiB cross-core, 30 rounds): 0.973 [0.956, 0.991]."""
    aa = BL.twin_pairs(A.load_run(REF))
    assert len(aa) == 1
    row = aa.iloc[0]
    assert row["ratio"] == pytest.approx(0.973, abs=5e-4)
    assert row["hi"] < 1 and not row["passes"]
    f = BL.aa_false_positives(aa)
    assert (f.misses, f.pairs) == (1, 1)


def test_the_claims_profile_runs_a_a_pairs_on_loopback_and_veth() -> None:
    doc = tomllib.loads((ROOT / "runner/profiles/parts/claim-blocks.toml").read_text())
    (aa,) = [e for e in doc["experiment"] if e["name"] == "aa-control"]
    assert {"loopback", "veth"} <= set(aa["transports"])
    pairs = len(aa["transports"]) * len(aa["placements"]) * len(aa["sizes"])
    assert pairs >= 2 and aa["own_block"] and aa["twin"]

"""The A/A control pooled over the committed runs: each pair judged by its one rule
(decision.sesoi.AA_RULE), the false-positive rate per CPU class and over all with its
Clopper-Pearson CI, said in analysis/words/aa_control.py; the reference run's A/A reads
failed, never "equivalent", and the verdict key prints the rate beside the verdict counts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.claims import baselines as BL
from analysis.loading import run as A
from analysis.words import aa_control as AAW
from rundir import catalog as CA

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "data" / "raw" / "20261128T171229Z-paper-5394"


def test_the_rate_is_pooled_per_class_and_over_all() -> None:
    pairs = pd.DataFrame({"cpu_class": ["Intel Xeon", "Intel Xeon", "AMD EPYC"],
                          "passes": [False, True, True]})
    rates = BL.aa_rate_by_class(pairs)
    assert list(rates) == ["Intel Xeon", "AMD EPYC", BL.ALL_CLASSES]
    assert (rates["Intel Xeon"].misses, rates["Intel Xeon"].pairs) == (1, 2)
    assert (rates[BL.ALL_CLASSES].misses, rates[BL.ALL_CLASSES].pairs) == (1, 3)
    text = AAW.rate_text(rates, 4)
    assert "1 of 3 A/A pairs miss 1" in text and "on the AMD EPYC, 0 of 1" in text
    assert "Clopper-Pearson" in text and "contains 1" in text
    empty = BL.aa_rate_by_class(pd.DataFrame(columns=["cpu_class", "passes"]))
    assert "not estimated" in AAW.rate_text(empty, 2)


@pytest.mark.skipif(not REF.is_dir(), reason="the committed reference run is absent")
def test_the_reference_a_a_reads_failed() -> None:
    pairs = BL.committed_aa([CA.entry(REF)], lambda d: BL.twin_pairs(A.load_run(d)))
    assert list(pairs["run"]) == [REF.name] and list(pairs["cpu_class"]) == ["Intel Xeon"]
    text = AAW.failed_text(pairs)
    assert "fails the A/A rule" in text and "0.973× [0.956, 0.991]" in text and REF.name in text
    assert "equivalent" not in text and "passes" not in text


def test_the_verdict_key_prints_the_rate_beside_the_counts() -> None:
    key = " ".join((ROOT / "book" / "verdicts.md").read_text(encoding="utf-8").split())
    assert "claims.ipynb::counts_by_reading" not in key  # the counts are the replication's
    at = key.index("replication.ipynb::counts_by_reading")
    assert "claims.ipynb::aa_rate:s" in key[at:at + 400]
    src = (ROOT / "notebooks" / "claims.py").read_text(encoding="utf-8")
    assert 'glue_text("aa_rate"' in src and 'glue_text("aa_failed"' in src

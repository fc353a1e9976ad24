"""One table of decision families (decision.claimtable, read through decision.families)
that the analysis's rules and the runner's top-up both read (so the runner never stops
C5's comparisons at family 4 while the analysis reads them at 2)."""

from __future__ import annotations

from decision import families


def test_the_table_says_which_comparisons_each_claim_reads() -> None:
    assert families.readers("zerocopy/send", ["C4", "C5", "P1"]) == ["C5", "P1"]
    assert families.family("C14", sizes=3) == 3 and families.family("P1", placement_cells=22) == 44
    assert families.fixed("C5") == 2


def test_a_claim_reads_its_comparisons_at_its_own_sizes_only() -> None:
    assert families.readers("zerocopy/send", ["C1", "C3", "C5", "P1"], 1 << 20) == ["C3", "P1"]

"""One table of decision families (blockstats.families) that the analysis's rules and the
runner's top-up both read (issue 37: the runner stopped C5's comparisons at family 4 while
the analysis read them at 2)."""

from __future__ import annotations

from analysis.claims import rules as RU
from blockstats import families


def test_every_rule_reads_its_family_from_the_shared_table() -> None:
    for claim, rules in RU.RULES.items():
        for rule in rules:
            m = families.FAMILY[claim]
            assert rule.family == (m if isinstance(m, int) else 0), claim


def test_the_table_says_which_comparisons_each_claim_reads() -> None:
    assert families.readers("zerocopy/send", ["C4", "C5", "P1"]) == ["C5", "P1"]
    assert families.family("C14", sizes=3) == 3 and families.family("P1", placement_cells=22) == 44
    assert families.fixed("C5") == 2


def test_the_sizes_each_claim_reads_are_its_rules_sizes() -> None:
    for claim, sizes in families.READ_SIZES.items():
        declared = {s for r in RU.RULES[claim] for s in r.sizes}
        assert declared == set(sizes), claim
    assert families.readers("zerocopy/send", ["C1", "C3", "C5", "P1"], 1 << 20) == ["C3", "P1"]

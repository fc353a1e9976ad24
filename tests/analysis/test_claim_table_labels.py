"""The compact verdict table's words (analysis.claims.compact_table and its helpers): each row
says which measurement it rests on, its bracket of rounds has a key written from the function
that writes it, and a verdict decided at some of its sizes names them. Fast:
built ClaimResults, no run."""

from __future__ import annotations

from analysis import claims as C
from analysis.claims import short_reading


def _result(rule_id: str, basis: str = C.COPYBENCH, **kw) -> C.ClaimResult:
    r = C.ClaimResult(rule_id.split(":")[0], "S1", "statement", "121", basis=basis, **kw)
    r.rule_id = rule_id
    return r


def test_copybench_and_their_programs_rows_of_one_reading_are_told_apart() -> None:
    """C1 has a reading "S1's code" measured by copybench and by S1's own program: the two
    rows once both read "S1's code" (one with "S1's program: " before it)."""
    rule = "C1:S1's code: window/messages, 8 x 64 B"
    assert short_reading(_result(rule)) == "copybench: S1's code"
    assert short_reading(_result(rule, C.THEIR_PROGRAM)) == "S1's program: S1's code"
    assert short_reading(_result("C1:report's words: round trip, 64 B")) == "report's words"
    assert short_reading(_result("C9:never beats")) == "never beats"


def test_the_rounds_bracket_has_a_key_from_the_function_that_writes_it() -> None:
    key = C.rounds_key()
    seq = _result("C4:", rounds=12, look=2, looks=3)
    fixed = _result("C4:", rounds=15)
    assert f"[{C.rounds_looks(seq)}]" in key and f"[{C.rounds_looks(fixed)}]" in key
    assert "12 paired rounds" in key and "look 2 of the 3 looks" in key
    assert "fixed design" in key


def test_a_verdict_decided_at_some_sizes_names_them() -> None:
    """A verdict its run decided at only some of its rule's sizes says which (it read "not
    run in this profile", with what the sizes run decided in brackets)."""
    r = _result("C9:never beats", verdict=C.HOLDS, value=0.7, lo=0.6, hi=0.8,
                placement="same-core", scope="at 4 KiB, 64 KiB only; not run at 1 KiB, 16 KiB")
    r.details = [{"size": 4096, "ratio": 0.7, "lo": 0.6, "hi": 0.8, "outcome": "less"},
                 {"size": 65536, "ratio": 0.5, "lo": 0.4, "hi": 0.6, "outcome": "less"}]
    assert C.decided_where_run(r) == "at 4 KiB, 64 KiB only; not run at 1 KiB, 16 KiB"
    row = C.compact_table([r]).iloc[0]
    assert row["state"] == C.HOLDS and bool(row["decided where run"])
    assert row["verdict"] == f"{C.HOLDS} (at 4 KiB, 64 KiB only; not run at 1 KiB, 16 KiB)"
    # a verdict over every size of its rule says nothing more
    r.scope = ""
    assert C.decided_where_run(r) == "" and C.compact_table([r]).iloc[0]["verdict"] == C.HOLDS


def test_the_per_round_sd_counts_each_paired_comparison_once() -> None:
    """Two claims that read the same pair of cells share one comparison: its per-round sd
    counts once; an unpaired comparison or one without an sd does not count."""
    import math

    from analysis import claims as C
    shared = {"design": "paired", "ratio": 0.8, "n": 10, "per-round sd": 0.2}
    a = C.ClaimResult("C8", "S3", "s", "p")
    a.details = [dict(shared), {"design": "paired", "ratio": 1.1, "n": 20, "per-round sd": 0.1}]
    b = C.ClaimResult("C9", "S3", "s", "p")
    b.details = [dict(shared, lo=0.7, hi=0.9),  # the same comparison at another CI level
                 {"design": "unpaired", "ratio": 0.5, "n": 6, "per-round sd": 0.9},
                 {"design": "paired", "ratio": 0.6, "n": 1, "per-round sd": math.nan}]
    sd = C.per_round_sds([a, b])
    assert sorted(sd) == [0.1, 0.2]
    assert C.per_round_sds([]).empty

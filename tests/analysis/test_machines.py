"""Runs from machines with more CPUs are read beside the reference run (analysis.machines):
the committed thread-count run from a 16-CPU machine decides C6 and C11, which no 2-CPU run
can test, and the verdict table says where they were decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import claims as C
from analysis import machines as M
from analysis.run import load_run

pytestmark = pytest.mark.slow  # reads two committed runs whole (about 40 s)

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"
THREADS = RAW / "20261126T035624Z-threads"
TWO_CPU = RAW / "20261123T110214Z-pilot-claims"


@pytest.fixture(scope="module")
def two_cpu():
    return load_run(TWO_CPU)


@pytest.fixture(scope="module")
def threads():
    return load_run(THREADS)


def test_the_many_cpu_run_is_beside_a_two_cpu_run_and_not_the_reverse(two_cpu, threads):
    assert [m.run.run_id for m in M.beside(two_cpu)] == [threads.run_id]
    assert M.label(threads) == "16-CPU Intel(R) Xeon(R) Processor"
    assert M.beside(threads) == []  # no committed run has more than 16 CPUs


def test_a_thread_count_claim_not_testable_here_says_where_it_was_decided(two_cpu, threads):
    ref = C.compact_table(C.evaluate(two_cpu))
    table, cols = M.with_machines(ref, [(M.label(threads), C.evaluate(threads))])
    assert cols == ["16-CPU Intel(R) Xeon(R) Processor [CI]"]
    c11 = table[table["claim"] == "C11"].iloc[0]
    assert c11["state"] == C.NOT_TESTABLE
    assert c11["verdict"].endswith("decided on the 16-CPU Intel(R) Xeon(R) Processor")
    # both placements, each with its CI, in the machine's column
    cell = c11[cols[0]]
    assert "same-core: refuted" in cell and "cross-core: refuted" in cell and "[" in cell


def test_a_claim_the_machine_did_not_run_gets_no_verdict_there(two_cpu, threads):
    ref = C.compact_table(C.evaluate(two_cpu))
    table, cols = M.with_machines(ref, [(M.label(threads), C.evaluate(threads))])
    c13 = table[table["claim"] == "C13"]
    assert (c13[cols[0]] == "—").all()
    assert not c13["verdict"].str.contains("decided on").any()


def test_every_thread_of_a_side_had_a_cpu_of_its_own_on_that_machine(threads):
    t = threads.trials
    eight = t[(t["threads"] == 8) & (t["kind"] == "copybench")]
    assert len(eight) and (eight["n_cpus_sender"] == 8).all() and (eight["n_cpus_sink"] == 8).all()


def test_a_thread_count_ratio_is_labelled_by_its_own_thread_counts() -> None:
    """C11's verdict names both thread-count outcomes (8/2 and 8/4) and shows one ratio: the
    table labels that ratio by its thread counts and keeps the outcomes whole (it once cut the
    verdict at "8/2:" and showed the 8/4 ratio under it)."""
    import math

    from analysis import claims as C
    r = C.ClaimResult("C11", "S3", "statement", "qualitative", verdict=C.REFUTED, value=1.84,
                      lo=1.63, hi=2.08)
    r.rule_id, r.placement, r.size = "C11:", "same-core", 16384
    r.direction = "8 threads are decided not slower than 2 and 4 (8/2: greater, 8/4: greater)"
    r.details = [{"ratio": 3.36, "lo": 3.03, "hi": 3.77, "size": 16384, "pair": "8/2 threads"},
                 {"ratio": 1.84, "lo": 1.63, "hi": 2.08, "size": 16384, "pair": "8/4 threads"}]
    row = C.compact_table([r]).iloc[0]
    assert row["copybench here [CI]"].startswith("8/4 threads 1.84 [1.63, 2.08]")
    assert row["verdict"].endswith("(8/2: greater, 8/4: greater))"), row["verdict"]
    assert math.isfinite(r.value)

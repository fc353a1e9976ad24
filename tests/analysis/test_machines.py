"""Runs from machines with more CPUs are read beside the reference run (analysis.comparison.machines):
the committed thread-count run from a 16-CPU machine decides C6 and C11, which no 2-CPU run
can test, and the verdict table says where they were decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import claims as C
from analysis.comparison import machines as M
from analysis.loading.run import load_run
from analysis.words import machines as MW

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
    assert M.label(threads) == "16-CPU Intel Xeon"
    assert M.beside(threads) == []  # no committed run has more than 16 CPUs


def test_each_other_machine_class_gets_one_run_the_reference_profile_first(two_cpu) -> None:
    """The verdict table has one column per machine class (CPU count and model) other than
    the reference's: the class's newest run of the reference's profile, else its newest run
    of a profile that tests the claims; a noise study or a run of the same class never."""
    import json
    from types import SimpleNamespace
    chosen = [(cls, d.name) for cls, d in M._chosen(two_cpu)]  # a pilot-claims run: no peer
    # the Intel class's newest run of a claims-testing profile (the pilot-claims profile has
    # none there): the claims run of 28 November, 20:50, newer than the reference run
    assert chosen == [((2, "Intel Xeon"), "20261128T205025Z-claims"),
                      ((16, "Intel Xeon"), "20261126T035624Z-threads")]
    paper = RAW / "20261126T103800Z-paper-0fec"  # only its manifest and plan are read
    ref = SimpleNamespace(path=str(paper), plan={"profile": "paper"},
                          manifest=json.loads((paper / "manifest.json").read_text()))
    chosen = [(cls, d.name) for cls, d in M._chosen(ref)]
    # the Intel class's newest paper run, though a claims run of that class is newer
    assert chosen[0] == ((2, "Intel Xeon"), "20261128T171229Z-paper-5394")
    assert all(cls != M.machine_class(ref.manifest) for cls, _ in chosen)
    # the thread-count section's machines are those of more CPUs than the reference's
    assert [M.more_cpus(two_cpu, cls) for cls, _ in chosen] == [False, True]


def test_a_thread_count_claim_not_testable_here_says_where_it_was_decided(two_cpu, threads):
    ref = C.compact_table(C.evaluate(two_cpu))
    table, cols = M.with_machines(ref, [(M.label(threads), C.evaluate(threads))])
    assert cols == ["16-CPU Intel Xeon [CI]"]
    c11 = table[table["claim"] == "C11"].iloc[0]
    assert c11["state"] == C.NOT_TESTABLE
    assert c11["verdict"].endswith("decided on the 16-CPU Intel Xeon")
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


def test_the_thread_count_section_labels_each_ratio_by_its_thread_counts(threads) -> None:
    """The replication chapter's thread-count section: every comparison the many-CPU run
    made, each ratio labelled by what it divides: C6 8/4 threads, C11 its four pairs, C8/C9
    two methods at 4 threads per size."""
    t = M.comparisons_table(C.evaluate(threads))
    assert {"C6", "C8", "C9", "C11"} <= set(t["claim"])
    c6 = t[t["claim"] == "C6"]
    assert (c6["comparison"] == "8/4 threads").all() and len(c6) == 4  # 2 readings x 2
    c11 = t[t["claim"] == "C11"]
    assert set(c11["comparison"]) == {"2/1 threads", "4/1 threads", "8/2 threads",
                                      "8/4 threads"}
    # the 8/2 ratio is not the 8/4 one (the table once printed 8/4's CI under "8/2")
    sc = c11[c11["placement"] == "same-core"].set_index("comparison")["ratio [CI]"]
    assert sc["8/2 threads"] != sc["8/4 threads"]
    c9 = t[t["claim"] == "C9"]
    assert set(c9["comparison"]) == {"zerocopy/send, 4 threads, 4 KiB",
                                     "zerocopy/send, 4 threads, 64 KiB"}
    assert c9["ratio [CI]"].str.match(r"^[\d.]+ \[[\d.]+, [\d.]+\]$").all()


def test_c9_in_the_threads_run_is_read_from_its_decided_comparisons(two_cpu, threads) -> None:
    """The threads profile runs C9 at 4 KiB and 64 KiB only. Its eight comparisons (two
    readings, two placements, two sizes) all lie as the claim says. Cross-core, its verdicts
    hold at those sizes and name them ("not run in this profile"). Same-core, copybench's
    receiver set the rate of the 64 KiB cells, so that size is not a test of the sender and
    the verdicts read receiver-bound (not testable here), the size named. All are post hoc
    (the run was made before the rules in force); the machine's column labels each ratio by
    its thread count."""
    scope = "at 4 KiB, 64 KiB only; not run at 1 KiB, 16 KiB"
    res = [r for r in C.evaluate(threads) if r.claim == "C9" and r.basis == C.COPYBENCH]
    assert len(res) == 4 and sum(len(r.details) for r in res) == 8
    assert all(d["outcome"] == "less" for r in res for d in r.details)
    by = {pl: [r for r in res if r.placement == pl] for pl in ("same-core", "cross-core")}
    assert [r.verdict for r in by["cross-core"]] == [C.HOLDS] * 2
    for r in by["cross-core"]:
        assert r.scope == scope and C.decided_where_run(r) == r.scope, r.scope
    assert [r.verdict for r in by["same-core"]] == [C.NOT_TESTABLE] * 2
    for r in by["same-core"]:
        assert r.bound_note == "receiver-bound: not a test of the sender at 64 KiB"
        assert r.condition.startswith(r.bound_note), r.condition
    assert C.post_hoc(threads)
    ref = C.compact_table(C.evaluate(two_cpu))
    name = M.label(threads)
    table, cols = M.with_machines(ref, [(name, C.evaluate(threads))], post_hoc={name})
    c9 = table[(table["claim"] == "C9") & (table["basis"] == C.COPYBENCH)]
    assert len(c9) and (c9[cols[0]] != "—").all()
    for _, row in c9.iterrows():
        cell = row[cols[0]]
        pls = ("same-core", "cross-core") if row["placement"] == "—" else (row["placement"],)
        if "cross-core" in pls:
            assert f"cross-core: {C.HOLDS} ({scope}) (post hoc)" in cell, cell
        # the column shows decided verdicts only: same-core's is left out, never "holds"
        assert "same-core" not in cell, cell
        # each ratio with its thread count
        assert cell.count(", 4 threads") == ("cross-core" in pls), cell
    t = M.comparisons_table(C.evaluate(threads), post_hoc=True)
    v9 = t.loc[t["claim"] == "C9", "verdict"]
    assert set(v9) == {f"{C.HOLDS} ({scope}) (post hoc)", f"{C.NOT_TESTABLE} (post hoc)"}, \
        set(v9)


def test_the_claims_page_points_where_c6_and_c11_were_decided(threads) -> None:
    where = M.decided_elsewhere([(M.label(threads), C.evaluate(threads))])
    assert where["C6"] == where["C11"] == "16-CPU Intel Xeon"
    assert where["C9"] == "16-CPU Intel Xeon"  # at the sizes it ran


def test_the_machine_summary_names_its_run_and_cpus(threads) -> None:
    m = M.Machine(threads, M.label(threads))
    text = MW.summary_text(m, C.evaluate(threads))
    assert threads.run_id in text and "threads profile" in text
    assert "8 threads per side on 8 CPUs of their own at least" in text
    assert "C6:" in text and "C11:" in text and "C9:" in text
    # a verdict every placement and reading share is said once
    assert "C6: refuted (all 4 verdicts)" in text, text
    # C9's verdicts differ by placement (same-core's 64 KiB cells were receiver-bound)
    assert ("cross-core (never beats) holds (at 4 KiB, 64 KiB only; not run at 1 KiB, 16 KiB)"
            in text), text
    assert "same-core (never beats) not testable here" in text, text
    assert text.endswith("post hoc."), text


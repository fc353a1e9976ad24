"""Verdicts of a run with the sequential top-up (tests/fixtures/claim_runs.py writes it with
a sequential plan.json): each comparison is read at its stopping look, the first look whose
repeated CI clears its rule's boundaries, else the last look its block reached; the result
says which look and how many rounds. A run without the top-up is read as before."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import claim_runs as R
from analysis import claims as C
from analysis.loading import run as A
from analysis.statistics import stats as S
from analysis.claims import rules as RU
from analysis.words.design_text import sequential_text
from decision import sequential as sq

DESIGN = sq.SequentialDesign(first_look=6, look_every=6, rounds_max=30)
#: C13's rule: sendfile / read-write greater than 1 + the smallest effect of interest (1.12)
C13 = RU.RULES["C13"][0]


def _c13(tmp_path: Path, log_ratios: np.ndarray, sequential: bool) -> C.ClaimResult:
    n = log_ratios.size
    base = 10.0 * np.exp(np.sin(np.arange(n)) * 0.2)
    cells = [{**R.file_send("sendfile", 100_000_000, "same-core"),
              "values": list(base * np.exp(log_ratios))},
             {**R.file_send("read-write", 100_000_000, "same-core"), "values": list(base)}]
    run = A.load_run(R.write(tmp_path / ("seq" if sequential else "fixed"), cells, ["C13"],
                             sequential=DESIGN if sequential else None))
    (r,) = [x for x in C.c13(run) if x.placement == "same-core"]
    return r


def _ratios(seed: int = 3) -> np.ndarray:
    """18 rounds around log(1.3) (above C13's boundary 1.12) with a wild first look: round 2
    far out, so the repeated CI after 6 rounds straddles the boundary and after 12 does
    not."""
    rng = np.random.default_rng(seed)
    x = math.log(1.3) + 0.02 * rng.standard_normal(18)
    x[1] += 0.5
    return x


def test_the_verdict_reads_the_stopping_looks_repeated_ci(tmp_path: Path) -> None:
    x = _ratios()
    looks = sq.repeated_cis(x, DESIGN.schedule(6), 1)
    assert [lk.rounds for lk in looks] == [6, 12, 18]
    lo, hi = C13.decision.boundaries()
    assert looks[0].lo < hi < looks[1].lo  # decided greater at look 2
    r = _c13(tmp_path, x, sequential=True)
    assert r.verdict == C.HOLDS, r.reason
    assert (r.rounds, r.look, r.looks) == (12, 2, 3)
    assert (r.value, r.lo, r.hi) == pytest.approx((looks[1].estimate, looks[1].lo,
                                                   looks[1].hi))
    assert r.rounds_text == "12 rounds, look 2 of 3"
    assert r.details[0]["look"] == "2 of 3 (12 rounds)"
    assert r.details[0]["CI level"] == pytest.approx(looks[1].level)
    row = C.compact_table([r]).iloc[0]
    assert row["rounds/looks"] == "12 r, look 2/3"
    assert C.verdict_table([r]).iloc[0]["rounds/looks"] == "12 rounds, look 2 of 3"


def test_the_same_rounds_without_the_top_up_read_the_fixed_t_ci(tmp_path: Path) -> None:
    x = _ratios()
    r = _c13(tmp_path, x, sequential=False)
    fixed = S.paired_ratio(np.exp(x), np.ones_like(x), 1).ratio
    assert (r.lo, r.hi) == pytest.approx((fixed.lo, fixed.hi))
    assert (r.rounds, r.look, r.looks) == (18, 0, 0) and r.rounds_text == "18 rounds"


def test_undecided_reads_the_last_look_reached(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    x = math.log(1.12) + 0.3 * rng.standard_normal(12)  # on the boundary
    r = _c13(tmp_path, x, sequential=True)
    looks = sq.repeated_cis(x, DESIGN.schedule(6), 1)
    assert r.verdict == C.INCONCLUSIVE
    assert (r.rounds, r.look, r.looks) == (12, 2, 2)
    assert (r.lo, r.hi) == pytest.approx((looks[-1].lo, looks[-1].hi))


def test_a_failed_round_is_left_out_of_its_look(tmp_path: Path) -> None:
    x = _ratios()
    base = 10.0 * np.exp(np.sin(np.arange(18)) * 0.2)
    num = list(base * np.exp(x))
    cells = [{**R.file_send("sendfile", 100_000_000, "same-core"), "values": num},
             {**R.file_send("read-write", 100_000_000, "same-core"), "values": list(base)}]
    d = R.write(tmp_path / "gap", cells, ["C13"], sequential=DESIGN)
    lines = (d / "trials.jsonl").read_text().splitlines()
    # round 8 of sendfile failed: it has no value, so look 2 reads 11 pairs of rounds 1..12
    lines = [ln.replace('"status": "ok"', '"status": "failed"')
             if '"repetition": 8,' in ln and ln == lines[7] else ln for ln in lines]
    (d / "trials.jsonl").write_text("\n".join(lines) + "\n")
    run = A.load_run(d)
    (r,) = [v for v in C.c13(run) if v.placement == "same-core"]
    keep = [i for i in range(12) if i != 7]
    want = sq.looks_by_round([i + 1 for i in keep], x[keep], DESIGN.schedule(6), 18, 1)[1]
    assert (r.look, r.rounds) == (2, 12)
    assert (r.lo, r.hi) == pytest.approx((want.lo, want.hi))
    assert r.details[0]["n"] == 11


def test_the_method_chapter_states_the_design_from_the_plan(tmp_path: Path) -> None:
    x = _ratios()
    base = np.ones(18)
    cells = [{**R.file_send("sendfile", 100_000_000, "same-core"),
              "values": list(base * np.exp(x))},
             {**R.file_send("read-write", 100_000_000, "same-core"), "values": list(base)}]
    seq = A.load_run(R.write(tmp_path / "s", cells, ["C13"], sequential=DESIGN))
    text = sequential_text(seq)
    assert sq.design_text(DESIGN.to_json()) in text
    assert "it gave 12 more rounds to 1 of them" in text
    fixed = A.load_run(R.write(tmp_path / "f", cells, ["C13"]))
    assert sequential_text(fixed).startswith("This run used the fixed design")

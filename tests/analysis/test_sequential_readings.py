"""Readings of a run with the sequential top-up that must respect its design:
P1 reads each ordering at its stopping look, and a comparison whose
pairs span blocks is never read silently with a fixed-sample CI over rounds the top-up
granted on the strength of the data."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import claim_runs as R
from analysis.loading import run as A
from analysis.statistics import stats as S
from analysis.claims import base as B
from analysis.claims.placement import placement_hypothesis
from decision import sequential as sq
from decision.band import SESOI

DESIGN = sq.SequentialDesign(first_look=6, look_every=6, rounds_max=30)


def _p1_run(tmp_path: Path) -> A.Run:
    """zerocopy/send at 4 KiB under both placements, 18 rounds: same-core clearly greater
    in the first 6 rounds (decided at look 1), then far lower; cross-core clearly less."""
    rng = np.random.default_rng(7)
    same = np.r_[math.log(1.5) + 0.01 * rng.standard_normal(6),
                 math.log(0.8) + 0.01 * rng.standard_normal(12)]
    cross = math.log(0.7) + 0.01 * rng.standard_normal(18)
    cells = []
    for pl, lr in (("same-core", same), ("cross-core", cross)):
        base = 10.0 * np.exp(np.sin(np.arange(18)) * 0.2)
        cells += [{**R.stream("zerocopy", 4096, pl), "values": list(base * np.exp(lr))},
                  {**R.stream("send", 4096, pl), "values": list(base)}]
    return A.load_run(R.write(tmp_path / "p1", cells, ["P1"], sequential=DESIGN))


def test_p1_reads_each_ordering_at_its_stopping_look(tmp_path: Path) -> None:
    run = _p1_run(tmp_path)
    r, table = placement_hypothesis(run)
    row = table.iloc[0]
    family = int(row["family"])
    assert family == 2
    j = B.paired_rounds(run.measured, dict(placement="same-core", method="zerocopy", size=4096),
                        dict(placement="same-core", method="send", size=4096), "gbit_per_s")
    looks = sq.repeated_cis(np.log(j["a"] / j["b"]).to_numpy(), DESIGN.schedule(6), family)
    stop = sq.stopping_look(looks, (0.97, 1.03))
    assert stop.look == 1 and stop.decided
    # the ordering is the stopping look's repeated CI, not the fixed t CI over 18 rounds
    assert (row["same_core_ratio"], row["same_core_lo"], row["same_core_hi"]) == \
        pytest.approx((stop.estimate, stop.lo, stop.hi))
    assert row["same_core"] == "greater" and row["cross_core"] == "less"
    assert r.verdict == "holds", r.reason


def _two_block_pairs(tmp_path: Path) -> tuple[A.Run, pd.DataFrame]:
    """One comparison whose pairs lie in two blocks of a sequential run (the same cells
    measured for two claims' blocks), each block topped up to 18 rounds past its first look
    at 6."""
    rng = np.random.default_rng(11)
    cells = []
    for size in (4096, 16384):
        base = 10.0 * np.exp(np.sin(np.arange(18)) * 0.2)
        lr = math.log(1.1) + 0.05 * rng.standard_normal(18)
        cells += [{**R.stream("zerocopy", size, "cross-core"), "values": list(base * np.exp(lr))},
                  {**R.stream("send", size, "cross-core"), "values": list(base)}]
    run = A.load_run(R.write(tmp_path / "two", cells, ["C5"], sequential=DESIGN))
    j = B.paired_rounds(run.measured, dict(method="zerocopy"), dict(method="send"), "gbit_per_s")
    assert j.index.get_level_values(0).nunique() == 2 and len(j) == 36
    return run, j


def test_pairs_across_blocks_are_read_on_the_planned_rounds_and_say_so(tmp_path: Path) -> None:
    run, j = _two_block_pairs(tmp_path)
    rule = S.DecisionRule("direction")
    t = B.paired_test(run, j, 2, rule)
    planned = j[j.index.get_level_values(1) <= 6]
    fixed = S.paired_ratio(planned["a"], planned["b"], 2)
    assert t.n == 12 and (t.ratio.lo, t.ratio.hi) == pytest.approx((fixed.ratio.lo,
                                                                    fixed.ratio.hi))
    assert "planned before any top-up" in t.note and "2 blocks" in t.note
    c = B.compare_pair(run, run.measured, dict(method="zerocopy"), dict(method="send"),
                       "gbit_per_s", 2, rule)
    assert c is not None and c.primary.n == 12 and c.row()["reading"] == t.note


def test_a_fixed_design_run_reads_every_round(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    base = 10.0 * np.exp(np.sin(np.arange(18)) * 0.2)
    lr = math.log(1.1) + 0.05 * rng.standard_normal(18)
    cells = [{**R.stream("zerocopy", 4096, "cross-core"), "values": list(base * np.exp(lr))},
             {**R.stream("send", 4096, "cross-core"), "values": list(base)}]
    run = A.load_run(R.write(tmp_path / "fixed", cells, ["C5"]))
    j = B.paired_rounds(run.measured, dict(method="zerocopy"), dict(method="send"), "gbit_per_s")
    t = B.paired_test(run, j, 2, S.DecisionRule("direction"))
    assert t.n == 18 and t.note == "" and t.look == 0


# --- every inconclusive verdict states its distance ------------------------------------

def _c13_run(tmp_path: Path, center: float, sd: float, n: int = 12) -> A.Run:
    rng = np.random.default_rng(4)
    z = rng.standard_normal(n)
    lr = math.log(center) + sd * (z - z.mean()) / z.std(ddof=1)
    base = 10.0 * np.exp(np.sin(np.arange(n)) * 0.2)
    cells = [{**R.file_send("sendfile", 100_000_000, "same-core"),
              "values": list(base * np.exp(lr))},
             {**R.file_send("read-write", 100_000_000, "same-core"), "values": list(base)}]
    return A.load_run(R.write(tmp_path / f"c13-{center}", cells, ["C13"]))


#: a "~1.42" band [1.1333, 1.7708] (S4's sendfile / read-write within x/÷ 1.25)
BAND = S.DecisionRule("approx", value=1.7708 / 1.25, tolerance=1.25)


def _compared(run: A.Run) -> B.Compared:
    c = B.compare_pair(run, run.measured, dict(method="sendfile"), dict(method="read-write"),
                       "gbit_per_s", 1, BAND)
    assert c is not None and c.decision.outcome == "inconclusive"
    return c


def test_an_inconclusive_comparison_states_the_rounds_that_would_decide_it(
        tmp_path: Path) -> None:
    """The fixed design: the rounds at which its t CI clears the boundary with 80 % power
    at the measured sd (not the 50 % of the CI merely reaching the estimate's distance)."""
    # an estimate of 1.70 with sd 0.2 straddles the band's upper end 1.7708
    c = _compared(_c13_run(tmp_path, 1.70, 0.2))
    d = math.log(1.7708 / 1.70)
    n = B.rounds_to_decide(math.log(1.70), 0.2, (1.7708,), 1)
    from scipy import stats
    z = stats.norm.ppf(0.80)
    assert (stats.t.isf(0.025, n - 1) + z) * 0.2 / math.sqrt(n) <= d  # n decides ...
    assert (stats.t.isf(0.025, n - 2) + z) * 0.2 / math.sqrt(n - 1) > d  # ... n - 1 does not
    # about (1.96 + 0.84)^2 / 1.96^2 = 2x the rounds of the 50 % reading
    assert n > 1.9 * (stats.norm.isf(0.025) * 0.2 / d) ** 2
    text = c.row()["distance"]
    assert text.startswith(f"decided at about {n:.0f} rounds") and "sd 0.200" in text
    assert "fixed design" in text and "80% power" in text


def test_a_sequential_comparison_states_its_distance_with_the_designs_own_quantile(
        tmp_path: Path) -> None:
    """With the top-up: the first look of the block's own schedule whose repeated-CI
    quantile decides with 80 % power, or "beyond the design's last look"."""
    sched = DESIGN.schedule(6)  # 6, 12, ..., 30
    qs = sq.quantiles(sched, 1)
    from scipy import stats
    z = stats.norm.ppf(0.80)
    # a distance the third look (18 rounds) reaches and the second (12) does not
    d = (qs[2] + z) * 0.1 / math.sqrt(18) * 1.001
    assert (qs[1] + z) * 0.1 / math.sqrt(12) > d
    assert B.rounds_to_decide(0.0, 0.1, (math.exp(d),), 1, schedule=sched) == 18
    # the fixed design's quantile would say fewer rounds: the looks need more
    assert B.rounds_to_decide(0.0, 0.1, (math.exp(d),), 1) < 18
    # far beyond the last look (30 rounds): at the last look's quantile
    far = B.rounds_to_decide(0.0, 0.1, (1.02,), 1, schedule=sched)
    assert far > 30 and far == math.ceil(((qs[-1] + z) * 0.1 / math.log(1.02)) ** 2)
    t = S.RatioTest(S.PAIRED, S.Estimate(1.0, 0.97, 1.03, 12), math.nan, math.nan, math.nan,
                    math.nan, 1, 0.05, 0.1, 2, 2, 12)
    text = B.distance_text(t, (1.02,), math.nan, sched)
    assert text.startswith("beyond the design's last look (30 rounds): about "
                           f"{far:.0f} rounds"), text


def test_an_estimate_on_the_boundary_is_not_decidable(tmp_path: Path) -> None:
    c = _compared(_c13_run(tmp_path, 1.7708 * 1.0005, 0.2))
    assert c.row()["distance"].startswith("not decidable: the estimate sits on the boundary")


def test_p1_inconclusive_states_the_distance_of_its_farthest_ordering(tmp_path: Path) -> None:
    """P1 undecided (one ordering straddles the band's upper end, 1 + SESOI; none flips) says how far it is from a
    decision, by the same distance every inconclusive comparison states: the rounds at its
    measured sd that would decide its farthest undecided ordering."""
    rng = np.random.default_rng(5)
    n = 12
    z = rng.standard_normal(n)
    same = math.log(1.05) + 0.1 * (z - z.mean()) / z.std(ddof=1)
    cross = math.log(0.7) + 0.01 * rng.standard_normal(n)
    cells = []
    for pl, lr in (("same-core", same), ("cross-core", cross)):
        base = 10.0 * np.exp(np.sin(np.arange(n)) * 0.2)
        cells += [{**R.stream("zerocopy", 4096, pl), "values": list(base * np.exp(lr))},
                  {**R.stream("send", 4096, pl), "values": list(base)}]
    run = A.load_run(R.write(tmp_path / "p1-open", cells, ["P1"]))
    r, table = placement_hypothesis(run)
    assert r.verdict == "inconclusive", r.reason
    row = table.iloc[0]
    assert row["same_core"] == "inconclusive" and row["cross_core"] == "less"
    need = B.rounds_to_decide(math.log(1.05), 0.1, (1 + SESOI,), int(row["family"]))
    assert math.isfinite(need) and need > n
    assert r.boundary.startswith("1 of 1 cells have an undecided ordering; none flips")
    assert (f"zerocopy/send at 4 KiB, 1 thread(s), same-core: decided at about {need:.0f} "
            "rounds") in r.boundary, r.boundary
    assert "sd 0.100 per round" in r.boundary


def test_a_comparison_undecided_at_the_look_that_decides_it_says_it_got_there() -> None:
    """The distance of an undecided comparison is the look that decides it with 80 % power at
    its sd; where its block already reached that look, the text says so, never that the look
    would decide it."""
    sched = DESIGN.schedule(6)  # 6, 12, ..., 30
    need = B.rounds_to_decide(math.log(1.05), 0.08, (1.12,), 1, schedule=sched)
    assert 6 < need <= 30, need
    texts = []
    for reached in (int(need) - 6, 30):
        t = S.RatioTest(S.PAIRED, S.Estimate(1.05, 0.97, 1.13, reached), math.nan, math.nan,
                        math.nan, math.nan, 1, 0.05, 0.08, 1, 5, reached)
        texts.append(B.distance_text(t, (1.12,), 60.0, sched))
    assert texts[0].startswith(f"decided at look {int(need) // 6} of the design"), texts[0]
    assert texts[1].startswith(f"it reached look {int(need) // 6} of the design"), texts[1]
    assert "stayed undecided" in texts[1] and "would" not in texts[1]
    assert " min on this machine" in texts[0]  # 60 s a round: minutes, never "0.1 h"

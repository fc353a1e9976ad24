"""The noise section's "what the noise means for the verdicts" (analysis.words.noise_verdicts):
the rounds it states are the band's own computation (the reference design's looks and their
quantiles at the band's family), the old "rounds for a 95 % interval of ±12 %" sentence is
gone, the A/A control's chance is the planner's function, and the note that the noise study's
first rounds overlapped other activity says what data/raw/README.md says."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.claims import sesoi as CS
from analysis.loading import runnotes as RN
from analysis.statistics import noise_sources as N
from analysis.words import noise_verdicts as NV
from decision import interval as I
from decision import sequential as sq
from decision import sesoi as DS
from decision.band import CONFIDENCE, SESOI

ROOT = Path(__file__).resolve().parents[2]


def _by_hand(sd: float) -> float:
    """The rounds for P(CI inside the band | ratio 1) >= POWER, looking n by n: the reference
    design's looks at their quantiles (family of the band), then past the last look at its
    quantile."""
    des = CS.reference_design()
    sched = des.schedule(des.first_look or des.rounds_max)
    qs = sq.quantiles(sched, CS.FAMILY, des.alpha, des.spending)
    for n, q in zip(sched.looks, qs):
        if DS.equivalence_power(SESOI, sd, q, n) >= DS.POWER:
            return float(n)
    n = sched.looks[-1] + 1
    while DS.equivalence_power(SESOI, sd, qs[-1], n) < DS.POWER:
        n += 1
    return float(n)


@pytest.mark.parametrize("sd", [0.06, CS.NOISE_STUDY[1], CS.sigma(), 0.2048])
def test_the_stated_rounds_are_the_bands_computation(sd: float) -> None:
    n = NV.band_needs(sd)
    assert n.equivalent == _by_hand(sd)
    assert n.family == CS.FAMILY and n.quantiles[-1] == pytest.approx(CS.derive().quantile)
    assert NV.rounds_text(n).startswith(f"{n.equivalent:,.0f} rounds")
    # the direction's rounds are the claims' distance (decision.interval.rounds_to_decide)
    for x, r in zip(n.beyond, n.direction):
        assert r == I.rounds_to_decide(math.log1p(x), sd, DS.POWER, looks=n.looks,
                                       quantiles=n.quantiles)
    assert list(n.direction) == sorted(n.direction)  # nearer the edge, more rounds


def test_the_old_rounds_sentence_is_replaced() -> None:
    """main glued N.rounds_to_decide(paired): a 95 % t interval's half-width reaching ±12 %
    (8 rounds at the study's sd), neither the family's level nor a chance to decide."""
    src = (ROOT / "notebooks" / "noise.py").read_text()
    assert "N.rounds_to_decide(paired)" not in src
    assert 'glue_text("noise_rounds", NV.rounds_text(needs))' in src
    assert 'glue_text("noise_verdicts", NV.verdicts_text(' in src
    sd = CS.NOISE_STUDY[1]
    old = N.rounds_to_decide(sd)
    new = NV.band_needs(sd).equivalent
    assert new > old
    assert not NV.rounds_text(NV.band_needs(sd)).startswith(f"{old} rounds")


def test_the_aa_chance_is_the_planners() -> None:
    plan = {"blocks": {"b": {"rounds": 30, "sd": 0.2048}},
            "cells": {"x": {"block": "b", "twin": 0}, "y": {"block": "b", "twin": 1,
                                                            "rounds_cap": 10}}}
    sd = CS.NOISE_STUDY[1]
    a = NV.aa_plan(plan, sd)
    assert a.planned == 10
    assert a.at_planned == DS.control_rounds(sd, SESOI, 10, least=10)
    assert a.at_planned.chance == pytest.approx(
        DS.equivalence_power(SESOI, sd, I.t_quantile(CONFIDENCE, 10), 10))
    assert a.wanted == DS.control_rounds(sd, SESOI, 1000).wanted
    assert a.at_plan_sd == pytest.approx(DS.control_rounds(0.2048, SESOI, 10, least=10).chance)
    assert NV.aa_plan({}, sd) is None and NV.aa_plan(plan, math.nan) is None


def test_the_reference_plans_aa_rounds() -> None:
    import json
    d = ROOT / "data" / "raw" / "20261127T121419Z-paper-ebfc" / "plan.json"
    if not d.is_file():
        pytest.skip("the reference run is not here")
    plan = json.loads(d.read_text())
    caps = {c["rounds_cap"] for c in plan["cells"].values() if c.get("twin", 0) > 0}
    assert NV.aa_planned(plan) == max(caps)


def test_undecided_splits_by_why() -> None:
    t = pd.DataFrame({
        "decision": ["less", "inconclusive", "inconclusive", "inconclusive", "inconclusive"],
        "direction": ["slower", "undecided", "slower", "undecided", "undecided"],
        "rounds": [10, 6, 10, 10, 30], "sd_log": [0.1, 0.2, 0.1, 0.1, 0.3],
        "rounds_max": [30, math.nan, 30, 30, 30],
        "rounds_needed": [math.nan, 50, 20, 400, 25]})
    u = NV.undecided(t)
    assert (u.total, u.n, u.no_direction, u.size_open) == (5, 4, 3, 1)
    assert (u.fixed, u.fixed_rounds, u.topped, u.beyond, u.short, u.reached) == (1, 6, 3, 1, 1, 1)
    assert u.needed == 37.5 and u.needed_max == 400
    assert NV.undecided(pd.DataFrame()).n == 0
    assert "no map comparison" in NV.verdicts_text(NV.band_needs(0.1), None, NV.undecided(
        pd.DataFrame()))


def test_the_band_sd_names_its_run_and_cpu_class() -> None:
    b = NV.band_sigma(ROOT / "data" / "raw" / "x")
    assert b.sigma == pytest.approx(CS.sigma())
    assert b.from_aa == (CS.aa_sigma(*CS.AA_CONTROL) > CS.NOISE_STUDY[1])
    text = NV.band_sigma_text(b, "2-CPU AMD EPYC")
    assert CS.AA_RUN in text and CS.NOISE_STUDY[0] in text
    if b.aa_cpu != "2-CPU AMD EPYC" and b.from_aa:
        assert "another CPU class than this run's (2-CPU AMD EPYC)" in text


def test_the_overlap_note_says_what_the_raw_readme_says() -> None:
    run = CS.NOISE_STUDY[0]
    o = RN.overlap(run)
    assert o is not None
    row = next(ln for ln in (ROOT / "data" / "raw" / "README.md").read_text().splitlines()
               if f"`{run}`" in ln)
    m = re.search(r"its first (\d+) rounds \((\d+) min\) overlapped with (.+?), which", row)
    assert m, row
    assert (o.first, o.last, o.minutes) == (1, int(m[1]), float(m[2]))
    assert o.what == m[3]
    assert RN.overlap("no-such-run") is None


def test_the_band_runs_machines_come_from_the_catalog_wherever_the_book_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A book built from a run outside the repository, from another working directory, still
    names the noise study's machine (the repository's data/raw, not the working directory's)."""
    monkeypatch.chdir(tmp_path)
    b = NV.band_sigma(tmp_path / "elsewhere" / "run")
    assert b.study_cpu == "2-CPU AMD EPYC"  # the noise study ran on an AMD EPYC
    assert b.aa_cpu in ("2-CPU AMD EPYC", "2-CPU Intel Xeon")

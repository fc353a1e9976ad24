"""The shared-time criteria simulated before the validation run (analysis/designsim/
sharedtime.py; the table: studies/shared_time_criteria.py): on the validation profile's own
plan, at today's noise and shared time's predicted sd, each criterion and all of them
together hold with at least 80 % when the two designs measure the same ratio; the declared
margin and tolerances are what the declared derivation gives; and the simulation reads its
CIs exactly as the criteria's readers do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.designsim import sharedtime as ST
from analysis.loading import criteria as CL
from analysis.loading import run as A
from analysis.statistics import adoption as AD
from decision.simulation import noise_sd

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
TARGET = 0.80


@pytest.fixture(scope="module")
def crit() -> AD.Criteria:
    return CL.read()


@pytest.fixture(scope="module")
def blocks(crit: AD.Criteria) -> list[ST.Block]:
    r = subprocess.run([sys.executable, "-m", "runner", "plan", "--profile", crit.profile,
                        "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return ST.blocks_of_plan(json.loads(r.stdout), crit)


@pytest.fixture(scope="module")
def pool(crit: AD.Criteria) -> ST.Pool:
    run = A.load_run(ROOT / "data" / "raw" / crit.derivation.reference_run)
    return ST.mechanism_pool(run.measured, crit)


@pytest.fixture(scope="module")
def null(crit: AD.Criteria) -> ST.Noise:
    return ST.Noise({p: noise_sd("stream", p, 1.0) for p in crit.placements},
                    crit.derivation.sd_shared)


def test_the_profiles_plan_is_what_the_criteria_declare(crit: AD.Criteria,
                                                        blocks: list[ST.Block]) -> None:
    assert ST.structure_problems(blocks, crit) == []
    assert len(blocks) == 8 and {b.rounds for b in blocks} == {30}
    # the check can fail: a plan without one block, or with other rounds, is named
    assert ST.structure_problems(blocks[1:], crit)
    other = [ST.Block(b.size, b.placement, 20, b.today, b.shared) for b in blocks]
    assert any("20 rounds, declared 30" in p for p in ST.structure_problems(other, crit))


def test_each_criterion_and_all_together_hold_under_the_null(
        crit: AD.Criteria, blocks: list[ST.Block], pool: ST.Pool, null: ST.Noise) -> None:
    p = ST.simulate(crit, blocks, null, pool, crit.derivation.runs,
                    crit.derivation.seed + 1).table()
    low = {k: v for k, v in p.items() if v < TARGET}
    assert not low, p


def test_the_declared_numbers_are_the_derivations(crit: AD.Criteria, blocks: list[ST.Block],
                                                  pool: ST.Pool, null: ST.Noise) -> None:
    d = crit.derivation
    sims = ST.simulate(crit, blocks, null, pool, d.runs, d.seed)
    margin, tol = ST.derive(sims, d.pass_each)
    assert (margin, tol) == (crit.margin, crit.tolerances)
    # derived at 80 % each (the literal rule), the criteria together would hold too rarely:
    # the reason pass_each is higher (studies/shared_time_criteria.py --derive)
    m80, t80 = ST.derive(sims, TARGET)
    joint = ST.simulate(ST.with_numbers(crit, m80, t80), blocks, null, pool, d.runs,
                        d.seed + 100).table()["all"]
    assert joint < TARGET


def test_the_simulation_reads_as_the_criteria_read(crit: AD.Criteria, blocks: list[ST.Block],
                                                   pool: ST.Pool, null: ST.Noise) -> None:
    """A derived criterion holds at a number exactly when the run needed no more, and a
    departure from the null is caught: shared time's ratios off by the margin hold (b) at
    most at its test's alpha (+ 3 Monte Carlo se)."""
    sims = ST.simulate(crit, blocks, null, pool, 300, 7)
    assert np.array_equal(sims.b, sims.need_b <= crit.margin)
    for q, t in crit.tolerances.items():
        assert np.array_equal(sims.e[q], sims.need_e[q] <= t), q
    off = ST.simulate(crit, blocks, ST.Noise(null.sd_today, null.sd_shared,
                                             bias=1 + crit.margin), pool, 1000, 8)
    assert off.b.mean() <= crit.alpha + 3 * (crit.alpha * (1 - crit.alpha) / 1000) ** 0.5
    with pytest.raises(ValueError, match="tails"):
        ST.Noise(null.sd_today, 0.13, tails="cauchy")


def test_the_script_prints_its_table_quickly() -> None:
    r = subprocess.run([sys.executable, "studies/shared_time_criteria.py", "--quick"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "same ratio, shared sd 0.13" in r.stdout and "t(4) tails" in r.stdout
    bad = subprocess.run([sys.executable, "studies/shared_time_criteria.py", "--criteria",
                          "/nonexistent.toml"], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert bad.returncode == 2 and "cannot read the criteria file" in bad.stderr
    assert bad.stderr.count("\n") == 1

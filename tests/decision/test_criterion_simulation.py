"""The reproduction criterion by simulation (decision.simulation.simulate_criterion): reruns
of one truth pass it with probability >= 95 %, reruns whose sets truly differ pass less
often the more differ, and the criterion in force is the one ``make criterion`` wrote."""

from __future__ import annotations

import json

import pytest

from analysis.comparison import reproduce as RP
from analysis.loading.run import instant
from decision import rule as R
from decision import simulation as SIM

G = R.Expect(R.GREATER)
L = R.Expect(R.LESS)


def _models() -> list[SIM.SetModel]:
    out = []
    for i in range(12):
        out.append(SIM.SetModel(f"far {i}", (1.6, 1.8), (G, G), 0.15, 2))
        out.append(SIM.SetModel(f"near {i}", (0.8,), (L,), 0.2, 1))
    return out


def test_a_rerun_of_the_same_truth_passes_with_the_target_probability() -> None:
    c = SIM.simulate_criterion(_models(), runs=1500, seed=3)
    assert c.pass_same_truth >= 0.95 and c.pass_ci[0] <= c.pass_same_truth <= c.pass_ci[1]
    assert 0 < c.min_share <= 1 and c.sets == 24
    passes = [p for _, p in c.pass_when_differ]
    assert [k for k, _ in c.pass_when_differ] == [1, 2, 3, 4, 5]
    assert passes[-1] < passes[0] < c.pass_same_truth


def test_the_judged_sets_are_a_parameter() -> None:
    c = SIM.simulate_criterion(_models(), runs=500, seed=3, judged=["far 0", "far 1"])
    assert c.sets == 2 and c.judged == ("far 0", "far 1")
    with pytest.raises(ValueError, match="no comparison set"):
        SIM.simulate_criterion(_models(), runs=100, judged=["none such"])


def test_a_verdict_is_drawn_as_the_design_reads_it() -> None:
    import numpy as np
    rng = np.random.default_rng(0)
    far = SIM.draw_verdicts(rng, 400, SIM.SetModel("x", (2.0,), (G,), 0.1, 1))
    wrong = SIM.draw_verdicts(rng, 400, SIM.SetModel("x", (0.5,), (G,), 0.1, 1))
    assert (far == SIM.SIM_HOLDS).mean() > 0.99 and (wrong == SIM.SIM_REFUTED).mean() > 0.99


def test_the_criterion_in_force_is_the_one_make_criterion_wrote() -> None:
    top = json.loads(RP.CRITERION_FILE.read_text(encoding="utf-8"))
    doc = top[RP.SAME_CLASS]
    assert round(100 * doc["min_share"]) == RP.IN_FORCE.min_share
    assert doc["reversals"] == RP.IN_FORCE.reversals
    assert doc["pass_same_truth"] >= doc["target"] == 0.95
    assert top["reference"] == RP.SIM_REFERENCE
    assert instant(doc["made"]) <= instant(RP.IN_FORCE.declared)
    assert any(r.when == RP.IN_FORCE.declared for r in RP.REVISIONS)

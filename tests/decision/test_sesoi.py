"""The smallest effect of interest is derived from the noise and the design the reference
profile runs (its last look's repeated-CI quantile at the family's level), with a stated power,
by one function that the planner and the book both call."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from decision import sequential as sq
from decision import sesoi as Z
from decision.band import SESOI

ROOT = Path(__file__).resolve().parents[2]


def _simulated(t: float, sigma: float, q: float, n: int, ratio: float = 1.0,
               draws: int = 40_000) -> tuple[float, float]:
    """(P(CI inside the band), P(CI above 1 + t)) over simulated normal log ratios."""
    rng = np.random.default_rng(7)
    x = rng.normal(math.log(ratio), sigma, size=(draws, n))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    h = q * s / math.sqrt(n)
    inside = (m + h <= math.log1p(t)) & (m - h >= math.log1p(-t))
    return float(inside.mean()), float((m - h > math.log1p(t)).mean())


def test_the_powers_are_those_of_simulated_rounds() -> None:
    design = sq.SequentialDesign()  # 10, 20, 30 rounds, Pocock
    q, n = Z.last_quantile(design, 4)
    assert n == 30 and q == sq.quantiles(design.schedule(10), 4)[-1]
    eq, _ = _simulated(0.12, 0.143, q, n)
    assert Z.equivalence_power(0.12, 0.143, q, n) == pytest.approx(eq, abs=0.01)
    _, up = _simulated(0.12, 0.143, q, n, ratio=1.3)
    assert Z.direction_power(1.3, 0.12, 0.143, q, n) == pytest.approx(up, abs=0.01)


def test_the_band_is_the_smallest_whole_percent_with_80_percent_power() -> None:
    design = sq.SequentialDesign()
    d = Z.derive(0.143, design, 4)
    assert d.quantile == Z.last_quantile(design, 4)[0] and d.rounds == 30
    assert Z.equivalence_power(d.band, 0.143, d.quantile, 30) == pytest.approx(0.80, abs=1e-4)
    assert d.power_equivalent >= 0.80 > Z.equivalence_power(d.sesoi - 0.01, 0.143,
                                                             d.quantile, 30)
    assert d.sesoi == math.ceil(d.band * 100) / 100
    assert Z.direction_power(d.detectable, d.sesoi, 0.143, d.quantile, 30) == \
        pytest.approx(0.80, abs=1e-4)
    # more noise or a larger family needs a wider band; the fixed design's 30-round t quantile
    # at the family's level (today's derivation) is narrower than the looks' last quantile
    assert Z.derive(0.18, design, 4).sesoi > d.sesoi > Z.derive(0.143, design, 1).sesoi
    from scipy import stats
    assert d.quantile > stats.t.isf(0.05 / 8, 29)
    assert f"±{d.sesoi:.0%}" in d.text() and "80%" in d.text()


def test_the_declared_band_is_the_derivation_for_the_reference_design() -> None:
    """SESOI is what the derivation gives on its committed inputs (the noise study's
    and the A/A control's sd, the reference profile's design, a family of 4)."""
    from analysis.claims import sesoi as S

    d = S.derive()
    assert d.sigma == max(S.NOISE_STUDY[1], S.aa_sigma(*S.AA_CONTROL))
    ref = S.reference_design()
    assert (ref.first_look, ref.look_every, ref.rounds_max, ref.spending) == (10, 10, 30,
                                                                              "pocock")
    assert d.quantile == sq.quantiles(ref.schedule(10), 4, 0.05, "pocock")[-1]
    assert SESOI == d.sesoi
    assert f"1 ± {SESOI:.0%}" in S.text() and S.NOISE_STUDY[0] in S.text()


def test_the_noise_studys_sd_is_recomputed_from_its_committed_run() -> None:
    from analysis.statistics import noise_sources as N
    from analysis.loading import run as A
    from analysis.claims import sesoi as S

    run_id, sd, k = S.NOISE_STUDY
    path = ROOT / "data" / "raw" / run_id
    if not path.is_dir():
        pytest.skip(f"{run_id} is not in this checkout")
    pairs = N.comparisons(A.load_run(path).measured)
    pairs = pairs[(pairs["procedure"] == N.TODAY)
                  & ~pairs["pair"].str.contains("twin", regex=False)]  # as the noise chapter
    assert len(pairs) == k
    assert float(pairs["paired_sd"].median()) == pytest.approx(sd, abs=5e-4)


def test_the_planner_states_the_band_its_design_resolves() -> None:
    """The plan records the derivation at the noise model's sd and warns where the declared
    band is narrower than what its design resolves."""
    from runner.plan import rounds as RR

    class B:  # the two fields of a block the check reads
        def __init__(self, sd: float, first_look: int) -> None:
            self.sd, self.first_look = sd, first_look

    design = sq.SequentialDesign()
    doc, note = RR.band_check([B(0.10, 10), B(0.30, 10), B(0.20, 10), B(0.9, 0)], design)
    assert doc["sigma"] == 0.20 and doc["declared"] == SESOI
    assert doc["sesoi"] == Z.derive(0.20, design, Z.FAMILY).sesoi
    assert note.startswith("warning: the claims' band") == (SESOI < doc["sesoi"])
    _, quiet = RR.band_check([B(0.02, 10)], design)
    assert quiet == ""
    # a design with too few rounds resolves no band: said, not a crash
    tiny = sq.SequentialDesign(first_look=2, look_every=2, rounds_max=4)
    doc, note = RR.band_check([B(0.3, 2)], tiny)
    assert doc["sesoi"] is None and "no band below ±100%" in note

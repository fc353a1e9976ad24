"""The smallest effect of interest of a claim's *direction* ("X beats Y"), derived from what
this testbed resolves, not chosen: a ratio within 1 ± SESOI is no difference here.

Derivation (fixed before the next reference run; the inputs are committed):

* sigma: the per-round sd of the log ratio of two cells measured back to back, the larger of
  (a) the A/A control of the reference run ``20261124T133652Z-paper-e8c3`` (``send`` against
  itself, 30 rounds: ratio CI [0.94955, 1.053503] at 95 %, so sigma = half the CI's log width
  x sqrt(30) / t(0.975, 29)) and (b) the median over the stream cells of the pooled noise
  model (``runner/profiles/noise.toml``, ``log_ratio_sd``);
* the CI half-width a block reaches at the most rounds the reference profile plans for it
  (N = ``rounds_max`` of ``runner/profiles/paper.toml``, 30; the sequential top-up may add
  rounds later, but a rule must be decidable at the planned rounds) at the Bonferroni level
  of the largest family a direction verdict combines (4 sizes): t(1 - 0.05/(2 x 4), N - 1) x
  sigma / sqrt(N), as a ratio exp(.) - 1;
* SESOI is that half-width rounded up to a whole percent: a smaller band could not be told
  apart from "equivalent" at the planned rounds (the ±3 % band used before was below what
  the A/A control resolves).
"""

from __future__ import annotations

import math
import statistics
import tomllib
from pathlib import Path
from typing import Sequence

from scipy import stats as st

from blockstats.claimtable import SESOI

#: the A/A control of the reference run e8c3: (CI low, CI high, rounds), 95 %
AA_CONTROL = (0.94955, 1.053503, 30)
PROFILES = Path(__file__).resolve().parents[2] / "runner" / "profiles"
NOISE = PROFILES / "noise.toml"
#: the reference profile, whose planned rounds (``rounds_max``) the derivation uses
REFERENCE_PROFILE = PROFILES / "paper.toml"
#: the largest family a direction verdict combines (4 sizes)
FAMILY = 4


def planned_rounds(path: Path = REFERENCE_PROFILE) -> int:
    """The most rounds the reference profile plans for a block (before any top-up)."""
    return int(tomllib.loads(path.read_text())["design"]["rounds_max"])


ROUNDS = planned_rounds()
# SESOI, the smallest effect of interest (the result of :func:`derive` on the inputs above),
# is declared once in the claims' rule table (blockstats.claimtable), which the runner's
# profiles read too; imported above


def aa_sigma(lo: float, hi: float, rounds: int) -> float:
    """The per-round log-ratio sd behind a paired 95 % t CI [lo, hi] over ``rounds``."""
    return (math.log(hi) - math.log(lo)) / 2 * math.sqrt(rounds) / st.t.ppf(0.975, rounds - 1)


def noise_sigma(path: Path = NOISE) -> float:
    """The median log-ratio sd of the noise model's stream cells."""
    sds = [float(x["log_ratio_sd"]) for x in tomllib.loads(path.read_text())["sd"]
           if x.get("kind") == "stream"]
    return statistics.median(sds)


def derive(aa: Sequence[float] = AA_CONTROL, noise: float | None = None,
           rounds: int = ROUNDS, family: int = FAMILY) -> tuple[float, float, float]:
    """(sigma, half-width, SESOI): the derivation of the module doc."""
    sigma = max(aa_sigma(*aa), noise_sigma() if noise is None else noise)
    q = st.t.ppf(1 - 0.05 / (2 * family), rounds - 1)
    half = math.exp(q * sigma / math.sqrt(rounds)) - 1
    return sigma, half, math.ceil(half * 100 - 1e-9) / 100


def text() -> str:
    """The derivation in one sentence (the book prints it beside the direction rule)."""
    sigma, half, _ = derive()
    lo, hi, n = AA_CONTROL
    return (f"a ratio within 1 ± {SESOI:.0%} is no difference: the smallest effect this "
            f"testbed resolves, i.e. the CI half-width ({half:.1%}) at the rounds the "
            f"reference profile plans for a block ({ROUNDS}, before any top-up) and the "
            f"level of a family of {FAMILY}, for a per-round sd of the log ratio of "
            f"{sigma:.3f} (the larger of the reference run's A/A control, [{lo:.3f}, "
            f"{hi:.3f}] over {n} rounds, and the noise model's median over its stream "
            "cells), rounded up to a whole percent")

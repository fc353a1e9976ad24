#!/usr/bin/env python3
"""Leave-one-run-out check of the noise model the block design plans with.

For each given block-design run: the CI half-widths its paired claim comparisons got, against
the half-widths a noise model predicts at the same rounds and family, from (a) the first run
given alone (the pilot, as the stop-9 plans used it) and (b) all the other runs pooled
(``python -m runner noise`` of them). Prints one line per run and model.

    .venv/bin/python studies/check_noise_model.py data/raw/<pilot> data/raw/<run> ...
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import fail, load  # noqa: E402
from analysis.claims.engine import apply_rule
from analysis.claims.rules import RULES
from analysis.loading.run import Run
from runner.plan import blocks as BK
from runner.plan import noisemodel as NM


PROG = "check_noise_model"


def model(runs: list[Path]) -> BK.Noise:
    rows = NM.from_runs(runs)
    return BK.Noise([BK.NoiseEntry(r.kind, r.placement, r.window_s, r.log_ratio_sd)
                    for r in rows if r.metric == "primary" and r.log_ratio_sd is not None],
                   " + ".join(r.name for r in runs))


def realized(run: Run) -> list[tuple[str, str, float, int, int, float]]:
    """(kind, placement, window, rounds, family, relative half-width) of each paired claim
    comparison of the run."""
    out = []
    for rules in RULES.values():
        for rule in rules:
            kind = rule.mode if rule.mode in ("stream", "pingpong") else "file"
            for pl in rule.placements:
                for d in apply_rule(run, rule, ("", "", ""), pl).details:
                    if d.get("design") != "paired" or not math.isfinite(d["lo"]):
                        continue
                    win = 1.0 if kind != "file" else 2.0  # the claims' and paper's windows
                    family = round(0.05 / (1 - d["CI level"]))
                    out.append((kind, pl or "", win, int(d["n"]), family,
                                (d["hi"] - d["lo"]) / 2 / d["ratio"]))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                   help="block-design run directories; the first is the pilot")
    a = p.parse_args()
    if len(a.runs) < 2:
        fail(PROG, f"{len(a.runs)} run given; give the pilot and at least one run to check "
             "against it (each run is checked against the noise model of the others)")
    # every run read (and refused if damaged or empty) before anything is printed
    loaded = {r: load(PROG, r) for r in a.runs}
    for target in a.runs[1:]:
        got = realized(loaded[target])
        if not got:
            print(f"{target.name}: no paired claim comparison")
            continue
        real = np.array([h for *_, h in got])
        others = [r for r in a.runs if r != target]
        for label, m in (("the pilot alone", model(a.runs[:1])),
                         ("the other runs pooled", model(others))):
            pred = np.array([BK.half_width(m.sd(k, pl, w)[0], n, 0.95, fam)
                             for k, pl, w, n, fam, _ in got])
            print(f"{target.name}: {len(got)} paired claim comparisons; got median "
                  f"{np.median(real):.1%}, p90 {np.quantile(real, 0.9):.1%}; predicted by "
                  f"{label}: median {np.median(pred):.1%}, p90 {np.quantile(pred, 0.9):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

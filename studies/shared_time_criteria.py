#!/usr/bin/env python3
"""The shared-time validation run's criteria (runner/profiles/shared-time-criteria.toml)
simulated before the run (analysis/designsim/sharedtime.py): on the validation profile's
structure (its blocks, comparisons and rounds, from `python -m runner plan --profile
shared-time --json`), with today's per-round sds from the noise model
(runner/profiles/noise.toml: stream, 1 s window, per placement) and the mechanisms drawn from
the reference run's trials of the same cells, how often each criterion holds, and all of
them together, when the two designs measure the same ratio: at shared time's predicted sd
and the sensitivity values, with heavy tails, with today's sd at the pilot's 0.155 and with both at the
pilot's; then
how often each holds when the designs differ: shared time's ratios off by the margin of (b)
(its equivalence test's edge) and by 10 %, and each mechanism off by twice its tolerance.

--derive prints the derivation of the margin of (b) and the tolerances of (e): at each pass
probability p of a grid, the smallest whole percent at which each holds in a share p of the
runs at the predicted sd, and how often all criteria hold together with those numbers
(fresh draws); the declared p is the smallest on the grid whose joint reaches 80 %.

    PYTHONPATH=$PWD .venv/bin/python studies/shared_time_criteria.py [--quick] [--derive]
        [--runs N] [--seed N] [--criteria FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import fail, load  # noqa: E402
from analysis.designsim import sharedtime as SHT
from analysis.loading import criteria as CL
from analysis.statistics import adoption as AD
from decision.simulation import noise_sd

ROOT = Path(__file__).resolve().parents[1]
#: the pass probability every criterion, and all together, must reach under the null
TARGET = 0.80
#: the pilot's median paired per-round sds of today's design and of shared time (6 rounds,
#: veth, a shared machine; indicative only)
PILOT_TODAY, PILOT_SHARED = 0.155, 0.086
#: the pass probabilities the derivation tries, lowest first
GRID = (0.80, 0.90, 0.95, 0.97, 0.98, 0.99, 0.995)
QUICK_RUNS = 400
PROG = "shared_time_criteria"


def plan_json(profile: str) -> dict[str, Any]:
    """``python -m runner plan --profile PROFILE --json``, as the runner prints it."""
    r = subprocess.run([sys.executable, "-m", "runner", "plan", "--profile", profile, "--json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:  # the runner's own one line (a profile it cannot plan)
        said = r.stderr.strip().splitlines() or [f"exit {r.returncode}"]
        fail(PROG, f"runner plan --profile {profile} failed: {said[-1]}")
    plan: dict[str, Any] = json.loads(r.stdout)
    return plan


def scenarios(crit: AD.Criteria, today: dict[str, float]) -> list[tuple[str, SHT.Noise]]:
    """The rows of the table: the null at shared time's predicted sd and the sensitivity
    values, with t(4) tails, with today's sd at the pilot's; then departures from the null."""
    d = crit.derivation
    rows = [(f"same ratio, shared sd {s:g}", SHT.Noise(today, s))
            for s in (d.sd_shared, *d.sensitivity)]
    rows += [(f"same ratio, shared sd {d.sd_shared:g}, t(4) tails",
              SHT.Noise(today, d.sd_shared, tails="t4")),
             (f"same ratio, shared sd {d.sd_shared:g}, today's {PILOT_TODAY:g} (pilot)",
              SHT.Noise({p: PILOT_TODAY for p in today}, d.sd_shared)),
             (f"same ratio, the pilot's sds (today's {PILOT_TODAY:g}, shared {PILOT_SHARED:g})",
              SHT.Noise({p: PILOT_TODAY for p in today}, PILOT_SHARED))]
    rows += [(f"shared time's ratios x{b:g}", SHT.Noise(today, d.sd_shared, bias=b))
             for b in (1 + crit.margin, 1.10)]
    rows += [(f"{q} x{1 - 2 * t:.2f} in shared time",
              SHT.Noise(today, d.sd_shared, shift={q: 1 - 2 * t}))
             for q, t in crit.tolerances.items()]
    return rows


def _pct(x: float) -> str:
    return f"{x:.1%}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--criteria", type=Path, default=CL.DEFAULT, help="the criteria file")
    ap.add_argument("--runs", type=int, default=None,
                    help="simulated runs per row (default: the file's derivation.runs)")
    ap.add_argument("--quick", action="store_true",
                    help=f"{QUICK_RUNS} runs per row, the null rows only (for a test)")
    ap.add_argument("--seed", type=int, default=None,
                    help="the seed (default: the file's derivation.seed + 1; the derivation "
                         "itself uses derivation.seed)")
    ap.add_argument("--derive", action="store_true",
                    help="print the derivation of the margin and the tolerances")
    a = ap.parse_args()
    try:
        crit = CL.read(a.criteria)
    except AD.CriteriaError as e:
        print(f"shared_time_criteria: {e}", file=sys.stderr)
        return 2
    if a.runs is not None and a.runs < 10:
        ap.error(f"--runs: at least 10 simulated runs (got {a.runs})")
    runs = QUICK_RUNS if a.quick else (a.runs or crit.derivation.runs)
    seed = crit.derivation.seed + 1 if a.seed is None else a.seed
    con = Console(width=200)
    blocks = SHT.blocks_of_plan(plan_json(crit.profile), crit)
    problems = SHT.structure_problems(blocks, crit)
    if problems:
        print("shared_time_criteria: the profile's plan is not what the criteria declare: "
              + "; ".join(problems), file=sys.stderr)
        return 1
    ref = ROOT / "data" / "raw" / crit.derivation.reference_run
    pool = SHT.mechanism_pool(load(PROG, ref).measured, crit)
    today = {p: noise_sd("stream", p, 1.0) for p in crit.placements}
    con.print(f"structure: {len(blocks)} blocks of {crit.profile} ({len(crit.comparisons())} "
              f"comparisons, {len(crit.aa())} A/As, {len(crit.connections())} connections), "
              f"{crit.rounds} rounds; today's sd "
              + ", ".join(f"{p} {s:g}" for p, s in today.items())
              + f" (noise.toml, stream, 1 s); mechanisms from {crit.derivation.reference_run}; "
              f"{runs} runs per row, seed {seed}")
    con.print(f"declared: (a) family {crit.overlap_family} at {crit.overlap_level:.6g}; (b) "
              f"margin ±{crit.margin:.0%} at {crit.tost_level:.2f}; (c) band "
              f"±{crit.aa_band:.0%} at {crit.aa_level:.2f}; (d) at most {crit.sd_at_most:g}; "
              "(e) " + ", ".join(f"{q} ±{t:.0%}" for q, t in crit.tolerances.items())
              + f" (connections at {crit.mechanism_level:.6g}, pooled at {crit.tost_level:.2f})")
    if a.derive:
        derive(con, crit, blocks, today, pool, runs)
    rows = scenarios(crit, today)[:6 if a.quick else None]
    t = Table(title="probability that each criterion holds (the null rows: it should; the "
                    "others: power against the departure)")
    cols = ["a", "b", "c", "d", *[f"e {q}" for q in AD.MECHANISMS], "e", "all"]
    for c in ("scenario", *cols):
        t.add_column(c, justify="left" if c == "scenario" else "right")
    first = None
    for i, (label, noise) in enumerate(rows):
        p = SHT.simulate(crit, blocks, noise, pool, runs, seed + i).table()
        first = first or p
        t.add_row(label, *[_pct(p[c]) for c in cols])
    con.print(t)
    assert first is not None
    low = [c for c in cols if first[c] < TARGET]
    con.print(f"at shared time's predicted sd {crit.derivation.sd_shared:g}: "
              + ("every criterion and all together hold with at least "
                 f"{TARGET:.0%}" if not low else f"below {TARGET:.0%}: {', '.join(low)}"))
    return 0


def derive(con: Console, crit: AD.Criteria, blocks: list[SHT.Block], today: dict[str, float],
           pool: SHT.Pool, runs: int) -> None:
    """The derivation table: per pass probability of the grid, the derived numbers and the
    joint probability with them (fresh draws)."""
    d = crit.derivation
    null = SHT.Noise(today, d.sd_shared)
    sims = SHT.simulate(crit, blocks, null, pool, runs, d.seed)
    t = Table(title=f"derivation at shared sd {d.sd_shared:g} ({runs} runs, seed {d.seed}; "
                    f"the joint with fresh draws, seed {d.seed + 100})")
    for c in ("p", "(b) margin", *[f"(e) {q}" for q in AD.MECHANISMS], "joint"):
        t.add_column(c, justify="right")
    chosen = None
    for p in GRID:
        margin, tol = SHT.derive(sims, p)
        joint = SHT.simulate(SHT.with_numbers(crit, margin, tol), blocks, null, pool, runs,
                            d.seed + 100).table()["all"]
        if chosen is None and joint >= TARGET:
            chosen = (p, margin, tol)
        t.add_row(f"{p:g}", f"{margin:.2f}", *[f"{tol[q]:.2f}" for q in AD.MECHANISMS],
                  _pct(joint))
    con.print(t)
    if chosen is None:
        con.print(f"no pass probability of the grid gives a joint of {TARGET:.0%}")
        return
    p, margin, tol = chosen
    same = (p == d.pass_each and margin == crit.margin and tol == crit.tolerances)
    con.print(f"the smallest p whose joint reaches {TARGET:.0%}: {p:g} (margin {margin:.2f}; "
              + ", ".join(f"{q} {v:.2f}" for q, v in tol.items()) + "): "
              + ("as declared" if same else "NOT as declared"))


if __name__ == "__main__":
    sys.exit(main())

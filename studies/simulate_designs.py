#!/usr/bin/env python3
"""The claim blocks' designs judged by the verdicts they decide: the fixed design, the design
the reference run ran (its plan.json) and the design the paper profile declares today (its
plan on the reference run's machine: its CPU count and PMU, its seed), at one budget, on the
reference run's real structure (analysis/designsim: its claim blocks, their measured
seconds per round, each comparison's measured effect and per-round sd, the verdicts the
analysis's rules build from them), with the reference run's effects and with another run's
effects on the same structure. Prints the table and writes it as CSV (--out: nothing there, or
a CSV this script wrote before, in a directory that exists; checked before anything is
simulated, and written whole or not at all).

The budget is the paper profile's today for the claim blocks: the first looks its plan gives
them (at the measured seconds per round) plus its top-up budget; every design gets the same.

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python studies/simulate_designs.py \\
        [--runs 200] [--seed 20261126] [--tails normal|t4] [--out data/derived/design_simulation.csv]
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import fail, load  # noqa: E402
from analysis.designsim import simulate as sim
from analysis.designsim import structure as st
from analysis.loading.run import Run
from runner.host.capabilities import Capabilities
from runner.plan import profile as profile_mod
from runner.plan.rounds import make
from rundir.atomic import write_output
from rundir.outpath import output_file_problem

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "raw" / "20261124T133652Z-paper-e8c3"
OTHER = ROOT / "data" / "raw" / "20261123T151436Z-paper-f0ed"
PROFILE = "paper"
PROG = "simulate_designs"
#: the first line of the CSV --out writes: a file that begins with it is this script's own
#: earlier output, which may be replaced
HEADER = ",".join(f.name for f in fields(sim.Row))


def new_plan(run: Run, profile: str = PROFILE) -> dict[str, Any]:
    """The plan the profile gives today on the run's machine (its CPUs and PMU from the
    run's manifest) with the run's seed."""
    m = run.manifest
    caps = Capabilities(methods=None, cpus=int((m.get("cpu") or {}).get("count") or 0),
                        pmu=bool((m.get("pmu") or {}).get("available")))
    return make(profile_mod.load(profile), caps, int((run.plan or {})["seed"])).to_json()


def budget_s(plan: dict[str, Any], structure: st.Structure) -> float:
    """The plan's seconds for the claim blocks: their planned rounds (first looks) at the
    measured seconds per round, plus its top-up budget."""
    blocks = plan["blocks"]
    return (sum(int(blocks[b]["rounds"]) * c for b, c in structure.cost.items())
            + float(plan["design"]["sequential"]["topup_budget_s"]))


def arms(reference: Run, structure: st.Structure) -> list[sim.Arm]:
    """The three designs at the paper profile's budget of today."""
    now = new_plan(reference)
    b = budget_s(now, structure)
    return [sim.fixed_arm(structure, b),
            sim.sequential_arm(sim.CURRENT, st.design_plan(sim.CURRENT, reference.plan or {},
                                                           structure), structure, b),
            sim.sequential_arm(sim.NEW, st.design_plan(sim.NEW, now, structure),
                               structure, b)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="simulated runs per effects (>= 2)")
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--tails", default="normal", help="normal or t4")
    ap.add_argument("--out", type=Path, default=None, help="CSV file to write the table to")
    ap.add_argument("--run", type=Path, default=REFERENCE, help="the run whose structure")
    ap.add_argument("--effects", type=Path, default=OTHER, help="another run's effects")
    a = ap.parse_args(argv)
    if a.runs < 2:
        print(f"--runs {a.runs}: must be an integer >= 2", file=sys.stderr)
        return 2
    if a.tails not in ("normal", "t4"):
        print(f"--tails {a.tails!r}: allowed are normal, t4", file=sys.stderr)
        return 2
    # the output is checked before any work: nothing there, or this script's own CSV (a
    # user's file, a read-only file, a link, a missing directory: refused, nothing written)
    problem = None if a.out is None else output_file_problem(a.out, "--out", header=HEADER)
    if problem:
        fail(PROG, f"{problem}; nothing written")
    t0 = time.time()
    # both runs read (missing, damaged or empty: one line) before anything is simulated
    ref, other = load(PROG, a.run), load(PROG, a.effects)
    for p in (a.run, a.effects):
        if not (p / "plan.json").is_file():
            fail(PROG, f"{p}: not a run directory with a plan.json")
    try:  # a run without the claim blocks' structure (the analysis says what it lacks)
        s = st.read(ref)
        eff, missing = st.effects_of(s, other)
        designs = arms(ref, s)
    except ValueError as exc:
        fail(PROG, f"{a.run} (effects {a.effects}): cannot be simulated: {exc}")
    rows: list[sim.Row] = []
    diffs: list[str] = []
    short = ref.run_id.rsplit("-", 1)[-1]
    for name, structure in ((short, s), (f"{other.run_id.rsplit('-', 1)[-1]} on {short}",
                                         s.with_effects(eff))):
        r, und = sim.simulate(designs, structure, a.runs, a.seed, name, a.tails)
        rows += r
        for i, j in ((2, 0), (2, 1), (1, 0)):
            d = und[:, i] - und[:, j]
            diffs.append(f"{name}: undecided verdicts {designs[i].name} - {designs[j].name} = "
                         f"{d.mean():+.2f} ± {d.std(ddof=1) / len(d) ** 0.5:.2f} (paired)")
    out = Console(width=160)
    out.print(f"structure: {ref.run_id}: {len(s.cost)} claim blocks, {len(s.units)} "
              f"comparisons of two cells, {len(s.verdicts)} verdicts simulated "
              f"({len(sim.readings(s))} comparison readings); not testable here: "
              f"{', '.join(s.untestable)}; not simulated: {', '.join(s.not_simulated)}",
              markup=False, highlight=False)
    out.print(f"budget for the claim blocks: {designs[0].budget_s:.0f} s (fixed: "
              f"{next(iter(designs[0].first.values()))} rounds a block; current: first looks "
              f"{sim.first_seconds(designs[1], s):.0f} s; new: first looks "
              f"{sim.first_seconds(designs[2], s):.0f} s); {a.runs} runs, {a.tails} noise, "
              f"seed {a.seed}; {other.run_id} lacks {len(missing)} comparisons (they keep "
              f"{ref.run_id}'s effects)", markup=False, highlight=False)
    t = Table(title="designs judged by verdicts (means over simulated runs, ± Monte Carlo se)")
    for col in ("effects", "design", "comparisons decided", "verdicts undecided",
                "type I on a boundary (nominal 0.05)", "worst verdict", "s spent",
                "top-up s", "top-up on untestable"):
        t.add_column(col)
    for r, arm in zip(rows, designs * 2):
        t.add_row(r.effects, r.design, f"{r.decided:.2f} ± {r.decided_se:.2f} of "
                  f"{r.comparisons}", f"{r.undecided:.2f} ± {r.undecided_se:.2f} of "
                  f"{r.verdicts}", f"{r.type1:.4f} ± {r.type1_se:.4f}", f"{r.type1_max:.3f}",
                  f"{sim.first_seconds(arm, s) + r.topup_s:.0f} of {arm.budget_s:.0f}",
                  f"{r.topup_s:.0f}", f"{r.untestable_share:.1%}")
    out.print(t)
    for line in diffs:
        out.print(line, markup=False, highlight=False)
    out.print(f"{time.time() - t0:.0f} s", markup=False, highlight=False)
    if a.out is not None:
        text = io.StringIO(newline="")
        w = csv.DictWriter(text, fieldnames=HEADER.split(","))
        w.writeheader()
        for r in rows:
            w.writerow(asdict(r))
        try:  # a temporary file beside --out, renamed over it when complete
            write_output(a.out, text.getvalue())
        except OSError as exc:
            fail(PROG, f"--out {a.out}: {exc.strerror or exc}; nothing written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

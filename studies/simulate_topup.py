#!/usr/bin/env python3
"""The simulation table of the sequential top-up design (decision.sequential) for a report.

Synthetic per-round log ratios with the noise model's sds (runner/profiles/noise.toml) and
planted true ratios, read as the claims profile's block design reads them; the harness is
decision/simulation.py (the test tests/decision/test_sequential_simulation.py asserts on
the same functions). Prints, seeded:

1. the design, and the boundaries c_j and t quantiles q_j of its schedule;
2. type I error with the truth on a boundary, family of 4 (sequential CIs and the naive
   "stop when the ordinary CI clears"), normal and heavy-tailed (t, 4 df) noise;
3. the A/A control's false-positive rate (CI excludes 1 at any look);
4. power at the C8 and C9 distances from their boundaries, with the rounds used and the
   maximum N that reaches 80 %;
5. decided comparisons, fixed design against top-up, at equal total rounds;
6. other designs (spending, maximum, look interval) on the same checks.

    .venv/bin/python studies/simulate_topup.py [--runs 2000] [--seed 20261124]
"""

from __future__ import annotations

import argparse
import sys
import time

from decision import simulation as SIM

#: the maximum N searched for 80 % power (the per-look integrals grow with the looks)
SEARCH_CAP = 150


def _rate(r: SIM.Rate) -> str:
    lo, hi = r.ci()
    return f"{r.p:.4f} [{lo:.4f}, {hi:.4f}]"


def section_design(sched: SIM.Schedule) -> None:
    d = SIM.design()
    sds = {k: SIM.noise_sd("stream", k, 1.0) for k in ("same-core", "cross-core")}
    print("## 1. The design\n")
    print(SIM.design_text() + "\n")
    print(f"claims profile [design]: rounds_min {d['rounds_min']}, rounds_max "
          f"{d['rounds_max']}, target ±{d['target']:.0%}, confidence {d['confidence']}; "
          f"noise model, streams at 1 s: sd {sds['same-core']} same-core, "
          f"{sds['cross-core']} cross-core")
    for place, sd in sds.items():
        print(f"  planned rounds n0 by runner/plan/blocks.py's formula, {place}, family 4: "
              f"{SIM.planned_rounds(sd, 4)}")
    print(f"\nlooks: {', '.join(map(str, sched.looks))}\n")
    print("| look | rounds | t = n/N | c_j (m=1) | level (m=1) | q_j (m=1) | c_j (m=4) "
          "| level (m=4) | q_j (m=4) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for j, (a, b) in enumerate(zip(SIM.look_table(sched, 1), SIM.look_table(sched, 4)), 1):
        print(f"| {j} | {a[0]} | {a[1]:.3f} | {a[2]:.4f} | {a[3]:.5f} | {a[4]:.3f} | "
              f"{b[2]:.4f} | {b[3]:.5f} | {b[4]:.3f} |")
    print()


def section_type_one(sched: SIM.Schedule, runs: int, seed: int) -> None:
    print("## 2. Type I error, true ratio on a boundary, family of 4 independent comparisons,"
          f" each stopping at its first decided look ({runs} runs)\n")
    print("| rule (truth) | reading | noise | family-wise wrong [95% CI] | per comparison "
          "| nominal family / per comparison |")
    print("|---|---|---|---|---:|---|")
    cases = [("above/below 1.03 (1.03): both decisions wrong", (1.03,), 1.03, "0.05 / 0.0125"),
             ("direction 0.97/1.03 (1.03): 'greater' wrong", SIM.DIRECTION, 1.03,
              "0.025 / 0.00625 (one side)"),
             ("~0.52 band 0.416/0.65 (0.65): 'refuted' wrong", SIM.approx(0.52), 0.65,
              "0.025 / 0.00625 (one side)")]
    for name, rule, truth, nominal in cases:
        for reading in ("sequential", "naive"):
            for tails in ("normal", "t4"):
                fam, per = SIM.null_error(seed, runs, sched, 4, reading, rule, truth,
                                        tails=tails)
                print(f"| {name} | {reading} | {tails} | {_rate(fam)} | {per.p:.4f} | "
                      f"{nominal} |")
    print()


def section_aa(sched: SIM.Schedule, runs: int, seed: int) -> None:
    sd = SIM.noise_sd("stream", "cross-core", 1.0)
    print(f"## 3. A/A control: true ratio 1, family 1, sd {sd}; CI excludes 1 at any look up "
          f"to N ({runs} runs)\n")
    print("| reading | noise | false positive [95% CI] | nominal |")
    print("|---|---|---|---|")
    for reading in ("sequential", "naive"):
        for tails in ("normal", "t4"):
            r = SIM.aa_false_positive(seed, runs, sched, reading, sd, tails=tails)
            print(f"| {reading} | {tails} | {_rate(r)} | 0.05 |")
    print()


def section_power(sched: SIM.Schedule, runs: int, seed: int) -> None:
    k, n0 = sched.looks[1] - sched.looks[0], sched.looks[0]
    print(f"## 4. Power at the C8 and C9 distances, family 4 ({runs} runs; N = "
          f"{sched.rounds_max}; 'N for 80 %' searched up to {SEARCH_CAP})\n")
    print("| comparison | truth | boundary | sd | decided at N [95% CI] | wrong | rounds mean "
          "| rounds p90 | N for 80 % | fixed n for 80 % |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for c in SIM.near_boundary():
        p = SIM.power(seed, runs, c, sched)
        need = SIM.rounds_for_power(seed, runs, c, n0, k, SEARCH_CAP)
        fixed = next((n for n in range(6, 401, 2)
                      if SIM.fixed_power(seed, runs, c, n).p >= 0.8), None)
        edge = min(c.rule, key=lambda b: abs(b - c.truth))
        print(f"| {c.name} | {c.truth} | {edge:.3g} | {c.sd} | {_rate(p.decided)} | "
              f"{p.wrong.p:.4f} | {p.rounds_mean:.1f} | {p.rounds_p90:.0f} | "
              f"{need if need else f'> {SEARCH_CAP}'} | {fixed if fixed else '> 400'} |")
    print()


def section_versus(sched: SIM.Schedule, runs: int, seed: int) -> None:
    comps = SIM.mix()
    m = len(comps)
    print(f"## 5. Fixed design against top-up at equal total rounds ({m} comparisons, "
          f"{runs} runs, the same simulated rounds for both)\n")
    print("| rounds per comparison (total) | fixed decided | top-up decided | gain [95% CI] | "
          "wrong fixed / top-up | top-up rounds used |")
    print("|---|---:|---:|---|---|---:|")
    detail = None
    for per in (12, 15, 18, 24):
        v = SIM.topup_vs_fixed(seed, runs, comps, per * m, sched)
        g, lo, hi = v.gain()
        print(f"| {per} ({per * m}) | {v.fixed.mean():.2f} | {v.topup.mean():.2f} | "
              f"{g:+.2f} [{lo:+.2f}, {hi:+.2f}] | {v.fixed_wrong.sum()} / "
              f"{v.topup_wrong.sum()} | {v.topup_rounds.sum(axis=1).mean():.0f} |")
        if per == 15:
            detail = v
    assert detail is not None
    print("\nper comparison at 15 rounds per comparison: P(decided) fixed -> top-up (mean "
          "rounds the top-up gave it)\n")
    print("| comparison | truth | sd | family | fixed | top-up | top-up rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for i, c in enumerate(comps):
        print(f"| {c.name} | {c.truth} | {c.sd} | {c.family} | "
              f"{detail.fixed_decided[:, i].mean():.2f} | "
              f"{detail.topup_decided[:, i].mean():.2f} | "
              f"{detail.topup_rounds[:, i].mean():.1f} |")
    print()


def section_alternatives(runs: int, seed: int) -> None:
    comps = SIM.mix()
    m = len(comps)
    c8 = SIM.near_boundary()[0]
    n_formula = SIM.planned_rounds(c8.sd, 4)
    print(f"## 6. Other designs ({runs} runs): worst-case type I (family 4), {c8.name} "
          f"power, and the top-up's gain over the fixed design at 15 rounds per comparison\n")
    print("| spending | n0, k, N | looks | type I | C8 power (rounds) | gain at 15 |")
    print("|---|---|---:|---|---|---|")
    for spending, n0, k, n_max in [("obrien-fleming", n_formula, 4, n_formula),
                                   ("obrien-fleming", 6, 4, 18), ("pocock", 6, 4, 18),
                                   ("obrien-fleming", 6, 6, 60), ("pocock", 6, 6, 60),
                                   ("obrien-fleming", 6, 6, 90), ("pocock", 6, 4, 90),
                                   ("pocock", 6, 6, 90), ("pocock", 6, 8, 90)]:
        sched = SIM.schedule(n0, k, n_max)
        fam, _ = SIM.null_error(seed, runs, sched, 4, "sequential", (1.03,), 1.03, spending)
        p = SIM.power(seed, runs, c8, sched, spending)
        if n0 * m > 15 * m:
            gain = f"none: the first looks alone need {n0 * m} rounds, over {15 * m}"
        else:
            g, lo, hi = SIM.topup_vs_fixed(seed, max(runs // 4, 100), comps, 15 * m, sched,
                                         spending).gain()
            gain = f"{g:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        print(f"| {spending} | {n0}, {k}, {n_max} | {len(sched.looks)} | {fam.p:.4f} | "
              f"{p.decided.p:.2f} ({p.rounds_mean:.0f}) | {gain} |")
    print(f"\n(first row: n0 = the formula's planned rounds at ±5 % for sd {c8.sd}, family 4, "
          f"and N = min(3 n0, rounds_max) = n0: one look, the fixed design at {n_formula} "
          f"rounds)\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2000, help="simulated runs per error-rate row "
                    "(power: half, fixed against top-up: a quarter); at least 100")
    ap.add_argument("--seed", type=int, default=20261124)
    args = ap.parse_args(argv)
    if args.runs < 100:
        ap.error(f"--runs must be at least 100, got {args.runs}")
    t0 = time.monotonic()
    sched = SIM.design_schedule()
    section_design(sched)
    section_type_one(sched, args.runs, args.seed)
    section_aa(sched, args.runs, args.seed)
    section_power(sched, args.runs // 2, args.seed)
    section_versus(sched, args.runs // 4, args.seed)
    section_alternatives(args.runs // 2, args.seed)
    print(f"({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

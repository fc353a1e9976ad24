"""The run-level reproduction criterion on the committed pairs of runs: a paper run (the
reference) and the claims run made after it on a machine with the same CPU model, each
judged against its own paper run by the "Results Reproduced" rule in force
(:mod:`analysis.comparison.reproduce`, as ``make compare`` applies it).

    python scripts/reproduction_criterion.py [--raw DIR] [--pair REF RUN ...] [--min-share P]

Prints one row per pair: the verdicts compared (tested in both runs), reproduced, the same
verdict not reproduced in size, not reproduced (reversed: opposite decided verdicts;
decided then left undecided), newly decided, both undecided, both not testable, the
reference's decided verdicts tested in both runs, the share of those reproduced, and the
run-level criterion's judgement (:func:`analysis.comparison.reproduce.run_judgement`). Then
the smallest share among the pairs, the number it gives (rounded down to a multiple of 5)
and the number in force (:data:`~analysis.comparison.reproduce.IN_FORCE`). With ``--simulate OUT`` it
instead writes the criterion by simulation and its power table (``make criterion``).

Every pair made before the criterion was declared
(:data:`~analysis.comparison.reproduce.IN_FORCE`) is read **post hoc**: the
criterion was written after those runs had been judged, so they are its basis, not its
test; the table says so in each row.

Without ``--pair``, the pairs are found in ``--raw`` (default ``data/raw``): for every run of
the ``claims`` profile, the newest earlier run of the ``paper`` profile whose manifest names
the same CPU model and count. Claim verdicts of sealed runs are kept between calls
(:mod:`analysis.comparison.evalcache`).

Exit codes: 0 table printed; 1 the kept verdicts cannot be read or written; 2 bad input (a
missing or non-run directory, a run that cannot be read (a damaged record or file) or holds
no measured trial, a pair of one run with itself, a share outside 1..100, no pair found),
in one line naming it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if str(Path(__file__).resolve().parent) not in sys.path:  # scripts/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import load  # noqa: E402
from analysis.comparison import evalcache as EC  # noqa: E402
from analysis.comparison import reproduce as RP  # noqa: E402
from analysis.loading import run as A  # noqa: E402

#: a run directory's trial records, plain or packed (the run format's names; a script reads
#: runs through the analysis, never through the run format's package)
TRIALS = ("trials.jsonl", "trials.jsonl.gz")

PROG = "reproduction_criterion"
POST_HOC = "post hoc (basis)"
TEST = "test"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        print(f"reproduction_criterion: {message}", file=sys.stderr)
        sys.exit(2)


def is_run(d: Path) -> bool:
    return any((d / name).is_file() for name in TRIALS)


def _profile(run: A.Run) -> str | None:
    return (run.plan or {}).get("profile")


def _cpu(run: A.Run) -> tuple[str, object]:
    cpu = run.manifest.get("cpu") or {}
    return str(cpu.get("model") or "unknown CPU"), cpu.get("count")


def find_pairs(raw: Path) -> list[tuple[Path, Path]]:
    """(paper run, claims run) for every claims run under ``raw`` with an earlier paper run of
    the same CPU model and count (the newest such), oldest claims run first."""
    runs = []
    for d in sorted(raw.iterdir()):
        if d.is_dir() and is_run(d):
            r = load(PROG, d, measured=False)  # a damaged run: one line naming it, exit 2
            if _profile(r) in ("paper", "claims") and r.created_at is not None:
                runs.append((d, r))
    runs.sort(key=lambda x: x[1].created_at)
    out = []
    for d, r in runs:
        if _profile(r) != "claims":
            continue
        before = [e for e, q in runs if _profile(q) == "paper" and _cpu(q) == _cpu(r)
                  and q.created_at < r.created_at]
        if before:
            out.append((before[-1], d))
    return out


def row(ref_dir: Path, run_dir: Path, min_share: int) -> dict[str, object]:
    """The counts of one pair, the rerun judged against its reference."""
    ref, run = load(PROG, ref_dir), load(PROG, run_dir)  # damaged or empty: one line, exit 2
    t = RP.table(EC.evaluate(ref), EC.evaluate(run))
    n = RP.counts(t)
    reproduced, compared = RP.reproduced_of(t)
    j = RP.run_judgement(t, min_share)
    gap = (run.created_at - ref.created_at).total_seconds() / 3600 \
        if run.created_at and ref.created_at else math.nan
    declared = A.instant(RP.IN_FORCE.declared)
    made_after = all(x.created_at is not None and x.created_at > declared for x in (ref, run))
    return {"reference": ref_dir.name, "rerun": run_dir.name,
            "CPU": "{} x{}".format(*_cpu(run)), "hours apart": round(gap, 1),
            "compared": compared, "reproduced": reproduced,
            "not in size": n[RP.NOT_IN_SIZE], "reversed": j.reversed,
            "decided then undecided": n[RP.NOT_REPRODUCED] - j.reversed,
            "newly decided": n[RP.NEWLY_DECIDED], "both undecided": n[RP.BOTH_UNDECIDED],
            "both not testable": n[RP.BOTH_NOT_TESTABLE],
            "ref decided (tested in both)": j.decided,
            "share reproduced": f"{j.same} of {j.decided}"
            + (f" ({100 * j.share:.1f} %)" if j.decided else ""),
            "criterion": j.status.removeprefix("study "),
            "reading": TEST if made_after else POST_HOC,
            "_share": j.share}


def rounded_down(share: float, step: int = 5) -> int:
    """A share (0..1) in percent, rounded down to a multiple of ``step``."""
    return int(math.floor(round(100 * share, 9) / step) * step)


def simulate(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--simulate OUT``: the criterion by simulation (decision.simulation.simulate_criterion)
    on the reference's decided comparison sets, written to OUT with the time it was made."""
    import json
    from datetime import datetime, timezone

    from decision import simulation as SIM
    from rundir import atomic

    if not 100 <= args.runs <= 100_000:
        p.error(f"--runs {args.runs} is outside 100..100000")
    d = Path(args.reference)
    if not d.is_dir() or not is_run(d):
        p.error(f"--reference {args.reference}: not a run directory (no "
                f"{' or '.join(TRIALS)})")
    out = Path(args.simulate)
    if not out.parent.is_dir():
        p.error(f"--simulate {args.simulate}: no such directory {out.parent}")
    models = RP.set_models(EC.evaluate(load(PROG, d)))
    names = {m.name for m in models}
    unknown = sorted(set(args.judged or ()) - names)
    if unknown:
        p.error(f"--judged {unknown[0]!r}: not a decided comparison set of the reference "
                f"(it has {len(names)}: e.g. {sorted(names)[0]!r})")
    sim = SIM.simulate_criterion(models, runs=args.runs, judged=args.judged)
    doc = {"made": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
           "reference": d.name, "design": SIM.design_text(),
           "window_s": RP.SIM_WINDOW_S, **sim.to_json(),
           "sets_drawn": [{"name": m.name, "truths": list(m.truths), "sd": m.sd,
                           "family": m.family} for m in models]}
    atomic.write_text(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{out}: a rerun of the same truth reproduces at least {sim.min_share:.0%} of the "
          f"{sim.sets} decided comparison sets, none reversed, with probability "
          f"{sim.pass_same_truth:.3f} [{sim.pass_ci[0]:.3f}, {sim.pass_ci[1]:.3f}]; passes when "
          "k sets truly differ: " + ", ".join(f"k={k}: {v:.3f}" for k, v in
                                              sim.pass_when_differ))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="python scripts/reproduction_criterion.py",
                description="The run-level reproduction criterion on the committed pairs "
                            "of a paper run and the claims run after it on the same CPU "
                            "(post hoc: the criterion was written after they were judged).")
    p.add_argument("--raw", default=str(ROOT / "data" / "raw"), metavar="DIR",
                   help="where to find the pairs (default: data/raw)")
    p.add_argument("--pair", nargs=2, action="append", metavar=("REF", "RUN"),
                   help="judge RUN against REF (run directories; repeatable); replaces "
                        "the pairs found in --raw")
    p.add_argument("--min-share", type=int, default=RP.IN_FORCE.min_share, metavar="P",
                   help=f"the criterion's share in percent, 1..100 (default "
                        f"{RP.IN_FORCE.min_share}, "
                        "the one in force)")
    p.add_argument("--simulate", metavar="OUT",
                   help="instead of the table: draw reruns of the reference's truth "
                        "(--reference) and write the simulated criterion and its power table "
                        "to OUT (JSON)")
    p.add_argument("--reference", metavar="DIR",
                   default=str(ROOT / "data" / "raw" / RP.SIM_REFERENCE),
                   help=f"the reference run --simulate draws from (default {RP.SIM_REFERENCE})")
    p.add_argument("--judged", action="append", metavar="SET",
                   help="with --simulate: judge only this comparison set (repeatable; e.g. "
                        "the verdicts the same on every class of machine measured)")
    p.add_argument("--runs", type=int, default=4000, metavar="N",
                   help="with --simulate: simulated pairs of runs (100..100000, default 4000)")
    args = p.parse_args(argv)
    if args.simulate is not None:
        return simulate(p, args)
    if not 1 <= args.min_share <= 100:
        p.error(f"--min-share {args.min_share} is outside 1..100 (percent)")
    if args.pair:
        pairs = []
        for ref, run in args.pair:
            for label, value in (("REF", ref), ("RUN", run)):
                d = Path(value)
                if not d.is_dir():
                    p.error(f"--pair {label}={value}: no such run directory")
                if not is_run(d):
                    p.error(f"--pair {label}={value}: not a run directory (no "
                            f"{' or '.join(TRIALS)})")
            if Path(ref).resolve() == Path(run).resolve():
                p.error(f"--pair {ref} {run}: a run judged against itself says nothing")
            pairs.append((Path(ref), Path(run)))
    else:
        raw = Path(args.raw)
        if not raw.is_dir():
            p.error(f"--raw {args.raw}: no such directory")
        pairs = find_pairs(raw)
        if not pairs:
            p.error(f"--raw {args.raw}: no claims run with an earlier paper run on the same "
                    "CPU; give pairs with --pair REF RUN")
    import pandas as pd

    try:
        rows = [row(ref, run, args.min_share) for ref, run in pairs]
    except OSError as exc:  # the kept verdicts (evalcache): the runs were read
        print(f"{PROG}: {exc.filename or 'the kept verdicts'}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    t = pd.DataFrame(rows)
    print("The run-level criterion on the pairs (each rerun judged against its own reference "
          "under the rules in force). POST HOC: the criterion was declared on "
          f"{RP.IN_FORCE.declared}, after the committed reruns had been judged; a row read "
          f"'{POST_HOC}' is its basis, not its test.")
    with pd.option_context("display.width", 250, "display.max_columns", None,
                           "display.max_colwidth", 40):
        print(t.drop(columns="_share").to_string(index=False))
    decided = [r for r in rows if not math.isnan(r["_share"])]
    if decided:
        low = min(decided, key=lambda r: r["_share"])
        print(f"smallest share: {low['share reproduced']} ({low['reference']} -> "
              f"{low['rerun']}); rounded down to a multiple of 5: "
              f"{rounded_down(low['_share'])} %; in force (reproduce.IN_FORCE): "
              f"{RP.IN_FORCE.min_share} %; reversed in any pair: {sum(r['reversed'] for r in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

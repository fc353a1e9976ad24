"""The run-level reproduction criterion on the committed pairs of runs: a paper run (the
reference) and the claims run made after it on a machine with the same CPU model, each
judged against its own paper run by the "Results Reproduced" rule in force
(:mod:`analysis.comparison.reproduce`, as ``make compare`` applies it).

    python studies/reproduction_criterion.py [--raw DIR] [--pair REF RUN ...] [--min-share P]

Prints one row per pair: the verdicts compared (tested in both runs), reproduced, the same
verdict not reproduced in size, not reproduced (reversed: opposite decided verdicts;
decided then left undecided), newly decided, both undecided, both not testable, the
reference's decided verdicts tested in both runs, the share of those reproduced, and the
run-level criterion's judgement (:func:`analysis.comparison.reproduce.run_judgement`). Then
the smallest share among the pairs, the number it gives (rounded down to a multiple of 5)
and the number in force (:data:`~analysis.comparison.reproduce.IN_FORCE`). With ``--simulate OUT`` it
instead writes both criteria by simulation, each with its power table (``make criterion``):
the same-class one on every decided comparison set of the reference, the cross-class one on
the sets whose verdicts are the same on every class measured (the stability labels over the
committed runs that test the claims in ``--raw``).

Every pair made before the criterion was declared
(:data:`~analysis.comparison.reproduce.IN_FORCE`) is read **post hoc**: the
criterion was written after those runs had been judged, so they are its basis, not its
test; the table says so in each row.

Without ``--pair``, the pairs are found in ``--raw`` (default ``data/raw``) from the run
catalog (:mod:`rundir.catalog`, read through :mod:`analysis.comparison.machines`): for every run of the ``claims`` profile, the newest earlier
run of the ``paper`` profile on the same machine (CPU class in the catalog's wording and the
CPUs the run could use). Each row also gives the run-level criterion of the pair's classes
(:func:`~analysis.comparison.reproduce.judge_runs`: same-class or cross-class). Each run is studied once and kept
per sealed run (:func:`analysis.study.open`).

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

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import study  # noqa: E402
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


def _entries(raw: Path) -> list:
    """The catalog's runs under ``raw`` (:mod:`rundir.catalog`); damage: one line, exit 2."""
    from analysis.comparison import machines as MA

    try:
        return MA.runs_in(raw)
    except A.BadRun as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        sys.exit(2)


def _machine(d: Path) -> str:
    """A run's machine in the catalog's one wording ("2-CPU Intel Xeon")."""
    from analysis.comparison import machines as MA

    try:
        return MA.entry(d).machine
    except A.BadRun as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        sys.exit(2)


def find_pairs(raw: Path) -> list[tuple[Path, Path]]:
    """(paper run, claims run) for every claims run under ``raw`` (the catalog) with an
    earlier paper run on the same machine (CPU class and the CPUs it could use, the
    catalog's :attr:`~rundir.catalog.Entry.machine_key`; the newest such), oldest claims
    run first."""
    runs = sorted((e for e in _entries(raw) if e.profile in ("paper", "claims")
                   and e.made is not None), key=lambda e: e.made)
    out = []
    for r in runs:
        if r.profile != "claims":
            continue
        before = [q.path for q in runs if q.profile == "paper"
                  and q.machine_key == r.machine_key and q.made < r.made]
        if before:
            out.append((before[-1], r.path))
    return out


def row(ref_dir: Path, run_dir: Path, min_share: int) -> dict[str, object]:
    """The counts of one pair, the rerun judged against its reference."""
    ref_s, run_s = study(PROG, ref_dir), study(PROG, run_dir)  # damaged or empty: one line, exit 2
    ref, run = ref_s.run, run_s.run
    t = RP.table(ref_s.results, run_s.results)
    n = RP.counts(t)
    reproduced, compared = RP.reproduced_of(t)
    j = RP.run_judgement(t, min_share)
    crit = RP.judge_runs(t, ref_dir, run_dir)
    gap = (run.created_at - ref.created_at).total_seconds() / 3600 \
        if run.created_at and ref.created_at else math.nan
    declared = A.instant(RP.IN_FORCE.declared)
    made_after = all(x.created_at is not None and x.created_at > declared for x in (ref, run))
    return {"reference": ref_dir.name, "rerun": run_dir.name,
            "CPU": _machine(run_dir), "hours apart": round(gap, 1),
            "compared": compared, "reproduced": reproduced,
            "not in size": n[RP.NOT_IN_SIZE], "reversed": j.reversed,
            "decided then undecided": n[RP.NOT_REPRODUCED] - j.reversed,
            "newly decided": n[RP.NEWLY_DECIDED], "both undecided": n[RP.BOTH_UNDECIDED],
            "both not testable": n[RP.BOTH_NOT_TESTABLE],
            "ref decided (tested in both)": j.decided,
            "share reproduced": f"{j.same} of {j.decided}"
            + (f" ({100 * j.share:.1f} %)" if j.decided else ""),
            "criterion": j.status.removeprefix("study "),
            "by its class's criterion": f"{crit.criterion}: {crit.status.removeprefix('study ')}"
            f" ({crit.same} of {crit.decided})",
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
    results = study(PROG, d).results
    models = RP.set_models(results)
    names = {m.name for m in models}
    unknown = sorted(set(args.judged or ()) - names)
    if unknown:
        p.error(f"--judged {unknown[0]!r}: not a decided comparison set of the reference "
                f"(it has {len(names)}: e.g. {sorted(names)[0]!r})")
    labels, infos = stability(Path(args.raw))
    stable = set(RP.cross_class_sets(results, labels))
    cross = args.judged or [m.name for m in models if m.name in stable]
    same = SIM.simulate_criterion(models, runs=args.runs)
    other = SIM.simulate_criterion(models, runs=args.runs, judged=cross)
    excluded = [{"name": m.name, "label": _labels_of(m.name, results, labels)}
                for m in models if m.name not in set(cross)]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    kept = _kept(out)
    doc = {"reference": d.name, "design": SIM.design_text(), "window_s": RP.SIM_WINDOW_S,
           RP.SAME_CLASS: _stamped(same.to_json(), kept.get(RP.SAME_CLASS), now),
           RP.CROSS_CLASS: _stamped(
               {**other.to_json(), "excluded": excluded,
                "stability_runs": [{"run": i.run, "cpu_class": i.cpu_class,
                                    "post_hoc": i.post_hoc} for i in infos]},
               kept.get(RP.CROSS_CLASS), now),
           "sets_drawn": [{"name": m.name, "truths": list(m.truths), "sd": m.sd,
                           "family": m.family} for m in models]}
    atomic.write_text(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    for which, sim in ((RP.SAME_CLASS, same), (RP.CROSS_CLASS, other)):
        print(f"{out}: {which}: a rerun of the same truth reproduces at least "
              f"{sim.min_share:.0%} of the {sim.sets} decided comparison sets judged, none "
              f"reversed, with probability {sim.pass_same_truth:.3f} [{sim.pass_ci[0]:.3f}, "
              f"{sim.pass_ci[1]:.3f}]; passes when k sets truly differ: "
              + ", ".join(f"k={k}: {v:.3f}" for k, v in sim.pass_when_differ))
    return 0


def _kept(out: Path) -> dict:
    """The criteria ``out`` already holds (none when it is absent or not such a file)."""
    import json

    try:
        doc = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _stamped(new: dict, old: object, now: str) -> dict:
    """A criterion with the time it was made: the time ``old`` (the file's criterion of the
    same kind) says when it is the same result (same seed, same sets: a declaration made
    after it stays valid), else ``now``."""
    if isinstance(old, dict) and {k: v for k, v in old.items() if k != "made"} == \
            json_roundtrip(new):
        return {**new, "made": old.get("made", now)}
    return {**new, "made": now}


def json_roundtrip(doc: dict) -> dict:
    import json

    return json.loads(json.dumps(doc))


def stability(raw: Path):
    """Each verdict's stability label over the committed runs under ``raw`` that test the
    claims (analysis.comparison.stability, every run's verdicts kept per sealed run); a
    damaged catalog entry: one line, exit 2."""
    from analysis import claims as C
    from analysis.comparison import stability as ST

    try:
        long, infos = ST.committed(raw, lambda r: study(PROG, r).results,
                                   A.instant(C.REVISED))
    except ValueError as exc:  # the catalog's BadCatalog: a damaged plan or manifest
        print(f"{PROG}: {exc}", file=sys.stderr)
        sys.exit(2)
    return ST.table(long, infos), infos


def _labels_of(name: str, results, labels) -> list[str]:
    """The stability labels of the reference's decided verdicts in the comparison set
    ``name``."""
    from analysis.comparison import stability as ST

    by = {tuple(k): lab for *k, lab in labels[ST.KEY + ["label"]].itertuples(index=False)}
    return sorted({by.get(ST.key_of(r), "not in the table") for r in results
                   if r.verdict in RP.DECIDED and RP.comparison_set(r) == name})


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="python studies/reproduction_criterion.py",
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
                   help="with --simulate: the cross-class criterion judges only this "
                        "comparison set (repeatable; default: the sets whose verdicts are "
                        "the same on every class measured over the committed runs in --raw)")
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
    except OSError as exc:  # the kept Studies: the runs were read
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

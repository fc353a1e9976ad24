"""A reference run's measurement targets, beside an earlier run's, from the code the book uses.

    .venv/bin/python scripts/run_targets.py BASE NEW

For each run (BASE, then NEW) it prints:

* the message comparisons (every message method against ``send``, as the book counts them:
  :func:`analysis.words.counts.message_comparisons`): faster / slower / equivalent /
  undecided, and for NEW the same on BASE's comparison keys (method, size and configuration)
  only, with the keys NEW lacks;
* the direction verdicts by state, and the inconclusive ones among those testable here, each
  with the boundary its CI straddles and its distance;
* the median per-round sd of the log ratio over the run's distinct paired claim comparisons
  (one comparison read by two claims counted once);
* the A/A controls (:func:`analysis.claims.baselines.twin_pairs`): ratio [CI] and decision.

Reads committed or unpacked runs; writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from analysis import claims as C
from analysis.claims.baselines import twin_pairs
from analysis.loading.run import BadRun, Run, load_run
from analysis.statistics.fmt import fmt_ratio_ci
from analysis.words.counts import MSG_FACTORS, Tally, message_comparisons

KEYS = ["method", "size", *MSG_FACTORS]


def comparisons(run: Run) -> pd.DataFrame:
    tab = message_comparisons(run)
    return tab if tab.empty else tab.drop_duplicates(KEYS)


def report(run: Run, base: pd.DataFrame | None) -> None:
    print(f"== {run.run_id}: {len(run.trials)} trials")
    comp = comparisons(run)
    print(f"message comparisons: {Tally.of(comp).text()}")
    if base is not None and not comp.empty:
        on = base[KEYS].merge(comp, on=KEYS, how="left")
        missing = on["decision"].isna()
        print(f"  on the first run's {len(base)} keys: "
              f"{Tally.of(on[~missing]).text()}; {int(missing.sum())} key(s) not measured")
        for _, r in on[missing].iterrows():
            print("   not measured: " + ", ".join(f"{k}={r[k]}" for k in KEYS))
    results = C.evaluate(run)
    states = Counter(r.verdict for r in results)
    print("direction verdicts: " + ", ".join(f"{v} {n}" for v, n in states.items()))
    table = C.compact_table(results)
    for (_, row), r in zip(table.iterrows(), results):
        if r.verdict == C.INCONCLUSIVE:
            ci = row["copybench here [CI]" if r.basis == C.COPYBENCH
                     else "their program here [CI]"]
            # the boundary text names each straddled boundary with its distance
            print(f"  inconclusive: {r.claim} {row['reading']} {row['placement']}: {ci}; "
                  f"{r.boundary or 'no boundary named'}")
    sd = C.per_round_sds(results)
    print(f"median per-round sd of the log ratio: {sd.median():.3f} over {len(sd)} distinct "
          "paired claim comparisons")
    aa = twin_pairs(run)
    for _, r in aa.iterrows():
        ci = fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], times=False)
        print(f"A/A {r['configuration']}: {ci} at {r['rounds']} rounds, {r['decision']} "
              f"(band ±{r['band']:.0%})")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base", type=Path, metavar="BASE", help="the earlier run's directory")
    p.add_argument("new", type=Path, metavar="NEW", help="the new run's directory")
    a = p.parse_args()
    for d in (a.base, a.new):
        if not (d / "manifest.json").is_file():
            print(f"run_targets: {d}: not a run directory (no manifest.json)", file=sys.stderr)
            return 2
    try:  # a damaged run: one line naming the file (never a traceback), nothing printed
        base, new = load_run(a.base), load_run(a.new)
    except BadRun as exc:
        print(f"run_targets: {exc}", file=sys.stderr)
        return 2
    report(base, None)
    report(new, comparisons(base))
    return 0


if __name__ == "__main__":
    sys.exit(main())

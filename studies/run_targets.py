"""A reference run's measurement targets (beside an earlier run's), from the code the book uses.

    .venv/bin/python studies/run_targets.py RUN
    .venv/bin/python studies/run_targets.py BASE NEW

For each run (BASE, then NEW) it prints:

* the decision map's rows (:func:`analysis.words.counts.map_comparisons`, one per method,
  size and configuration, as the book counts them) by outcome, and how many have a decided
  direction (faster or slower by more than the band, or with its size open); their labels
  (:mod:`decision.reading`): which side set the rate, how many rest on fewer rounds than the
  design's minimum, and how many read "not read" and "receiver-bound";
* the message comparisons (every message method against ``send``, as the book counts them:
  :func:`analysis.words.counts.message_comparisons`): faster / slower / equivalent /
  undecided, and for NEW the same on BASE's comparison keys (method, size and configuration)
  only, with the keys NEW lacks;
* the direction verdicts by state, those with a receiver-bound size, and the inconclusive ones among those testable here, each
  with the boundary its CI straddles and its distance;
* the median per-round sd of the log ratio over the run's distinct paired claim comparisons
  (one comparison read by two claims counted once);
* the A/A controls (:func:`analysis.claims.baselines.twin_pairs`): ratio [95 % CI], whether
  the CI holds 1, and its decision against the band;
* copybench beside iperf3 at the parity rule's sizes (:mod:`decision.parity`,
  :func:`analysis.claims.baselines.parity`): ``sendmsg`` / iperf3, or ``send`` / iperf3
  under the earlier declaration where the run holds no ``sendmsg`` beside iperf3 (said on
  the line): ratio [CI], rounds, CI half-width, whether the point estimate is at least 0.95,
  and the rule's reading; where it holds both, ``send`` / ``sendmsg`` paired by round and
  ``send``'s extra sender CPU per GB (:func:`analysis.claims.baselines.memcpy_gap`: its
  memcpy's cost).

Reads committed or unpacked runs; writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from analysis import claims as C
from analysis.claims.baselines import memcpy_gap, parity, parity_declaration, twin_pairs

if str(Path(__file__).resolve().parent) not in sys.path:  # studies/_runs.py, when imported
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # by path (not run) too
from _runs import load  # noqa: E402
from analysis.loading.run import Run
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size
from analysis.words import revisions as RV
from analysis.words.counts import MSG_FACTORS, Tally, map_comparisons, message_comparisons
from decision import parity as PA
from decision import reading as RD
from decision import rule as R

#: the point estimate of copybench / iperf3 a size is checked against (a target, not a rule)
NEAR = 0.95

KEYS = ["method", "size", *MSG_FACTORS]


def comparisons(run: Run) -> pd.DataFrame:
    tab = message_comparisons(run)
    return tab if tab.empty else tab.drop_duplicates(KEYS)


def report(run: Run, base: pd.DataFrame | None) -> None:
    print(f"== {run.run_id}: {len(run.trials)} trials")
    comp = comparisons(run)
    mrows = map_comparisons(run)
    rows = Tally.of(mrows)
    print(f"decision map rows: {rows.n}: {rows.text()}")
    if len(mrows):
        bounds = mrows["bound"].value_counts()
        print("  rows by the side that set the rate: " + ", ".join(
            f"{b} {int(bounds.get(b, 0))}" for b in RD.BOUNDS)
            + f"; under the design's minimum rounds ({run.rounds_min}): "
            f"{int(mrows['under_minimum'].sum())}; read {RD.NOT_READ!r} {rows.not_read}, "
            f"{RD.RECEIVER_BOUND!r} {rows.receiver_bound}, read as a decision "
            f"{rows.n - rows.not_read - rows.receiver_bound}")
    print(f"  rows with a decided direction: {rows.directions} of {rows.n} (greater "
          f"{rows.greater}, less {rows.less}, faster with size open {rows.faster_open}, "
          f"slower with size open {rows.slower_open})")
    print(f"message comparisons (window-level keys): {Tally.of(comp).text()}")
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
    flagged = [r for r in results if r.bound_note]
    print(f"  verdicts with a receiver-bound size: {len(flagged)} ("
          f"{sum(r.verdict == C.NOT_TESTABLE for r in flagged)} read {RD.RECEIVER_BOUND!r}, "
          f"{sum(r.verdict != C.NOT_TESTABLE for r in flagged)} decided by sizes that test "
          "the sender)")
    for r in flagged:
        print(f"   {r.claim} {r.reading or ''} {r.placement}: {r.verdict_text}")
    table = C.compact_table(results)
    for (_, row), r in zip(table.iterrows(), results):
        if r.verdict == C.INCONCLUSIVE:
            ci = row["copybench here [CI]" if r.basis == C.COPYBENCH
                     else "their program here [CI]"]
            # the CI shown against its own rule's edges (the claim's, not the generic band)
            own = R.crossed(r.lo, r.hi, r.band) if r.band else ()
            edge = (f"straddles its rule's edge {', '.join(f'{e:g}' for e in own)}" if own
                    else "straddles none of its rule's edges" + (
                        f" ({', '.join(f'{e:g}' for e in r.band)})" if r.band else ""))
            # the boundary text names each straddled boundary with its distance
            print(f"  inconclusive: {r.claim} {row['reading']} {row['placement']}: {ci}; "
                  f"{edge}; {r.boundary or 'no boundary named'}")
    sd = C.per_round_sds(results)
    print(f"median per-round sd of the log ratio: {sd.median():.3f} over {len(sd)} distinct "
          "paired claim comparisons")
    aa = twin_pairs(run)
    for _, r in aa.iterrows():
        ci = fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], times=False)
        holds = "holds 1" if r["lo"] <= 1.0 <= r["hi"] else "excludes 1"
        print(f"A/A {r['configuration']}: {ci} (95 % CI, {holds}) at {r['rounds']} rounds, "
              f"{r['decision']} (band ±{r['band']:.0%})")
    par = parity(run)
    decl = parity_declaration(run)
    post = " (post hoc: the run was made before the rule)" if RV.parity_post_hoc(
        decl, run.created_at) else ""
    if decl is not PA.IN_FORCE:
        post = (f" (the earlier declaration, {decl.method} / iperf3: the run holds no "
                f"{PA.METHOD} beside iperf3)") + post
    if par.empty:
        print(f"copybench {decl.method} / iperf3: not measured at the parity rule's sizes")
    for r in par.to_dict("records"):
        ci = fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], times=False)
        print(f"copybench {r['method']} / iperf3 at {fmt_size(r['size'])}: {ci} over "
              f"{r['rounds']} rounds, CI half-width ±{r['half_width']:.1%}, point estimate "
              f"{'>=' if r['ratio'] >= NEAR else '<'} {NEAR}, {r['reading']} "
              f"(margin ±{PA.MARGIN:.0%}){post}")
    if len(par):
        print(f"  over the range: {PA.overall(list(par['reading']))}{post}")
    g, o = PA.GAP_METHOD, PA.METHOD
    for r in memcpy_gap(run).to_dict("records"):
        ci = fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], times=False)
        print(f"copybench {g} / {o} at {fmt_size(r['size'])} ({g}'s memcpy of the fields into "
              f"one buffer against {o}'s iovecs): {ci} over {r['rounds']} rounds; {g}'s sender "
              f"{r['extra_sender_s_per_gb']:+.3f} CPU-s/GB ({r[f'{g}_sender_s_per_gb']:.3f} "
              f"against {r[f'{o}_sender_s_per_gb']:.3f})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN",
                   help="a run's directory; given two (BASE NEW), the second is also read "
                   "on the first's comparison keys")
    a = p.parse_args(argv)
    if len(a.runs) > 2:
        print("run_targets: give one run (RUN) or two (BASE NEW), not "
              f"{len(a.runs)}", file=sys.stderr)
        return 2
    for d in a.runs:
        if d.is_dir() and not (d / "manifest.json").is_file():
            print(f"run_targets: {d}: not a run directory (no manifest.json)", file=sys.stderr)
            return 2
    # a missing, damaged or empty run: one line naming it (never a traceback), nothing printed
    runs = [load("run_targets", d) for d in a.runs]
    report(runs[0], None)
    if len(runs) == 2:
        report(runs[1], comparisons(runs[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long a plan takes: each trial's expected seconds (measured overheads on the 2-CPU
reference VM) summed over the planned rounds, and the rows the plan printout shows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from runner.plan.blocks import block_seconds
from runner.plan.cells import Cell, Plan, Trial
from runner.plan.profile import PURPOSES

# measured on the 2-CPU reference VM: process start, sink ready, teardown
# the reports' own programs (runner/originals: fresh namespaces, their server up, their client
# run, all stopped): 1.07 s for a 1 s window (S1, S2); S3's client stops when the tv_sec
# difference reaches its 2 s, 1.7-2.0 s after it starts
OVERHEAD_S = {"copybench": 0.15, "peer:iperf3": 0.1, "peer:sockperf": 2.4,
              "original:S1": 0.1, "original:S2": 0.1, "original:S3": 0.0}
PERF_EXTRA_S = 1.5  # perf record start-up, perf report
# measured: vmsplice sets up a ring of page-aligned buffers (up to 256 MiB): 0.1 s (256 KiB
# messages) to 0.7 s (64 B) more than sendmsg per trial here
METHOD_EXTRA_S = {"vmsplice": 0.45}
FILE_WRITE_BPS = 1.0e9  # generating the source file
COLD_READ_BPS = 1.0e9  # re-reading a dropped file


def trial_seconds(cell: Cell, profiled: bool = False) -> float:
    t = OVERHEAD_S[cell.kind]
    if cell.kind == "peer:iperf3":
        t += max(1, math.ceil(cell.duration_s)) + math.ceil(cell.warmup_s)
    elif cell.kind == "peer:sockperf":
        t += max(1, math.ceil(cell.duration_s + cell.warmup_s))
    else:
        t += cell.duration_s + cell.warmup_s + METHOD_EXTRA_S.get(cell.method, 0.0)
    if cell.cache is not None:
        t += cell.size / FILE_WRITE_BPS
    if profiled:
        t += PERF_EXTRA_S
    return t


@dataclass(frozen=True)
class TimeEstimate:
    trials_min: int
    trials_max: int
    seconds_min: float
    seconds_max: float
    seconds_expected: float  # min reps plus half of the adaptive headroom


def estimate(plan: Plan, setup_s: float = 0.0) -> TimeEstimate:
    perf = sum(trial_seconds(c, profiled=True) * c.perf_trials
               for c in plan.cells.values() if c.perf)
    n_perf = sum(c.perf_trials for c in plan.cells.values() if c.perf)
    if plan.blocks is not None:  # every round is planned: the estimate is the plan's sum
        secs = perf + setup_s + sum(trial_seconds(plan.cells[Trial.parse(t).cell])
                                    for rnd in plan.rounds for t in rnd
                                    if Trial.parse(t).repetition > 0)
        trials = sum(len(rnd) for rnd in plan.rounds)
        extra_s, extra_n = topup_extra(plan)
        return TimeEstimate(trials, trials + extra_n, secs, secs + extra_s, secs + extra_s)
    per_rep = sum(trial_seconds(c) for c in plan.cells.values())
    n = len(plan.cells)
    lo = per_rep * plan.rep_min + perf + setup_s
    hi = per_rep * plan.rep_max + perf + setup_s
    return TimeEstimate(trials_min=n * plan.rep_min + n_perf, trials_max=n * plan.rep_max + n_perf,
                    seconds_min=lo, seconds_max=hi, seconds_expected=lo + 0.5 * (hi - lo))


def topup_extra(plan: Plan) -> tuple[float, int]:
    """The sequential top-up's budget (seconds) and about how many trials it buys (at the
    sequential blocks' mean seconds per trial); (0, 0) for the fixed design. The estimate
    counts the whole budget: the top-up stops early only when every comparison is decided."""
    seq = (plan.design or {}).get("sequential")
    if not isinstance(seq, dict) or not plan.blocks:
        return 0.0, 0
    per = [b["seconds_per_round"] / len(b["cells"]) for b in plan.blocks.values()
           if b.get("sequential")]
    budget = float(seq.get("topup_budget_s") or 0.0)
    return budget, (math.ceil(budget / (sum(per) / len(per))) if per and budget else 0)


def summary_rows(plan: Plan) -> list[tuple[str, int, float]]:
    """(experiment/kind, cells, seconds per repetition) for the plan printout."""
    groups: dict[str, list[Cell]] = {}
    for c in plan.cells.values():
        groups.setdefault(f"{c.experiment} [{c.kind}]", []).append(c)
    return [(k, len(v), sum(trial_seconds(c) for c in v)) for k, v in sorted(groups.items())]


def block_seconds_of(b: dict[str, Any]) -> float:
    """A planned block's time, from its JSON (plans made before caps existed have none)."""
    return block_seconds(b["rounds"], b["seconds_per_round"], b.get("caps") or {},
                         b.get("cell_seconds") or {})


def block_rows(plan: Plan) -> list[dict[str, Any]]:
    """The block design's plan, one row per block, claims first (for the printout)."""
    if plan.blocks is None:
        return []
    rows = sorted(plan.blocks.values(),
                  key=lambda b: (PURPOSES.index(b["purpose"]), b["claims"], b["label"]))
    return [{"block": b["label"], "purpose": b["purpose"],
             "claims": ",".join(b["claims"]) or "—", "cells": len(b["cells"]),
             "rounds": b["rounds"], "sd": b["sd"],
             "rounds_max": (b.get("sequential") or {}).get("looks", [0])[-1],
             "expected ±": b["expected_half_width"], "target ±": b["target"],
             "minutes": block_seconds_of(b) / 60,
             "note": b["note"]} for b in rows]

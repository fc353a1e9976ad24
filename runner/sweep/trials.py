"""One trial of a plan, whatever its kind: a copybench trial (:mod:`runner.trial.copybench_trial`),
a peer tool's (:mod:`runner.trial.peer_trial`) or one of the reports' own programs
(:mod:`runner.originals.original_trial`), on the transport the sweep set up for it, as one
record (:mod:`runner.trial.trialrecord`).

A copybench trial that missed its measured window (exit 3) is run again at once, up to
``WINDOW_RETRIES`` times, and its record carries the earlier attempts in ``retries``.

A record is ``ok`` only when its program said so and its result means it
(:func:`rundir.okrule.problem`, the rule ``python -m rundir verify`` checks every ok record
against): a result that does not is recorded as ``failed``, saying why.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from rundir import okrule
from rundir.records import TrialRecord
from runner.trial.copybench_trial import EXIT_WINDOW_MISSED, run_copybench
from runner.originals.original_trial import run_original
from runner.trial.peer_trial import run_peer
from runner.host.pinning import cpus_for
from runner.plan.cells import Cell, Trial
from runner.trial.trialrecord import (Context, intended_config, loadavg, new_record, now,
                                trial_config)
from runner.trial.copybench_argv import trial_seed
from runner.trial.transports import Transport

WINDOW_RETRIES = 2
"""A trial that missed its window runs again at once, up to this many times, with the same trial
id and argv (same seed). The record written is the last attempt's, so the sweep still writes
exactly one record per trial id; ``retries`` lists the earlier attempts and why each missed. A
wrong result (exit 1: verification, lost bytes...) or a timeout is never retried."""


def run_trial(ctx: Context, cell: Cell, trial: Trial, transport: Transport | None,
              order_index: int, transport_error: str | None = None) -> TrialRecord:
    return held_to_ok_rule(_run(ctx, cell, trial, transport, order_index, transport_error))


def held_to_ok_rule(rec: TrialRecord) -> TrialRecord:
    """An ``ok`` whose result does not mean ok (:mod:`rundir.okrule`) becomes ``failed``."""
    if rec.status == "ok":
        why = okrule.problem(rec.config.get("kind"), rec.result)
        if why:
            rec.status, rec.error = "failed", f"the trial reported ok but {why}"
    return rec


def _run(ctx: Context, cell: Cell, trial: Trial, transport: Transport | None,
         order_index: int, transport_error: str | None) -> TrialRecord:
    rec = new_record(ctx, cell, trial, order_index)
    profiled = trial.repetition == 0
    cpus = cpus_for(cell.placement, cell.has_sink, cell.threads)
    if transport is not None:
        cpus = transport.cpus(cpus)  # over two hosts the sink's CPUs are the remote host's
    rconf = trial_config(cell, cpus, profiled)
    if transport is None or transport_error:
        rec.config = {**intended_config(cell, trial_seed(ctx.seed, trial.id)), **rconf}
        rec.tool = "copybench" if cell.kind == "copybench" else cell.method
        rec.error = f"topology {cell.transport}: {transport_error or 'not available'}"
        return rec
    if cell.kind == "copybench":
        return with_window_retries(
            lambda base: run_copybench(ctx, cell, trial, transport, cpus, base, rconf,
                                       profiled), rec)
    if cell.is_original:
        return run_original(ctx.originals or {}, cell, rec, rconf, intended_config(cell),
                            ctx.janitor)
    return run_peer(ctx, cell, transport, cpus, rec, rconf)


# --- a missed window: tried again at once, under the same trial id ---------------------------

def window_missed(rec: TrialRecord) -> bool:
    """Whether this copybench record failed only because its window was missed."""
    res = rec.result
    win = res.get("window") if isinstance(res, dict) else None
    return (rec.status == "failed"
            and (rec.sections.get("invocation") or {}).get("sender_exit") == EXIT_WINDOW_MISSED
            and isinstance(win, dict) and win.get("missed") is True)


def _attempt(rec: TrialRecord, n: int) -> dict[str, Any]:
    res = rec.result or {}
    win = res.get("window") or {}
    return {"attempt": n, "started_at": rec.started_at, "loadavg": rec.loadavg,
            "reason": win.get("why") or str(rec.error).splitlines()[0],
            "window": win or None, "interference": res.get("interference"),
            "wall_s": (rec.sections.get("invocation") or {}).get("wall_s")}


def with_window_retries(run: Callable[[TrialRecord], TrialRecord],
                        base: TrialRecord) -> TrialRecord:
    """``run(a fresh copy of base)`` until its window is met, at most 1 + WINDOW_RETRIES
    times."""
    retries: list[dict[str, Any]] = []
    while True:
        rec = run(dataclasses.replace(base, config=dict(base.config),
                                      sections=dict(base.sections)))
        if not window_missed(rec) or len(retries) >= WINDOW_RETRIES:
            break
        retries.append(_attempt(rec, len(retries) + 1))
        base = dataclasses.replace(base, started_at=now(), loadavg=loadavg())
    if retries:
        rec.set("retries", retries)
    return rec

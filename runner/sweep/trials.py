"""The one trial builder: one trial of a plan, whatever its kind, on the transport the sweep set
up for it, as one record. Each kind is a small object with its argv and its result parser:
copybench (:class:`runner.trial.copybench_trial.Copybench`), a peer tool
(:data:`runner.trial.peer_trial.PEERS`) or one of the reports' own programs
(:class:`runner.originals.adapters.Program`, run by :mod:`runner.originals.original_trial`);
each reports an :class:`runner.trial.trialrecord.Outcome`, and
:mod:`runner.trial.trialrecord` makes the record from it (the only place a record is made).

A copybench trial that missed its measured window (exit 3) is run again at once, up to
``WINDOW_RETRIES`` times, and its record carries the earlier attempts in ``retries``.

A record is ``ok`` only when its program said so and its result means it
(:func:`rundir.okrule.problem`, the rule ``python -m rundir verify`` checks every ok record
against): a result that does not is recorded as ``failed``, saying why
(:func:`runner.trial.trialrecord.held_to_ok_rule`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from rundir.records import TrialRecord
from runner.trial.copybench_trial import EXIT_WINDOW_MISSED, Copybench
from runner.originals.original_trial import run_original
from runner.trial.peer_trial import run_peer
from runner.host.pinning import cpus_for
from runner.plan.cells import Cell, Trial
from runner.trial.trialrecord import (Context, Outcome, finish, held_to_ok_rule,  # noqa: F401
                                      intended_config, new_record, trial_config)
from runner.trial.copybench_argv import trial_seed
from runner.trial.transports import Transport

WINDOW_RETRIES = 2
"""A trial that missed its window runs again at once, up to this many times, with the same trial
id and argv (same seed). The record written is the last attempt's, so the sweep still writes
exactly one record per trial id; ``retries`` lists the earlier attempts and why each missed. A
wrong result (exit 1: verification, lost bytes...) or a timeout is never retried."""


def run_trial(ctx: Context, cell: Cell, trial: Trial, transport: Transport | None,
              order_index: int, transport_error: str | None = None) -> TrialRecord:
    def start() -> TrialRecord:
        return new_record(ctx.run_id, cell, trial, order_index)

    profiled = trial.repetition == 0
    cpus = cpus_for(cell.placement, cell.has_sink, cell.threads)
    if transport is not None:
        cpus = transport.cpus(cpus)  # over two hosts the sink's CPUs are the remote host's
    rconf = trial_config(cell, cpus, profiled)
    if transport is None or transport_error:
        started = start()
        return finish(started, Outcome(
            tool="copybench" if cell.kind == "copybench" else cell.method, tool_version=None,
            config={**intended_config(cell, trial_seed(ctx.seed, trial.id)), **rconf},
            status="failed", result=None,
            error=f"topology {cell.transport}: {transport_error or 'not available'}"))
    if cell.kind == "copybench":
        kind = Copybench(ctx, cell, trial)
        return with_window_retries(lambda: kind.run(transport, cpus, rconf, profiled), start)
    started = start()
    if cell.is_original:
        return finish(started, run_original(ctx.originals or {}, cell, rconf,
                                            intended_config(cell), ctx.janitor))
    return finish(started, run_peer(ctx, cell, transport, cpus, rconf))


# --- a missed window: tried again at once, under the same trial id ---------------------------

def window_missed(out: Outcome | TrialRecord) -> bool:
    """Whether this copybench trial failed only because its window was missed."""
    res = out.result
    win = res.get("window") if isinstance(res, dict) else None
    return (out.status == "failed"
            and (out.sections.get("invocation") or {}).get("sender_exit") == EXIT_WINDOW_MISSED
            and isinstance(win, dict) and win.get("missed") is True)


def _attempt(started: TrialRecord, out: Outcome, n: int) -> dict[str, Any]:
    res = out.result or {}
    win = res.get("window") or {}
    return {"attempt": n, "started_at": started.started_at, "loadavg": started.loadavg,
            "reason": win.get("why") or str(out.error).splitlines()[0],
            "window": win or None, "interference": res.get("interference"),
            "wall_s": (out.sections.get("invocation") or {}).get("wall_s")}


def with_window_retries(run: Callable[[], Outcome],
                        start: Callable[[], TrialRecord]) -> TrialRecord:
    """``start()`` then ``run()`` until its window is met, at most 1 + WINDOW_RETRIES times;
    the record of the last attempt, with the earlier ones in ``retries``."""
    retries: list[dict[str, Any]] = []
    while True:
        started = start()
        out = run()
        if not window_missed(out) or len(retries) >= WINDOW_RETRIES:
            break
        retries.append(_attempt(started, out, len(retries) + 1))
    if retries:
        out = dataclasses.replace(out, sections={**out.sections, "retries": retries})
    return finish(started, out)

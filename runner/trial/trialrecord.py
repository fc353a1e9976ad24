"""The sweep's trial record (:class:`rundir.records.TrialRecord`), made in one place.

Every record is made here and nowhere else, in two steps: :func:`new_record` as the trial
starts (the run, the trial, its place in the run order, when it started and the load then),
and :func:`finish` once it has run, from the :class:`Outcome` its kind of trial reports
(:class:`runner.trial.copybench_trial.Copybench`, the peers of :mod:`runner.trial.peer_trial`,
:class:`runner.originals.original_trial.Original`): what ran and how it went, held to the ok
rule (:func:`held_to_ok_rule`). The runner-level factors of ``config`` (:func:`trial_config`)
and what the trial was meant to run (:func:`intended_config`) are built here too.
"""

from __future__ import annotations

import os
import signal
import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rundir import okrule
from rundir.records import TrialRecord
from runner.trial.pair import PairResult
from runner.host.pinning import Cpus
from runner.plan.cells import Cell, Trial
from runner.host.proc import Janitor


@dataclass
class Context:
    binary: Path
    run_dir: Path
    run_id: str
    seed: int
    janitor: Janitor | None
    # the reports' own programs, prepared once per run (runner.originals.original_trial):
    # source -> {"dir", "build", "source"} when built, {"error"} when not
    originals: dict[str, dict[str, Any]] | None = None


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def new_record(run_id: str, cell: Cell, trial: Trial, order_index: int) -> TrialRecord:
    """A trial's record as it starts: nothing has run yet (:func:`finish` makes the record
    of how it went)."""
    return TrialRecord(run_id=run_id, trial_id=trial.id, cell=cell.id,
                       order_index=order_index, repetition=trial.repetition,
                       started_at=now(), loadavg=loadavg())


@dataclass
class Outcome:
    """What one kind of trial reports once it has run: the record's fields after the start,
    and its optional sections (:data:`rundir.records.SECTIONS`)."""

    tool: str | None
    tool_version: str | None
    config: dict[str, Any]
    status: str  # ok | failed | timeout
    error: str | None
    result: dict[str, Any] | None
    sections: dict[str, Any] = field(default_factory=dict)


def held_to_ok_rule(out: Any) -> Any:
    """An ``ok`` whose result does not mean ok (:mod:`rundir.okrule`) becomes ``failed``
    (an :class:`Outcome` or a record: anything with ``status``, ``config``, ``result`` and
    ``error``)."""
    if out.status == "ok":
        why = okrule.problem(out.config.get("kind"), out.result)
        if why:
            out.status, out.error = "failed", f"the trial reported ok but {why}"
    return out


def finish(started: TrialRecord, out: Outcome) -> TrialRecord:
    """The record of a trial that started as ``started`` (:func:`new_record`) and ran to
    ``out``, held to the ok rule; the sections in ``out`` are checked names."""
    out = held_to_ok_rule(dataclasses.replace(out))
    rec = dataclasses.replace(started, tool=out.tool, tool_version=out.tool_version,
                              config=out.config, status=out.status, error=out.error,
                              result=out.result, sections={})
    for name, value in out.sections.items():
        rec.set(name, value)
    return rec


def trial_config(cell: Cell, cpus: Cpus, profiled: bool) -> dict[str, Any]:
    """The runner-level factors of a record's ``config``."""
    return {
        "kind": cell.kind, "experiment": cell.experiment, "transport": cell.transport,
        "placement": cell.placement, "cache": cell.cache, "mtu": cell.mtu,
        "block": cell.block or None, "twin": cell.twin,
        "profiled": profiled, "timeout_s": cell.timeout(),
        "cpus_sender_list": cpus.sender, "cpus_sink_list": cpus.sink,
        # copybench's sink: started for this trial, or one kept across trials (Cell.sink)
        **({"sink": cell.sink or "fresh"} if cell.kind == "copybench" and cell.has_sink
           else {}),
        # copybench send --recv-size: the sink's bytes per recv() (absent: the sink's default)
        **({"recv_size": cell.recv_size} if cell.recv_size else {}),
    }


def cpu_list(spec: str | None) -> list[int] | None:
    return [int(x) for x in spec.split(",")] if spec else None


def intended_config(cell: Cell, seed: int | None = None) -> dict[str, Any]:
    """What the trial was meant to run, for records without copybench's own config."""
    return {
        "command": cell.command, "method": cell.method, "mode": cell.mode,
        "protocol": cell.protocol if cell.command == "send" else None, "size": cell.size,
        "fields": cell.fields, "threads": cell.threads, "duration_s": cell.duration_s,
        "warmup_s": cell.warmup_s, "verify": cell.verify, "cache": cell.cache,
        "no_sink": cell.transport == "udp-forward", "seed": seed,
        **({"sockbuf": cell.sockbuf} if cell.sockbuf else {}),
        **({"recv_size": cell.recv_size} if cell.recv_size else {}),
        **({"alternate": cell.alternate} if cell.alternate else {}),
        **({"share_time": cell.share_time} if cell.share_time else {}),
    }


def invocation(sender: list[str], sink: list[str] | None, pr: PairResult) -> dict[str, Any]:
    """A record's ``invocation``: what ran, how it exited, how long the pair took."""
    return {"sender": sender, "sink": sink, "sender_exit": pr.sender_rc,
            "sink_exit": pr.sink_rc, "wall_s": round(pr.wall_s, 3)}


def killed(pr: PairResult) -> str | None:
    """``sender killed by signal 9 (SIGKILL)`` when a signal ended the sender (Popen's
    returncode is -N for a process ended by signal N; it printed nothing after it, so this,
    not "printed no JSON", is what went wrong), else None."""
    rc = pr.sender_rc
    if rc is None or rc >= 0:
        return None
    try:
        name = f" ({signal.Signals(-rc).name})"
    except ValueError:
        name = ""
    return f"sender killed by signal {-rc}{name}"


def error_text(problem: str | None, own: str | None, pr: PairResult) -> str:
    """A failed trial's ``error``: what went wrong, then the tails of stderr."""
    parts = [p for p in (problem, own) if p]
    if pr.sender_tail:
        parts.append("--- sender stderr (tail) ---\n" + pr.sender_tail)
    if pr.sink_tail and (pr.status != "ok" or pr.sink_rc not in (0, None)):
        parts.append("--- sink stderr (tail) ---\n" + pr.sink_tail)
    return "\n".join(parts) or "failed (no output)"

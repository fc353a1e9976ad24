"""A copybench trial (:class:`Copybench`): its sink (if any) and its sender as one pair
(:mod:`runner.trial.pair`), on the cell's transport, and what the sender printed as the
:class:`runner.trial.trialrecord.Outcome` the sweep's record is made from.

The record keeps copybench's own fields unchanged and adds the runner-level factors in
``config``, ``invocation`` (argv, exit codes, wall time), and for a profiled trial
``perf_profile`` (the reduction of ``perf record``, :mod:`runner.host.cpuprofile`). A trial that
fails or times out is recorded with ``status`` ``failed``/``timeout`` and ``error`` = what
went wrong plus the tail of stderr.

A cell with ``sink = "kept"`` (a control of the noise study) does not start a sink of its
own: its sender talks to a :class:`KeptSink`, one per transport and sink CPUs, started at the
first such trial and serving every later one's session in turn (copybench's sink serves
sessions one after another). It is started again after a trial that failed otherwise than by
a missed window (it may have been part of the failure) or when it died, and stopped and
reaped with its transport (the sweep's end or interruption, or a failed trial's fresh
namespaces); its process group is registered with the reaper as every trial process is. The
record's ``config.sink`` says ``kept`` (``fresh`` for a sink of the trial's own) and
``invocation.kept_sink`` which process served it and which of its trials this was.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rundir import layout
from rundir.records import SCHEMA_VERSION
from runner.host import cpuprofile
from runner.trial.copybench_argv import sender_argv, sink_argv, trial_seed
from runner.trial.pair import LineReady, Pair, run_pair
from runner.host.proc import Janitor, spawn, stop, tail, wait_for_line
from runner.host.pinning import Cpus
from runner.plan.cells import Cell, Trial
from runner.trial.trialrecord import (Context, Outcome, error_text, intended_config, invocation,
                                      killed)
from runner.trial.transports import Transport

EXIT_WINDOW_MISSED = 3
"""copybench's exit code when its measured window was not the asked one and nothing else went
wrong (src/README.md, "The measured window"): the machine was too busy for that trial."""
#: extra time for a profiled trial (perf record's start and its writing of the data)
PERF_TIMEOUT_S = 60


def sink_ready(line: str) -> bool:
    """copybench's sink prints ``{"event":"ready","port":P}`` once it listens."""
    try:
        ev = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(ev, dict) and ev.get("event") == "ready" and "port" in ev


def parse_record(stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    """copybench's one JSON record on stdout, or what is wrong with what it printed."""
    objs = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return None, "sender printed something that is not JSON on stdout"
        if isinstance(obj, dict):
            objs.append(obj)
    if not objs:
        return None, "sender printed no JSON record"
    if len(objs) > 1:
        return objs[-1], f"sender printed {len(objs)} JSON records (expected exactly one)"
    version = objs[0].get("schema_version")
    if version != SCHEMA_VERSION:
        # another build of copybench (a stale binary): its fields are not this runner's record
        return None, (f"sender printed a record of schema_version {version!r}; this runner "
                      f"writes {SCHEMA_VERSION} (rebuild copybench: make build)")
    return objs[0], None


class KeptSinkError(Exception):
    """A kept sink could not be started (or did not get ready)."""


@dataclass
class KeptSink:
    """copybench's sink kept across trials (see the module doc): its process, port and
    argv, its output file, and how many trials it has served."""

    p: subprocess.Popen[bytes]
    port: int
    argv: list[str]
    log: Path
    janitor: Janitor | None
    trials: int = 0

    def alive(self) -> bool:
        return self.p.poll() is None

    def stop(self) -> int | None:
        """SIGTERM (it ends its serve loop), then SIGKILL to its group; reaped."""
        rc = stop(self.p, self.janitor, grace=0)
        self.log.unlink(missing_ok=True)
        return rc

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.p.pid, "trial": self.trials, "alive_after": self.alive()}


def kept_sink(transport: Transport, binary: Path, cpus: Cpus, janitor: Janitor | None
              ) -> KeptSink:
    """The sink kept on ``transport`` for these CPUs, started (and waited for) if there is
    none or it died."""
    key = cpus.sink or ""
    ks = transport.kept.get(key)
    if ks is not None and ks.alive():
        return ks
    if ks is not None:
        ks.stop()
        del transport.kept[key]
    port = transport.port()
    argv = transport.sink_prefix() + sink_argv(binary, port, cpus, once=False)
    fd, name = tempfile.mkstemp(prefix="copybench-kept-sink-", suffix=".log",
                                dir=janitor.tmp if janitor is not None else None)
    with os.fdopen(fd, "wb") as out:
        try:
            p = spawn(argv, janitor, out, subprocess.STDOUT)
        except OSError as e:
            Path(name).unlink(missing_ok=True)
            raise KeptSinkError(f"cannot start the kept sink ({argv[0]}): {e}") from None
    ks = KeptSink(p, port, argv, Path(name), janitor)
    line, why = wait_for_line(ks.log, p, sink_ready, transport.ready_s)
    if line is None:
        problem = f"kept sink {why}" + (f": {tail(ks.log)}" if tail(ks.log) else "")
        ks.stop()
        raise KeptSinkError(problem)
    transport.kept[key] = ks
    return ks


@dataclass(frozen=True)
class Copybench:
    """copybench's own kind of trial: its argv (:mod:`runner.trial.copybench_argv`, under
    ``perf record`` when profiled), its readiness line (:func:`sink_ready`) and its parser
    (:func:`parse_record`: the one JSON record the sender prints)."""

    ctx: Context
    cell: Cell
    trial: Trial

    ready = staticmethod(sink_ready)
    parse = staticmethod(parse_record)

    def sender(self, transport: Transport, port: int, cpus: Cpus, seed: int,
               perf_data: Path | None) -> list[str]:
        core = sender_argv(self.ctx.binary, self.cell, transport.host, port, cpus, seed,
                           self.trial.repetition)
        if perf_data is not None:
            core = [*cpuprofile.PERF_RECORD, "-o", str(perf_data), "--", *core]
        return transport.sender_prefix() + core

    def run(self, transport: Transport, cpus: Cpus, rconf: dict[str, Any],
            profiled: bool) -> Outcome:
        ctx, cell, trial = self.ctx, self.cell, self.trial
        kept: KeptSink | None = None
        if cell.has_sink and cell.sink == "kept":
            try:
                kept = kept_sink(transport, ctx.binary, cpus, ctx.janitor)
            except KeptSinkError as e:
                return Outcome(tool="copybench", tool_version=None,
                               config={**intended_config(cell, trial_seed(ctx.seed, trial.id)),
                                       **rconf},
                               status="failed", error=str(e), result=None, sections={})
        port = kept.port if kept else transport.port()
        seed = trial_seed(ctx.seed, trial.id)
        perf_data = layout.perf_data(ctx.run_dir, trial.id)
        timeout = cell.timeout()
        if profiled:
            perf_data.parent.mkdir(parents=True, exist_ok=True)
            timeout += PERF_TIMEOUT_S
        sender = self.sender(transport, port, cpus, seed, perf_data if profiled else None)
        sink = (transport.copybench_sink(ctx.binary, port, cpus, idle_s=timeout)
                if cell.has_sink and kept is None else None)
        pr = run_pair(Pair(sink, [sender], transport.pair_timeout(timeout),
                           LineReady(self.ready), copybench=True), ctx.janitor, transport)
        if kept is not None:
            kept.trials += 1
            if pr.status != "ok" or pr.sender_rc not in (0, EXIT_WINDOW_MISSED):
                pr.sink_tail = tail(kept.log)  # its own lines, for the record's error
        record, parse_problem = self.parse(pr.stdout)
        config = {**intended_config(cell, seed)}
        if record:
            theirs = record.get("config") or {}
            # a trial that failed before copybench set its configuration up reports it
            # unset (a copy's size 0 after a full disk): the plan's values stand there
            config.update(theirs if record.get("status") == "ok" else
                          {k: v for k, v in theirs.items() if k not in config})
        config.update({k: v for k, v in rconf.items() if k != "cache" or v is not None})
        if config.get("cache") is None:
            config["cache"] = cell.cache
        status = pr.status
        own_error = None
        if status == "ok":
            if record is None:
                status = "failed"
            elif pr.sender_rc != 0 or record.get("status") != "ok":
                status = "failed"
                own_error = record.get("error")
        problem = pr.problem
        if profiled and status != "ok":  # perf record -q says nothing when its disk is full
            full = perf_disk_full(perf_data, pr.sender_rc)
            if full is not None:
                # the run's disk is full: no result of the trial, and none of the next. Not
                # recorded (a failed record stays failed: a resume runs only what is not
                # recorded): the sweep stops, saying so, and a resume runs it again
                for leftover in (perf_data, Path(str(perf_data) + ".old")):
                    leftover.unlink(missing_ok=True)
                raise OSError(errno.ENOSPC, full, str(perf_data))
        if status == "failed" and problem is None:
            # a missed window (exit 3) is said by copybench's own error, "window missed: ..."
            problem = killed(pr) or parse_problem or (
                f"sender exited with status {pr.sender_rc}"
                if pr.sender_rc not in (0, None, EXIT_WINDOW_MISSED) else None)
        sections: dict[str, Any] = {"invocation": invocation(sender, sink, pr)}
        if kept is not None:
            sections["invocation"].update(sink=kept.argv, kept_sink=kept.to_json())
            if not kept.alive() or (status != "ok" and pr.sender_rc != EXIT_WINDOW_MISSED):
                # it died, or may be part of what failed: the next kept trial gets a new one
                kept.stop()
                transport.kept.pop(cpus.sink or "", None)
        if pr.remote is not None:
            sections["remote"] = pr.remote.to_json()  # the remote sink: refused connections
        if record is not None:
            extra = {k: v for k, v in record.items()
                     if k not in ("schema_version", "tool", "tool_version", "config", "status",
                                  "error", "result")}
            if extra:
                sections["copybench_extra"] = extra
        if profiled:
            sections["perf_profile"] = reduce_profile(ctx, trial, perf_data, seed)
        return Outcome(tool=(record or {}).get("tool", "copybench"),
                       tool_version=(record or {}).get("tool_version"), config=config,
                       status=status,
                       error=None if status == "ok" else error_text(problem, own_error, pr),
                       result=(record or {}).get("result"), sections=sections)


#: below this much free space where perf.data is written, a profiled trial that failed is
#: said to have failed for the full disk (perf record -q prints nothing; the sender it ran
#: was ended by perf or by the trial's timeout, which hid the cause)
PERF_MIN_FREE = 1 << 20


def perf_disk_full(data: Path, rc: int | None) -> str | None:
    """Why a profiled trial failed when perf.data's file system is full (ENOSPC: the strerror
    of the OSError that stops the sweep), else None."""
    try:
        st = os.statvfs(data.parent)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if free >= PERF_MIN_FREE:
        return None
    return (f"No space left on device (perf record could not write it: {free} bytes free "
            f"in {data.parent}; perf exit {rc}); free space for the run's profiles")


def reduce_profile(ctx: Context, trial: Trial, data: Path, seed: int | None = None
                   ) -> dict[str, Any]:
    """``perf.data`` -> ``perf/<trial>.json`` and its summary for the record; the data goes."""
    out_path = layout.perf_json(ctx.run_dir, trial.id)
    try:
        if not data.exists():
            return {"error": "perf record wrote no data"}
        red = cpuprofile.reduce_file(data, seed=seed,
                                     tmp=ctx.janitor.tmp if ctx.janitor else None)
        cpuprofile.store(red, out_path)
        return {"path": str(out_path.relative_to(ctx.run_dir)), "samples": red.samples,
                "kernel_share": red.kernel_share, "groups": red.groups,
                "user_copy_share": red.user_copy_share, "format": red.format,
                # samples per side (sending / receiving threads, by thread name) and windows
                "side_samples": {k: v.get("samples", 0) for k, v in red.sides.items()},
                "windows": len(red.windows)}
    except Exception as e:  # a failed reduction must not lose the trial
        return {"error": f"perf reduction failed: {e}"}
    finally:
        try:
            data.unlink()
            Path(str(data) + ".old").unlink(missing_ok=True)
        except OSError:
            pass

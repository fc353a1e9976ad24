"""One invocation of a sweep, as a library: open a run (new, or resumed), run its plan, record
the session, seal the run when it is complete.

``python -m runner sweep`` and the sweep notebook (``notebooks/sweep.py``, executed by
``python -m runner notebook``) both go through :func:`open_run` and :func:`run`, so a run
made either way is the same run. Errors are :class:`~runner.errors.UsageError` (bad input,
nothing created) or :class:`~runner.errors.RunnerError` (a runtime failure), each one line.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rundir import layout, records
from runner import plan as plan_mod
from runner import profile as profile_mod
from runner import sweep as sw
from runner.errors import RunnerError, UsageError
from runner.plan import Plan
from runner.profile import Profile
from runner.progress import fmt_duration


def _log(line: str) -> None:
    print(f"runner: {line}", file=sys.stderr, flush=True)


@dataclass
class OpenRun:
    """A run directory ready to run: its profile, plan, estimate and already-recorded trials."""

    profile: Profile
    plan: Plan
    run_dir: Path
    run_id: str
    binary: Path
    resumed: bool
    sweep: sw.Sweep
    estimate: plan_mod.Estimate
    sessions_before: int

    @property
    def recorded(self) -> int:
        return len(self.sweep.done)

    def headline(self) -> str:
        est = self.estimate
        return (f"run {self.run_id} in {self.run_dir}: {len(self.plan.cells)} cells, "
                f"{est.trials_min}..{est.trials_max} trials, estimated "
                f"{fmt_duration(est.seconds_expected)} (min {fmt_duration(est.seconds_min)}, "
                f"max {fmt_duration(est.seconds_max)})"
                + (f"; resuming with {self.recorded} trials already recorded"
                   if self.resumed else ""))


@dataclass
class Result:
    run_dir: Path
    outcome: sw.Outcome
    records: list[dict[str, Any]]
    sealed: bool

    @property
    def complete(self) -> bool:
        return self.outcome.complete

    def status_counts(self) -> Counter[str]:
        return Counter(str(r.get("status")) for r in self.records)

    def retried(self) -> tuple[int, int]:
        """(trials run again after a missed window, extra attempts): runner.execute's
        ``retries``; each trial is still one record."""
        n = [len(r.get("retries") or ()) for r in self.records]
        return sum(1 for x in n if x), sum(n)

    def status_text(self) -> str:
        c = self.status_counts()
        text = ", ".join(f"{c[k]} {k}" for k in ("ok", "failed", "timeout") if c[k]) \
            or "no trials"
        trials, attempts = self.retried()
        if trials:
            text += (f"; {trials} trial{'s' if trials != 1 else ''} retried after a missed "
                     f"window ({attempts} extra attempt{'s' if attempts != 1 else ''})")
        return text

    def profiled(self) -> int:
        """Trials run under ``perf record`` (repetition 0): kept, never used by the
        statistics."""
        return sum(1 for r in self.records if r.get("repetition") == 0)

    def resume_command(self) -> str:
        return f"python -m runner sweep --resume --run-dir {self.run_dir}"

    def exit_code(self) -> int:
        if self.complete:
            return 0
        return 143 if self.outcome.interrupted == "SIGTERM" else 130


def _binary() -> Path:
    binary = sw.find_binary()
    if binary is None:
        raise RunnerError("copybench not found: build it (make -C src) or set COPYBENCH_BIN")
    return binary


def resolve_run_dir(profile: str | None, run_dir: Path | None, resume: bool) -> Path:
    """The directory a sweep will use, known before it starts (the notebook driver needs it
    to place the executed notebook): --run-dir, the latest run of the profile (resume), or
    data/raw/<new run id>."""
    if run_dir is not None:
        return Path(run_dir)
    if resume:
        name = profile_mod.load(profile).name if profile else None
        return sw.latest_run(name)
    if not profile:
        raise UsageError("--profile is required (or --resume with --run-dir; profiles: "
                         f"{', '.join(profile_mod.available())})")
    return Path.cwd() / "data" / "raw" / sw.new_run_id(profile_mod.load(profile).name)


def open_run(profile: str | None, run_dir: Path | None = None, seed: int | None = None,
             resume: bool = False, progress: bool = True, remote: Any = None,
             rehearsal: bool = False) -> OpenRun:
    """Plan a new run (writing plan.json, the profile copy) or reopen an interrupted one.

    ``remote`` (a :class:`runner.remote.RemoteSpec`): run the socket experiments over the
    ``remote`` transport; the host is connected to and checked before anything is created."""
    from runner import remote as remote_mod
    rem = None
    if resume:
        run_dir = resolve_run_dir(profile, run_dir, resume=True)
        prof, plan, run_id = sw.prepare_resume(run_dir, profile)
        if seed is not None and seed != plan.seed:
            raise UsageError(f"--seed {seed}: the run in {run_dir} was planned with "
                             f"seed {plan.seed}")
        binary = _binary()
        if any(c.transport == "remote" for c in plan.cells.values()):
            spec = remote or remote_mod.saved_spec(run_dir)
            if spec is None:
                raise UsageError(f"--resume: the run in {run_dir} has remote cells: give "
                                 "--remote USER@HOST (or --inventory FILE)")
            rem = remote_mod.Remote(spec, binary).open()
    else:
        if not profile:
            raise UsageError("sweep: --profile is required (or --resume with --run-dir; "
                             f"profiles: {', '.join(profile_mod.available())})")
        prof = profile_mod.load(profile)  # a bad profile is rejected before anything runs
        binary = _binary()
        if remote is not None:  # connected and checked before anything is created
            prof, notes = remote_mod.adapt_profile(prof)
            rem = remote_mod.Remote(remote, binary).open()
            for n in notes:  # after the checks, so a failed check is one line
                _log(n)
        try:
            run_dir, run_id, plan = sw.prepare_new(prof, run_dir, seed, binary, rehearsal)
            if rem is not None:
                remote_mod.save(run_dir, rem)
        except OSError as e:
            if rem is not None:
                rem.close()
            raise RunnerError(f"{e.filename or run_dir}: {e.strerror or e}; the run could not "
                              "be created (no trial was run)") from None
        except BaseException:
            if rem is not None:
                rem.close()
            raise
    for n in plan.notes:
        _log(n)
    s = sw.Sweep(prof, plan, run_dir, run_id, binary, progress=progress)
    s.remote = rem
    s.load_records()
    srcs = sw.original_sources(plan)
    if srcs:  # fetched (pinned) and built before the first trial, as an unprivileged user
        from runner.originals.trial import prepare
        s.originals = prepare(srcs, log=_log)
    before = _sessions(run_dir)
    if not (run_dir / layout.MANIFEST).exists() or before:
        try:
            sw.write_manifest(run_dir, run_id, binary, before, remote=rem,
                              originals=s.originals)
        except OSError as e:
            if rem is not None:
                rem.close()
            raise sw.RunDirError(e, run_dir, len(s.done)) from None
    return OpenRun(prof, plan, run_dir, run_id, binary, resume, s, plan_mod.estimate(plan),
                   before)


def run(o: OpenRun, seal: bool = True) -> Result:
    """Run what is left of the plan; record the session; seal the run if it completed."""
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def session(outcome: sw.Outcome | None, error: str | None = None) -> None:
        sw.record_session(o.run_dir, {
            "started_at": started,
            "ended_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wall_s": round(outcome.wall_s, 1) if outcome else None, "pid": os.getpid(),
            "trials": dict(outcome.counts if outcome else o.sweep.counts),
            "complete": bool(outcome and outcome.complete),
            "interrupted": outcome.interrupted if outcome else None,
            **({"error": error} if error else {})})

    try:
        try:
            outcome = o.sweep.run()
        finally:
            if o.sweep.remote is not None:  # end the ssh master (ControlPersist)
                o.sweep.remote.close()
    except sw.RunDirError as e:
        try:  # best effort: the disk that refused a record may refuse this too
            session(None, str(e))
        except OSError:
            pass
        raise
    try:
        session(outcome)
        recs = list(records.read(o.run_dir / layout.TRIALS))
        sealed = False
        if outcome.complete and seal:
            from rundir.verify import seal as seal_run
            seal_run(o.run_dir)
            sealed = True
    except OSError as e:
        if not outcome.complete:
            raise sw.RunDirError(e, o.run_dir, len(o.sweep.done)) from None
        raise RunnerError(
            f"{e.filename or o.run_dir}: {e.strerror or e}; every planned trial is recorded "
            f"({len(o.sweep.done)} in {o.run_dir / layout.TRIALS}) but the run is not sealed: "
            f"make seal RUN={o.run_dir} when the file system has room") from None
    return Result(o.run_dir, outcome, recs, sealed)


def _sessions(run_dir: Path) -> int:
    p = run_dir / layout.SESSIONS
    return len(json.loads(p.read_text())) if p.exists() else 0

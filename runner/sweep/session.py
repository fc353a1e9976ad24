"""One invocation of a sweep, as a library: open a run (new, or resumed), run its plan, record
the session, seal the run when it is complete.

``python -m runner sweep`` and the sweep notebook (``notebooks/sweep.py``, executed by
``python -m runner notebook``) both go through :func:`open_run` and :func:`run`, so a run
made either way is the same run. Errors are :class:`~runner.host.errors.UsageError` (bad input,
nothing created) or :class:`~runner.host.errors.RunnerError` (a runtime failure), each one line.

:func:`open_run` takes the run directory's lock (:mod:`runner.sweep.runlock`) before it reads or
writes anything there, and :func:`run` releases it when the session ends: one writer per run.
A resumed run is checked whole (:mod:`runner.sweep.runstate`) before anything runs.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rundir import layout, records, utf8
from rundir.lock import RunLock
from rundir.verify import write_seal as seal_run  # the writer re-seals its own changes
from runner.host import inventory, netns
from runner.plan import profile as profile_mod
from runner.sweep import runfiles, runstate
from runner.sweep import loop as sw
from runner.host.binary import binary_problem, find_binary
from runner.host.errors import RunnerError, UsageError
from runner.plan.estimate import TimeEstimate, estimate
from runner.plan.expand import Hosts
from runner.host.inventory import RemoteSpec
from runner.plan.cells import Plan
from runner.originals.fetch import ARCHIVES_ENV
from runner.originals.original_trial import prepare as prepare_originals, unavailable
from runner.plan.profile import Profile
from runner.sweep.progress import fmt_duration
from runner.host.remotehost import RemoteHost
from runner.sweep.runlock import take


def _log(line: str) -> None:
    print(f"runner: {line}", file=sys.stderr, flush=True)


#: ``--without-originals`` handed to the sweep notebook's kernel by its driver (a
#: notebook's parameters are the notebook's): "1" when set
WITHOUT_ORIGINALS_ENV = "COPYBENCH_WITHOUT_ORIGINALS"
#: the reason a run that leaves the reports' programs out gives for each of their cells
LEFT_OUT = "--without-originals: the sweep was told to go on without the reports' programs"
#: a complete run some of whose trials failed for a cause outside the method they measure
#: (:func:`outside_cause`): every planned trial is recorded, and the cause is named once
EXIT_OUTSIDE = 3


def hosts_for(remote: bool, without_originals: bool) -> Hosts:
    """Where the plan's cells run (one host or two), and whether the reports' own programs
    are left out of it."""
    return Hosts(remote=remote, originals_left_out=LEFT_OUT if without_originals else "")


def _without(flag: bool | None) -> bool:
    return os.environ.get(WITHOUT_ORIGINALS_ENV) == "1" if flag is None else flag


def _dirs_ready(prof: Profile) -> None:
    """Every directory a file trial of the profile makes its files in is there and
    writable, before anything runs (each file trial would fail otherwise)."""
    for key, d in profile_mod.file_dirs(prof):
        p = Path(d)
        why = ("no such directory" if not p.exists() else "not a directory" if not p.is_dir()
               else "not writable by this user" if not os.access(p, os.W_OK | os.X_OK)
               else None)
        if why:
            raise UsageError(f"profile {prof.path}: {key}: {d!r}: {why} (allowed: an existing "
                             "directory this user can write, where copybench makes the "
                             "trials' files); nothing was run")


def _originals_ready(ids: list[str], planned_in: Path | None = None) -> None:
    """The pinned sources of the reports' programs ``ids`` can be had (fetched and checked
    now, as ``make claims`` checks before its sweep), else one line saying how to give them.
    ``planned_in``: a run being resumed, whose plan holds their trials."""
    if not ids:
        return
    why = unavailable(ids)
    if why is None:
        return
    where = os.environ.get(ARCHIVES_ENV)
    raise UsageError(
        f"the reports' own programs ({', '.join(ids)}) cannot be had ({why}): give their "
        f"archives with --archives DIR (make: ORIGINALS_ARCHIVES=DIR; a directory of "
        f"<owner>+<repo>-<commit>.tar.gz, as ../shared/seed-repos"
        + (f"; ${ARCHIVES_ENV} is {where}" if where else "")
        + "), or run where github.com can be reached"
        + (f", the run in {planned_in} planned their trials" if planned_in else
           ", or go on without them: --without-originals (their cells not run)")
        + "; nothing was run")


def check_new(prof: Profile, hosts: Hosts) -> None:
    """What a new run of ``prof`` on ``hosts`` needs here before anything is created (the
    notebook's driver asks before its kernel starts, the sweep before its run directory)."""
    _dirs_ready(prof)
    _originals_ready(sorted({s for e in prof.experiments for s in hosts.originals(e)}))


def check_resume(run_dir: Path, prof: Profile, plan: Plan,
                 without_originals: bool | None = None) -> None:
    """What resuming the run in ``run_dir`` needs here before anything runs."""
    _dirs_ready(prof)
    ids = runfiles.original_sources(plan)
    if ids and _without(without_originals):
        raise UsageError(f"--without-originals: the run in {run_dir} planned the trials of "
                         f"the reports' programs ({', '.join(ids)}); a resume runs its plan "
                         "(give their archives with --archives DIR), or start a new run "
                         "without them; nothing was run")
    _originals_ready(ids, run_dir)


#: what a failed trial's error says when the trial failed for its surroundings rather than
#: for the method it measures: the file system, copybench's --dir, a topology, their code
_DISK_ERRORS = ("No space left on device", "Disk quota exceeded", "Read-only file system")
_DIR_ERROR = re.compile(r"--dir: [^\n]*")
_ORIGINALS_SETUP = re.compile(r"^S\d+'s programs: (?:fetch or build failed|build failed|"
                              r"not prepared)[^\n]*")


def outside_cause(rec: dict[str, Any]) -> str | None:
    """The cause outside the method a trial that did not end ``ok`` failed for, in words
    that are the same for every trial it stopped, or None (the method's own failure: a
    verification mismatch, a timeout, a missed window...)."""
    if rec.get("status") == "ok":
        return None
    err = str(rec.get("error") or "")
    first = err.splitlines()[0] if err else ""
    if first.startswith("topology "):
        return first
    m = _DIR_ERROR.search(err) or _ORIGINALS_SETUP.search(err)
    if m:
        return m.group(0) if m.re is _ORIGINALS_SETUP else f"copybench {m.group(0)}"
    for text in _DISK_ERRORS:
        if text in err:
            return f"the file system: {text}"
    return None


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
    estimate: TimeEstimate
    sessions_before: int
    lock: RunLock

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
        """(trials run again after a missed window, extra attempts): runner.sweep.trials's
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

    def outside_causes(self) -> list[tuple[str, int]]:
        """Each cause outside the method that trials failed for (:func:`outside_cause`),
        with how many, most first."""
        return Counter(c for c in map(outside_cause, self.records)
                       if c is not None).most_common()

    def outside_text(self) -> str | None:
        """The causes outside the method, said once, or None."""
        causes = self.outside_causes()
        if not causes:
            return None
        n = sum(k for _, k in causes)
        return (f"{n} trial{'s' if n != 1 else ''} failed for a cause outside the method "
                "they measure: " + "; ".join(f"{c} ({k} trial{'s' if k != 1 else ''})"
                                             for c, k in causes)
                + " (their records are not measurements: fix it and make a new run)")

    def exit_code(self) -> int:
        if self.complete:
            return EXIT_OUTSIDE if self.outside_causes() else 0
        return 143 if self.outcome.interrupted == "SIGTERM" else 130


def _binary() -> Path:
    """copybench, checked before anything runs (a missing or foreign binary is bad usage:
    every trial would fail)."""
    binary = find_binary()
    if binary is None:
        raise UsageError("copybench not found: build it (make -C src) or set COPYBENCH_BIN")
    problem = binary_problem(binary)
    if problem:
        raise UsageError(problem)
    return binary


def resolve_run_dir(profile: str | None, run_dir: Path | None, resume: bool) -> Path:
    """The directory a sweep will use, known before it starts (the notebook driver needs it
    to place the executed notebook): --run-dir, the latest run of the profile (resume), or
    data/raw/<new run id>."""
    if run_dir is not None:
        problem = None if resume else runfiles.new_run_problem(Path(run_dir))
        if problem:  # before anything follows a link or creates a directory
            raise UsageError(problem)
        return Path(run_dir)
    if resume:
        name = profile_mod.load(profile).name if profile else None
        return runfiles.latest_run(name)
    if not profile:
        raise UsageError("--profile is required (or --resume with --run-dir; profiles: "
                         f"{', '.join(profile_mod.available())})")
    return Path.cwd() / "data" / "raw" / runfiles.new_run_id(profile_mod.load(profile).name)


def open_run(profile: str | None, run_dir: Path | None = None, seed: int | None = None,
             resume: bool = False, progress: bool = True, remote: RemoteSpec | None = None,
             rehearsal: bool = False, without_originals: bool | None = None) -> OpenRun:
    """Plan a new run (writing plan.json, the profile copy) or reopen an interrupted one.

    ``remote``: run the socket experiments over the ``remote`` transport (the plan says what
    that changes); the host is connected to and checked before anything is created.
    ``without_originals``: leave the reports' own programs out of a new run (their cells
    counted as skipped, with the reason); None: as ``$COPYBENCH_WITHOUT_ORIGINALS`` says."""
    if resume:
        prof, plan, run_dir, run_id, binary, rem, lock = _reopen(profile, run_dir, seed,
                                                                 remote, without_originals)
    else:
        prof, plan, run_dir, run_id, binary, rem, lock = _create(
            profile, run_dir, seed, remote, rehearsal, _without(without_originals))
    try:
        return _ready(prof, plan, run_dir, run_id, binary, rem, lock, resume, progress)
    except BaseException:
        lock.release()
        raise


def _ready(prof: Profile, plan: Plan, run_dir: Path, run_id: str, binary: Path,
           rem: RemoteHost | None, lock: RunLock, resume: bool, progress: bool) -> OpenRun:
    """The sweep of an opened run, its records loaded and its manifest written."""
    for n in plan.notes:
        _log(n)
    s = sw.Sweep(prof, plan, run_dir, run_id, binary, progress=progress)
    s.remote = rem
    s.load_records()
    srcs = runfiles.original_sources(plan)
    if srcs:  # fetched (pinned) and built before the first trial, as an unprivileged user
        s.originals = prepare_originals(srcs, log=_log)
    before = _sessions(run_dir)
    if not (run_dir / layout.MANIFEST).exists() or before:
        try:
            runfiles.write_manifest(run_dir, run_id, binary, before, remote=rem,
                                    originals=s.originals)
        except OSError as e:
            if rem is not None:
                rem.close()
            raise runfiles.RunDirError(e, run_dir, len(s.done)) from None
    return OpenRun(prof, plan, run_dir, run_id, binary, resume, s, estimate(plan), before,
                   lock)


def _reopen(profile: str | None, run_dir: Path | None, seed: int | None,
            remote: RemoteSpec | None, without_originals: bool | None = None
            ) -> tuple[Profile, Plan, Path, str, Path, RemoteHost | None, RunLock]:
    """An interrupted run, locked and checked: its plan and profile, and its remote host
    connected again."""
    run_dir = resolve_run_dir(profile, run_dir, resume=True)
    if not (run_dir / layout.PLAN).is_file():  # checked before a lock creates anything
        raise UsageError(f"--resume: {run_dir} has no {layout.PLAN} (not a run directory)")
    lock = take(run_dir, "python -m runner sweep --resume")
    try:
        prof, plan, run_id = runstate.reopen(run_dir, profile)
        if seed is not None and seed != plan.seed:
            raise UsageError(f"--seed {seed}: the run in {run_dir} was planned with "
                             f"seed {plan.seed}")
        binary = _binary()
        check_resume(run_dir, prof, plan, without_originals)
        rem = None
        if any(c.transport == "remote" for c in plan.cells.values()):
            spec = remote or inventory.saved_spec(run_dir)
            if spec is None:
                raise UsageError(f"--resume: the run in {run_dir} has remote cells: give "
                                 "--remote USER@HOST (or --inventory FILE)")
            rem = RemoteHost(spec, binary).open()
    except BaseException:
        lock.release()
        raise
    _reclaim()
    return prof, plan, run_dir, run_id, binary, rem, lock


def _reclaim() -> None:
    """Namespaces of sweeps killed together with their reaper (of any run): removed once
    their sweep, the pid in their names, is dead; said in one line."""
    gone = netns.reclaim()
    if gone:
        print(f"runner: removed {len(gone)} network namespaces left by killed sweeps (their "
              f"processes are dead): {' '.join(gone)}", file=sys.stderr, flush=True)


def _create(profile: str | None, run_dir: Path | None, seed: int | None,
            remote: RemoteSpec | None, rehearsal: bool, without_originals: bool = False
            ) -> tuple[Profile, Plan, Path, str, Path, RemoteHost | None, RunLock]:
    """A new run: the profile checked, the remote host (if any) connected and checked, then
    the run directory with its plan."""
    if not profile:
        raise UsageError("sweep: --profile is required (or --resume with --run-dir; "
                         f"profiles: {', '.join(profile_mod.available())})")
    problem = None if run_dir is None else runfiles.new_run_problem(Path(run_dir))
    if problem:  # before any work (runfiles.prepare_new checks it again, locked)
        raise UsageError(problem)
    prof = profile_mod.load(profile)  # a bad profile is rejected before anything runs
    binary = _binary()
    hosts = hosts_for(remote is not None, without_originals)
    check_new(prof, hosts)
    # connected and checked before anything is created, so a failed check is one line
    rem = RemoteHost(remote, binary).open() if remote is not None else None
    try:
        run_dir, run_id, plan, lock = runfiles.prepare_new(
            prof, run_dir, seed, binary, rehearsal, hosts)
    except OSError as e:
        if rem is not None:
            rem.close()
        raise RunnerError(f"{e.filename or run_dir}: {e.strerror or e}; the run could not "
                          "be created (no trial was run)") from None
    except BaseException:
        if rem is not None:
            rem.close()
        raise
    if rem is not None:
        try:
            inventory.save(run_dir, rem.spec, rem.describe())
        except BaseException as e:
            lock.release()
            rem.close()
            if isinstance(e, OSError):
                raise RunnerError(f"{e.filename or run_dir}: {e.strerror or e}; the run could "
                                  "not be created (no trial was run)") from None
            raise
    _reclaim()
    return prof, plan, run_dir, run_id, binary, rem, lock


def run(o: OpenRun, seal: bool = True) -> Result:
    """Run what is left of the plan; record the session; seal the run if it completed;
    release the run's lock."""
    try:
        return _run(o, seal)
    finally:
        o.lock.release()


def _run(o: OpenRun, seal: bool) -> Result:
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def session(outcome: sw.Outcome | None, error: str | None = None) -> None:
        runfiles.record_session(o.run_dir, {
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
    except runfiles.RunDirError as e:
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
            seal_run(o.run_dir)
            sealed = True
    except OSError as e:
        if not outcome.complete:
            raise runfiles.RunDirError(e, o.run_dir, len(o.sweep.done)) from None
        raise RunnerError(
            f"{e.filename or o.run_dir}: {e.strerror or e}; every planned trial is recorded "
            f"({len(o.sweep.done)} in {o.run_dir / layout.TRIALS}) but the run is not sealed: "
            f"make seal RUN={o.run_dir} when the file system has room") from None
    return Result(o.run_dir, outcome, recs, sealed)


def _sessions(run_dir: Path) -> int:
    p = run_dir / layout.SESSIONS
    # the run's own regular file, bounded (never a FIFO or a link out of the run)
    return len(utf8.json_loads(utf8.read(p, inside=run_dir))) if os.path.lexists(p) else 0

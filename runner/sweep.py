"""A sweep: plan -> run directory -> trials, round by round, resumable.

Run directory (``data/raw/<run-id>/``)::

    plan.json        the cells, the seed, the fixed rounds (1..min) in run order, the skips
    profiles/*.toml  the profile as run (a copy)
    manifest.json    the environment (runner.manifest), written before the first trial
    trials.jsonl     one record per trial, appended and fsync'd as each ends
    perf/*.json      reduced CPU profiles of the profiled trials
    sessions.json    start/end/outcome of each invocation (a run may take several)
    SHA256SUMS       written when the sweep completes (rundir.verify.seal)

Resume: the records already in ``trials.jsonl`` are skipped; the rest of the plan runs in the
same order. Adaptive rounds are re-derived from the records, so an interrupted run resumed
to completion has exactly the trials an uninterrupted one would have had.
"""

from __future__ import annotations

import errno
import json
import secrets
import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from runner import manifest as manifest_mod
from runner import plan as plan_mod
from rundir import atomic, records
from runner.adaptive import decide, metric
from runner.errors import RunnerError, UsageError
from runner.execute import Context, run_trial
from runner.plan import Cell, Plan, Trial
from runner.proc import Janitor
from runner.profile import Profile
from runner.progress import Reporter
from runner.binary import binary_methods, find_binary, repo_root  # noqa: F401
from runner.topology import Topology, TopologyError

PLAN = "plan.json"
MANIFEST = "manifest.json"
SESSIONS = "sessions.json"


class RunDirError(RunnerError):
    """A file of the run directory could not be written: one line naming the file and the
    error, how many trials are safely recorded, and the command that resumes."""

    def __init__(self, exc: OSError, run_dir: Path, recorded: int) -> None:
        self.exc, self.run_dir, self.recorded = exc, run_dir, recorded
        name = errno.errorcode.get(exc.errno or 0, "")
        super().__init__(
            f"{exc.filename or run_dir}: {exc.strerror or exc}{f' ({name})' if name else ''}; "
            f"{recorded} trial{'s' if recorded != 1 else ''} safely recorded in "
            f"{run_dir / records.TRIALS}; resume with: python -m runner sweep --resume "
            f"--run-dir {run_dir}")


def in_run_dir(exc: OSError, run_dir: Path) -> bool:
    """Whether an OSError concerns the run directory (its files, or the directory itself)."""
    name = exc.filename
    if name is None:
        return False
    try:
        Path(str(name)).resolve().relative_to(run_dir.resolve())
        return True
    except ValueError:
        return False


class Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def new_run_id(profile: str) -> str:
    now = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{profile}-{secrets.token_hex(2)}"


def _write_json(path: Path, obj: Any) -> None:
    atomic.write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


@dataclass
class Outcome:
    run_dir: Path
    complete: bool
    counts: Counter[str]
    wall_s: float
    interrupted: str | None = None


class Sweep:
    def __init__(self, profile: Profile, plan: Plan, run_dir: Path, run_id: str,
                 binary: Path, progress: bool = True) -> None:
        self.profile = profile
        self.plan = plan
        self.run_dir = run_dir
        self.run_id = run_id
        self.binary = binary
        self.progress = progress
        self.topologies: dict[str, Topology] = {}
        self.topo_errors: dict[str, str] = {}
        self.janitor: Janitor | None = None
        self.by_cell: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.done: set[str] = set()
        self.order_index = 0
        self.counts: Counter[str] = Counter()
        self.remote: Any = None  # runner.remote.Remote, for the ``remote`` transport
        # the reports' own programs, fetched and built once (runner.originals.trial.prepare)
        self.originals: dict[str, dict[str, Any]] | None = None

    # --- state from existing records -----------------------------------------------------
    def load_records(self) -> None:
        path = self.run_dir / records.TRIALS
        cut = records.repair(path)
        if cut:
            print(f"runner: resume: dropped a torn last line ({cut} bytes) of {path}",
                  file=sys.stderr)
        for r in records.read(path):
            tid = str(r.get("trial_id"))
            if tid in self.done:
                raise RunnerError(f"{path}: trial {tid} recorded twice")
            self.done.add(tid)
            self.by_cell[r["cell"]].append(r)
            self.order_index = max(self.order_index, int(r.get("order_index", -1)) + 1)

    def _values(self, cid: str, before: int) -> tuple[int, list[float]]:
        recs = [r for r in self.by_cell.get(cid, []) if 1 <= r["repetition"] < before]
        vals = [v for v in (metric(r) for r in recs) if v is not None]
        return len(recs), vals

    def round_ids(self, r: int) -> list[str]:
        if r <= self.plan.rep_min:
            return self.plan.rounds[r - 1]
        if r > self.plan.rep_max:
            return []
        active = []
        for cid in self.plan.cells:
            attempts, vals = self._values(cid, r)
            if attempts < r - 1:
                continue  # stopped earlier
            if decide(attempts, vals, self.profile.repetitions, cid).more:
                active.append(Trial(cid, r).id)
        return plan_mod.round_order(active, self.plan.seed, r)

    # --- topologies ----------------------------------------------------------------------
    def topology(self, cell: Cell) -> tuple[Topology | None, str | None]:
        t = cell.transport or "loopback"  # copy runs locally
        if t in self.topo_errors:
            return None, self.topo_errors[t]
        topo = self.topologies.get(t)
        if topo is None:
            topo = Topology(t, cell.mtu, self.janitor,
                            remote=self.remote if t == "remote" else None)
            try:
                topo.setup()
            except TopologyError as e:
                self.topo_errors[t] = str(e)
                self.note(f"runner: {e}; its trials are recorded as failed")
                return None, str(e)
            self.topologies[t] = topo
        return topo, None

    def teardown(self) -> None:
        for topo in self.topologies.values():
            topo.teardown()
        self.topologies.clear()

    def note(self, line: str) -> None:
        if self.reporter:
            self.reporter.note(line)
        else:
            print(line, file=sys.stderr, flush=True)

    # --- the loop ------------------------------------------------------------------------
    def run(self) -> Outcome:
        t0 = time.monotonic()
        self.reporter: Reporter | None = None
        ctx = Context(binary=self.binary, run_dir=self.run_dir, run_id=self.run_id,
                      seed=self.plan.seed, janitor=None, originals=self.originals)
        remaining_fixed = [tid for rnd in self.plan.rounds for tid in rnd if tid not in self.done]
        est = sum(plan_mod.trial_seconds(self.plan.cells[Trial.parse(t).cell],
                                         Trial.parse(t).repetition == 0)
                  for t in remaining_fixed)
        self.reporter = Reporter(len(remaining_fixed), est, enabled=self.progress)
        failure: RunDirError | None = None
        try:
            writer = records.Writer(self.run_dir / records.TRIALS)
        except OSError as e:
            self.reporter.close()
            raise RunDirError(e, self.run_dir, len(self.done)) from None
        interrupted: str | None = None
        old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}

        def _raise(signum: int, frame: object) -> None:
            raise Interrupted(signum)

        for s in old:
            signal.signal(s, _raise)
        complete = False
        try:
            self.janitor = Janitor()
            ctx.janitor = self.janitor
            r = 1
            while True:
                ids = self.round_ids(r)
                if not ids:
                    break
                if r > self.plan.rep_min:
                    todo = [t for t in ids if t not in self.done]
                    self.reporter.add(len(todo), sum(
                        plan_mod.trial_seconds(self.plan.cells[Trial.parse(t).cell])
                        for t in todo))
                for tid in ids:
                    if tid in self.done:
                        continue
                    trial = Trial.parse(tid)
                    cell = self.plan.cells[trial.cell]
                    self.reporter.start(f"{cell.label()} #{trial.repetition or 'perf'}")
                    topo, err = self.topology(cell)
                    rec = run_trial(ctx, cell, trial, topo, self.order_index, err)
                    if (rec["status"] != "ok" and topo is not None and topo.namespaces()
                            and not cell.is_original):  # theirs run in namespaces of their own
                        # a failed trial may leave something behind in its namespaces:
                        # remove them; the next trial gets fresh ones
                        topo.teardown()
                        self.topologies.pop(topo.transport, None)
                    writer.append(rec)
                    self.done.add(tid)
                    self.by_cell[cell.id].append(rec)
                    self.order_index += 1
                    self.counts[rec["status"]] += 1
                    self.reporter.finish_trial(plan_mod.trial_seconds(cell, trial.repetition == 0),
                                               cell.label(), rec["status"])
                r += 1
            complete = True
        except KeyboardInterrupt:
            interrupted = "SIGINT"
        except Interrupted as e:
            interrupted = str(e)
        except OSError as e:
            if not in_run_dir(e, self.run_dir):
                raise
            failure = RunDirError(e, self.run_dir, len(self.done))
        finally:
            writer.close()
            self.reporter.close()
            # cleanup must not be cut short by a second signal
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_IGN)
            try:
                self.teardown()
                if self.janitor:
                    self.janitor.close()
            finally:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                for s, h in old.items():
                    signal.signal(s, h)
        if failure is not None:
            raise failure
        return Outcome(self.run_dir, complete, self.counts, time.monotonic() - t0, interrupted)


# --- entry points ------------------------------------------------------------------------

def prepare_new(profile: Profile, run_dir: Path | None, seed: int | None,
                binary: Path, rehearsal: bool = False) -> tuple[Path, str, Plan]:
    caps = plan_mod.Capabilities.detect(binary_methods(binary))
    plan = plan_mod.make(profile, caps, seed, rehearsal)
    if not plan.cells:
        raise UsageError(f"profile {profile.path}: no valid cell on this machine"
                         f" ({'; '.join(plan.notes) or 'empty design'})")
    run_id = new_run_id(profile.name)
    if run_dir is None:
        run_dir = Path.cwd() / "data" / "raw" / run_id
    else:
        run_id = run_dir.name
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UsageError(f"--run-dir {run_dir}: exists and is not empty (use --resume to "
                         "continue it, or another directory)")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "profiles").mkdir(exist_ok=True)
    (run_dir / "profiles" / f"{profile.name}.toml").write_text(profile.text, encoding="utf-8")
    doc = {"run_id": run_id, "created_at": datetime.now(timezone.utc).isoformat(
        timespec="seconds"), "profile_path": profile.path, **plan.to_json()}
    est = plan_mod.estimate(plan)
    doc["estimate_s"] = {"min": round(est.seconds_min), "expected": round(est.seconds_expected),
                         "max": round(est.seconds_max)}
    _write_json(run_dir / PLAN, doc)
    return run_dir, run_id, plan


def prepare_resume(run_dir: Path, profile_arg: str | None) -> tuple[Profile, Plan, str]:
    from runner import profile as profile_mod
    pj = run_dir / PLAN
    if not pj.is_file():
        raise UsageError(f"--resume: {run_dir} has no {PLAN} (not a run directory)")
    if records.is_packed(run_dir):
        raise UsageError(f"--resume: {run_dir} is packed (trials.jsonl.gz, a finished, committed "
                         "run); start a new run instead")
    doc = json.loads(pj.read_text(encoding="utf-8"))
    plan = plan_mod.from_json(doc)
    copies = sorted((run_dir / "profiles").glob("*.toml"))
    if not copies:
        raise UsageError(f"--resume: {run_dir}/profiles/ has no profile copy")
    prof = profile_mod.parse(copies[0].read_text(encoding="utf-8"), str(copies[0]))
    if profile_arg is not None:
        given = profile_mod.load(profile_arg)
        if given.name != prof.name:
            raise UsageError(f"--profile {profile_arg}: the run in {run_dir} was made with "
                             f"profile {prof.name!r}")
    return prof, plan, doc["run_id"]


def original_sources(plan: Plan) -> list[str]:
    """The reports whose own programs this plan runs (cells of kind ``original:S<n>``)."""
    return sorted({c.kind.split(":", 1)[1] for c in plan.cells.values() if c.is_original})


def write_manifest(run_dir: Path, run_id: str, binary: Path, resumed: int,
                   remote: Any = None, originals: dict[str, Any] | None = None) -> None:
    name = MANIFEST if resumed == 0 else f"manifest.resume-{resumed}.json"
    # memcpy measured at every working-set size of the plan (written before the manifest)
    m = manifest_mod.collect(repo_root(), binary, sizes=manifest_mod.plan_sizes(run_dir))
    m = {"schema_version": m.pop("schema_version"), "run_id": run_id,
         "git_commit": m["git"]["commit"], "python_packages": m["python"]["packages"], **m}
    if remote is not None:  # two hosts: both in full (runner.remote)
        m["remote"] = {**remote.describe(), "hosts": remote.hosts()}
    if originals:  # their code as fetched and built: pin, origin, compiler, flags, warnings
        from runner.originals.trial import manifest_entry
        m["originals"] = manifest_entry(originals)
    _write_json(run_dir / name, m)


def record_session(run_dir: Path, entry: dict[str, Any]) -> int:
    path = run_dir / SESSIONS
    sessions = json.loads(path.read_text()) if path.exists() else []
    sessions.append(entry)
    _write_json(path, sessions)
    return len(sessions)


def latest_run(profile: str | None) -> Path:
    root = Path.cwd() / "data" / "raw"
    # a packed run (the committed reference run) is finished: never a resume candidate
    cands = sorted((p for p in root.glob("*")
                    if (p / PLAN).is_file() and not records.is_packed(p)),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for p in cands:
        if profile is None or json.loads((p / PLAN).read_text()).get("profile") == profile:
            return p
    raise UsageError("--resume: no run directory found under data/raw (give --run-dir)")

"""A run directory as the sweep makes it: a new run's ``plan.json``, profile copy and
manifest, each session's entry in ``sessions.json`` (a resumed run is checked and reopened
by :mod:`runner.sweep.runstate`).
The file names are :mod:`rundir.layout`'s; a file that cannot be written is one line
(:class:`RunDirError`) saying how many trials are safely recorded and how to resume.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rundir import atomic, layout, lock, outpath, records, utf8
from rundir.lock import RunLock
from runner.host import manifest as manifest_mod
from runner.host.binary import binary_methods, repo_root
from runner.host.errors import RunnerError, UsageError
from runner.plan.estimate import estimate
from runner.plan.expand import ONE_HOST, Hosts
from runner.host.capabilities import Capabilities
from runner.plan.cells import Plan
from runner.originals.original_trial import manifest_entry
from runner.plan.rounds import make
from runner.plan.profile import Profile
from runner.host.remotehost import RemoteHost
from runner.sweep.runlock import take


class RunDirError(RunnerError):
    """A file of the run directory could not be written: one line naming the file and the
    error, how many trials are safely recorded, and the command that resumes."""

    def __init__(self, exc: OSError, run_dir: Path, recorded: int) -> None:
        self.exc, self.run_dir, self.recorded = exc, run_dir, recorded
        name = errno.errorcode.get(exc.errno or 0, "")
        super().__init__(
            f"{exc.filename or run_dir}: {exc.strerror or exc}{f' ({name})' if name else ''}; "
            f"{recorded} trial{'s' if recorded != 1 else ''} safely recorded in "
            f"{run_dir / layout.TRIALS}; resume with: python -m runner sweep --resume "
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


def new_run_id(profile: str) -> str:
    now = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{profile}-{secrets.token_hex(2)}"


def _write_json(path: Path, obj: Any) -> None:
    atomic.write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


def new_run_problem(run_dir: Path, locked: bool = False) -> str | None:
    """Why ``run_dir`` cannot be a new run's directory (:func:`rundir.outpath.new_dir_problem`:
    nothing there or an empty directory, not a link, not inside a run), or None. A directory
    that holds something is continued with --resume if it is a run; one a sweep is writing
    now is left to the lock, which names the writer (:func:`take`), unless the caller holds
    it (``locked``)."""
    problem = outpath.new_dir_problem(run_dir, "--run-dir", "a new run", ignore=(layout.LOCK,))
    if problem and not os.path.islink(run_dir) and os.path.isdir(run_dir):
        if not locked and lock.holder(Path(run_dir)) is not None:
            return None  # being written: the lock refuses it, naming its writer
        problem += " (a run that is there is continued with --resume)"
    return problem


def prepare_new(profile: Profile, run_dir: Path | None, seed: int | None,
                binary: Path, rehearsal: bool = False, hosts: Hosts = ONE_HOST
                ) -> tuple[Path, str, Plan, RunLock]:
    """A new run directory with its plan and profile copy, locked (:mod:`runner.sweep.runlock`):
    the lock is taken first (a directory it creates goes again if the plan fails), then the
    directory is found empty, so two sweeps never share one."""
    run_id = new_run_id(profile.name)
    if run_dir is None:
        run_dir = Path.cwd() / "data" / "raw" / run_id
    else:
        run_id = run_dir.name
    problem = new_run_problem(run_dir)  # before the lock creates anything
    if problem:
        raise UsageError(problem)
    lock = take(run_dir, "python -m runner sweep")
    try:
        problem = new_run_problem(run_dir, locked=True)  # again: two sweeps never share one
        if problem:
            raise UsageError(problem)
        caps = Capabilities.detect(binary_methods(binary))
        plan = make(profile, caps, seed, rehearsal, hosts)
        if not plan.cells:
            raise UsageError(f"profile {profile.path}: no valid cell on this machine"
                             f" ({'; '.join(plan.notes) or 'empty design'})")
        try:
            _write_plan(profile, plan, run_dir, run_id)
        except BaseException:
            # the directory was empty: what the plan's writing made goes again (a profile
            # copy left by ENOSPC made it "not empty" to a new sweep and "no plan.json" to a
            # resume), and the lock's release removes a directory it created
            shutil.rmtree(run_dir / layout.PROFILES_DIR, ignore_errors=True)
            for p in run_dir.iterdir():
                if p.name == layout.PLAN or atomic.is_temporary(p):
                    p.unlink(missing_ok=True)
            raise
    except BaseException:
        lock.release()
        raise
    return run_dir, run_id, plan, lock


def _write_plan(profile: Profile, plan: Plan, run_dir: Path, run_id: str) -> None:
    copy = layout.profile_copy(run_dir, profile.name)
    copy.parent.mkdir(exist_ok=True)
    data = profile.text.encode("utf-8")
    atomic.write_bytes(copy, data)
    doc = {"run_id": run_id, "created_at": datetime.now(timezone.utc).isoformat(
        timespec="seconds"), "profile_path": profile.path, **plan.to_json(),
        # the copy's hash: a resume refuses a copy edited since (runner.sweep.runstate)
        "profile_sha256": hashlib.sha256(data).hexdigest()}
    est = estimate(plan)
    doc["estimate_s"] = {"min": round(est.seconds_min), "expected": round(est.seconds_expected),
                         "max": round(est.seconds_max)}
    _write_json(run_dir / layout.PLAN, doc)


def original_sources(plan: Plan) -> list[str]:
    """The reports whose own programs this plan runs (cells of kind ``original:S<n>``)."""
    return sorted({c.kind.split(":", 1)[1] for c in plan.cells.values() if c.is_original})


def write_manifest(run_dir: Path, run_id: str, binary: Path, resumed: int,
                   remote: RemoteHost | None = None,
                   originals: dict[str, Any] | None = None) -> None:
    name = layout.manifest_name(resumed)
    m = manifest_mod.collect(repo_root(), binary, sizes=manifest_mod.plan_sizes(run_dir))
    m = {"schema_version": m.pop("schema_version"), "run_id": run_id,
         "git_commit": m["git"]["commit"], "python_packages": m["python"]["packages"], **m}
    if remote is not None:  # two hosts: both in full (runner.host.remotehost, runner.host.hostfacts)
        m["remote"] = {**remote.describe(), "hosts": remote.hosts()}
    if originals:  # their code as fetched and built: pin, origin, compiler, flags, warnings
        m["originals"] = manifest_entry(originals)
    _write_json(run_dir / name, m)


def record_session(run_dir: Path, entry: dict[str, Any]) -> int:
    path = run_dir / layout.SESSIONS
    # read as the run's own regular file, bounded (a FIFO or a link here is refused, not read)
    sessions = utf8.json_loads(utf8.read(path, inside=run_dir)) if os.path.lexists(path) else []
    sessions.append(entry)
    _write_json(path, sessions)
    return len(sessions)


def latest_run(profile: str | None) -> Path:
    root = Path.cwd() / "data" / "raw"
    # a packed run (the committed reference run) is finished: never a resume candidate
    cands = sorted((p for p in root.glob("*")
                    if (p / layout.PLAN).is_file() and not records.is_packed(p)),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for p in cands:
        if profile is None or _planned_profile(p) == profile:
            return p
    raise UsageError("--resume: no run directory found under data/raw (give --run-dir)")


def _planned_profile(run_dir: Path) -> str | None:
    """The profile a run's plan.json names (None when it cannot be read: --resume of that
    run says what is wrong with it)."""
    try:
        doc = utf8.json_loads(utf8.read(run_dir / layout.PLAN, inside=run_dir))
    except (OSError, ValueError, utf8.BadInput):
        return None
    return doc.get("profile") if isinstance(doc, dict) else None

"""A run directory checked before ``--resume`` continues it: every file the sweep reads or
extends, against the schemas and against each other, before anything runs or is written.

* ``plan.json``: UTF-8 JSON, valid under ``rundir/schema/plan.schema.json``; each cell's id
  is the hash of its factors and its method one the runner has; the rounds are those its
  cells, seed and blocks make (:func:`runner.plan.rounds.planned_rounds`: a trial added, removed or
  moved, or the seed edited, is found);
* ``profiles/<name>.toml``: the profile the plan was made with, unedited (its SHA-256 is in
  ``plan.json``);
* ``manifest.json``: present once a trial is recorded, valid under its schema;
  ``sessions.json``: a JSON list;
* ``trials.jsonl``: every complete line a record valid under the trial schema, of this run,
  a trial of the plan (cell, repetition), recorded once, of its cell's kind and method, with
  the seed the plan gives it, and ``ok`` only where its result means ok
  (:mod:`rundir.okrule`); a torn last line is an interrupted write, cut off by the sweep;
* a sealed run (``SHA256SUMS``) still verifies.

Whatever is wrong is one line naming the file, the line where there is one, and what is
wrong (:class:`StateError`, exit 2); the run directory is left as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from rundir import layout, okrule, planfile, records, utf8
from rundir.verify import (MANIFEST_SCHEMA, load_schema, member_problems, schema_problems,
                           validator_for, verify)
from runner.plan import profile as profile_mod
from runner.trial.copybench_argv import trial_seed
from runner.host.errors import UsageError
from runner.plan.cells import Cell, Plan, Trial
from runner.plan.rounds import planned_rounds
from runner.plan.profile import COPY_METHODS, FILE_SEND_METHODS, MESSAGE_METHODS, Profile


#: a record's status (``rundir/schema/trial.schema.json``)
STATUSES = ("ok", "failed", "timeout")


class StateError(UsageError):
    """The run directory cannot be resumed as it is: one line, nothing written."""

    def __init__(self, where: Path | str, what: str, line: int | None = None) -> None:
        at = f"{where}:{line}" if line else str(where)
        super().__init__(f"--resume: {at}: {what}; nothing was run or written")


def _json(path: Path) -> Any:
    try:
        return utf8.json_loads(utf8.read(path, inside=path.parent))
    except utf8.NotUtf8 as e:
        raise StateError(path, str(e)) from None
    except utf8.BadInput as e:  # a link in the run's place, a FIFO, a file over the cap
        raise StateError(path, str(e.strerror)) from None
    except json.JSONDecodeError as e:
        raise StateError(path, f"not JSON at column {e.colno}: {e.msg}", e.lineno) from None


def _first(validator: Any, doc: Any, label: str) -> str | None:
    return _first_of(schema_problems(validator, doc, label), label)


def _first_of(problems: list[str], label: str = "record") -> str | None:
    return problems[0].removeprefix(f"{label}: ") if problems else None


def reopen(run_dir: Path, profile_arg: str | None) -> tuple[Profile, Plan, str]:
    """The checked profile, plan and run id of an interrupted run (see the module doc)."""
    pj = run_dir / layout.PLAN
    if not pj.is_file():
        raise UsageError(f"--resume: {run_dir} has no {layout.PLAN} (not a run directory)")
    if records.is_packed(run_dir):
        raise UsageError(f"--resume: {run_dir} is packed (trials.jsonl.gz, a finished, "
                         "committed run); start a new run instead")
    # what seal and verify require of a run's files (rundir.verify.member_problems), before
    # anything is read: a link is never followed out of the run, nor written through, and a
    # run with both records files would be sealed and then fail verify
    members = member_problems(run_dir)
    if members:
        where, _, what = members[0].partition(": ")
        more = f" (and {len(members) - 1} more)" if len(members) > 1 else ""
        if not os.path.lexists(run_dir / where):  # a problem of the run, not of one entry
            where, what = "", members[0]
        raise StateError(run_dir / where, what + more)
    doc = _json(pj)
    if not isinstance(doc, dict):
        raise StateError(pj, f"a JSON {type(doc).__name__}, not the plan object")
    why = _first(validator_for(load_schema(planfile.SCHEMA)), doc, layout.PLAN)
    if why:
        raise StateError(pj, why)
    plan = _plan(pj, doc)
    prof = _profile_copy(run_dir, plan, profile_arg)
    _profile_unchanged(sorted((run_dir / layout.PROFILES_DIR).glob("*.toml"))[0], doc)
    _sealed(run_dir)
    recorded = _records(run_dir, plan, doc["run_id"])
    _manifest(run_dir, recorded)
    return prof, plan, doc["run_id"]


def _method_problem(cell: Cell) -> str | None:
    if cell.kind == "copybench":
        allowed = COPY_METHODS if cell.command == "copy" else MESSAGE_METHODS + FILE_SEND_METHODS
        ok = cell.method in allowed
    elif cell.kind.startswith("peer:"):
        allowed = (cell.kind.split(":", 1)[1],)
        ok = cell.method in allowed
    else:
        allowed = (f"{cell.kind.split(':', 1)[1]}:<method>",)
        ok = cell.method.startswith(allowed[0].split("<")[0])
    return None if ok else (f"unknown method {cell.method!r} for a {cell.kind} "
                            f"{cell.command} cell (allowed: {', '.join(allowed)})")


def _plan(pj: Path, doc: dict[str, Any]) -> Plan:
    """plan.json's plan, each cell and the rounds checked."""
    try:
        plan = Plan.from_json(doc)
    except (TypeError, ValueError, KeyError) as e:
        raise StateError(pj, f"not a plan the runner can read ({e})") from None
    for cid, cell in plan.cells.items():
        why = _method_problem(cell)
        if why:
            raise StateError(pj, f"cells.{cid}: {why}")
        if cell.id != cid:
            raise StateError(pj, f"cells.{cid}: its factors hash to {cell.id}, not {cid} "
                             "(the cell was edited after the plan was made)")
    try:
        expected = planned_rounds(plan)
    except (TypeError, ValueError, KeyError) as e:
        raise StateError(pj, f"blocks: not the block design the runner reads ({e})") from None
    for r, (want, got) in enumerate(zip(expected, plan.rounds), start=1):
        if want != got:
            raise StateError(pj, f"rounds[{r}]: not the round its cells and seed {plan.seed} "
                             "make (a trial added, removed or moved, the seed or a cell "
                             "edited, or a plan of another version of the runner)")
    if len(expected) != len(plan.rounds):
        raise StateError(pj, f"rounds: {len(plan.rounds)} rounds where its cells and seed "
                         f"make {len(expected)}")
    return plan


def _profile_copy(run_dir: Path, plan: Plan, profile_arg: str | None) -> Profile:
    copies = sorted((run_dir / layout.PROFILES_DIR).glob("*.toml"))
    if not copies:
        raise UsageError(f"--resume: {run_dir / layout.PROFILES_DIR}/ has no profile copy")
    prof = profile_mod.load(str(copies[0]))  # one line (ProfileError) when damaged
    if prof.name != plan.profile:
        raise StateError(copies[0], f"profile {prof.name!r}, but {layout.PLAN} was planned "
                         f"from profile {plan.profile!r}")
    if profile_arg is not None:
        given = profile_mod.load(profile_arg)
        if given.name != prof.name:
            raise UsageError(f"--profile {profile_arg}: the run in {run_dir} was made with "
                             f"profile {prof.name!r}")
        diff = profile_mod.first_difference(prof, given)
        if diff is not None:
            key, theirs, ours = diff
            raise UsageError(f"--profile {profile_arg}: not the design the run in {run_dir} "
                             f"was planned with: {key} is {_shown(theirs)} in the run, "
                             f"{_shown(ours)} in the profile given (a run holds one design: "
                             "resume without --profile, the run keeps its own copy, or start "
                             "a new run); nothing was run or written")
    return prof


def _shown(value: Any) -> str:
    """A profile's value as its TOML says it (None: the key left out)."""
    if value is None:
        return "not set"
    return json.dumps(list(value) if isinstance(value, tuple) else value, default=str)


def _profile_unchanged(copy: Path, doc: dict[str, Any]) -> None:
    """The profile copy is the one the plan was made from (its hash in the plan; a plan of
    an older runner has none and is taken as it is): a copy edited since would seal a run
    none of whose planned cells it can make again."""
    want = doc.get("profile_sha256")
    if not isinstance(want, str):
        return
    got = hashlib.sha256(copy.read_bytes()).hexdigest()
    if got != want:
        raise StateError(copy, f"edited since the plan was made from it (its SHA-256 is "
                         f"{got[:12]}..., {layout.PLAN} names {want[:12]}...); the run can "
                         "only be resumed with the profile it was planned with")


def _sealed(run_dir: Path) -> None:
    """A sealed run (SHA256SUMS) must still verify: resuming it re-seals it."""
    if not (run_dir / layout.SUMS).is_file():
        return
    report = verify(run_dir)
    if not report.ok:
        raise StateError(run_dir / layout.SUMS, f"the run was sealed and no longer verifies: "
                         f"{report.problems[0]}")


def _manifest(run_dir: Path, recorded: int) -> None:
    path = run_dir / layout.MANIFEST
    sessions = run_dir / layout.SESSIONS
    if sessions.is_file() and not isinstance(_json(sessions), list):
        raise StateError(sessions, "not a JSON list of sessions")
    if not path.is_file():
        if recorded or sessions.is_file():
            raise StateError(path, f"missing, but {recorded} trials are recorded (the "
                             "environment they ran in would be lost)")
        return  # killed before the first trial: the manifest is written now
    why = _first(validator_for(load_schema(MANIFEST_SCHEMA)), _json(path), layout.MANIFEST)
    if why:
        raise StateError(path, why)


def _records(run_dir: Path, plan: Plan, run_id: str) -> int:
    """Check every complete line of trials.jsonl; the number of records."""
    path = run_dir / layout.TRIALS
    if not path.is_file():
        return 0
    fixed = {t for rnd in plan.rounds for t in rnd}
    seen: dict[str, int] = {}
    for line in records.lines(path):
        if line.torn:
            break  # an interrupted write: the sweep cuts it off when it resumes
        rec, n = line.record, line.number
        if rec is None:
            raise StateError(path, str(line.problem), n)
        why = (f"status {rec.get('status')!r} (allowed: {', '.join(STATUSES)})"
               if rec.get("status") not in STATUSES else _first_of(records.check(rec, "record")))
        why = why or _record_problem(rec, plan, run_id, fixed)
        if why is None and rec["trial_id"] in seen:
            why = f"trial {rec['trial_id']} recorded twice (first on line {seen[rec['trial_id']]})"
        if why:
            raise StateError(path, why, n)
        seen[rec["trial_id"]] = n
    return len(seen)


def _record_problem(rec: dict[str, Any], plan: Plan, run_id: str, fixed: set[str]
                    ) -> str | None:
    """What ties a schema-valid record to this run's plan, or what breaks it."""
    tid = rec["trial_id"]
    if rec["run_id"] != run_id:
        return f"run_id {rec['run_id']!r} is not this run's ({run_id!r})"
    try:
        trial = Trial.parse(tid)
    except ValueError:
        trial = Trial("", -1)
    cell = plan.cells.get(trial.cell)
    # rounds after the fixed ones are decided from the records (runner.sweep.loop): up to max in
    # the adaptive design; in the block design any later round of a planned cell (a stage
    # that adds rounds to the planned ones decides them the same way)
    later = (trial.repetition > len(plan.rounds) if plan.blocks is not None
             else plan.rep_min < trial.repetition <= plan.rep_max)
    if cell is None or not (tid in fixed or later):
        return f"trial {tid!r} is not a trial of this run's plan ({layout.PLAN})"
    if (rec["cell"], rec["repetition"]) != (trial.cell, trial.repetition):
        return (f"cell {rec['cell']!r}, repetition {rec['repetition']} do not match its "
                f"trial id {tid!r}")
    config = rec["config"]
    if config.get("kind") != cell.kind or config.get("method", cell.method) != cell.method:
        return (f"config says {config.get('kind')} {config.get('method')}, the plan's cell "
                f"{cell.id} is {cell.kind} {cell.method}")
    if cell.kind == "copybench" and "seed" in config \
            and config["seed"] != trial_seed(plan.seed, tid):
        return (f"config.seed {config['seed']} is not the seed plan seed {plan.seed} gives "
                f"trial {tid} ({trial_seed(plan.seed, tid)})")
    why = okrule.record_problem(rec)
    return f"status ok but {why}" if why else None

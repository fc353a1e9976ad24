"""The files of a run directory (``data/raw/<run-id>/``), by name: the one place both sides
take them from (the runner writes them, the analysis and :mod:`rundir.verify` read them)::

    plan.json                  the plan (rundir/schema/plan.schema.json, :mod:`rundir.planfile`)
    profiles/<name>.toml       the sweep profile as run (a copy)
    manifest.json              the environment, written before the first trial
    manifest.resume-<n>.json   the environment of the n-th resumed session
    trials.jsonl               one record per trial (:mod:`rundir.records`) ...
    trials.jsonl.gz            ... or, in a packed run, the same records gzip-compressed
    perf/<trial>.json          the reduced CPU profile of a profiled trial (:mod:`rundir.perf`)
    sessions.json              start, end and outcome of each invocation of the sweep
    remote.json                the remote host of a two-host run (what ``--resume`` reconnects to)
    sweep.ipynb                the executed sweep notebook (sweep.resume-<n>.ipynb after a resume)
    SHA256SUMS                 every other file's hash, written when the run is sealed
    reseals.json               each deliberate re-seal of a changed run: when, why, what changed
    .lock                      held (flock) by the one process writing the run (:mod:`rundir.lock`);
                               not part of the run: never sealed, removed when released
"""

from __future__ import annotations

from pathlib import Path

PLAN = "plan.json"
PROFILES_DIR = "profiles"
MANIFEST = "manifest.json"
MANIFEST_GLOB = "manifest*.json"  # manifest.json and every manifest.resume-<n>.json
TRIALS = "trials.jsonl"
TRIALS_PACKED = TRIALS + ".gz"
PERF_DIR = "perf"
SESSIONS = "sessions.json"
REMOTE = "remote.json"
SWEEP_NOTEBOOK = "sweep.ipynb"
SUMS = "SHA256SUMS"
RESEALS = "reseals.json"
LOCK = ".lock"


def manifest_name(resumed: int) -> str:
    """``manifest.json`` for the first session, ``manifest.resume-<n>.json`` for the n-th
    resumed one."""
    return MANIFEST if resumed == 0 else f"manifest.resume-{resumed}.json"


def sweep_notebook_name(resumed: int) -> str:
    """``sweep.ipynb`` for the first session, ``sweep.resume-<n>.ipynb`` for the n-th resumed
    one."""
    return SWEEP_NOTEBOOK if resumed == 0 else f"sweep.resume-{resumed}.ipynb"


def profile_copy(run_dir: Path, name: str) -> Path:
    """Where the sweep profile named ``name`` is kept in the run."""
    return run_dir / PROFILES_DIR / f"{name}.toml"


def perf_json(run_dir: Path, trial_id: str) -> Path:
    """The reduced CPU profile of a profiled trial."""
    return run_dir / PERF_DIR / f"{trial_id}.json"


def perf_data(run_dir: Path, trial_id: str) -> Path:
    """Where ``perf record`` writes while the trial runs (deleted once reduced)."""
    return run_dir / PERF_DIR / f"{trial_id}.perf.data"

"""A run studied once: the loaded run, its claims' verdicts, its decision readings and the
counts the book glues most, computed once per run and code and read by every notebook.

The book's own run is studied whole. A run read beside it (another machine, a rerun, the
noise study) is read for its records and its verdicts only, so ``tables=False`` leaves its
comparison tables out: a whole Study answers such a request too, and a request for the whole
Study of a run kept without its tables studies it again, whole.

:func:`build` computes a :class:`Study` from a run directory. :func:`open` returns it from
the cache under ``book/_generated/study/<run-id>/`` (``$COPYBENCH_STUDY_DIR`` names another
root), keyed by the run's content (its ``SHA256SUMS``, used only when every file of the run
still matches it: :func:`rundir.verify.sealed_sums`), its path, the code that reads and judges
it (every source file under ``analysis/``, ``rundir/`` and ``decision/``) and the Python and
library versions; a run that is not sealed as it is gets built every time and never kept.

An entry is ``study.pickle`` (what the notebooks load) with ``facts.json`` and
``readings.csv`` beside it for people, each written whole or not at all
(:mod:`rundir.atomic`). A pickle runs whatever code it names when loaded, so an entry is read
only from a directory of the user's own that no one else may write to, as a regular file (never
through a link), and only when the key it holds is the key of the run and code asked for;
anything else is no entry, and the run is studied again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import stat
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import claims as C
from analysis.claims import robustness as RB
from analysis.comparison import machines as MA
from analysis.comparison import stability as ST
from analysis.claims.base import stream_cells
from analysis.claims.baselines import crossovers
from analysis.loading.run import MESSAGE_METHODS, BadRun, Run, load_run
from analysis.words import counts as CN
from analysis.words import findings as F
from rundir import atomic, utf8
from rundir import catalog as CA
from rundir.verify import sealed_sums

ROOT = Path(__file__).resolve().parents[2]
_CODE_DIRS = (ROOT / "analysis", ROOT / "rundir", ROOT / "decision")
_CODE_SUFFIXES = (".py", ".json", ".toml", ".tsv")
_LIBRARIES = ("numpy", "scipy", "pandas", "statsmodels")
#: the format of an entry (in the key, so an entry of another format is never read)
_FORMAT = b"copybench study 1 (pickle)\0"
PICKLE, FACTS, READINGS = "study.pickle", "facts.json", "readings.csv"


@dataclass
class Study:
    """One run, read and judged once."""

    run: Run
    results: list[C.ClaimResult]  # analysis.claims.evaluate: the final verdicts
    readings: pd.DataFrame  # analysis.words.counts.message_table: each comparison's reading
    # the same against sendmsg (the copy-avoiding methods against one kernel copy, no memcpy)
    readings_sendmsg: pd.DataFrame = field(default_factory=pd.DataFrame)
    # analysis.words.counts.file_table: each file method against read-write, with its reading
    file_readings: pd.DataFrame = field(default_factory=pd.DataFrame)
    facts: dict[str, Any] = field(default_factory=dict)
    # analysis.claims.robustness.readings: each claim under every receive size the run
    # measured (empty for a run of one receive size)
    receiver: list[RB.Reading] = field(default_factory=list)
    key: str | None = None  # the cache key it was built under; None: a run not sealed as it is
    # False: the run, its verdicts and A/A pairs only (readings, file_readings, receiver,
    # counts, curve, curve_sendmsg and crossovers left empty)
    tables: bool = True
    # analysis.claims.twin_pairs: the run's A/A pairs (empty for a run without A/A blocks);
    # made for a run beside the book's too (the A/A rate pools every committed run's)
    aa: pd.DataFrame = field(default_factory=pd.DataFrame)
    # analysis.words.counts.book_counts: every count the book prints (its glued texts are
    # facts["counts"])
    counts: CN.BookCounts | None = None
    # the message comparisons of the decision map and its ratio figures
    # (analysis.words.counts.message_comparisons, each row named by its configuration),
    # against send and against sendmsg
    curve: pd.DataFrame = field(default_factory=pd.DataFrame)
    curve_sendmsg: pd.DataFrame = field(default_factory=pd.DataFrame)
    # where each method's ratio to send crosses 1 between measured sizes, at the lowest thread
    # count (analysis.claims.baselines.crossovers), each with whether the decided comparisons
    # around it agree (analysis.words.findings.crossover_agreement)
    crossovers: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def path(self) -> Path:
        return self.run.path

    @property
    def run_id(self) -> str:
        return self.run.run_id


def facts_of(run: Run, results: list[C.ClaimResult], verified: bool) -> dict[str, Any]:
    """The counts the notebooks glue most, as plain JSON values."""
    return {
        "run_id": run.run_id,
        "trials": int(len(run.trials)),
        "measured": int(len(run.measured)),
        "verified": verified,
        "claims": len({r.claim for r in results}),
        "verdicts": {v: sum(r.verdict == v for r in results) for v in CN.VERDICTS},
    }


def code_digest() -> bytes:
    """The version of the code a Study depends on: every source file under ``analysis/``,
    ``rundir/`` and ``decision/`` (name and bytes), and the Python and library versions."""
    digest = hashlib.sha256(_FORMAT)
    for d in _CODE_DIRS:
        for path in sorted(p for p in d.rglob("*") if p.is_file() and p.suffix in _CODE_SUFFIXES):
            digest.update(f"\0{path.relative_to(ROOT)}\0".encode())
            digest.update(path.read_bytes())
    versions = [sys.version] + [getattr(sys.modules.get(m) or __import__(m), "__version__", "?")
                                for m in _LIBRARIES]
    digest.update("\0".join(versions).encode())
    return digest.digest()


def key(run_dir: Path, sums: bytes | None) -> str | None:
    """The cache key of the run at ``run_dir`` (resolved) whose sealed sums are ``sums``;
    None for a run not sealed as it is."""
    if sums is None:
        return None
    digest = hashlib.sha256(code_digest())
    digest.update(f"\0{run_dir}\0".encode())
    digest.update(sums)
    return digest.hexdigest()


def _resolved(run_dir: str | Path) -> Path:
    path = Path(run_dir).expanduser().resolve()
    if not path.is_dir():
        raise BadRun(f"{run_dir}: not a run directory (expected data/raw/<run-id>/)")
    return path


def _sums(path: Path) -> bytes | None:
    try:
        return sealed_sums(path)
    except (OSError, ValueError):  # a SHA256SUMS that cannot be read is no seal
        return None


def build(run_dir: str | Path, *, tables: bool = True) -> Study:
    """The run at ``run_dir`` studied now (never from the cache): loaded once, its claims
    evaluated once, and (``tables``) its message and file comparisons and its claims under
    each receive size read once. A damaged run is a :class:`BadRun`."""
    path = _resolved(run_dir)
    sums = _sums(path)
    run = load_run(path)
    results = C.evaluate(run)
    facts = facts_of(run, results, sums is not None)
    aa = C.twin_pairs(run)
    if not tables:
        return Study(run, results, pd.DataFrame(), facts=facts, key=key(path, sums),
                     tables=False, aa=aa)
    readings = CN.message_table(run)
    readings_sendmsg = CN.message_table(run, "sendmsg")
    receiver = RB.readings(run, base=results) if len(RB.receive_sizes(run)) > 1 else []
    counts = CN.book_counts(run, results, readings)
    facts["counts"] = counts.glue()
    return Study(run, results, readings, readings_sendmsg, CN.file_table(run),
                 facts, receiver, key(path, sums), counts=counts, aa=aa,
                 curve=F.with_configuration(CN.message_comparisons(run, readings)),
                 curve_sendmsg=F.with_configuration(CN.message_comparisons(run, readings_sendmsg)),
                 crossovers=_crossovers(run, readings))


def _crossovers(run: Run, readings: pd.DataFrame) -> pd.DataFrame:
    cells = stream_cells(run, udp=True)  # TCP and udp-forward
    one = cells[cells["threads"] == int(cells["threads"].min())] if len(cells) else cells
    xo = crossovers(run, one, "send", MESSAGE_METHODS, CN.MSG_FACTORS)
    return F.crossover_agreement(F.with_configuration(xo), readings, CN.MSG_FACTORS) \
        if len(xo) else xo


def cache_root() -> Path | None:
    configured = os.environ.get("COPYBENCH_STUDY_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    return ROOT / "book" / "_generated" / "study"


def _private(where: Path) -> bool:
    """``where`` is a directory (not a link) of this user's that no one else may write."""
    try:
        st = os.lstat(where)
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _kept(where: Path, k: str) -> Study | None:
    """The entry in ``where`` when it is this key's Study, else None."""
    if not (_private(where.parent) and _private(where)):
        return None
    try:
        kept_key, study = pickle.loads(utf8.read_bytes(where / PICKLE, inside=where))
    except Exception:  # none, a link, a FIFO, too large, cut short, of code since changed
        return None
    return study if kept_key == k and isinstance(study, Study) else None


def _keep(where: Path, study: Study) -> None:
    """Write the entry, each file whole or not at all; a cache that cannot be written only
    costs the next build its time."""
    try:
        where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        where.mkdir(mode=0o700, exist_ok=True)
        if not (_private(where.parent) and _private(where)):
            return
        atomic.write_text(where / FACTS, json.dumps(study.facts, indent=1, sort_keys=True) + "\n")
        buf = io.StringIO()
        study.readings.to_csv(buf, index=False)
        atomic.write_text(where / READINGS, buf.getvalue())
        atomic.write_bytes(where / PICKLE, pickle.dumps((study.key, study),
                                                        protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass


def open(run_dir: str | Path, *, tables: bool = True) -> Study:  # noqa: A001 (S.open(run_dir))
    """The Study of the run at ``run_dir``: the cached one when the run and the code are
    those it was built from (and it holds the tables, where ``tables`` asks for them), else
    :func:`build` (kept for the next call). ``tables=False``: the run and its verdicts are
    all that is read of it (a run beside the book's)."""
    path = _resolved(run_dir)
    root = cache_root()
    k = key(path, _sums(path))
    where = root / path.name if root is not None else None
    if where is not None and k is not None:
        kept = _kept(where, k)
        if kept is not None and (kept.tables or not tables):
            return kept
    study = build(path, tables=tables)
    if where is not None and study.key is not None:
        _keep(where, study)
    return study


def classes(study: Study) -> list[tuple[MA.Machine, Study]]:
    """:func:`analysis.comparison.machines.classes` of the study's run, each run read
    through its own Study."""
    return _machines(MA.classes, study)


def beside(study: Study) -> list[tuple[MA.Machine, Study]]:
    """:func:`analysis.comparison.machines.beside` of the study's run, each run read
    through its own Study."""
    return _machines(MA.beside, study)


def claim_runs(study: Study) -> list[CA.Entry]:
    """The catalog entries of the study's run and the committed runs beside it that test
    the claims, name order (the stability table's runs and the artifact appendix's)."""
    entries = [e for e in MA.siblings(study.path) if e.tests_claims]
    own = MA.entry_of(study.run_id, study.path.parent)
    if own is not None:
        entries.append(own)
    return sorted(entries, key=lambda e: e.run_id)


def stability(study: Study, revised: datetime) -> tuple[pd.DataFrame, list[ST.RunInfo]]:
    """The stability table's long rows and runs (:mod:`analysis.comparison.stability`) for
    :func:`claim_runs`, each read through its own Study (this one's results for its own
    run)."""
    here = study.path.resolve()

    def results(d: Path) -> list[C.ClaimResult]:
        return study.results if Path(d).resolve() == here else open(d, tables=False).results
    return ST.of_entries(claim_runs(study), results, revised)


def _machines(choose: Any, study: Study) -> list[tuple[MA.Machine, Study]]:
    opened: dict[Path, Study] = {}

    def load(d: str | Path) -> Run:
        s = open(d, tables=False)
        opened[s.path] = s
        return s.run
    return [(m, opened[m.run.path]) for m in choose(study.run, load=load)]


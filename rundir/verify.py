"""Seal a run directory with a SHA-256 manifest, and verify a run against it.

`seal(run_dir)` writes `SHA256SUMS` (the format `sha256sum -c` reads) over every regular
file of the run: a run never sealed, or one that still verifies against its seal apart from
the files a command adds after sealing (`ADDED_AFTER_SEALING`); any other change is refused
with the files named, unless re-sealed deliberately with a reason (recorded in
`reseals.json`). A run whose records break the ok rule is never sealed. `verify(run_dir)` checks, without changing anything:

* every file listed in `SHA256SUMS` exists and has its recorded hash, and no file of the run
  is missing from the list (an added, edited or removed file is found);
* `manifest.json` (and any `manifest.resume-N.json`) is JSON and valid under
  `rundir/schema/manifest.schema.json`;
* `plan.json` is JSON and valid under `rundir/schema/plan.schema.json`;
* every line of `trials.jsonl` is a JSON object valid under `rundir/schema/trial.schema.json`,
  trial ids are unique, every record's `run_id` is the run's (the manifest's `run_id`,
  else the first record's), and every `ok` record means ok (:mod:`rundir.okrule`, the rule
  the runner marks a trial ok by: bytes moved, the window met, no verification mismatch, a
  possible throughput);
* the run's other JSON files are strict JSON of their kind (:data:`JSON_MEMBERS`: each
  `perf/<trial>.json`, `sessions.json`, `remote.json`, `reseals.json`).

A run re-sealed deliberately says so in its report's summary (``re-sealed N times``, the
last time's reason and changes, from `reseals.json`): a seal over changed files is not the
seal the sweep made.

Every file of the run is read as the run's own (:func:`rundir.utf8.read_bytes`,
:func:`rundir.records.lines`): never through a symbolic link, never a FIFO or a device, a
JSON file at most 64 MiB and a record line at most :data:`rundir.records.MAX_LINE_BYTES`.

A reader of the run (``make book``, ``make compare``: :mod:`rundir.gate`) calls
``verify(run_dir, cache=True)``: the files are re-hashed every time (a fraction of a second),
and the schema and record checks, which take most of the time, are skipped when the same
``SHA256SUMS`` was checked before, with every file matching it, under the same schemas and the
same checking code (the key is the SHA-256 of all three; see :func:`cache_key`). A changed file
no longer matches its hash, and a re-sealed run has another key, so a tampered run never reuses
an earlier result. ``python -m rundir verify`` (``make verify``) always checks everything.

The lock file of a run being written (:mod:`rundir.lock`) is not part of the run: never
sealed, never checked. The command line is :mod:`rundir.cli` (which takes the lock and
refuses to seal or pack a run that is not finished).

A packed run keeps its records in `trials.jsonl.gz`; `verify` reads it the same way.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from rundir import atomic, layout, okrule, planfile, records, utf8
from rundir.inside import open_inside, walk
# the schema helpers and paths, also imported from here (rundir.schemas owns them)
from rundir.schemas import (MANIFEST_SCHEMA, SCHEMA_DIR, TRIAL_SCHEMA, load_schema,  # noqa: F401
                            schema_problems, validator_for)

_CHUNK = 1 << 20


class RunDirUsageError(Exception):
    """The run directory cannot be used at all (missing, not a directory)."""


@dataclass
class Report:
    """What `verify` found. `ok` is true when no problem was found."""

    run_dir: Path
    files_checked: int = 0
    records_checked: int = 0
    problems: list[str] = field(default_factory=list)
    #: the schema and record checks were not repeated: an earlier check of the same
    #: SHA256SUMS, schemas and code passed (:func:`verify` with ``cache=True``)
    cached: bool = False
    #: the run's deliberate re-seals (``reseals.json``), oldest first: each ``at``,
    #: ``reason`` and ``changed``
    reseals: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        n = len(self.problems)
        state = "ok" if self.ok else f"FAILED ({n} problem{'' if n == 1 else 's'})"
        records = (f"{self.records_checked} records checked"
                   + (" (an earlier check of the same SHA256SUMS, reused)" if self.cached else ""))
        return (f"verify {self.run_dir}: {state}; {self.files_checked} files hashed, "
                f"{records}{_resealed_text(self.reseals)}")


def _resealed_text(reseals: list[dict[str, Any]]) -> str:
    """``; re-sealed 2 times (reseals.json; the last at T: 'why', changed: a, b)``, or ""."""
    if not reseals:
        return ""
    last = reseals[-1]
    changed = last.get("changed")
    changed = ", ".join(str(c) for c in changed[:5]) + (" ..." if len(changed) > 5 else "") \
        if isinstance(changed, list) else "not said"
    n = len(reseals)
    reason = " ".join(str(last.get("reason")).split())[:200]
    return (f"; re-sealed {n} time{'' if n == 1 else 's'} ({layout.RESEALS}; the last at "
            f"{last.get('at')}: {reason!r}, changed: {changed})")


def _require_dir(run_dir: Path | str) -> Path:
    path = Path(run_dir)
    if not path.is_dir():
        raise RunDirUsageError(f"run directory {str(path)!r} does not exist or is not a directory")
    return path


def sha256_file(path: Path, inside: Path | None = None) -> str:
    """The SHA-256 of a file; below ``inside`` (the run) never through a symbolic link
    (:func:`rundir.inside.open_inside`)."""
    digest = hashlib.sha256()
    with os.fdopen(open_inside(path, inside), "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _run_files(run_dir: Path) -> Iterator[tuple[str, Path]]:
    """(relative POSIX path, path) of every entry under run_dir that is not a directory (a
    symbolic link is one, never followed: :func:`rundir.inside.walk`) except SHA256SUMS and
    the lock file of a writer (:mod:`rundir.lock`), sorted."""
    for rel, path, mode in walk(run_dir):
        if rel in (layout.SUMS, layout.LOCK) or stat.S_ISDIR(mode):
            continue
        yield rel, path


def _regular(path: Path) -> bool:
    """A regular file at ``path`` itself (a link to one is not)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def member_problems(run_dir: Path | str) -> list[str]:
    """A run holds its own bytes, once: no symbolic link (to a file or a directory), FIFO,
    device or socket among its entries, and its records in one file. Part of
    :func:`content_problems`; a resume checks it before it reads anything
    (:mod:`runner.sweep.runstate`)."""
    root = _require_dir(run_dir)
    problems = []
    for rel, path, mode in walk(root):
        if rel == layout.LOCK or stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            continue
        kind = "a symbolic link" if stat.S_ISLNK(mode) else utf8.kind_of(mode)
        problems.append(f"{rel}: not a regular file ({kind}); a run directory holds only "
                        "regular files")
    if _regular(root / layout.TRIALS) and _regular(root / layout.TRIALS_PACKED):
        problems.append(f"both {layout.TRIALS} and {layout.TRIALS_PACKED}: a run keeps its "
                        "records in one of them")
    return problems


#: The files a command adds to a run after the run was sealed, then seals again: ``seal``
#: accepts them where the rest of the run still verifies against its seal. The executed sweep
#: notebook (``runner notebook`` copies it in after its sweep sealed the run), and the packed
#: records of ``make pack`` (``trials.jsonl.gz`` in place of ``trials.jsonl``, accepted only
#: when it decompresses to the sealed ``trials.jsonl``).
ADDED_AFTER_SEALING = ("sweep.ipynb", "sweep.resume-<n>.ipynb", layout.TRIALS_PACKED)
_SWEEP_NOTEBOOK = re.compile(r"sweep(\.resume-[1-9][0-9]*)?\.ipynb")


def write_seal(run_dir: Path | str) -> Path:
    """Write run_dir/SHA256SUMS over every file of the run as it is now; return its path.

    No check: for the writer of the run only (the sweep, which holds the run's lock and
    checked the run's seal when it opened it, :mod:`runner.sweep.runstate`). Symbolic links are
    refused: a run holds its own bytes. Replaced atomically (a failure leaves the old list).
    """
    root = _require_dir(run_dir)
    target = root / layout.SUMS
    atomic.write_text(target, _sums_text(root))
    return target


def changed_since_sealed(run_dir: Path | str) -> list[str]:
    """What changed since the run was sealed, as ``<file> (changed|added|removed)``, apart
    from :data:`ADDED_AFTER_SEALING`; empty for a run never sealed."""
    root = _require_dir(run_dir)
    sums_path = root / layout.SUMS
    if not _regular(sums_path):
        return []
    problems: list[str] = []
    sums = _parse_sums(utf8.read_bytes(sums_path, inside=root).decode("utf-8", "replace"),
                       problems)
    if problems:
        return [f"{layout.SUMS} (damaged: {problems[0]})"]
    present = {rel: path for rel, path in _run_files(root) if not atomic.is_temporary(path)}
    changed = []
    for rel, digest in sums.items():
        path = present.get(rel)
        if path is None:
            if not (rel == layout.TRIALS and _packed_from(root, digest, sums)):
                changed.append(f"{rel} (removed)")
        elif not _regular(path) or sha256_file(path, root) != digest:
            changed.append(f"{rel} (changed)")
    for rel in present:
        if rel not in sums and not _SWEEP_NOTEBOOK.fullmatch(rel) and not (
                rel == layout.TRIALS_PACKED and layout.TRIALS in sums):
            changed.append(f"{rel} (added)")
    return changed


def _packed_from(root: Path, digest: str, sums: dict[str, str]) -> bool:
    """trials.jsonl.gz is unlisted and decompresses to the sealed trials.jsonl."""
    packed = root / layout.TRIALS_PACKED
    if layout.TRIALS_PACKED in sums or not _regular(packed):
        return False
    try:
        return records.content_sha256(packed) == digest
    except (OSError, EOFError, zlib.error):
        return False


def seal(run_dir: Path | str, reseal: str | None = None) -> Path:
    """Seal the run (SHA256SUMS over every file); return the list's path.

    Only what was never sealed, or what still verifies against its seal apart from
    :data:`ADDED_AFTER_SEALING`, is sealed; any other change is refused, naming the files
    (:class:`RunDirUsageError`), unless ``reseal`` gives the reason for a deliberate re-seal,
    which is then recorded in the run (``reseals.json``: when, why, what had changed). A run
    with a record that breaks the ok rule is never sealed (``verify`` would fail it).
    """
    root = _require_dir(run_dir)
    changed = changed_since_sealed(root)
    if changed and not reseal:
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        raise RunDirUsageError(
            f"{root} changed since it was sealed: {', '.join(changed[:5])}{more}; only a run "
            "that still verifies against its seal is sealed again (apart from "
            f"{', '.join(ADDED_AFTER_SEALING)}); to re-seal it deliberately: python -m "
            f"rundir seal {root} --reseal REASON")
    bad = content_problems(root)
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise RunDirUsageError(f"{root}: {bad[0]}{more}; only a run that verify would pass "
                               "is sealed (the same checks: rundir.verify.content_problems)")
    if changed and reseal:
        _record_reseal(root, reseal, changed)
    return write_seal(root)


def _record_reseal(root: Path, reason: str, changed: list[str]) -> None:
    path = root / layout.RESEALS
    try:
        done = utf8.json_loads(utf8.read(path, inside=root)) if os.path.lexists(path) else []
    except (OSError, ValueError):  # a link (never followed), not UTF-8, not JSON
        raise RunDirUsageError(f"{path}: not a readable JSON list of re-seals") from None
    if not isinstance(done, list):
        raise RunDirUsageError(f"{path}: not a JSON list of re-seals")
    done.append({"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "reason": reason, "changed": changed})
    atomic.write_text(path, json.dumps(done, indent=1) + "\n")


def _sums_text(root: Path, leaving: str | None = None) -> str:
    """SHA256SUMS for the files of root, without ``leaving`` (a file about to be removed)."""
    lines = []
    for rel, path in _run_files(root):
        if rel == leaving or atomic.is_temporary(path):
            continue
        if not _regular(path):
            raise RunDirUsageError(f"{rel}: not a regular file; a run directory holds only regular files")
        if "\n" in rel or "\\" in rel:
            raise RunDirUsageError(f"{rel!r}: file names with newlines or backslashes cannot be sealed")
        lines.append(f"{sha256_file(path, root)}  {rel}\n")
    return "".join(lines)


def _parse_sums(text: str, problems: list[str]) -> dict[str, str]:
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            problems.append(f"{layout.SUMS}:{number}: not '<sha256>  <path>'")
            continue
        rel = rel.removeprefix("*")
        if rel in sums:
            problems.append(f"{layout.SUMS}:{number}: {rel} listed twice")
        sums[rel] = digest
    return sums


def _check_hashes(root: Path, report: Report) -> bytes | None:
    """Every file against SHA256SUMS; the SHA256SUMS read (None when there is none)."""
    sums_path = root / layout.SUMS
    if not os.path.lexists(sums_path):
        report.problems.append(f"{layout.SUMS} missing: seal the run first (make seal RUN={root})")
        return None
    try:
        listed = utf8.read_bytes(sums_path, inside=root)
    except OSError as exc:
        report.problems.append(f"{layout.SUMS}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        text = listed.decode("utf-8")
    except UnicodeDecodeError:
        report.problems.append(f"{layout.SUMS}: not UTF-8 text")
        return None
    sums = _parse_sums(text, report.problems)
    present = {rel: path for rel, path in _run_files(root)}
    for rel, digest in sums.items():
        path = present.get(rel)
        if path is None or not _regular(path):
            report.problems.append(f"{rel}: listed in {layout.SUMS} but missing"
                                   + ("" if path is None else " (a symbolic link here, never "
                                      "followed)" if path.is_symlink() else " (not a regular "
                                      "file here)"))
            continue
        report.files_checked += 1
        if sha256_file(path, root) != digest:
            report.problems.append(f"{rel}: SHA-256 differs from {layout.SUMS} (file changed)")
    for rel in present:
        if rel not in sums:
            report.problems.append(f"{rel}: not listed in {layout.SUMS} (file added after sealing)")
    return listed


def _check_manifest(root: Path, report: Report) -> str | None:
    """Validate manifest.json (required) and any manifest.resume-N.json; return the run_id."""
    if not _regular(root / layout.MANIFEST):
        report.problems.append(f"{layout.MANIFEST} missing")
    validator = validator_for(load_schema(MANIFEST_SCHEMA))
    run_id: str | None = None
    for path in sorted(p for p in root.glob(layout.MANIFEST_GLOB) if _regular(p)):
        try:
            manifest = utf8.json_loads(utf8.read(path, inside=root))
        except (ValueError, json.JSONDecodeError) as exc:  # not UTF-8 (NotUtf8), not JSON
            report.problems.append(f"{path.name}: not JSON ({exc})")
            continue
        except OSError as exc:
            report.problems.append(f"{path.name}: cannot be read ({exc.strerror or exc})")
            continue
        report.problems.extend(schema_problems(validator, manifest, path.name))
        if path.name == layout.MANIFEST and isinstance(manifest, dict):
            value = manifest.get("run_id")
            run_id = value if isinstance(value, str) else None
    return run_id


def _check_plan(root: Path, report: Report) -> None:
    """Validate plan.json (required)."""
    path = root / layout.PLAN
    if not _regular(path):
        report.problems.append(f"{layout.PLAN} missing")
        return
    try:
        plan = utf8.json_loads(utf8.read(path, inside=root))
    except (ValueError, json.JSONDecodeError) as exc:  # not UTF-8 (NotUtf8), not JSON
        report.problems.append(f"{layout.PLAN}: not JSON ({exc})")
        return
    except OSError as exc:
        report.problems.append(f"{layout.PLAN}: cannot be read ({exc.strerror or exc})")
        return
    report.problems.extend(schema_problems(validator_for(load_schema(planfile.SCHEMA)), plan,
                                           layout.PLAN))


#: the run's JSON files besides its manifests and plan (checked under their schemas), each
#: glob with the JSON type its document is: read as strict JSON by :func:`_check_json_members`
JSON_MEMBERS: tuple[tuple[str, type], ...] = (
    (f"{layout.PERF_DIR}/*.json", dict), (layout.SESSIONS, list), (layout.REMOTE, dict),
    (layout.RESEALS, list))


def _json_member(root: Path, path: Path, kind: type, report: Report) -> Any:
    """One of the run's JSON files, strict JSON of ``kind``; None (its problem reported,
    named by its path in the run) when it is not."""
    rel = path.relative_to(root).as_posix()
    try:
        doc = utf8.json_loads(utf8.read(path, inside=root))
    except OSError as exc:  # a link, a FIFO, too large: the member check names it too
        report.problems.append(f"{rel}: cannot be read ({exc.strerror or exc})")
        return None
    except ValueError as exc:  # not UTF-8 (NotUtf8), not strict JSON
        report.problems.append(f"{rel}: not JSON ({exc})")
        return None
    if not isinstance(doc, kind):
        report.problems.append(f"{rel}: a JSON {type(doc).__name__}, not the JSON "
                               f"{'object' if kind is dict else 'list'} this file holds")
        return None
    return doc


def _check_json_members(root: Path, report: Report) -> None:
    """Every file of :data:`JSON_MEMBERS` that the run has is strict JSON of its kind."""
    for pattern, kind in JSON_MEMBERS:
        for path in sorted(p for p in root.glob(pattern) if _regular(p)):
            _json_member(root, path, kind, report)


def _read_reseals(root: Path, report: Report) -> None:
    """The run's re-seals (``reseals.json``) into the report, for its summary; a file that
    is not a JSON list of objects is a problem (reported by :func:`_check_json_members`)."""
    path = root / layout.RESEALS
    if not _regular(path):
        return
    quiet = Report(run_dir=root)
    done = _json_member(root, path, list, quiet)
    report.reseals = [r for r in done if isinstance(r, dict)] if done is not None else []


def _check_trials(root: Path, run_id: str | None, report: Report) -> None:
    path = records.trials_file(root)
    if path is None:
        report.problems.append(f"{layout.TRIALS} missing")
        return
    seen: dict[str, int] = {}
    try:
        _check_records(path, run_id, seen, report)
    except (OSError, EOFError, zlib.error) as exc:  # a damaged .gz stream
        report.problems.append(f"{path.name}: cannot be read to the end ({exc})")


def _check_records(path: Path, run_id: str | None, seen: dict[str, int],
                   report: Report) -> None:
    for line in records.lines(path):
        label = f"{path.name}:{line.number}"
        record = line.record
        if record is None:
            report.problems.append(f"{label}: {line.problem}")
            continue
        report.records_checked += 1
        report.problems.extend(records.check(record, label))
        trial_id = record.get("trial_id")
        if isinstance(trial_id, str):
            if trial_id in seen:
                report.problems.append(
                    f"{label}: trial_id {trial_id!r} already used on line {seen[trial_id]}")
            seen.setdefault(trial_id, line.number)
        why = okrule.record_problem(record)
        if why:
            report.problems.append(f"{label}: status ok but {why}")
        rec_run = record.get("run_id")
        if isinstance(rec_run, str):
            if run_id is None:
                run_id = rec_run  # no run_id in the manifest: the first record's is the run's
            elif rec_run != run_id:
                report.problems.append(f"{label}: run_id {rec_run!r} is not the run's {run_id!r}")
    if report.records_checked == 0:
        report.problems.append(f"{path.name}: no records")


#: what the result of the schema and record checks depends on besides the run's bytes
_CHECKER_FILES = sorted([*Path(__file__).resolve().parent.glob("*.py"), *SCHEMA_DIR.glob("*.json")])


def cache_dir() -> Path | None:
    """Where passed checks are remembered: ``$COPYBENCH_VERIFY_CACHE`` (empty: nowhere), else
    ``build/verify-cache/`` of the checkout this package is in."""
    configured = os.environ.get("COPYBENCH_VERIFY_CACHE")
    if configured is not None:
        return Path(configured) if configured else None
    return Path(__file__).resolve().parent.parent / "build" / "verify-cache"


def cache_key(sums: bytes) -> str:
    """SHA-256 over a run's SHA256SUMS and the checker (this package's code and schemas).
    Valid only once every file of the run has been found to match that SHA256SUMS."""
    digest = hashlib.sha256(b"copybench verify cache 1\0")
    digest.update(sums)
    for path in _CHECKER_FILES:
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cached(key: str, report: Report) -> bool:
    where = cache_dir()
    if where is None:
        return False
    try:  # a FIFO or link planted in the cache is no entry (bounded, never followed)
        entry = json.loads(utf8.read_bytes(where / f"{key}.json", inside=where))
        report.records_checked = int(entry["records_checked"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    report.cached = True
    return True


def _remember(key: str, report: Report) -> None:
    where = cache_dir()
    if where is None:
        return
    try:
        where.mkdir(parents=True, exist_ok=True)
        atomic.write_text(where / f"{key}.json", json.dumps(
            {"run_dir": str(report.run_dir), "records_checked": report.records_checked}) + "\n")
    except OSError:
        pass  # a cache that cannot be written only costs the next reader time


def sealed_sums(run_dir: Path | str) -> bytes | None:
    """The run's SHA256SUMS when every file of the run matches it (re-hashed now), else None:
    the run's content, named by a hash a changed file cannot keep."""
    root = _require_dir(run_dir)
    report = Report(run_dir=root)
    sums = _check_hashes(root, report)
    return sums if report.ok else None


def passed_before(run_dir: Path | str) -> bool:
    """Every file of the run matches its SHA256SUMS, and that SHA256SUMS passed the schema
    and record checks before (same schemas, same code): the run verifies, found in well
    under a second."""
    root = _require_dir(run_dir)
    report = Report(run_dir=root)
    sums = _check_hashes(root, report)
    return sums is not None and report.ok and _cached(cache_key(sums), report)


def _check_members(root: Path, report: Report) -> None:
    """A run holds its own bytes: no symbolic link (to a file or a directory) among them."""
    report.problems.extend(member_problems(root))


def content_problems(run_dir: Path | str) -> list[str]:
    """What makes the run invalid apart from its seal: the one decision of what a valid run
    is, which ``seal`` (before it signs) and ``verify`` (after the hashes) both make. No
    symbolic link among its files; ``manifest.json`` and ``plan.json`` strict JSON, valid
    under their schemas; exactly one records file, every line a strict JSON record valid
    under the trial schema (finite numbers, no key twice), trial ids unique, one run id, the
    ok rule kept."""
    root = _require_dir(run_dir)
    report = Report(run_dir=root)
    _check_members(root, report)
    run_id = _check_manifest(root, report)
    _check_plan(root, report)
    _check_trials(root, run_id, report)
    _check_json_members(root, report)
    return report.problems


def verify(run_dir: Path | str, cache: bool = False) -> Report:
    """Check run_dir against its SHA256SUMS and the record schemas; see the module doc.
    With ``cache``, the schema and record checks of a run whose files all match a
    SHA256SUMS checked before (same schemas, same code) are not repeated."""
    root = _require_dir(run_dir)
    report = Report(run_dir=root)
    sums = _check_hashes(root, report)
    _read_reseals(root, report)
    key = cache_key(sums) if cache and sums is not None and report.ok else None
    if key is not None and _cached(key, report):
        return report
    _check_members(root, report)
    run_id = _check_manifest(root, report)
    _check_plan(root, report)
    _check_trials(root, run_id, report)
    _check_json_members(root, report)
    if key is not None and report.ok:
        _remember(key, report)
    return report


def _sha256_stream(handle: Any) -> str:
    digest = hashlib.sha256()
    while chunk := handle.read(_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def pack(run_dir: Path | str) -> Path:
    """Compress a verified run's trials.jsonl to trials.jsonl.gz and re-seal; return the .gz.

    For committing a finished run. The run must verify first; the gzip stream is
    reproducible (no file name, mtime 0) and is read back and compared by hash with the
    original before the original is removed. A packed run can be read, verified and
    analysed, not resumed.
    """
    root = _require_dir(run_dir)
    src, dst = root / layout.TRIALS, root / layout.TRIALS_PACKED
    if not src.is_file():
        state = "already packed" if dst.is_file() else f"has no {layout.TRIALS}"
        raise RunDirUsageError(f"{root}: {state}")
    report = verify(root)
    if not report.ok:
        raise RunDirUsageError(f"{root} does not verify, refusing to pack it: {report.problems[0]}"
                         + (f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1
                            else ""))
    with atomic.replacing(dst) as raw:
        records.compress(src, raw)
        raw.flush()
        with gzip.open(raw.name, "rb") as back:  # the temporary file, before it replaces dst
            if _sha256_stream(back) != sha256_file(src, root):
                raise RuntimeError(f"{dst}: does not decompress to {src}; nothing changed")
    # the new list first (it names the .gz, not the original): if it cannot be written, the
    # .gz goes and the run is as it was; once it is written, removing the original is all
    # that is left, and unlink needs no space
    try:
        atomic.write_text(root / layout.SUMS, _sums_text(root, leaving=layout.TRIALS))
    except BaseException:
        dst.unlink()
        raise
    src.unlink()
    return dst

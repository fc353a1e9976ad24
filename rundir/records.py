"""``trials.jsonl``: one JSON record per trial, appended and flushed (fsync) as each ends.

This module is the one reader of a records file and the one check of a record against the
trial schema; every other reader of a run's records goes through it:

* :func:`lines` reads every line, numbered, as the record it holds or why it is not one;
* :func:`read` gives the records (what a sweep, a resume, a plan and the analysis use);
* :func:`first_problem` names the first line that is not a record (a fast check, no schema);
* :func:`check` is the record's schema check (``rundir/schema/trial.schema.json``).

The torn-line rule, the same for all of them: a last line without its newline is an
interrupted write (a sweep killed while writing), never a record. The readers skip it, the
checks name it, and ``repair`` cuts the file back to its last complete line, so a resumed
sweep re-runs that trial, exactly once. Any other line that is not a JSON object (an empty
line, bytes that are not UTF-8, text that is not JSON) is an error for every reader.

Every reader sees the current record format (:data:`SCHEMA_VERSION`): :func:`lines`
passes each record through :func:`upgrade`, which fills what an older version lacks and
refuses a version this reader does not know (a newer one) as the line's problem.

A finished run committed to the repository may be *packed* (``python -m rundir pack``):
its ``trials.jsonl`` is then stored gzip-compressed as ``trials.jsonl.gz``. Readers find either
with :func:`trials_file`; :func:`lines` opens either (:func:`open_trials`).
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import shutil
import stat
from zlib import error as zlib_error
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any, Iterator

from rundir import utf8
from rundir.inside import BadInput, open_inside
from rundir.layout import TRIALS, TRIALS_PACKED
from rundir.schemas import TRIAL_SCHEMA, load_schema, schema_problems, validator_for

#: the record format written now (``schema_version`` of every record)
SCHEMA_VERSION = 2
#: the formats a reader takes, each upgraded to :data:`SCHEMA_VERSION` by :func:`upgrade`:
#:
#: * 1: the records of the committed runs in ``data/raw``. Fields were added under this one
#:   number, so a version-1 record may lack any of :data:`V1_MAY_LACK`;
#: * 2: every field in every record that can have it (null where it was not measured, its
#:   ``*_unavailable`` sibling saying why), and ``result.vmsplice`` on every vmsplice trial.
KNOWN_VERSIONS = (1, 2)

#: the optional sections of a record, in the order a record lists them
SECTIONS = ("invocation", "remote", "identity", "output", "copybench_extra", "perf_profile",
            "retries")


@dataclass
class TrialRecord:
    """One line of ``trials.jsonl`` (``rundir/schema/trial.schema.json``).

    The runner makes one per trial, in ``runner.trial.trialrecord`` only: ``new_record`` as
    it starts (who, where in the run, when), ``finish`` from what the trial's kind reports
    (what ran and how it went); :meth:`to_json` is the line.
    ``sections`` holds the optional parts (:data:`SECTIONS`): ``invocation`` (argv, exit
    codes, wall time), ``remote`` (the remote sink), ``identity`` and ``output`` (the reports'
    own programs), ``copybench_extra`` (what copybench printed beyond its record),
    ``perf_profile`` (a profiled trial's reduction) and ``retries`` (earlier attempts after a
    missed window). A section absent is absent from the line; one set to ``None`` is null."""

    run_id: str
    trial_id: str
    cell: str
    order_index: int
    repetition: int
    started_at: str
    loadavg: list[float]
    tool: str | None = None
    tool_version: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    status: str = "failed"  # ok | failed | timeout
    error: str | None = None
    result: dict[str, Any] | None = None
    sections: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    def set(self, section: str, value: Any) -> None:
        """Set one of the optional sections (:data:`SECTIONS`)."""
        if section not in SECTIONS:
            raise KeyError(f"{section!r} is not a section of a trial record "
                           f"(sections: {', '.join(SECTIONS)})")
        self.sections[section] = value

    def to_json(self) -> dict[str, Any]:
        out = {"schema_version": self.schema_version, "run_id": self.run_id,
               "trial_id": self.trial_id, "cell": self.cell, "order_index": self.order_index,
               "repetition": self.repetition, "started_at": self.started_at,
               "loadavg": self.loadavg, "tool": self.tool, "tool_version": self.tool_version,
               "config": self.config, "status": self.status, "error": self.error,
               "result": self.result}
        out.update((k, self.sections[k]) for k in SECTIONS if k in self.sections)
        return out


#: why a field of a version-1 record is null after :func:`upgrade`: the record lacks it
V1_NOT_RECORDED = "not recorded (a schema_version 1 record without this field)"

#: what a version-1 record may lack, where, and what :func:`upgrade` puts in its place:
#: the value its absence meant (``config.twin`` 0: not an A/A twin; ``config.sink``
#: "fresh": a sink per trial), else null; a ``*_unavailable`` sibling gets
#: :data:`V1_NOT_RECORDED`. Config fields of every kind of trial; the rest of copybench's.
V1_MAY_LACK: dict[str, tuple[str, ...]] = {
    "config": ("block", "twin"),
    "config of copybench": ("sockbuf", "alternate", "share_time", "share_order", "sink"),
    "result": ("window", "alternate", "share_time", "interference", "softirqs", "vmsplice"),
    "result.sender, result.receiver": (
        "slice_s", "slices_bytes", "slices_s", "cpu_start", "cpu_end", "sndbuf_start",
        "sndbuf_end", "rcvbuf_start", "rcvbuf_end", "tcp_info_start", "tcp_info_end"),
    "result.receiver": ("interference", "softirqs", "recv_size"),
}

#: a side's fields a version-1 record may lack, each with the sibling that says why it is null
_V1_SIDE = {"slice_s": "slices_unavailable", "slices_bytes": "slices_unavailable",
            "slices_s": "slices_unavailable", "cpu_start": None, "cpu_end": None,
            "sndbuf_start": "sockets_unavailable", "sndbuf_end": "sockets_unavailable",
            "rcvbuf_start": "sockets_unavailable", "rcvbuf_end": "sockets_unavailable",
            "tcp_info_start": "sockets_unavailable", "tcp_info_end": "sockets_unavailable"}


class UnknownVersion(ValueError):
    """A record whose ``schema_version`` this reader does not know (one a newer copybench
    wrote, or no version at all of the format)."""


def _fill(obj: dict[str, Any], key: str, why_key: str | None) -> None:
    """``obj[key]`` null when absent, its sibling ``why_key`` (if any) saying why."""
    if key not in obj:
        obj[key] = None
        if why_key is not None and obj.get(why_key) is None:
            obj[why_key] = V1_NOT_RECORDED


def _side_from_1(side: Any, receiver: bool) -> Any:
    if not isinstance(side, dict):
        return side
    side = dict(side)
    for key, why in _V1_SIDE.items():
        _fill(side, key, why)
    if receiver:
        _fill(side, "interference", "interference_unavailable")
        _fill(side, "softirqs", "softirqs_unavailable")
        _fill(side, "recv_size", None)  # the schema's description says why it is null
    return side


def _from_1(record: dict[str, Any]) -> dict[str, Any]:
    """A version-1 record in the version-2 shape (:data:`V1_MAY_LACK`); the record given is
    not changed."""
    out = dict(record)
    config = record.get("config")
    copybench = isinstance(config, dict) and config.get("kind") == "copybench"
    if isinstance(config, dict):
        config = out["config"] = dict(config)
        config.setdefault("block", None)
        config.setdefault("twin", 0)
        if copybench:
            for key in ("sockbuf", "alternate", "share_time", "share_order"):
                config.setdefault(key, None)
            # the runner names the sink of every copybench trial that has one: send to a sink
            if config.get("command") == "send" and config.get("no_sink") is False:
                config.setdefault("sink", "fresh")
    result = record.get("result")
    if copybench and isinstance(result, dict) and isinstance(result.get("sender"), dict):
        result = out["result"] = dict(result)
        for key in ("window", "alternate", "share_time"):
            _fill(result, key, None)
        _fill(result, "interference", "interference_unavailable")
        _fill(result, "softirqs", "softirqs_unavailable")
        if config.get("method") == "vmsplice":
            _fill(result, "vmsplice", None)
        result["sender"] = _side_from_1(result["sender"], receiver=False)
        result["receiver"] = _side_from_1(result.get("receiver"), receiver=True)
    out["schema_version"] = 2
    return out


def upgrade(record: dict[str, Any]) -> dict[str, Any]:
    """The record in the current format (:data:`SCHEMA_VERSION`), from any of
    :data:`KNOWN_VERSIONS`: what an older version lacks is there, null (or the value its
    absence meant) with the reason where the record has a slot for one. A record already
    current is returned as it is; an older one is copied, never changed in place. A record
    without a ``schema_version`` is returned as it is (the schema check names it); one of
    another version raises :class:`UnknownVersion`."""
    if "schema_version" not in record:
        return record
    version = record["schema_version"]
    if version == SCHEMA_VERSION and type(version) is int:
        return record
    if version == 1 and type(version) is int:
        return _from_1(record)
    known = ", ".join(map(str, KNOWN_VERSIONS))
    if type(version) is int and version > SCHEMA_VERSION:
        raise UnknownVersion(
            f"schema_version {version} is newer than this reader (it reads versions {known}); "
            f"read the run with the copybench that wrote it")
    raise UnknownVersion(f"schema_version {_short(version)} is not a version of the record "
                         f"format (versions: {known})")


def trials_file(run_dir: Path) -> Path | None:
    """The run's records: ``trials.jsonl``, else the packed ``trials.jsonl.gz``, else None."""
    for name in (TRIALS, TRIALS_PACKED):
        path = run_dir / name
        if path.is_file():
            return path
    return None


def is_packed(run_dir: Path) -> bool:
    return (run_dir / TRIALS_PACKED).is_file() and not (run_dir / TRIALS).exists()


def open_trials(path: Path) -> IO[bytes]:
    """A binary reader of a records file, decompressing a packed one. The file is the run's
    own: a symbolic link in its place is never followed (:func:`rundir.inside.open_inside`,
    an ``OSError`` naming it), nor is a FIFO read."""
    fd = open_inside(path, path.parent)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(path, "is not a regular file; a run's records are one")
        fd_flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fd_flags & ~os.O_NONBLOCK)
        raw = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    if path.name.endswith(".gz"):
        gz = gzip.GzipFile(fileobj=raw, mode="rb")
        gz.myfileobj = raw  # closed with the GzipFile, as gzip.open's own file is
        return gz  # type: ignore[return-value]
    return raw


def compress(path: Path, out: IO[bytes]) -> None:
    """Write the plain records file ``path`` to ``out`` packed: a reproducible gzip stream
    (no file name, mtime 0, level 9), read as the run's own file (:func:`open_trials`)."""
    with open_trials(path) as fin, \
            gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        shutil.copyfileobj(fin, gz, 1 << 20)


def content_sha256(path: Path) -> str:
    """The SHA-256 of the records a records file holds (a packed one decompressed): what
    ``seal`` compares a packed file with the sealed ``trials.jsonl`` by."""
    digest = hashlib.sha256()
    with open_trials(path) as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def repair(path: Path) -> int:
    """Truncate a torn final line; return the number of bytes removed. Only the file's tail
    is read (back to its last newline), never the whole file."""
    if not os.path.lexists(path):
        return 0
    # the run's own file: a link in its place is never followed (it would cut its target)
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadInput(path, "is not a regular file; a run's records are one")
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return 0
        keep, end = 0, size
        while end > 0:
            start = max(0, end - (1 << 16))
            at = os.pread(fd, end - start, start).rfind(b"\n")
            if at >= 0:
                keep = start + at + 1
                break
            end = start
        os.ftruncate(fd, keep)
        os.fsync(fd)
    finally:
        os.close(fd)
    return size - keep


#: why the last line of a records file is not a record when it has no newline
TORN = "torn last line (an interrupted write; resume the run)"

#: the longest line a records file may hold, its newline included (bytes). A record's size
#: grows with its threads, slices and profile reduction, never with the bytes it moved: the
#: longest of the committed runs is 19 KiB, so this is over 800 times that, and a reader never
#: holds more than this of one line (a packed file inflating to gigabytes without a newline
#: is refused at it, not read into memory).
MAX_LINE_BYTES = 16 << 20
#: why a line is not a record when it is longer than :data:`MAX_LINE_BYTES`
TOO_LONG = (f"a line longer than {MAX_LINE_BYTES} bytes (a record line is at most "
            f"{MAX_LINE_BYTES} bytes); the file is not read past it")


class RecordError(ValueError):
    """A line of a records file that is not a record: ``file:line: what is wrong``."""


@dataclass(frozen=True)
class Line:
    """One line of a records file (numbered from 1): the record it holds, or why it holds
    none (:attr:`problem`); :attr:`torn` marks a last line without its newline."""

    number: int
    record: dict[str, Any] | None
    problem: str | None = None
    torn: bool = False


def _parse(number: int, raw: bytes) -> Line:
    try:
        text = utf8.decode(raw)
    except utf8.NotUtf8 as exc:  # "line 1, column C: byte ... is not UTF-8 ..."
        return Line(number, None, str(exc).split(", ", 1)[-1])
    if not text.strip():
        return Line(number, None, "an empty line, not a record")
    try:
        obj = utf8.json_loads(text)  # nesting bounded (utf8.MAX_DEPTH)
    except ValueError as exc:
        where = f"column {exc.colno}: " if isinstance(exc, json.JSONDecodeError) else ""
        return Line(number, None, f"not a JSON record ({where}{getattr(exc, 'msg', exc)})")
    if not isinstance(obj, dict):
        return Line(number, None, f"a JSON {type(obj).__name__}, not a record")
    try:
        return Line(number, upgrade(obj))
    except UnknownVersion as exc:
        return Line(number, None, str(exc))


def lines(path: Path) -> Iterator[Line]:
    """Every line of a records file, plain or packed, as a record or the reason it is not
    one; a torn last line comes last, as a problem (:data:`TORN`), and so does a line longer
    than :data:`MAX_LINE_BYTES` (:data:`TOO_LONG`: nothing after it is read). A file that
    cannot be read (or a damaged gzip stream) raises OSError, EOFError or ``zlib.error``."""
    with open_trials(path) as fh:
        number = 0
        while raw := fh.readline(MAX_LINE_BYTES):
            number += 1
            if not raw.endswith(b"\n"):
                if len(raw) >= MAX_LINE_BYTES and fh.read(1):  # more of the line follows
                    yield Line(number, None, TOO_LONG)
                else:
                    yield Line(number, None, TORN, torn=True)
                return
            yield _parse(number, raw[:-1])


#: the keys a reader that computes from records places each by (which trial, which cell,
#: which round, how it went), with their JSON types: a record without one cannot be counted
PLACING_KEYS: dict[str, type] = {"trial_id": str, "cell": str, "repetition": int,
                                 "status": str}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def fields_problem(record: dict[str, Any]) -> str | None:
    """Why a record cannot be computed from, or None: a placing key (:data:`PLACING_KEYS`)
    missing or of another type, a ``config`` or ``result`` that is not an object, or a
    throughput (``result.gbit_per_s``) that is not a number. A schema-free check, fast
    enough for every line of every run an analysis reads (the full check is :func:`check`)."""
    for key, kind in PLACING_KEYS.items():
        if key not in record:
            return (f"no {key!r} (a record names its "
                    f"{', '.join(PLACING_KEYS)})")
        value = record[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{key} = {_short(value)}, not a JSON {_JSON_TYPE[kind]}"
    for key in ("config", "result"):
        if record.get(key) is not None and not isinstance(record[key], dict):
            return f"{key} = {_short(record[key])}, not an object (or null)"
    rate = (record.get("result") or {}).get("gbit_per_s")
    if rate is not None and not _number(rate):
        return (f"result.gbit_per_s = {_short(rate)}, not a number (Gbit/s, or null where "
                "nothing was measured)")
    return None


_JSON_TYPE = {str: "string", int: "integer"}


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def read(path: Path, *, fields: bool = False) -> Iterator[dict[str, Any]]:
    """Every record of a records file, plain or packed, in order; a torn last line is
    skipped, a missing file has none, and any other line that is not a record raises
    :class:`RecordError` naming the file and line. With ``fields`` (a reader that computes
    from the records: the analysis's loader, the noise model), a record that cannot be
    computed from (:func:`fields_problem`) raises it too."""
    if not path.exists():
        return
    for line in lines(path):
        if line.torn:
            return
        if line.record is None:
            raise RecordError(f"{path}:{line.number}: {line.problem}")
        if fields and (why := fields_problem(line.record)) is not None:
            raise RecordError(f"{path}:{line.number}: a record that cannot be read: {why}")
        yield line.record


def first_problem(run_dir: Path) -> str | None:
    """The first reason the run's records cannot be read, as ``file:line: what is wrong``
    (a line that is not a JSON object, a torn last line, a file that cannot be read); None
    when every line is a record. Fast (no schema): for commands that read a run before they
    start, such as ``make book``."""
    path = trials_file(run_dir)
    if path is None:
        return f"{run_dir}: no {TRIALS} or {TRIALS_PACKED} (not a run directory?)"
    try:
        for line in lines(path):
            if line.problem is not None:
                return f"{path}:{line.number}: {line.problem}"
    except (OSError, EOFError, zlib_error) as exc:
        return f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})"
    return None


@cache
def _trial_validator() -> Any:
    return validator_for(load_schema(TRIAL_SCHEMA))


def check(record: Any, label: str) -> list[str]:
    """The record's violations of the trial schema (``rundir/schema/trial.schema.json``, the
    current format), each ``label: where: what``, deepest first, at most a few; empty when
    it is valid. An older record is checked as :func:`upgrade` gives it; one of a version
    this reader does not know is that one problem."""
    if isinstance(record, dict):
        try:
            record = upgrade(record)
        except UnknownVersion as exc:
            return [f"{label}: {exc}"]
    return schema_problems(_trial_validator(), record, label)


def sanitize(obj: Any) -> Any:
    """NaN and infinities become null (strict JSON)."""
    if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
        return None
    if isinstance(obj, dict):
        return {k: sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [sanitize(v) for v in obj]
    return obj


class Writer:
    """Appends one record per line, each written whole and fsync'd before ``append`` returns.

    A record that cannot be written (ENOSPC, EDQUOT, EROFS, EIO) is cut off again, so the
    file ends with the last complete record, and the error is raised naming the file. A file
    whose last name is gone (the run directory was removed while the sweep ran) is an error
    too: records written to an unlinked inode would be lost silently.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        # O_APPEND: every write goes to the end, whatever else appended before
        # O_NOFOLLOW: a link in the run's place is never written through
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                     | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise BadInput(path, "is not a regular file; a run's records are one")
        self._fd: int | None = fd

    def append(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            raise ValueError(f"{self.path}: writer is closed")
        line = json.dumps(sanitize(record), separators=(",", ":"), sort_keys=False, allow_nan=False,
                          default=str)
        data = (line + "\n").encode("utf-8")
        start = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                n = os.write(self._fd, view)  # a short write is possible near a full disk
                view = view[n:]
            os.fsync(self._fd)
            if os.fstat(self._fd).st_nlink == 0:
                raise FileNotFoundError(2, "the file was removed while the sweep ran", str(self.path))
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)  # drop the partial record
            except OSError:
                pass  # the reader skips a torn last line; --resume cuts it off
            raise OSError(exc.errno, exc.strerror, str(self.path)) from exc
        self.written += 1

    def close(self) -> None:
        """Close; never raises (every record was fsync'd when it was appended)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""``trials.jsonl``: one JSON record per trial, appended and flushed (fsync) as each ends.

Reading tolerates a torn last line (a sweep killed while writing): ``repair`` cuts the file
back to its last complete line, so a resumed sweep re-runs that trial, exactly once.

A finished run committed to the repository may be *packed* (``python -m rundir pack``):
its ``trials.jsonl`` is then stored gzip-compressed as ``trials.jsonl.gz``. Readers find either
with :func:`trials_file` and open it with :func:`open_trials`.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import IO, Any, Iterator

TRIALS = "trials.jsonl"
TRIALS_PACKED = TRIALS + ".gz"
SCHEMA_VERSION = 1


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
    """A binary reader of a records file, decompressing a packed one."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def repair(path: Path) -> int:
    """Truncate a torn final line; return the number of bytes removed."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return len(data) - keep


def read(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # torn last line
            line = raw.strip()
            if line:
                yield json.loads(line)


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
    def __init__(self, path: Path) -> None:
        self.path = path
        self._f = open(path, "a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(sanitize(record), separators=(",", ":"), sort_keys=False, allow_nan=False,
                          default=str)
        self._f.write(line + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

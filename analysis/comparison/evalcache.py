"""The claims' verdicts of a sealed run, computed once: ``make compare`` evaluates the
reference run every time it is called (most of its time), though neither the run nor the
code that judges it changed.

:func:`evaluate` returns what :func:`analysis.claims.evaluate` returns. Its result is kept
under ``build/analysis-cache/`` (``$COPYBENCH_ANALYSIS_CACHE``; empty: not kept), keyed by
the SHA-256 of the run's ``SHA256SUMS`` (used only when every file of the run matches it,
re-hashed each time), of the analysis, run-format and statistics code (every file under
``analysis/``, ``rundir/`` and ``decision/``) and of the Python and library versions. A run without ``SHA256SUMS``, or one
whose files no longer match it, is evaluated every time and never kept.

The key can be computed by anyone who can read the run and the checkout, so what is kept is
data only: JSON (``<key>.json``: each :class:`analysis.claims.ClaimResult`'s fields), read
back into the results field by field and used only when every field has its type; nothing
in the cache is ever run (a pickle would run whatever code it names when loaded). An entry is
read as the cache's own file (:func:`rundir.utf8.read_bytes`: a regular file of bounded
size, never through a link, never a FIFO), and only from a directory of the user's own that
no one else may write to (others could put verdicts there); anything else is no entry, and
the run is evaluated again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import stat
import sys
from pathlib import Path
from typing import Any

from analysis import claims as C
from analysis.loading.run import Run
from rundir import atomic, utf8
from rundir.verify import sealed_sums

ROOT = Path(__file__).resolve().parents[2]
_CODE_DIRS = (ROOT / "analysis", ROOT / "rundir", ROOT / "decision")
_LIBRARIES = ("numpy", "scipy", "pandas", "statsmodels")
#: the format of a kept entry (in the key, so an entry of another format is never read)
_FORMAT = b"copybench claims cache 2 (json)\0"


def cache_dir() -> Path | None:
    configured = os.environ.get("COPYBENCH_ANALYSIS_CACHE")
    if configured is not None:
        return Path(configured) if configured else None
    return ROOT / "build" / "analysis-cache"


def key(run: Run) -> str | None:
    """The cache key of the run's verdicts, or None when the run is not sealed as it is."""
    sums = sealed_sums(run.path)
    if sums is None:
        return None
    digest = hashlib.sha256(_FORMAT)
    digest.update(sums)
    for d in _CODE_DIRS:
        for path in sorted(p for p in d.rglob("*") if p.is_file()
                           and p.suffix in (".py", ".json", ".toml", ".tsv")):
            digest.update(f"\0{path.relative_to(ROOT)}\0".encode())
            digest.update(path.read_bytes())
    versions = [sys.version] + [getattr(sys.modules.get(m) or __import__(m), "__version__", "?")
                                for m in _LIBRARIES]
    digest.update("\0".join(versions).encode())
    return digest.hexdigest()


_FIELDS = {f.name: f for f in dataclasses.fields(C.ClaimResult)}
_SCALARS = (str, int, float, bool)


def _encode(results: list[C.ClaimResult]) -> str:
    """The results as JSON: each one's fields (NaN kept as JSON's NaN extension)."""
    return json.dumps({"results": [dataclasses.asdict(r) for r in results]},
                      allow_nan=True) + "\n"


def _field(name: str, value: Any) -> Any:
    """One field read back, with the type the dataclass gives it (a number field: an int or a
    float, as JSON kept it); ValueError if it has not."""
    default = _FIELDS[name].default
    if name == "band":
        if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
            return tuple(value)
    elif name == "details":
        if isinstance(value, list) and all(
                isinstance(d, dict) and all(isinstance(v, _SCALARS) or v is None
                                            for v in d.values()) for d in value):
            return value
    elif isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value  # as computed: some are whole numbers (a size in bytes)
    elif isinstance(value, type(default)) and not (isinstance(value, bool)
                                                   and not isinstance(default, bool)):
        return value
    elif default is dataclasses.MISSING and isinstance(value, str):
        return value
    raise ValueError(f"{name}: {type(value).__name__} is not the field's type")


def _decode(data: bytes) -> list[C.ClaimResult]:
    """The results of an entry; ValueError when it is not exactly this cache's JSON."""
    doc = json.loads(data)
    items = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError("not a list of results")
    out = []
    for item in items:
        if not isinstance(item, dict) or set(item) != set(_FIELDS):
            raise ValueError("not a result's fields")
        out.append(C.ClaimResult(**{k: _field(k, v) for k, v in item.items()}))
    return out


def _same(a: list[C.ClaimResult], b: list[C.ClaimResult]) -> bool:
    """The same results, field by field (NaN equal to NaN)."""
    def norm(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return "NaN"
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(norm(v) for v in x)
        return (type(x).__name__, x)
    return [norm(dataclasses.asdict(r)) for r in a] == [norm(dataclasses.asdict(r)) for r in b]


def _private(where: Path) -> bool:
    """``where`` is a directory (not a link) of this user's that no one else may write."""
    try:
        st = os.lstat(where)
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _kept(where: Path, k: str) -> list[C.ClaimResult] | None:
    if not _private(where):
        return None
    try:
        return _decode(utf8.read_bytes(where / f"{k}.json", inside=where))
    except (OSError, ValueError, TypeError):  # none, a link, a FIFO, too large, not ours
        return None


def _keep(where: Path, k: str, results: list[C.ClaimResult]) -> None:
    text = _encode(results)
    try:
        if not _same(_decode(text.encode()), results):
            return  # a result this format does not carry exactly: evaluated every time
    except (ValueError, TypeError):
        return
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        if _private(where):
            atomic.write_text(where / f"{k}.json", text)
    except OSError:
        pass  # a cache that cannot be written only costs the next call time


def evaluate(run: Run) -> list[C.ClaimResult]:
    """:func:`analysis.claims.evaluate`, kept for the next call on the same sealed run."""
    where, k = cache_dir(), key(run)
    if where is not None and k is not None:
        kept = _kept(where, k)
        if kept is not None:
            return kept
    results = C.evaluate(run)
    if where is not None and k is not None:
        _keep(where, k, results)
    return results

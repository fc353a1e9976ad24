"""The claims' verdicts of a sealed run, computed once: ``make compare`` evaluates the
reference run every time it is called (most of its time), though neither the run nor the
code that judges it changed.

:func:`evaluate` returns what :func:`analysis.claims.evaluate` returns. Its result is kept
under ``build/analysis-cache/`` (``$COPYBENCH_ANALYSIS_CACHE``; empty: not kept), keyed by
the SHA-256 of the run's ``SHA256SUMS`` (used only when every file of the run matches it,
re-hashed each time), of the analysis, run-format and statistics code (every file under
``analysis/``, ``rundir/`` and ``decision/``) and of the Python and library versions. A run without ``SHA256SUMS``, or one
whose files no longer match it, is evaluated every time and never kept.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path

from analysis import claims as C
from analysis.loading.run import Run
from rundir.verify import sealed_sums

ROOT = Path(__file__).resolve().parents[2]
_CODE_DIRS = (ROOT / "analysis", ROOT / "rundir", ROOT / "decision")
_LIBRARIES = ("numpy", "scipy", "pandas", "statsmodels")


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
    digest = hashlib.sha256(b"copybench claims cache 1\0")
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


def evaluate(run: Run) -> list[C.ClaimResult]:
    """:func:`analysis.claims.evaluate`, kept for the next call on the same sealed run."""
    where, k = cache_dir(), key(run)
    if where is not None and k is not None:
        try:
            with (where / f"{k}.pickle").open("rb") as fh:
                kept = pickle.load(fh)
            if isinstance(kept, list) and all(isinstance(r, C.ClaimResult) for r in kept):
                return kept
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            pass
    results = C.evaluate(run)
    if where is not None and k is not None:
        try:
            where.mkdir(parents=True, exist_ok=True)
            tmp = where / f".{k}.{os.getpid()}.tmp"
            with tmp.open("wb") as fh:
                pickle.dump(results, fh, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(where / f"{k}.pickle")
        except OSError:
            pass  # a cache that cannot be written only costs the next call time
    return results

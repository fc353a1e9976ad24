"""The CPU profiles of a run (``perf/<trial>.json``, written by the runner in the format of
:mod:`rundir.perf`) as tables: one row per profiled trial, one per (trial, symbol), and for
format-2 files one per (trial, side) and one per (trial, window, side).

Format-1 files (the run data/raw/20261122T052509Z-paper-0690) have no sides and no windows: their
``sides`` and ``windows`` rows are simply absent, and what needs them (the copy count,
the CPU breakdown) says so."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rundir import layout, utf8
from rundir.perf import CATEGORIES, SAMPLE_HZ, group_of, read_sides


def read_json(p: Path, inside: Path | None = None) -> Any:
    """A run's JSON file, or None when it has none: strict JSON (:func:`rundir.utf8.json_loads`:
    no NaN, no key twice), never read through a link below ``inside`` (the run), at most
    64 MiB, a regular file (a FIFO or a device in its place is refused, not taken for none).
    Damage raises ``ValueError``/``OSError`` naming the file."""
    if not os.path.lexists(p):
        return None
    return utf8.json_loads(utf8.read(p, inside=inside) or "null")


#: Kernel copy routines the runner's groups do not list (newer kernels' position-independent
#: aliases of memcpy/memmove).
EXTRA_COPY_SYMBOLS = (r"^__pi_memcpy", r"^__pi_memmove")


def _is_copy_routine(symbol: str, kernel: bool = True) -> bool:
    if kernel and any(re.search(p, symbol or "") for p in EXTRA_COPY_SYMBOLS):
        return True
    return group_of(symbol or "", kernel) in ("copy", "user_copy")


@dataclass
class CpuProfiles:
    """CPU profiles of the profiled trials (``perf record -a -e cpu-clock``, reduced by the
    runner to symbol shares of *all* samples, idle included): ``summary`` has one row per
    profiled trial, ``symbols`` one row per (trial, symbol)."""

    summary: pd.DataFrame
    symbols: pd.DataFrame
    #: format 2: one row per (trial, side): samples, copy (samples in copy routines) and
    #: one ``cat_<category>`` column per CPU category (samples)
    sides: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: format 2: one row per (trial, window, side): samples, copy
    windows: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: format 2: one row per (trial, side, symbol): samples, kernel
    side_symbols: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def empty(self) -> bool:
        return self.summary.empty


def load_cpu_profiles(path: Path, trials: pd.DataFrame) -> CpuProfiles:
    """Reads ``perf/<trial_id>.json`` (the runner's reductions); the trial id maps the
    profile to its cell through ``trials.jsonl``."""
    sum_rows: list[dict[str, Any]] = []
    sym_rows: list[dict[str, Any]] = []
    side_rows: list[dict[str, Any]] = []
    win_rows: list[dict[str, Any]] = []
    ssym_rows: list[dict[str, Any]] = []
    cell_of = dict(zip(trials["trial_id"], trials["cell"])) if not trials.empty else {}
    d = path / layout.PERF_DIR
    for f in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            o = read_json(f, path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{f.name}: {getattr(exc, 'strerror', None) or exc}") from None
        if not isinstance(o, dict) or "symbols" not in o:
            continue
        tid = f.stem
        cell = o.get("cell") or cell_of.get(tid) or tid.rsplit("-", 1)[0]
        groups = o.get("groups") or {}
        syms = o.get("symbols") or []
        if syms:  # the reduction keeps every copy-group symbol, so the sum is complete
            copy = sum(float(x.get("share") or 0.0) for x in syms
                       if _is_copy_routine(str(x.get("symbol")), bool(x.get("kernel", True))))
        else:
            copy = float(groups.get("copy") or 0.0) + float(o.get("user_copy_share") or 0.0)
        idle = float(groups.get("idle") or 0.0)
        comm = o.get("by_comm") or {}
        # the profile is system-wide: other processes' samples are excluded by taking the
        # copy samples relative to copybench's own (all copy samples attributed to it);
        # format 2 names the threads cb-send / cb-sink / cb-copy
        own = float(sum(v for k, v in comm.items()
                        if k == "copybench" or str(k).startswith("cb-")) or 0.0)
        denom = own if own > 0 else (1 - idle)
        sum_rows.append({"cell": cell, "trial_id": tid, "samples": o.get("samples"),
                         "format": int(o.get("format") or 1),
                         "kernel_share": o.get("kernel_share"), "copy_share": copy,
                         "copybench_share": own if own > 0 else math.nan,
                         "idle_share": idle,
                         "copy_share_of_busy": min(1.0, copy / denom) if denom > 0 else math.nan,
                         **{f"group_{k}": v for k, v in groups.items()}})
        sides = read_sides(o)
        for side, e in (sides or {}).items():
            cats = e.get("categories") or {}
            side_rows.append({"cell": cell, "trial_id": tid, "side": side,
                              "samples": int(e.get("samples") or 0),
                              "copy": int(e.get("copy") or 0),
                              **{f"cat_{c}": int(cats.get(c) or 0) for c in CATEGORIES}})
            for sym, kernel, n in e.get("symbols") or []:
                ssym_rows.append({"cell": cell, "trial_id": tid, "side": side, "symbol": sym,
                                  "kernel": bool(kernel), "samples": int(n)})
        for i, w in enumerate(o.get("windows") or []):
            for side, e in (w.get("sides") or {}).items():
                win_rows.append({"cell": cell, "trial_id": tid, "window": i, "side": side,
                                 "samples": int(e.get("samples") or 0),
                                 "copy": int(e.get("copy") or 0)})
        for sym in o.get("symbols") or []:
            kernel = bool(sym.get("kernel", True))
            sym_rows.append({"cell": cell, "trial_id": tid, "symbol": sym.get("symbol"),
                             "kernel": kernel, "share": float(sym.get("share") or 0.0),
                             "copy_routine": _is_copy_routine(str(sym.get("symbol")), kernel)})
    summary = pd.DataFrame(sum_rows, columns=None if sum_rows else
                           ["cell", "trial_id", "samples", "copy_share", "idle_share",
                            "copy_share_of_busy"])
    symbols = pd.DataFrame(sym_rows, columns=None if sym_rows else
                           ["cell", "trial_id", "symbol", "kernel", "share", "copy_routine"])
    sides_df = pd.DataFrame(side_rows, columns=None if side_rows else
                            ["cell", "trial_id", "side", "samples", "copy",
                             *[f"cat_{c}" for c in CATEGORIES]])
    win_df = pd.DataFrame(win_rows, columns=None if win_rows else
                          ["cell", "trial_id", "window", "side", "samples", "copy"])
    ssym_df = pd.DataFrame(ssym_rows, columns=None if ssym_rows else
                           ["cell", "trial_id", "side", "symbol", "kernel", "samples"])
    return CpuProfiles(summary, symbols, sides_df, win_df, ssym_df)


def perf_command() -> str:
    """How the runner records a profiled trial (rundir.perf's sampling rate): for the book."""
    return f"perf record -a -g -e cpu-clock -F {SAMPLE_HZ}"



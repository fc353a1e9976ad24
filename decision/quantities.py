"""The quantities both sides compute from a run's records, defined once: the runner plans and
stops with them, the analysis reports them (neither imports the other, so they meet here).

* :func:`primary`: the value a trial is judged by: throughput (``result.gbit_per_s``), or the
  median round trip (``result.rtt_ns.p50``) for a ping-pong trial; None for a trial that is not
  ``ok`` or has no such value.
* :func:`cell_kind`: the kind of cell a noise estimate belongs to: ``stream``, ``pingpong`` or
  ``file`` (file→socket and file→file methods).
* The noise quantity of a block design: within one block, the per-round log ratio of two of
  its cells (both measured in the same round, back to back); its variance per pair of cells
  (:func:`pair_variances`, from three rounds on), pooled over pairs and blocks by their
  degrees of freedom (:func:`pooled_sd`), and the per-trial coefficient of variation of one
  cell (:func:`trial_cv`).
"""

from __future__ import annotations

import itertools
import math
import statistics
from typing import Any, Iterable, Mapping

#: a pair of cells gives a variance from this many rounds on
MIN_ROUNDS = 3


def primary(record: Mapping[str, Any]) -> float | None:
    """The primary metric of a trial record: Gbit/s, or the median RTT (ns) for pingpong."""
    if record.get("status") != "ok":
        return None
    result = record.get("result") or {}
    if (record.get("config") or {}).get("mode") == "pingpong":
        v = (result.get("rtt_ns") or {}).get("p50")
    else:
        v = result.get("gbit_per_s")
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return None


def cpu_per_gb(record: Mapping[str, Any], side: str) -> float | None:
    """CPU-seconds (user + system) of one side (``sender``, ``receiver``) per GB moved."""
    res = record.get("result") or {}
    s = res.get(side) or {}
    ut, st, nbytes = s.get("utime_s"), s.get("stime_s"), res.get("bytes")
    if not isinstance(ut, (int, float)) or not isinstance(st, (int, float)) or not nbytes:
        return None
    return (ut + st) / (nbytes / 1e9)


def cell_kind(mode: str | None, command: str | None, cache: str | None) -> str:
    """``file`` for file methods (a page-cache state) and file→file copies, else the mode."""
    if command == "copy" or cache is not None:
        return "file"
    return mode or "stream"


def _positive(v: Any) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def log_ratios(x: Mapping[int, float | None], y: Mapping[int, float | None]) -> list[float]:
    """ln(x_r / y_r) for every round r both cells have a positive value for, in round order."""
    return [math.log(x[r] / y[r]) for r in sorted(set(x) & set(y))  # type: ignore[operator]
            if _positive(x[r]) and _positive(y[r])]


def pair_variances(by_cell: Mapping[str, Mapping[int, float | None]]
                   ) -> list[tuple[float, int, int]]:
    """For each pair of cells of one block (cell id -> round -> value): the variance of their
    per-round log ratio, its degrees of freedom and its rounds, where they share at least
    :data:`MIN_ROUNDS` rounds."""
    out = []
    for c1, c2 in itertools.combinations(sorted(by_cell), 2):
        lr = log_ratios(by_cell[c1], by_cell[c2])
        if len(lr) >= MIN_ROUNDS:
            out.append((statistics.variance(lr), len(lr) - 1, len(lr)))
    return out


def pooled_sd(variances: Iterable[tuple[float, int, int]]) -> float | None:
    """The pooled standard deviation of several variances, weighted by their degrees of
    freedom; None without any."""
    vs = list(variances)
    dof = sum(d for _, d, _ in vs)
    return math.sqrt(sum(v * d for v, d, _ in vs) / dof) if dof else None


def trial_cv(values: Iterable[float | None]) -> float | None:
    """The coefficient of variation of one cell's trials (its positive, finite values), from
    two on."""
    x = [v for v in values if v is not None and _positive(v)]
    if len(x) < 2:
        return None
    return statistics.stdev(x) / statistics.mean(x)


def accumulate(acc: dict, by_cell: Mapping[str, Mapping[int, float | None]]) -> None:
    """Add one block's per-round values of its cells (``{cell: {round: value}}``) to a noise
    accumulator ``acc`` (keys ``var``, ``rounds``, ``cv``, ``blocks``): the pair variances
    (:func:`pair_variances`), the most rounds seen, each cell's trial CV (:func:`trial_cv`)
    and one block when it gave a variance. The noise model and the noise chapter both pool
    blocks this way."""
    variances = pair_variances(by_cell)
    acc["var"] += variances
    acc["rounds"] = max([acc["rounds"], *(n for _, _, n in variances)])
    acc["cv"] += [cv for v in by_cell.values() if (cv := trial_cv(v.values())) is not None]
    acc["blocks"] += int(bool(variances))

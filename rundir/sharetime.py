"""A shared-time trial's record (``copybench send --share-time``; src/README.md, "Shared
time"): one record that holds two methods' measurements, each from its own connection.

Both sides read it through here: the runner's noise model (a shared-time comparison's
per-round log ratio is its two methods' rates in one record) and the analysis's loading
(each method a row of its own). A method's throughput is its rate at the sink
(``per_method[c].gbit_per_s``: its own connection's bytes outside the guards of its turns),
``None`` where the sink had none (``sink.rates_unavailable`` says why).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

#: the two designs of a block's comparisons: each method in a trial of its own (today's),
#: or two methods in one trial taking turns (the record's ``config.share_time`` set)
SEPARATE = "separate"
SHARED = "shared-time"
#: the kind of cell a shared-time comparison's noise belongs to in a noise model (its
#: per-round log ratio is its two methods' in one trial, not two trials'), beside
#: ``stream``, ``pingpong`` and ``file``
NOISE_KIND = "stream shared-time"


def procedure(record: Mapping[str, Any]) -> str:
    """:data:`SHARED` for a shared-time trial's record, else :data:`SEPARATE`."""
    return SHARED if (record.get("config") or {}).get("share_time") else SEPARATE


def methods(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The record's two methods' figures (``result.share_time.per_method``, connection 0
    first: the cell's method, then the one it shares time with); [] for any other record or
    one without a result."""
    st = (record.get("result") or {}).get("share_time")
    pm = st.get("per_method") if isinstance(st, dict) else None
    return list(pm) if isinstance(pm, list) and len(pm) == 2 else []


def rate(figures: Mapping[str, Any]) -> float | None:
    """One method's throughput (Gbit/s) at the sink; None when the sink had none."""
    v = figures.get("gbit_per_s")
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
        return float(v)
    return None


def cpu_per_gb(figures: Mapping[str, Any], side: str) -> float | None:
    """CPU-seconds (user + system) of one method's thread on one side (``sender``,
    ``receiver``) per GB its connection moved in the window."""
    s = figures.get(side) or {}
    ut, st, nbytes = s.get("utime_s"), s.get("stime_s"), s.get("bytes")
    if not isinstance(ut, (int, float)) or not isinstance(st, (int, float)) or not nbytes:
        return None
    return (ut + st) / (nbytes / 1e9)

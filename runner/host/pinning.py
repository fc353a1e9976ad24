"""Placement of sender and sink threads on CPUs.

``same-core``: sender and sink share CPU 0; ``cross-core``: sender on CPU 0, sink on CPU 1;
``unpinned``: the scheduler decides (no ``--cpus``). Commands without a sink (``copy``,
``send --no-sink``) use CPU 0 for same-core and CPUs 0,1 for cross-core (a two-thread method
such as ``splice2`` then spreads over both).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Cpus:
    sender: str | None
    sink: str | None


def online_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def cpus_for(placement: str, has_sink: bool) -> Cpus:
    cpus = online_cpus()
    first = cpus[0]
    second = cpus[1] if len(cpus) > 1 else cpus[0]
    if placement == "unpinned":
        return Cpus(None, None)
    if placement == "same-core":
        return Cpus(str(first), str(first) if has_sink else None)
    if placement == "cross-core":
        if has_sink:
            return Cpus(str(first), str(second))
        return Cpus(f"{first},{second}", None)
    raise ValueError(f"unknown placement {placement!r}")


def cross_core_possible() -> bool:
    return len(online_cpus()) > 1

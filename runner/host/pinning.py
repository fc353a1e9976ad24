"""Placement of sender and sink threads on CPUs.

copybench pins thread i of a side to the (i mod n)-th CPU of that side's ``--cpus`` list
(``sched_setaffinity`` per thread), so a list as long as the thread count gives every thread a
CPU of its own, and a one-CPU list stacks them all on one CPU.

Where the machine has a CPU for every thread of every side:

* ``same-core``: sender thread i and sink thread i share CPU i (the first ``threads`` CPUs);
* ``cross-core``: the CPUs are split in two halves; sender thread i runs on the i-th CPU of
  the first half, sink thread i on the i-th CPU of the second half (no two threads of a trial
  share a CPU);
* ``unpinned``: the scheduler decides (no ``--cpus``).

Where it has too few (a 2-CPU machine and more than one thread), every thread of a side
shares one CPU as before: same-core both sides on the first CPU, cross-core the sender on the
first and the sink on the second. Such a trial measures how the scheduler shares a CPU
(oversubscription); the records keep the lists, and the analysis's applicability check says
that the run pinned N threads of a side to one CPU.

Commands without a sink (``copy``, ``send --no-sink``, the udp-forward sender): same-core puts
every thread of the trial on the first CPU (that is what same-core means: splice2's two threads
take turns on one CPU); cross-core gives its threads ``max(2, threads)`` CPUs of their own
where the machine has them (splice2's second thread runs on the next CPU of the list), else
the first two CPUs as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from decision import families


@dataclass(frozen=True)
class Cpus:
    sender: str | None
    sink: str | None


def online_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def cpu_list(cpus: Sequence[int]) -> str:
    """``[0, 1, 2]`` -> ``"0,1,2"``: copybench's ``--cpus`` (and ``taskset -c``) syntax."""
    return ",".join(str(c) for c in cpus)


def cpus_needed(placement: str, has_sink: bool, threads: int = 1) -> int:
    """The CPUs a trial needs for each of its threads to have one of its own."""
    threads = max(1, threads)
    if placement not in ("unpinned", "same-core", "cross-core"):
        raise ValueError(f"unknown placement {placement!r}")
    if placement == "unpinned":
        return 0
    if has_sink:  # a CPU per thread and side: the claims' rule (decision.families)
        return families.cpus_needed(families.CPU_PER_THREAD, threads, placement)
    # one process (copy, splice2): same-core is one CPU; cross-core spreads its threads
    return 1 if placement == "same-core" else max(2, threads)


def cpus_for(placement: str, has_sink: bool, threads: int = 1,
             cpus: Sequence[int] | None = None) -> Cpus:
    """The ``--cpus`` lists of the sender and the sink for one trial (module docstring).
    ``cpus``: the CPUs the run may use (default: this process's affinity)."""
    have = sorted(cpus) if cpus is not None else online_cpus()
    if not have:
        raise ValueError("no CPU to pin to (empty affinity)")
    threads = max(1, threads)
    first = have[0]
    second = have[1] if len(have) > 1 else have[0]
    if placement == "unpinned":
        return Cpus(None, None)
    roomy = len(have) >= cpus_needed(placement, has_sink, threads)
    if placement == "same-core":
        if not has_sink:
            return Cpus(str(first), None)
        shared = cpu_list(have[:threads]) if roomy else str(first)
        return Cpus(shared, shared)
    if placement == "cross-core":
        if not has_sink:
            return Cpus(cpu_list(have[:max(2, threads)]) if roomy else f"{first},{second}",
                        None)
        if not roomy:
            return Cpus(str(first), str(second))
        half = len(have) // 2
        return Cpus(cpu_list(have[:threads]), cpu_list(have[half:half + threads]))
    raise ValueError(f"unknown placement {placement!r}")


def cross_core_possible() -> bool:
    return len(online_cpus()) > 1

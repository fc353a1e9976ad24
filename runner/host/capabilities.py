"""What the machine offers a plan: the methods copybench was built with, whether network
namespaces can be made, how many CPUs, which peer tools and whether ``perf record`` works."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from runner.host.netns import can_create_netns
from runner.host.cpuprofile import available
from runner.host.pinning import online_cpus


@dataclass
class Capabilities:
    """What the machine offers; decides which cells are valid."""

    methods: tuple[str, ...] | None = None  # from `copybench methods --json`; None = all
    root: bool = True
    cpus: int = 2
    peers: dict[str, bool] = field(default_factory=dict)
    perf: bool = True
    perf_why: str = ""
    # hardware counters (a PMU event source); None: not known (a plan then assumes them)
    pmu: bool | None = None

    @classmethod
    def detect(cls, methods: tuple[str, ...] | None) -> "Capabilities":
        perf, why = available()
        return cls(methods=methods, root=can_create_netns(), cpus=len(online_cpus()),
                   peers={p: shutil.which(p) is not None for p in ("iperf3", "sockperf")},
                   perf=perf, perf_why=why, pmu=has_pmu())


def has_pmu() -> bool:
    """Whether the kernel lists a hardware PMU event source (the manifest asks perf too)."""
    root = "/sys/bus/event_source/devices"
    devices = os.listdir(root) if os.path.isdir(root) else []
    return any(d in ("cpu", "cpu_core", "cpu_atom", "armv8_pmuv3") or d.startswith("armv")
               for d in devices)

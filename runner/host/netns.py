"""Network namespaces of a sweep: whether this process may make them, and how one is removed
with everything still running in it (used by the topologies and by the reaper).

Names are ``cb<pid>-<n>a`` / ``…b`` (the sweep's pid), so a sweep's leftovers are found by
name; deleting a namespace removes the veth links inside it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

NS_PREFIX = "cb"
CAP_SYS_ADMIN = 21


def can_create_netns() -> bool:
    """Whether this process may create network namespaces (CAP_SYS_ADMIN in effect), which
    is what "root" means here: uid 0 without the capability cannot."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_SYS_ADMIN & 1)
    except OSError:
        pass
    return os.geteuid() == 0


def netns_pids(name: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                         check=False).stdout
    return [int(x) for x in out.split() if x.isdigit()]


def remove_netns(name: str) -> None:
    """Kill every process in the namespace, then delete it (retrying briefly)."""
    for _ in range(50):
        pids = netns_pids(name)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if not pids:
            break
        time.sleep(0.02)
    if os.path.exists(f"/run/netns/{name}"):
        subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)


def leftovers(pid: int | None = None) -> list[str]:
    """Namespaces of ours (of sweep ``pid``, or any) that still exist."""
    try:
        names = os.listdir("/run/netns")
    except FileNotFoundError:
        return []
    mark = f"{NS_PREFIX}{pid}-" if pid else NS_PREFIX
    return sorted(n for n in names if n.startswith(mark))

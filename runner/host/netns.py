"""Network namespaces of a sweep: whether this process may make them, and how one is removed
with everything still running in it (used by the topologies and by the reaper).

Names are ``cb<pid>-<n>a`` / ``…b`` (the sweep's pid), so a sweep's leftovers are found by
name; deleting a namespace removes the veth links inside it.

Which run a sweep writes is kept beside them, in ``/run`` (a tmpfs, like ``/run/netns``):
``/run/copybench-netns/<pid>/run`` holds the run directory of sweep ``<pid>`` while it runs
(:func:`claim`, :func:`unclaim`). The reaper removes a killed sweep's namespaces; when the
reaper was killed too, they would stay forever: the next sweep (of any run, new or resumed)
removes every namespace whose sweep, the pid in its name, is dead, and says so
(:func:`reclaim`).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the reaper imports this module; it must not import runner.host.proc's Janitor
    from runner.host.proc import Janitor

NS_PREFIX = "cb"
#: a namespace of sweep <pid>: cb<pid>-<n>a / cb<pid>-<n>b
_NAME = re.compile(NS_PREFIX + r"(?P<pid>[1-9][0-9]*)-.+")
#: sweep pid -> the run directory it writes (one file per running sweep)
OWNERS = Path("/run/copybench-netns")
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


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _note(pid: int) -> Path:
    return OWNERS / str(pid)


def claim(run_dir: Path, janitor: Janitor | None = None) -> None:
    """Note that this process's namespaces belong to the sweep of ``run_dir`` (where this
    process may make namespaces at all; best effort: without the note a resume cannot
    remove what a killed sweep left, nothing else changes). The note is a directory the
    reaper removes with the namespaces; it stays only when the reaper was killed too."""
    if not can_create_netns():
        return
    note = _note(os.getpid())
    try:
        OWNERS.mkdir(mode=0o700, exist_ok=True)
        note.mkdir(exist_ok=True)
        (note / "run").write_text(str(Path(run_dir).resolve()) + "\n")
    except OSError:
        return
    if janitor is not None:
        janitor.note(f"+dir {note}")


def unclaim(janitor: Janitor | None = None) -> None:
    """The sweep ends (its namespaces already removed): its note goes."""
    note = _note(os.getpid())
    shutil.rmtree(note, ignore_errors=True)
    if janitor is not None:
        janitor.note(f"-dir {note}")


def reclaim() -> list[str]:
    """Remove every namespace of ours whose sweep is dead (the pid in its name, ``cb<pid>-``,
    is no live process: killed together with its reaper), whichever run it swept, and the
    notes of dead sweeps; a live sweep's namespaces are never touched. The names removed."""
    removed: list[str] = []
    for name in leftovers():
        m = _NAME.fullmatch(name)
        if m is None:
            continue
        pid = int(m["pid"])
        if pid == os.getpid() or _pid_alive(pid):
            continue
        remove_netns(name)
        removed.append(name)
    try:
        notes = list(OWNERS.iterdir())
    except OSError:
        notes = []
    for note in notes:
        if note.name.isdigit() and int(note.name) != os.getpid() \
                and not _pid_alive(int(note.name)) and not leftovers(int(note.name)):
            shutil.rmtree(note, ignore_errors=True)  # a dead sweep's note, nothing left
    return sorted(removed)

"""What ``make compare`` starts never outlives it, even when it is killed with SIGKILL (which
no handler sees): the notebook's kernel asks the kernel for SIGKILL when its parent dies
(``PR_SET_PDEATHSIG``), and a watchdog process, started in a session of its own, removes the
report's temporary directory (the partial report and the kernel's connection file, which
holds the key that lets a client run code in the kernel) once the pipe from its parent closes,
which the kernel does for any process however it ends.

(The sweep has the same two things in :mod:`runner.host.proc`; the analysis does not import the
sweep.)
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from jupyter_client import AsyncKernelManager

#: prctl(2) option: the signal this process gets when its parent (thread) dies
PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)  # loaded here: a preexec_fn runs after fork

_WATCH = ("import shutil, sys\n"
          "sys.stdin.buffer.read()  # returns when the parent's end closes: it has ended\n"
          "shutil.rmtree(sys.argv[1], ignore_errors=True)\n")


def die_with_parent() -> None:
    """A ``preexec_fn``: SIGKILL this process when its parent dies."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class KernelDyingWithDriver(AsyncKernelManager):  # type: ignore[misc]
    """The notebook's kernel, started with ``PR_SET_PDEATHSIG`` (``start_kernel``'s keywords
    go to Popen): killed the moment this process dies."""

    async def start_kernel(self, **kw: Any) -> None:
        kw.setdefault("preexec_fn", die_with_parent)
        await super().start_kernel(**kw)


class Watchdog:
    """Removes ``directory`` when this process ends without having :meth:`close`d it; after
    :meth:`close` it removes whatever is still at that path (nothing, once the directory was
    moved into place)."""

    def __init__(self, directory: Path) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _WATCH, str(directory)], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

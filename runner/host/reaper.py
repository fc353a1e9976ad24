"""A watchdog that removes what a sweep created if the sweep dies without cleaning up.

The sweep starts ``python -m runner.host.reaper`` in its own session with a pipe on stdin and
tells it, one line at a time, what it creates and removes::

    +ns NAME   -ns NAME     network namespaces
    +pg PGID   -pg PGID     process groups (trial processes)
    +ssh OPTS… TARGET       the ssh master of the ``remote`` transport (runner.host.ssh)
    +rsink PID -rsink PID   sinks running on that remote host
    +dir PATH  -dir PATH    the process's temporary directory (runner.host.proc.Janitor.tmp)

When the pipe closes (the sweep exited, however: normally, by a signal, even SIGKILL), the
reaper kills the process groups still registered, kills every process left in each
registered namespace, and deletes the namespaces (their veth links go with them); for the
``remote`` transport it kills (over ssh) the remote sinks still registered and ends the ssh
master, which ``ControlPersist`` would otherwise keep alive; last, once nothing that wrote
there runs, it removes the temporary directory. After a normal exit nothing is registered
and it just ends.

It imports only the helpers that do the removing (:mod:`runner.host.proc`, :mod:`runner.host.netns`,
:mod:`runner.host.ssh`), nothing of the transports: it is a leaf that anything may start.
"""

from __future__ import annotations

import shlex
import shutil
import signal
import sys

from runner.host.netns import remove_netns
from runner.host.proc import kill_group
from runner.host.ssh import reap


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    namespaces: list[str] = []
    groups: set[int] = set()
    ssh: list[list[str]] = []
    rsinks: set[int] = set()
    dirs: list[str] = []
    for line in sys.stdin:
        op, _, arg = line.strip().partition(" ")
        if op == "+ns":
            namespaces.append(arg)
        elif op == "-ns" and arg in namespaces:
            namespaces.remove(arg)
        elif op == "+pg":
            groups.add(int(arg))
        elif op == "-pg":
            groups.discard(int(arg))
        elif op == "+ssh":
            ssh.append(shlex.split(arg))
        elif op == "-ssh":
            ssh = [s for s in ssh if s != shlex.split(arg)]
        elif op == "+rsink":
            rsinks.add(int(arg))
        elif op == "-rsink":
            rsinks.discard(int(arg))
        elif op == "+dir":
            dirs.append(arg)
        elif op == "-dir" and arg in dirs:
            dirs.remove(arg)
    for pg in groups:
        kill_group(pg)
    for ns in namespaces:
        remove_netns(ns)
    for opts in ssh:
        reap(opts, sorted(rsinks))
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

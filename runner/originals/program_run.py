"""Running one of their programs for one window and turning its output into a record.

Topologies (their port 8080 is fixed and their servers bind every address, so each trial
gets network namespaces of its own, made by ``runner.trial.transports``):

* ``loopback``: server and client(s) both in one fresh namespace (the sender namespace of a
  runner veth pair; the link is unused), connecting to 127.0.0.1. Without the privilege to
  make namespaces, they run in the caller's namespace (port 8080 must then be free).
* ``veth``: the server (their data *sender*) in namespace A (198.18.0.1), the client(s)
  (the receiver) in namespace B, connecting to 198.18.0.1 over the veth pair: data flows
  A -> B as in copybench's veth cells.

Placement follows ``runner.host.pinning.cpus_for(placement, has_sink=True, threads=threads)``:
the server gets the sender's CPUs, the client(s) the sink's, through ``taskset -c`` (their
threads inherit the whole list and the scheduler spreads them over it). Each process is
``ip netns exec NS`` (as root) -> ``setpriv`` (drops to the
unprivileged user, clean environment, parent-death signal re-armed) -> ``taskset`` -> their
binary, all one pid; each in its own process group registered with the reaper (via
``runner.host.proc.Janitor``), so nothing survives the runner even on SIGKILL.

A trial is one pair of :mod:`runner.trial.pair`: start the server, wait until it listens on 8080
(its namespace's /proc/<pid>/net/tcp), start the client(s) with the window, record every
process's identity (uid, capabilities), wait for the clients (window + 15 s for their
connection retries), then stop the server (SIGTERM, then SIGKILL to its group); then tear the
namespaces down and parse. Every failure is a :class:`ProgramRun` with ``status``
``failed`` or ``timeout`` and the reason, never an exception. A :class:`ProgramRun` is what
their program did, not a record: the trial's record is made from it by
:mod:`runner.originals.original_trial` (through :mod:`runner.trial.trialrecord`).
"""

from __future__ import annotations

import subprocess
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from runner.host import proc
from runner.host.netns import can_create_netns
from runner.originals import OriginalsError, OriginalsUsageError, adapters
from runner.originals.adapters import PORT, ParseError, Program
from runner.plan.original_limits import MAX_DURATION_S, MAX_SIZE, PLACEMENTS, TRANSPORTS
from runner.originals.privs import RunAs, proc_identity, run_as
from runner.trial.pair import Pair, run_pair
from runner.host.pinning import cpus_for, cross_core_possible
from runner.trial.transports import NET_A, Namespaces, TopologyError

CLIENT_SLACK_S = 15.0
READY_TIMEOUT_S = 10.0


@dataclass
class ProgramRun:
    """One run of their program: the configuration it ran with (``config``: theirs, e.g.
    ``size_arg``, ``server_cpus``, ``namespaces``), how it went, what they printed."""

    started_at: str
    config: dict[str, Any]
    status: str = "failed"  # ok | failed | timeout
    error: str | None = None
    result: dict[str, Any] | None = None  # their parser's (adapters.Program.parse)
    invocation: dict[str, Any] | None = None  # server_argv, client_argvs, cwd
    identity: dict[str, Any] | None = None  # uid, capabilities, CPUs of each process
    exit: dict[str, Any] | None = None
    output: dict[str, Any] | None = None  # the tails of what they printed
    client_wall_s: float | None = None
    wall_s: float | None = None


def _listening(pid: int, port: int = PORT) -> bool:
    """Whether the network namespace of ``pid`` has a TCP socket listening on ``port``."""
    want = f":{port:04X}"
    for name in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{name}") as f:
                next(f, None)
                for line in f:
                    parts = line.split()
                    if len(parts) > 3 and parts[1].endswith(want) and parts[3] == "0A":
                        return True
        except OSError:
            continue
    return False


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _wait_exec(p: subprocess.Popen[bytes], binary: str, timeout: float = 5.0) -> bool:
    """Wait until the exec chain (ip -> setpriv -> taskset) has reached their binary."""
    want = binary[:15]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _comm(p.pid) == want:
            return True
        if p.poll() is not None:
            return False
        time.sleep(0.005)
    return False


@dataclass(frozen=True)
class Listening:
    """Their server is ready once their binary runs (not ``ip``, ``setpriv`` or ``taskset``
    on the way to it) and its namespace listens on their port (a :class:`runner.trial.pair.Ready`)."""

    binary: str

    def wait(self, p: subprocess.Popen[bytes], out: Path, err: Path,
             timeout: float) -> tuple[str | None, str]:
        deadline = time.monotonic() + timeout
        while not (_comm(p.pid) == self.binary[:15] and _listening(p.pid)):
            if p.poll() is not None:
                return None, (f"exited with status {p.returncode} before listening on "
                              f"{PORT}: {proc.tail(err, 3)}")
            if time.monotonic() > deadline:
                return None, f"not listening on {PORT} after {timeout:.0f} s"
            time.sleep(0.01)
        return "", ""


def _tool(name: str) -> str:
    """``name`` as an absolute path found on the runner's own PATH: their processes start with
    a small clean environment (:meth:`RunAs.env`) whose PATH may lack where this machine keeps
    ``ip`` (``/usr/sbin``, or a bundle's ``bin/``)."""
    return shutil.which(name) or name


def _prefix(ns: str | None, who: RunAs, cpus: str | None) -> list[str]:
    argv: list[str] = [_tool("ip"), "netns", "exec", ns] if ns else []
    drop = who.prefix()
    if drop:
        argv += [_tool(drop[0]), *drop[1:], "--reset-env", "--pdeathsig=KILL"]
    if cpus is not None:
        argv += [_tool("taskset"), "-c", cpus]
    return argv


def check_args(transport: str, placement: str, threads: int, size: int, duration: int) -> None:
    if transport not in TRANSPORTS:
        raise OriginalsUsageError(f"transport {transport!r} (allowed: {', '.join(TRANSPORTS)})")
    if placement not in PLACEMENTS:
        raise OriginalsUsageError(f"placement {placement!r} (allowed: {', '.join(PLACEMENTS)})")
    if placement == "cross-core" and not cross_core_possible():
        raise OriginalsUsageError("placement cross-core needs two CPUs")
    if not 1 <= threads <= 64:
        raise OriginalsUsageError(f"threads {threads} (allowed: 1-64)")
    if not 1 <= duration <= MAX_DURATION_S:
        raise OriginalsUsageError(f"duration {duration} s (allowed: whole seconds 1-"
                                  f"{MAX_DURATION_S}; their programs take whole seconds)")
    if size <= 0 or size % adapters.FIELDS or size > MAX_SIZE:
        raise OriginalsUsageError(f"size {size} (allowed: a multiple of 8 up to 64 MiB: the "
                                  "message is 8 fields)")
    if transport == "veth" and not can_create_netns():
        raise OriginalsUsageError("transport veth needs root (network namespaces)")


def run_program(prog: Program, bin_dir: Path, transport: str = "loopback",
                placement: str = "same-core", threads: int = 1, size: int = 512,
                duration: int = 2, janitor: proc.Janitor | None = None,
                who: RunAs | None = None, server_args: str = "explicit",
                on_running: Callable[[int, list[int]], None] | None = None,
                mtu: int | None = None) -> ProgramRun:
    """One trial of ``prog`` -> what it did (``status`` ok | failed | timeout).

    ``on_running(server_pid, client_pids)`` is called while both sides run (tests use it
    to look at the processes)."""
    check_args(transport, placement, threads, size, duration)
    who = who or run_as()
    missing = [b for b in (prog.server_bin, prog.client_bin) if not (bin_dir / b).is_file()]
    if missing:
        raise OriginalsError(f"{prog.name}: {', '.join(missing)} not built in {bin_dir} "
                             "(run the build first)")
    cpus = cpus_for(placement, has_sink=True, threads=threads)
    run = ProgramRun(
        started_at=datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        config={"source": prog.source, "method": prog.method, "transport": transport,
                "placement": placement, "threads": threads, "size": size,
                "message_bytes": size, "field_bytes": size // adapters.FIELDS,
                "size_arg": prog.size_arg(size), "size_unit": prog.size_unit,
                "duration_s": duration, "server_cpus": cpus.sender,
                "client_cpus": cpus.sink, "server_args": server_args, "user": who.user})
    topo = Namespaces("veth", mtu, janitor=janitor)
    t0 = time.monotonic()
    try:
        if transport == "veth" or can_create_netns():
            topo.setup()
            server_ns = topo.sender_ns
            client_ns = topo.sender_ns if transport == "loopback" else topo.sink_ns
        else:
            server_ns = client_ns = None
        host = "127.0.0.1" if transport == "loopback" else NET_A
        run.config["namespaces"] = {"server": server_ns, "client": client_ns}
        run.config["host"] = host
        s_argv = _prefix(server_ns, who, cpus.sender) + prog.server_argv(
            size, threads, duration, server_args)
        c_argvs = [_prefix(client_ns, who, cpus.sink) + a
                   for a in prog.client_argvs(host, size, threads, duration)]
        run.invocation = {"server_argv": s_argv, "client_argvs": c_argvs, "cwd": str(bin_dir)}
        _run(run, prog, s_argv, c_argvs, bin_dir, who, janitor, duration, size, server_args,
             on_running)
    except (OriginalsError, TopologyError, OSError) as e:
        run.error = str(e)
    finally:
        topo.teardown()
        run.wall_s = round(time.monotonic() - t0, 3)
    return run


def _run(run: ProgramRun, prog: Program, s_argv: list[str], c_argvs: list[list[str]],
         bin_dir: Path, who: RunAs, janitor: proc.Janitor | None, duration: int, size: int,
         server_args: str, on_running: Callable[[int, list[int]], None] | None) -> None:
    """Their server and client(s) as one pair (runner.trial.pair); what they did into ``run``."""
    ident: dict[str, Any] = {}

    def started(server: subprocess.Popen[bytes], clients: list[subprocess.Popen[bytes]]
                ) -> None:
        ident["server"] = proc_identity(server.pid)
        for i, c in enumerate(clients):
            if _wait_exec(c, prog.client_bin):
                ident[f"client{i}" if len(clients) > 1 else "client"] = proc_identity(c.pid)
        if on_running is not None:
            on_running(server.pid, [c.pid for c in clients])

    pr = run_pair(Pair(s_argv, c_argvs, READY_TIMEOUT_S + duration + CLIENT_SLACK_S,
                       Listening(prog.server_bin), server_grace=0.0,
                       client_limit_s=duration + CLIENT_SLACK_S, names=("server", "client"),
                       merge_server_output=False, cwd=bin_dir, env=who.env(),
                       on_started=started), janitor)
    if not pr.clients:  # the server never got ready, or a client could not start
        raise OriginalsError(pr.problem or "failed")
    run.identity = ident
    run.client_wall_s = pr.clients_wall_s
    codes = [c.rc for c in pr.clients]
    run.exit = {"clients": codes, "server": pr.sink_rc,
                "server_ran_to_window_end": pr.server_ran_to_end}
    outs = [c.stdout for c in pr.clients]
    run.output = {"clients": [o[-16000:] for o in outs],
                  "server": pr.server_stdout[-16000:],
                  "client_stderr": proc.tail_text(pr.clients[0].stderr, 5),
                  "server_stderr": proc.tail_text(pr.server_stderr, 5)}
    if pr.status == "timeout":
        run.status = "timeout"
        run.error = f"client did not finish within {duration} s + {CLIENT_SLACK_S:.0f} s"
    elif any(rc != 0 for rc in codes):
        run.error = f"client exit status {codes}: " \
            f"{proc.tail_text(pr.clients[0].stderr, 3) or outs[0][-300:]}"
    else:
        try:
            res = prog.parse(outs, size, duration, pr.server_stdout, server_args)
        except ParseError as e:
            run.error = str(e)
        else:
            run.result = res
            if res["bytes"] <= 0:
                run.error = "the client received no data"
            else:
                run.status = "ok"



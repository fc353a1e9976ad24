"""The one pair runner: a server started first and waited for until it says it is ready, then
its client(s) run until they exit or their time is up, then the server is stopped.

Every trial runs through here: copybench's sink and sender (here, in a pair of network
namespaces, or the sink on another host), the peer tools' servers and clients, and the
reports' own programs (their server and one or more clients). What differs between them is
where and how the server starts and stops, which a :class:`Launcher` says (the transports of
:mod:`runner.trial.transports`), and how it says it is ready (a :class:`Ready`). Every process
runs in its own process group registered with the reaper; whatever happens (a timeout, a
failed start, a signal), nothing is left running when :func:`run_pair` returns or raises.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from runner.host.proc import Janitor, kill, spawn, stop, tail_text, wait_for_line

#: how much of a client's stderr a result keeps whole (its tail is kept apart)
STDERR_KEEP = 200000


class Ready(Protocol):
    """How a server says it is ready: ``wait`` returns (the line that said so, "") or
    (None, why not) within ``timeout`` s."""

    def wait(self, p: subprocess.Popen[bytes], out: Path, err: Path,
             timeout: float) -> tuple[str | None, str]: ...


@dataclass(frozen=True)
class LineReady:
    """Ready when the server prints a line that satisfies ``predicate`` (on stdout)."""

    predicate: Callable[[str], bool] = lambda line: True

    def wait(self, p: subprocess.Popen[bytes], out: Path, err: Path,
             timeout: float) -> tuple[str | None, str]:
        return wait_for_line(out, p, self.predicate, timeout)


@dataclass(frozen=True)
class Pair:
    """What to run: ``server`` (None: the clients alone), then ``clients``.

    ``timeout``: the whole pair, from the server's start (the clients get what is left, at
    least 1 s), unless ``client_limit_s`` gives the clients that long from their own start.
    ``server_grace``: after clients that ended normally, how long the server may take to end
    by itself before it is stopped (negative: killed at once). ``names``: what the two sides
    are called in a problem ("sink"/"sender", "server"/"client"). ``copybench``: the server is
    copybench's sink (over two hosts: the sweep's token, its port from the ready line, its
    events). ``merge_server_output``: the server's stderr goes to its stdout's file.
    ``on_started(server, clients)``: called once every client has started."""

    server: list[str] | None
    clients: list[list[str]]
    timeout: float
    ready: Ready = LineReady()
    server_grace: float = 3.0
    client_limit_s: float | None = None
    names: tuple[str, str] = ("sink", "sender")
    copybench: bool = False
    merge_server_output: bool = True
    cwd: Path | None = None
    env: dict[str, str] | None = None
    on_started: Callable[[subprocess.Popen[bytes], list[subprocess.Popen[bytes]]], None] \
        | None = None


@dataclass
class RemoteSide:
    """The server of a pair that ran on the other host (the ``remote`` transport): the
    record's ``remote`` section."""

    host: str
    data_addr: str
    sink_port: int | None
    sink_pid: int | None
    sink_cpus: str | None
    # copybench's sink only: the connections it refused and how it ended
    refused: int | None = None
    refused_connections: list[dict[str, Any]] | None = None
    sink_exit: dict[str, Any] | None = None
    copybench: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"host": self.host, "data_addr": self.data_addr,
                               "sink_port": self.sink_port, "sink_pid": self.sink_pid,
                               "sink_cpus": self.sink_cpus}
        if self.copybench:
            out.update(refused=self.refused, refused_connections=self.refused_connections,
                       sink_exit=self.sink_exit)
        return out


@dataclass
class ClientRun:
    """One client's exit status and output."""

    rc: int | None
    stdout: str
    stderr: str


@dataclass
class PairResult:
    """How a pair went. ``stdout``, ``sender_rc``, ``sender_tail`` and ``stderr`` are the
    (first) client's; ``clients`` has every client; ``sink_*`` and ``server_*`` the
    server's."""

    status: str  # ok | failed | timeout
    stdout: str
    sender_rc: int | None
    sink_rc: int | None
    sender_tail: str
    sink_tail: str
    problem: str | None  # runner-side description of what went wrong
    wall_s: float
    stderr: str = ""
    remote: RemoteSide | None = None
    clients: list[ClientRun] = field(default_factory=list)
    server_stdout: str = ""
    server_stderr: str = ""
    server_ran_to_end: bool | None = None  # still running when the clients ended
    clients_wall_s: float | None = None


class Server(Protocol):
    """A started server (made by a :class:`Launcher`)."""

    p: subprocess.Popen[bytes]
    out: Path
    err: Path

    def wait_ready(self, timeout: float) -> tuple[str | None, str]:
        """Wait for the pair's :class:`Ready` (and note what it said)."""

    def ready_problem(self, why: str, rc: int | None) -> str:
        """What a server that did not get ready is recorded as."""

    def clients(self, line: str, argvs: list[list[str]]
                ) -> tuple[list[list[str]], dict[str, str] | None]:
        """The clients' argvs and environment, once the server printed ``line``."""

    def grace(self, status: str, rc: int | None) -> float:
        """How long the server may take to end by itself after the clients."""

    def stop(self, grace: float) -> int | None: ...

    def kill(self) -> int | None: ...

    def finish(self, result: PairResult) -> None:
        """Add what only this kind of server knows to the result (the remote side)."""


class Launcher(Protocol):
    """Where and how a pair's server starts (and so how it stops): a transport."""

    ready_s: float  # how long a server may take to be ready (at most the pair's timeout)

    def start(self, pair: Pair, d: Path, janitor: Janitor | None) -> Server:
        """Start the server; OSError when it cannot be (the result says why)."""

    def start_failed(self, pair: Pair, e: OSError) -> str: ...


@dataclass
class LocalServer:
    """A server here (in this or a network namespace: its argv says)."""

    p: subprocess.Popen[bytes]
    out: Path
    err: Path
    name: str
    janitor: Janitor | None
    pair: Pair

    def wait_ready(self, timeout: float) -> tuple[str | None, str]:
        return self.pair.ready.wait(self.p, self.out, self.err, timeout)

    def ready_problem(self, why: str, rc: int | None) -> str:
        return f"{self.name} {why}"

    def clients(self, line: str, argvs: list[list[str]]
                ) -> tuple[list[list[str]], dict[str, str] | None]:
        return argvs, self.pair.env

    def grace(self, status: str, rc: int | None) -> float:
        if self.pair.server_grace < 0:
            return self.pair.server_grace
        return self.pair.server_grace if status == "ok" else 0.0

    def stop(self, grace: float) -> int | None:
        return kill(self.p, self.janitor) if grace < 0 else stop(self.p, self.janitor,
                                                                  grace=grace)

    def kill(self) -> int | None:
        return kill(self.p, self.janitor)

    def finish(self, result: PairResult) -> None:
        pass


class Here:
    """The launcher of servers on this host (loopback, veth, udp-forward, their programs)."""

    ready_s = 10.0

    def start(self, pair: Pair, d: Path, janitor: Janitor | None) -> Server:
        assert pair.server is not None
        out = d / ("server.out" if not pair.merge_server_output else "server.log")
        err = d / "server.err" if not pair.merge_server_output else out
        with open(out, "wb") as so:
            if pair.merge_server_output:
                p = spawn(pair.server, janitor, so, subprocess.STDOUT, pair.env, pair.cwd)
            else:
                with open(err, "wb") as se:
                    p = spawn(pair.server, janitor, so, se, pair.env, pair.cwd)
        return LocalServer(p, out, err, pair.names[0], janitor, pair)

    def start_failed(self, pair: Pair, e: OSError) -> str:
        assert pair.server is not None
        return f"cannot start the {pair.names[0]} ({pair.server[0]}): {e}"


HERE = Here()


def run_pair(pair: Pair, janitor: Janitor | None, launcher: Launcher = HERE) -> PairResult:
    """Run ``pair`` (see the module doc); never leaves a process behind. Its output files
    live in the sweep's temporary directory (removed by the reaper if the sweep dies)."""
    where = janitor.tmp if janitor is not None else None
    with tempfile.TemporaryDirectory(prefix="copybench-trial-", dir=where) as tmp:
        run = _Run(pair, launcher, janitor, Path(tmp))
        try:
            return run.go()
        finally:
            run.cleanup()


class _Run:
    """One pair in progress: its processes, files and clock."""

    def __init__(self, pair: Pair, launcher: Launcher, janitor: Janitor | None,
                 d: Path) -> None:
        self.pair, self.launcher, self.janitor, self.d = pair, launcher, janitor, d
        self.t0 = time.monotonic()
        self.server: Server | None = None
        self.procs: list[subprocess.Popen[bytes]] = []

    def result(self, status: str, problem: str | None, sink_rc: int | None = None,
               runs: list[ClientRun] | None = None) -> PairResult:
        runs = runs or []
        first = runs[0] if runs else ClientRun(None, "", "")
        s = self.server
        out = _read(s.out) if s else ""
        err = _read(s.err) if s else ""
        pr = PairResult(status, first.stdout, first.rc, sink_rc, tail_text(first.stderr),
                        tail_text(err), problem, time.monotonic() - self.t0,
                        first.stderr[-STDERR_KEEP:], clients=runs, server_stdout=out,
                        server_stderr=err)
        if s is not None:
            s.finish(pr)
        return pr

    def go(self) -> PairResult:
        pair = self.pair
        line = ""
        if pair.server is not None:
            try:
                self.server = self.launcher.start(pair, self.d, self.janitor)
            except OSError as e:
                return self.result("failed", self.launcher.start_failed(pair, e))
            s = self.server
            got, why = s.wait_ready(min(self.launcher.ready_s, pair.timeout))
            if got is None:
                rc = s.kill()
                problem = s.ready_problem(why, rc)
                pr = self.result("failed", problem, rc)
                self.server = None
                return pr
            line = got
        argvs, env = (self.server.clients(line, pair.clients) if self.server
                      else (pair.clients, pair.env))
        t_start = time.monotonic()
        try:
            self.start_clients(argvs, env)
        except OSError as e:
            return self.result("failed", f"cannot start the {pair.names[1]} "
                               f"({argvs[len(self.procs)][0]}): {e}")
        if pair.on_started is not None and self.server is not None:
            pair.on_started(self.server.p, list(self.procs))
        status, runs, clients_wall = self.wait_clients(t_start)
        sink_rc = None
        alive = None
        if self.server is not None:
            alive = self.server.p.poll() is None
            sink_rc = self.server.stop(self.server.grace(status, runs[0].rc))
        problem = (f"timed out after {pair.timeout:g} s (killed)" if status == "timeout"
                   else None)
        pr = self.result(status, problem, sink_rc, runs)
        pr.server_ran_to_end, pr.clients_wall_s = alive, round(clients_wall, 3)
        self.server = None
        return pr

    def start_clients(self, argvs: list[list[str]], env: dict[str, str] | None) -> None:
        for i, argv in enumerate(argvs):
            with open(self.d / f"client{i}.out", "wb") as so, \
                    open(self.d / f"client{i}.err", "wb") as se:
                self.procs.append(spawn(argv, self.janitor, so, se, env, self.pair.cwd))

    def wait_clients(self, t_start: float) -> tuple[str, list[ClientRun], float]:
        """Wait for every client until the deadline, then kill what still runs; the status,
        every client's outcome and how long they ran."""
        pair = self.pair
        if pair.client_limit_s is not None:
            deadline = t_start + pair.client_limit_s
        else:
            deadline = t_start + max(1.0, pair.timeout - (t_start - self.t0))
        status = "ok"
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                status = "timeout"
        wall = time.monotonic() - t_start
        runs = []
        for i, p in enumerate(self.procs):
            rc = kill(p, self.janitor) if p.poll() is None else stop(p, self.janitor, grace=0)
            runs.append(ClientRun(rc, _read(self.d / f"client{i}.out"),
                                  _read(self.d / f"client{i}.err")))
        self.procs = []
        return status, runs, wall

    def cleanup(self) -> None:
        """After an error or a signal: kill whatever still runs."""
        for p in self.procs:
            kill(p, self.janitor)
        if self.server is not None:
            self.server.kill()


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""

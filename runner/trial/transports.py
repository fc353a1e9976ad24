"""Where sender and sink run: ``loopback``, ``veth``, ``udp-forward``, ``remote``. Each is a
small launcher object (:class:`Transport`): the address the sender sends to, the command
prefixes that put a process in its place, the ports, and how the pair's server starts and
stops (:mod:`runner.trial.pair` runs every pair through one of them).

``loopback`` (:class:`Loopback`): both in the current namespace, 127.0.0.1; needs no privilege.

``veth`` (:class:`Namespaces`): two network namespaces A (sender) and B (sink) joined by a
veth pair created directly inside them (no link ever exists in the caller's namespace).
Addresses come from 198.18.0.0/15, the range reserved for benchmarking (RFC 2544), and exist
only inside the pair of namespaces.

``udp-forward`` (:class:`Namespaces`): A sends UDP over a veth with MTU 65521 to B; B has
``ip_forward=1`` and a ``blackhole`` route for the destination 198.19.0.0/24, so every
datagram is forwarded and dropped: nothing is delivered locally and nothing is fragmented,
so the kernel never copies MSG_ZEROCOPY pages and the completions report real zero copy.
Only the sender runs.

``remote`` (:class:`Remote`): the sender here (this namespace), the sink on another host over
ssh, at the remote's data address (:mod:`runner.host.remotehost`); nothing to set up here.

Names are unique per sweep process (``cb<pid>-<n>a``); ``teardown`` kills whatever still
runs inside and deletes the namespaces, which removes the links. The reaper does the same if
the sweep dies first.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any, Sequence

from runner.trial.copybench_argv import sink_argv
from runner.host.netns import NS_PREFIX, can_create_netns, remove_netns
from runner.trial.pair import HERE, Here, Pair, PairResult, RemoteSide, Server
from runner.host.pinning import Cpus
from runner.host.proc import Janitor, kill_group, spawn, tail
from runner.host.remotehost import RemoteHost
from runner.host.ssh import classify

NET_A = "198.18.0.1"
NET_B = "198.18.0.2"
PREFIX = 24
UDP_DEST = "198.19.0.1"
UDP_DEST_NET = "198.19.0.0/24"
_NS_PORT_BASE = 20000

_serial = count()
_ns_ports = count()


class TopologyError(Exception):
    pass


def _ip(args: Sequence[str]) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, check=False, timeout=30)
    if r.returncode != 0:
        raise TopologyError(f"ip {' '.join(args)}: {r.stderr.strip() or r.returncode}")


def _in_ns(ns: str, args: Sequence[str]) -> None:
    r = subprocess.run(["ip", "netns", "exec", ns, *args], capture_output=True, text=True,
                       check=False, timeout=30)
    if r.returncode != 0:
        raise TopologyError(f"{' '.join(args)} in {ns}: {r.stderr.strip() or r.returncode}")


def free_port() -> int:
    """A TCP port free on both 127.0.0.1 and :: (the sink binds dual stack)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(("::", 0))
            port = s.getsockname()[1]
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s4:
                s4.bind(("127.0.0.1", port))
        except OSError:
            continue
        return port
    raise RuntimeError("no free TCP port")


@dataclass
class Transport:
    """A transport on this host; its servers start here (it is their :class:`Launcher`)."""

    name: str
    mtu: int | None = None
    janitor: Janitor | None = None
    up: bool = False
    ready_s: float = Here.ready_s
    #: copybench sinks kept across trials on this transport, by their CPUs
    #: (runner.trial.copybench_trial.kept_sink): stopped before the transport goes
    kept: dict[str, Any] = field(default_factory=dict)

    @property
    def host(self) -> str:
        """The address the sender sends to."""
        return "127.0.0.1"

    @property
    def sink_addr(self) -> str:
        """The address a server binds."""
        return "127.0.0.1"

    def sender_prefix(self) -> list[str]:
        return []

    def sink_prefix(self) -> list[str]:
        return []

    def namespaces(self) -> list[str]:
        return []

    def setup(self) -> None:
        self.up = True

    def stop_kept(self) -> None:
        """Stop and reap the sinks kept here (each has a ``stop()``)."""
        for kept in list(self.kept.values()):
            kept.stop()
        self.kept.clear()

    def teardown(self) -> None:
        self.stop_kept()
        self.up = False

    def port(self) -> int:
        """A port for copybench's sink."""
        return free_port()

    def peer_port(self) -> int:
        """A port for a peer tool's server."""
        return self.port()

    def cpus(self, cpus: Cpus) -> Cpus:
        """Where sender and sink run, given the placement's CPUs here."""
        return cpus

    def copybench_sink(self, binary: Path, port: int, cpus: Cpus, idle_s: float) -> list[str]:
        return self.sink_prefix() + sink_argv(binary, port, cpus)

    def peer_server(self, argv: list[str]) -> list[str]:
        return self.sink_prefix() + argv

    def pair_timeout(self, timeout: float) -> float:
        """A pair's timeout for a trial's (over ssh: more, for the connection)."""
        return timeout

    # the Launcher of runner.trial.pair: servers start here
    def start(self, pair: Pair, d: Path, janitor: Janitor | None) -> Server:
        return HERE.start(pair, d, janitor)

    def start_failed(self, pair: Pair, e: OSError) -> str:
        return HERE.start_failed(pair, e)


class Loopback(Transport):
    """Sender and sink in this namespace, over 127.0.0.1."""

    def __init__(self, mtu: int | None = None, janitor: Janitor | None = None) -> None:
        super().__init__("loopback", mtu, janitor)


@dataclass
class Namespaces(Transport):
    """``veth`` and ``udp-forward``: a pair of network namespaces joined by a veth pair."""

    sender_ns: str | None = None
    sink_ns: str | None = None
    links: list[str] = field(default_factory=list)

    @property
    def host(self) -> str:
        return NET_B if self.name == "veth" else UDP_DEST

    @property
    def sink_addr(self) -> str:
        return NET_B

    def sender_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.sender_ns] if self.sender_ns else []

    def sink_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.sink_ns] if self.sink_ns else []

    def namespaces(self) -> list[str]:
        return [n for n in (self.sender_ns, self.sink_ns) if n]

    def port(self) -> int:
        return _NS_PORT_BASE + next(_ns_ports) % 40000

    def setup(self) -> None:
        if self.up:
            return
        if not can_create_netns():
            raise TopologyError(f"{self.name} needs root (network namespaces)")
        n = next(_serial)
        tag = f"{NS_PREFIX}{os.getpid()}-{n}"
        self.sender_ns, self.sink_ns = f"{tag}a", f"{tag}b"
        link_a, link_b = f"{NS_PREFIX}{os.getpid()}v{n}a", f"{NS_PREFIX}{os.getpid()}v{n}b"
        try:
            for ns in (self.sender_ns, self.sink_ns):
                if self.janitor:
                    self.janitor.note(f"+ns {ns}")
                _ip(["netns", "add", ns])
            _ip(["link", "add", "name", link_a, "netns", self.sender_ns, "type", "veth",
                 "peer", "name", link_b, "netns", self.sink_ns])
            self.links = [link_a, link_b]
            mtu = str(self.mtu or 1500)
            for ns, link, addr in ((self.sender_ns, link_a, NET_A),
                                   (self.sink_ns, link_b, NET_B)):
                _ip(["-n", ns, "link", "set", "lo", "up"])
                _ip(["-n", ns, "link", "set", link, "mtu", mtu, "up"])
                _ip(["-n", ns, "addr", "add", f"{addr}/{PREFIX}", "dev", link])
            if self.name == "udp-forward":
                _ip(["-n", self.sender_ns, "route", "add", UDP_DEST_NET, "via", NET_B])
                _in_ns(self.sink_ns, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
                _ip(["-n", self.sink_ns, "route", "add", "blackhole", UDP_DEST_NET])
            self.up = True
        except (TopologyError, subprocess.TimeoutExpired, OSError) as e:
            self.teardown()
            raise TopologyError(f"{self.name} set-up failed: {e}") from None

    def teardown(self) -> None:
        self.stop_kept()  # before their namespaces go
        for ns in self.namespaces():
            remove_netns(ns)
            if self.janitor:
                self.janitor.note(f"-ns {ns}")
        self.sender_ns = self.sink_ns = None
        self.links = []
        self.up = False


# --- two hosts ------------------------------------------------------------------------------

#: how long the remote sink may take to be ready (ssh, then the sink's start)
REMOTE_READY_S = 20.0
#: after a sender that ended well, how long the remote sink may take to end its session
REMOTE_SINK_GRACE_S = 5.0
#: a pair over ssh gets this much more than the trial's timeout
REMOTE_SLACK_S = 20.0


@dataclass
class Remote(Transport):
    """The sender here, the sink (or a peer's server) on the other host over ssh."""

    remote: RemoteHost | None = None

    @property
    def host(self) -> str:
        return self.remote.data_addr if self.remote else ""

    @property
    def sink_addr(self) -> str:
        return self.host

    def setup(self) -> None:
        if self.up:
            return
        if self.remote is None:
            raise TopologyError("remote: no remote host given (--remote USER@HOST or "
                                "--inventory FILE)")
        self.remote.attach(self.janitor)
        self.up = True

    def port(self) -> int:
        return 0  # the remote sink picks a free port; its ready line says which

    def peer_port(self) -> int:
        assert self.remote is not None
        return self.remote.peer_port()

    def cpus(self, cpus: Cpus) -> Cpus:
        assert self.remote is not None
        return self.remote.placement(cpus)  # the sink's CPUs are the remote host's

    def copybench_sink(self, binary: Path, port: int, cpus: Cpus, idle_s: float) -> list[str]:
        assert self.remote is not None
        return self.remote.sink_argv(cpus, idle_s=idle_s)

    def peer_server(self, argv: list[str]) -> list[str]:
        assert self.remote is not None
        return self.remote.peer_argv(argv)

    def pair_timeout(self, timeout: float) -> float:
        return timeout + REMOTE_SLACK_S

    def start(self, pair: Pair, d: Path, janitor: Janitor | None) -> Server:
        assert self.remote is not None and pair.server is not None
        out, err = d / "sink.out", d / "sink.err"
        with open(out, "wb") as so, open(err, "wb") as se:
            p = spawn(pair.server, janitor, so, se, stdin=subprocess.PIPE)
        assert p.stdin is not None
        try:  # the sweep's token, on the sink's stdin: its lifeline from now on
            p.stdin.write((self.remote.token + "\n").encode())
            p.stdin.flush()
        except BrokenPipeError:
            pass
        return RemoteSink(p, out, err, self.remote, pair, janitor)

    def start_failed(self, pair: Pair, e: OSError) -> str:
        return f"cannot start ssh: {e}"


@dataclass
class RemoteSink:
    """A server started over ssh: its stdin is its lifeline (closing it ends it there)."""

    p: subprocess.Popen[bytes]
    out: Path
    err: Path
    host: RemoteHost
    pair: Pair
    janitor: Janitor | None
    pid: int | None = None  # the server's pid there
    port: int | None = None  # copybench's sink: the port it picked

    def wait_ready(self, timeout: float) -> tuple[str | None, str]:
        line, why = self.pair.ready.wait(self.p, self.out, self.err, timeout)
        pid_ev = next((e for e in events(self.out) if e.get("event") == "pid"), None)
        if pid_ev:
            self.pid = int(pid_ev["pid"])
            if self.janitor:
                self.janitor.note(f"+rsink {self.pid}")
        return line, why

    def ready_problem(self, why: str, rc: int | None) -> str:
        err = tail(self.err)
        if rc == 255 and err:
            return "remote sink: " + classify(self.host.spec.host, err)
        return f"remote sink {why}" + (f": {err.splitlines()[-1]}" if err else "")

    def clients(self, line: str, argvs: list[list[str]]
                ) -> tuple[list[list[str]], dict[str, str] | None]:
        if not self.pair.copybench:
            return argvs, None
        self.port = int(json.loads(line)["port"])
        return ([with_port(a, self.port) for a in argvs],
                dict(os.environ, COPYBENCH_TOKEN=self.host.token))

    def grace(self, status: str, rc: int | None) -> float:
        # the sink ends by itself after its one session (--once); a sender that failed may
        # never have reached it, and a peer's server is ended by closing its stdin
        return REMOTE_SINK_GRACE_S if self.pair.copybench and status == "ok" and rc == 0 \
            else 0.0

    def stop(self, grace: float) -> int | None:
        try:
            rc = self.p.wait(timeout=grace) if grace > 0 else self.kill()
        except subprocess.TimeoutExpired:
            rc = self.kill()
        finally:
            self._close_stdin()
            if self.janitor:
                self.janitor.note(f"-pg {self.p.pid}")
        if self.pid and self.janitor:
            self.janitor.note(f"-rsink {self.pid}")
        return rc

    def kill(self) -> int:
        """Close the sink's stdin (its lifeline: it exits), then end the ssh client."""
        self._close_stdin()
        try:
            return self.p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            kill_group(self.p.pid)
            return self.p.wait()

    def _close_stdin(self) -> None:
        try:
            if self.p.stdin:
                self.p.stdin.close()
        except OSError:
            pass

    def finish(self, pr: PairResult) -> None:
        evs = events(self.out)
        refused = [e for e in evs if e.get("event") == "refused"]
        ex = next((e for e in evs if e.get("event") == "exit"), None)
        if pr.status == "ok" and self.pair.copybench and pr.clients and ex is None:
            pr.problem = ("the remote sink did not end its session normally (it was killed "
                          f"or failed; ssh exit status {pr.sink_rc})")
        seen = sorted({e.get("peer") for e in refused
                       if e.get("reason") == "unexpected peer address"})
        if pr.sender_rc not in (0, None) and pr.problem is None and seen:
            # the sender itself may have been refused: its address seen there is not the one
            # the sink was told to serve (NAT, another route)
            pr.problem = (f"the remote sink refused connections from {', '.join(seen)} (it "
                          f"serves only {self.host.sender_addr}); if that is this host, give "
                          "--remote-sender-addr with the address the remote sees")
        assert self.pair.server is not None
        pr.remote = RemoteSide(self.host.spec.host, self.host.data_addr, self.port, self.pid,
                               cpus_of(self.pair.server), copybench=self.pair.copybench)
        if self.pair.copybench:
            pr.remote.refused, pr.remote.refused_connections = len(refused), refused[:20]
            pr.remote.sink_exit = ex


def cpus_of(argv: Sequence[str]) -> str | None:
    """The CPUs of the remote server command (the last element is the sh -c line): copybench's
    --cpus, iperf3's -A, taskset -c."""
    toks = shlex.split(argv[-1]) if argv else []
    if toks[:2] == ["sh", "-c"]:
        toks = toks[4:]  # sh -c SCRIPT sh ARGV...
    for opt in ("--cpus", "-A", "-c"):
        if opt in toks and toks.index(opt) + 1 < len(toks):
            return toks[toks.index(opt) + 1]
    return None


def events(path: Path) -> list[dict[str, Any]]:
    """The JSON events a remote server printed (ready, pid, refused, exit)."""
    out = []
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(ev, dict):
            out.append(ev)
    return out


def with_port(argv: list[str], port: int) -> list[str]:
    out = list(argv)
    i = len(out) - 1 - out[::-1].index("--port")
    out[i + 1] = str(port)
    return out


def make(name: str, mtu: int | None, janitor: Janitor | None,
         remote: RemoteHost | None = None) -> Transport:
    """The transport a cell names (a file→file copy runs on ``loopback``: locally)."""
    if name == "loopback":
        return Loopback(mtu, janitor)
    if name == "remote":
        return Remote(name, mtu, janitor, ready_s=REMOTE_READY_S, remote=remote)
    return Namespaces(name, mtu, janitor)

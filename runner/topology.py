"""Where sender and sink run: ``loopback``, ``veth``, ``udp-forward``, ``remote``.

``loopback``: both in the current namespace, 127.0.0.1; needs no privilege.

``veth``: two network namespaces A (sender) and B (sink) joined by a veth pair created
directly inside them (no link ever exists in the caller's namespace). Addresses come from
198.18.0.0/15, the range reserved for benchmarking (RFC 2544), and exist only inside the
pair of namespaces.

``udp-forward``: A sends UDP over a veth with MTU 65521 to B; B has ``ip_forward=1`` and a
``blackhole`` route for the destination 198.19.0.0/24, so every datagram is forwarded and
dropped: nothing is delivered locally and nothing is fragmented, so the kernel never copies
MSG_ZEROCOPY pages and the completions report real zero copy. Only the sender runs.

``remote``: the sender here (this namespace), the sink on another host over ssh, at the
remote's data address (``runner.remote``); nothing to set up here.

Names are unique per sweep process (``cb<pid>-<n>a``); ``teardown`` kills whatever still
runs inside and deletes the namespaces, which removes the links. The reaper does the same if
the sweep dies first.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Sequence

from runner.netns import NS_PREFIX, can_create_netns, remove_netns
from runner.proc import Janitor

NET_A = "198.18.0.1"
NET_B = "198.18.0.2"
PREFIX = 24
UDP_DEST = "198.19.0.1"
UDP_DEST_NET = "198.19.0.0/24"

_serial = count()


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


@dataclass
class Topology:
    transport: str
    mtu: int | None = None
    janitor: Janitor | None = None
    sender_ns: str | None = None
    sink_ns: str | None = None
    links: list[str] = field(default_factory=list)
    up: bool = False
    remote: Any = None  # runner.remote.Remote for the ``remote`` transport

    @property
    def host(self) -> str:
        """The address the sender sends to."""
        if self.transport == "loopback":
            return "127.0.0.1"
        if self.transport == "remote":
            return self.remote.data_addr if self.remote else ""
        if self.transport == "veth":
            return NET_B
        return UDP_DEST

    @property
    def sink_addr(self) -> str:
        if self.transport == "remote":
            return self.remote.data_addr if self.remote else ""
        return "127.0.0.1" if self.transport == "loopback" else NET_B

    def sender_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.sender_ns] if self.sender_ns else []

    def sink_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.sink_ns] if self.sink_ns else []

    def namespaces(self) -> list[str]:
        return [n for n in (self.sender_ns, self.sink_ns) if n]

    def describe(self) -> dict[str, object]:
        return {"transport": self.transport, "mtu": self.mtu, "namespaces": self.namespaces(),
                "links": self.links, "host": self.host}

    def setup(self) -> None:
        if self.up:
            return
        if self.transport == "loopback":
            self.up = True
            return
        if self.transport == "remote":
            if self.remote is None:
                raise TopologyError("remote: no remote host given (--remote USER@HOST or "
                                    "--inventory FILE)")
            self.remote.attach(self.janitor)
            self.up = True
            return
        if not can_create_netns():
            raise TopologyError(f"{self.transport} needs root (network namespaces)")
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
            if self.transport == "udp-forward":
                _ip(["-n", self.sender_ns, "route", "add", UDP_DEST_NET, "via", NET_B])
                _in_ns(self.sink_ns, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
                _ip(["-n", self.sink_ns, "route", "add", "blackhole", UDP_DEST_NET])
            self.up = True
        except (TopologyError, subprocess.TimeoutExpired, OSError) as e:
            self.teardown()
            raise TopologyError(f"{self.transport} set-up failed: {e}") from None

    def teardown(self) -> None:
        for ns in self.namespaces():
            remove_netns(ns)
            if self.janitor:
                self.janitor.note(f"-ns {ns}")
        self.sender_ns = self.sink_ns = None
        self.links = []
        self.up = False

"""The cells of a profile: every experiment's factorial, filtered to the valid cells, on one
host or two.

A cell is valid when the machine can run it (:class:`runner.host.capabilities.Capabilities`: methods
built, root for namespaces, two CPUs for cross-core, the peer tools) and the combination makes
sense (e.g. ``vmsplice`` is TCP only; ``udp-forward`` runs the UDP message methods, stream
only, one sender, no cross-core since nothing receives, sizes that are not fragmented); every
skip is counted with its reason. The same configuration listed by two experiments is one
cell. Peers (iperf3, sockperf) and the reports' own programs get cells beside copybench's.

Over two hosts (:data:`TWO_HOSTS`, the ``remote`` transport) the profile stays as loaded and
the expansion reads it through :class:`Hosts`, which says what it changes, in the plan's notes
and in ``plan.json``'s ``hosts``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from runner.host.capabilities import Capabilities
from runner.plan.cells import NAMESPACE_TRANSPORTS, Cell
from runner.plan import original_limits as limits
from runner.plan.profile import (
    FILE_SEND_METHODS, MESSAGE_METHODS, ORIGINAL_METHOD_OF, SHARED_BASE, UDP_METHODS,
    Experiment, Profile, format_size,
)

UDP_HEADERS = 28  # IPv4 (20) + UDP (8)
SOCKPERF_MAX = 65000  # sockperf's largest message
ROOT_REASON = "network namespaces need root (CAP_SYS_ADMIN)"
#: the transports that run over TCP between two hosts (loopback and veth are one-host
#: topologies of the same sockets)
TCP_TRANSPORTS = ("loopback", "veth", "remote")


@dataclass(frozen=True)
class Hosts:
    """Where the socket experiments run: on this host as the profile says, or over two hosts
    (``remote``): then every socket experiment's transports are ``remote`` (loopback and veth
    are one-host topologies; udp-forward, a one-host device to see real zero copy, is left
    out: over a real NIC the data leaves the machine anyway, and the remote transport runs
    TCP); ``same-core`` is ``cross-core`` (sender and sink never share a CPU across hosts);
    the reports' own programs are left out (their fixed port and addresses); peers run over
    remote too, their servers there. file->file ``copy`` experiments stay as they are."""

    remote: bool = False
    #: why the reports' own programs are left out of this run ("": they run where the
    #: profile puts them): their cells are counted as skipped with this reason, never run
    originals_left_out: str = ""

    def transports(self, exp: Experiment) -> tuple[str, ...]:
        if not self.remote or exp.command != "send":
            return exp.transports
        return ("remote",) if any(t in TCP_TRANSPORTS for t in exp.transports) else ()

    def placements(self, exp: Experiment) -> tuple[str, ...]:
        if not self.remote or exp.command != "send":
            return exp.placements
        return tuple(dict.fromkeys("cross-core" if p == "same-core" else p
                                   for p in exp.placements))

    def originals(self, exp: Experiment) -> tuple[str, ...]:
        """The reports whose programs run beside ``exp``'s cells on these hosts."""
        return () if self.originals_left_out else self._placed(exp)

    def left_out(self, exp: Experiment) -> tuple[str, ...]:
        """The reports whose programs would run beside ``exp``'s cells, left out by
        :attr:`originals_left_out`."""
        return self._placed(exp) if self.originals_left_out else ()

    def _placed(self, exp: Experiment) -> tuple[str, ...]:
        return () if self.remote and exp.command == "send" else exp.originals

    def notes(self, profile: Profile) -> list[str]:
        """What two hosts change in the profile's design, one line per change."""
        if not self.remote:
            return []
        notes = []
        for e in profile.experiments:
            if e.command != "send":
                continue
            if not self.transports(e):
                notes.append(f"remote: experiment {e.name}: transports "
                             f"{', '.join(e.transports)} are one-host topologies: not run "
                             "over remote")
                continue
            if self.placements(e) != tuple(e.placements):
                notes.append(f"remote: experiment {e.name}: same-core is cross-core across "
                             "hosts")
            if e.originals:
                notes.append(f"remote: experiment {e.name}: the reports' own programs "
                             f"({', '.join(e.originals)}) run on one host (their fixed port "
                             "and addresses): left out over remote")
        return notes

    def to_json(self, profile: Profile) -> dict[str, Any] | None:
        """``plan.json``'s ``hosts``: None on one host."""
        if not self.remote:
            return None
        return {"count": 2, "transport": "remote", "changes": self.notes(profile)}


ONE_HOST = Hosts()
TWO_HOSTS = Hosts(remote=True)


def _skip(skipped: Counter[str], reason: str) -> None:
    skipped[reason] += 1


def expand(profile: Profile, caps: Capabilities,
           sources: dict[str, list[Experiment]] | None = None, hosts: Hosts | None = None
           ) -> tuple[dict[str, Cell], Counter[str]]:
    """Every experiment's factorial, filtered to valid cells (deduplicated by id), on
    ``hosts`` (default: one). With ``sources``, it also collects, per cell id, the
    experiments that listed the cell."""
    cells: dict[str, Cell] = {}
    skipped: Counter[str] = Counter()
    for exp in profile.experiments:
        for cell in _expand_experiment(profile, exp, caps, skipped, hosts or ONE_HOST):
            old = cells.get(cell.id)
            if sources is not None:
                sources.setdefault(cell.id, []).append(exp)
            if old is None:
                cells[cell.id] = cell
            elif cell.perf and (not old.perf or cell.perf_trials > old.perf_trials):
                cells[cell.id] = Cell(**{**asdict(old), "perf": True,
                                         "perf_trials": max(cell.perf_trials,
                                                            old.perf_trials if old.perf else 1)})
    return cells, skipped


def _expand_experiment(profile: Profile, exp: Experiment, caps: Capabilities,
                       skipped: Counter[str], hosts: Hosts) -> Iterable[Cell]:
    udp_max = profile.topology.udp_mtu - UDP_HEADERS
    peer_keys: set[tuple[Any, ...]] = set()
    placements = hosts.placements(exp)
    for transport in hosts.transports(exp):
        if transport in NAMESPACE_TRANSPORTS and not caps.root:
            n = (len(exp.methods) * len(exp.sizes) * len(exp.threads) * len(placements)
                 * len(exp.modes) * len(exp.caches))
            skipped[f"{transport}: {ROOT_REASON}"] += n
            continue
        for method, shared in _methods(exp):
            is_file = exp.command == "copy" or method in FILE_SEND_METHODS
            for mode in exp.modes:
                for size in exp.sizes:
                    for threads in exp.threads:
                        for placement in placements:
                            for cache in (exp.caches if is_file else (None,)):
                                reason = _invalid(exp, transport, method, mode, size, threads,
                                                  placement, is_file, caps, udp_max)
                                if reason:
                                    _skip(skipped, reason)
                                    continue
                                mtu = (profile.topology.veth_mtu if transport == "veth" else
                                       profile.topology.udp_mtu if transport == "udp-forward"
                                       else None)
                                cell = Cell(
                                    kind="copybench", command=exp.command, method=method,
                                    transport=None if exp.command == "copy" else transport,
                                    placement=placement,
                                    mode=mode if exp.command == "send" else None,
                                    size=size, threads=threads, cache=cache,
                                    duration_s=exp.duration_s, warmup_s=exp.warmup_s,
                                    verify=exp.verify if transport != "udp-forward" else "off",
                                    fields=exp.fields, mtu=mtu, experiment=exp.name,
                                    timeout_s=exp.timeout_s, dir=exp.dir, perf=exp.perf,
                                    perf_trials=exp.perf_trials, sockbuf=exp.sockbuf,
                                    sink=exp.sink, alternate=exp.alternate,
                                    share_time=shared)
                                if exp.own_block:  # the A/A pair alone in its block:
                                    # two copies of the method, both twins, so no other
                                    # reading takes either for the configuration's own cell
                                    if method == exp.methods[0]:
                                        for k in (1, 2):
                                            yield Cell(**{**asdict(cell), "twin": k,
                                                          "group": exp.name, "perf": False})
                                    continue
                                yield cell
                                yield from _receiver_cells(profile, exp, cell)
                                if exp.twin and method == exp.methods[0] and not shared:
                                    yield Cell(**{**asdict(cell), "twin": 1, "perf": False})
                                if exp.peers and exp.command == "send" and not is_file:
                                    key = (transport, placement, mode, size, threads, mtu)
                                    if key not in peer_keys:
                                        peer_keys.add(key)
                                        yield from _peer_cells(cell, caps, skipped)
                                yield from _original_cells(exp, hosts, cell, skipped)


def _receiver_cells(profile: Profile, exp: Experiment, cell: Cell) -> Iterable[Cell]:
    """The profile's other receive sizes (``[receiver]``) of a copybench TCP stream cell: a
    cell each, its own block (recv_size is a factor of the block key), the same rounds."""
    rx = profile.receiver
    if rx is None or not rx.applies(exp) or not cell.takes_recv_size:
        return
    for n in rx.others:
        yield Cell(**{**asdict(cell), "recv_size": n, "perf": False})


def _methods(exp: Experiment) -> list[tuple[str, str]]:
    """The experiment's cells' methods, each with the method it shares its trials' time with
    ("": today's procedure, a trial of its own). ``procedure = "shared-time"``: each method
    other than send against send in one trial (copybench send --share-time send), and send
    against itself, the A/A, where the experiment has only send or asks for a ``twin``."""
    if exp.procedure != "shared-time":
        return [(m, "") for m in exp.methods]
    base = SHARED_BASE
    out = [(m, base) for m in exp.methods if m != base]
    if exp.twin or not out:
        out.append((base, base))
    return out


def _invalid(exp: Experiment, transport: str, method: str, mode: str, size: int, threads: int,
             placement: str, is_file: bool, caps: Capabilities, udp_max: int) -> str | None:
    if caps.methods is not None and method not in caps.methods:
        return f"{method}: not built into this copybench (see `copybench methods`)"
    if placement == "cross-core" and caps.cpus < 2:
        return "cross-core: the machine has one CPU"
    if exp.command == "copy":
        return None
    if is_file and mode == "pingpong":
        return "pingpong: message methods only"
    if is_file and transport == "udp-forward":
        return "udp-forward: message methods only (file methods are TCP)"
    if transport == "udp-forward":
        if method not in UDP_METHODS:
            return f"udp-forward: {method} is TCP only (UDP methods: {', '.join(UDP_METHODS)})"
        if mode == "pingpong":
            return "udp-forward: stream only (nothing answers a pingpong)"
        if placement == "cross-core":
            return "udp-forward: no receiver, so cross-core is the same as same-core"
        if size > udp_max:
            return (f"udp-forward: sizes above {udp_max} B would be fragmented at MTU "
                    f"{udp_max + UDP_HEADERS} (fragmentation copies)")
        if threads != 1:
            return "udp-forward: one sender thread"
    if method in MESSAGE_METHODS and mode == "pingpong" and threads != 1:
        return "pingpong: one connection"
    return None


def _peer_cells(cell: Cell, caps: Capabilities, skipped: Counter[str]) -> Iterable[Cell]:
    base = {**asdict(cell), "method": "", "perf": False, "cache": None,
            "experiment": f"{cell.experiment}:peers", "verify": "off", "fields": 1}
    if cell.transport == "udp-forward":
        _skip(skipped, "peers: not run on udp-forward (no receiver)")
        return
    if cell.mode == "stream":
        if not caps.peers.get("iperf3"):
            _skip(skipped, "peer:iperf3: iperf3 is not installed")
            return
        yield Cell(**{**base, "kind": "peer:iperf3", "method": "iperf3"})
    else:
        if not caps.peers.get("sockperf"):
            _skip(skipped, "peer:sockperf: sockperf is not installed")
            return
        if cell.size > SOCKPERF_MAX or cell.size < 14:
            _skip(skipped, f"peer:sockperf: message sizes 14 to {SOCKPERF_MAX} B only")
            return
        yield Cell(**{**base, "kind": "peer:sockperf", "method": "sockperf"})


def _original_cells(exp: Experiment, hosts: Hosts, cell: Cell,
                    skipped: Counter[str]) -> Iterable[Cell]:
    """The reports' own programs beside a copybench cell, in its block (``originals``);
    those the run leaves out (:attr:`Hosts.originals_left_out`) counted as skipped."""
    theirs = ORIGINAL_METHOD_OF.get(cell.method)
    if theirs is None or cell.mode != "stream":
        return
    for src in hosts.left_out(exp):
        _skip(skipped, f"original:{src}: not run ({hosts.originals_left_out})")
    originals = hosts.originals(exp)
    if not originals:
        return
    for src in originals:
        why = (f"transport {cell.transport} (their programs run on "
               f"{' or '.join(limits.TRANSPORTS)})" if cell.transport not in limits.TRANSPORTS
               else "sizes that are a multiple of 8 only (8 fields)" if cell.size % 8 else
               f"sizes up to {format_size(limits.MAX_SIZE)}" if cell.size > limits.MAX_SIZE
               else f"windows up to {limits.MAX_DURATION_S} s"
               if limits.window(src, cell.duration_s) > limits.MAX_DURATION_S else None)
        if why:
            _skip(skipped, f"original:{src}: {why}")
            continue
        yield Cell(**{**asdict(cell), "kind": f"original:{src}", "method": f"{src}:{theirs}",
                      "cache": None, "duration_s": float(limits.window(src, cell.duration_s)),
                      "warmup_s": 0.0, "verify": "off", "fields": 8, "perf": False,
                      "perf_trials": 1, "dir": None, "timeout_s": None,
                      "experiment": f"{exp.name}:originals", "block_as": cell.id,
                      "rounds_cap": exp.originals_rounds})

"""A peer tool's trial (``iperf3`` for stream cells, ``sockperf`` for ping-pong ones): its
server and client as one pair (:mod:`runner.trial.pair`), on the cell's transport and placement,
their output mapped onto a copybench record's ``result`` (:mod:`runner.trial.peers`).

Each tool is one small object (:data:`PEERS`): its server's and client's argv, the line that
says its server is ready, its result parser, and the window it was given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from runner.trial import peers
from runner.trial.pair import LineReady, Pair, PairResult, run_pair
from runner.host.pinning import Cpus
from runner.plan.cells import Cell
from runner.trial.trialrecord import (Context, Outcome, cpu_list, error_text, intended_config,
                                      invocation, killed)
from runner.trial.transports import Transport

#: a peer's pair gets this much more than the cell's timeout (their start-up)
PEER_SLACK_S = 10


@dataclass(frozen=True)
class Peer:
    """One peer tool as a kind of trial."""

    server: Callable[[int, str, Cpus], list[str]]
    client: Callable[[str, int, Cell, Cpus], list[str]]
    ready: Callable[[str], bool]
    parse: Callable[[PairResult, int], tuple[dict[str, Any] | None, str | None]]
    timing: Callable[[Cell], dict[str, float]]
    server_grace: float | None = None  # None: the pair's default


def _iperf3_timing(cell: Cell) -> dict[str, float]:
    t, o = peers.iperf3_times(cell.duration_s, cell.warmup_s)
    return {"duration_s": float(t), "warmup_s": float(o)}


IPERF3 = Peer(
    server=peers.iperf3_server,
    client=lambda host, port, cell, cpus: peers.iperf3_client(
        host, port, cell.size, cell.threads, cell.duration_s, cell.warmup_s, cpus),
    ready=peers.iperf3_ready,
    parse=lambda pr, size: peers.parse_iperf3(pr.stdout, size),
    timing=_iperf3_timing)

SOCKPERF = Peer(
    server=peers.sockperf_server,
    client=lambda host, port, cell, cpus: peers.sockperf_client(
        host, port, cell.size, cell.duration_s, cell.warmup_s, cpus),
    ready=peers.sockperf_ready,
    parse=lambda pr, size: peers.parse_sockperf(pr.stdout + "\n" + pr.stderr, size),
    timing=lambda cell: {},
    server_grace=-1)  # sockperf's server serves forever: it is killed once the client is done

PEERS = {"peer:iperf3": IPERF3, "peer:sockperf": SOCKPERF}


def run_peer(ctx: Context, cell: Cell, transport: Transport, cpus: Cpus,
             rconf: dict[str, Any]) -> Outcome:
    peer = PEERS[cell.kind]
    port = transport.peer_port()
    timeout = transport.pair_timeout(cell.timeout() + PEER_SLACK_S)
    host = transport.host
    sink = transport.peer_server(peer.server(port, transport.sink_addr, cpus))
    sender = transport.sender_prefix() + peer.client(host, port, cell, cpus)
    grace = {} if peer.server_grace is None else {"server_grace": peer.server_grace}
    pr = run_pair(Pair(sink, [sender], timeout, LineReady(peer.ready), **grace),
                  ctx.janitor, transport)
    result, perr = peer.parse(pr, cell.size) if pr.status == "ok" else (None, None)
    status = pr.status
    if status == "ok" and (result is None or pr.sender_rc != 0):
        status = "failed"
    config = {**intended_config(cell), "protocol": "tcp", "verify": "off", **peer.timing(cell),
              **rconf, "host": host, "port": port,
              "cpus_sender": cpu_list(cpus.sender), "cpus_receiver": cpu_list(cpus.sink)}
    sections: dict[str, Any] = {"invocation": invocation(sender, sink, pr)}
    if pr.remote is not None:
        sections["remote"] = pr.remote.to_json()
    return Outcome(tool=cell.method, tool_version=peers.tool_version(cell.method),
                   config=config, status=status,
                   error=(None if status == "ok"
                          else error_text(pr.problem or killed(pr) or perr, None, pr)),
                   result=result, sections=sections)

"""A peer tool's trial (``iperf3`` for stream cells, ``sockperf`` for ping-pong ones): its
server and client as one pair (:mod:`runner.trial.pair`), on the cell's transport and placement,
their output mapped onto a copybench record's ``result`` (:mod:`runner.trial.peers`)."""

from __future__ import annotations

from typing import Any

from rundir.records import TrialRecord
from runner.trial import peers
from runner.trial.pair import LineReady, Pair, run_pair
from runner.host.pinning import Cpus
from runner.plan.cells import Cell
from runner.trial.trialrecord import (Context, cpu_list, error_text, intended_config, invocation,
                                      killed)
from runner.trial.transports import Transport

#: a peer's pair gets this much more than the cell's timeout (their start-up)
PEER_SLACK_S = 10


def run_peer(ctx: Context, cell: Cell, transport: Transport, cpus: Cpus, rec: TrialRecord,
             rconf: dict[str, Any]) -> TrialRecord:
    port = transport.peer_port()
    timeout = transport.pair_timeout(cell.timeout() + PEER_SLACK_S)
    host = transport.host
    if cell.kind == "peer:iperf3":
        sink = transport.peer_server(peers.iperf3_server(port, transport.sink_addr, cpus))
        sender = transport.sender_prefix() + peers.iperf3_client(
            host, port, cell.size, cell.threads, cell.duration_s, cell.warmup_s, cpus)
        pr = run_pair(Pair(sink, [sender], timeout, LineReady(peers.iperf3_ready)),
                      ctx.janitor, transport)
        result, perr = (peers.parse_iperf3(pr.stdout, cell.size) if pr.status == "ok"
                        else (None, None))
        t, o = peers.iperf3_times(cell.duration_s, cell.warmup_s)
        timing = {"duration_s": float(t), "warmup_s": float(o)}
    else:
        sink = transport.peer_server(peers.sockperf_server(port, transport.sink_addr, cpus))
        sender = transport.sender_prefix() + peers.sockperf_client(
            host, port, cell.size, cell.duration_s, cell.warmup_s, cpus)
        # sockperf's server serves forever: it is killed once the client is done
        pr = run_pair(Pair(sink, [sender], timeout, LineReady(peers.sockperf_ready),
                           server_grace=-1), ctx.janitor, transport)
        result, perr = (None, None)
        if pr.status == "ok":
            result, perr = peers.parse_sockperf(pr.stdout + "\n" + pr.stderr, cell.size)
        timing = {}
    status = pr.status
    if status == "ok" and (result is None or pr.sender_rc != 0):
        status = "failed"
    rec.tool, rec.tool_version = cell.method, peers.tool_version(cell.method)
    rec.config = {**intended_config(cell), "protocol": "tcp", "verify": "off", **timing,
                  **rconf, "host": host, "port": port,
                  "cpus_sender": cpu_list(cpus.sender), "cpus_receiver": cpu_list(cpus.sink)}
    rec.status = status
    rec.error = None if status == "ok" else error_text(pr.problem or killed(pr) or perr, None, pr)
    rec.result = result
    rec.set("invocation", invocation(sender, sink, pr))
    if pr.remote is not None:
        rec.set("remote", pr.remote.to_json())
    return rec

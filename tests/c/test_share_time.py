"""``copybench send --share-time M``: two connections to one sink session, one per method
(connection 0 sends ``--method``, connection 1 sends M), taking turns of 100 ms from the
warm-up on; only one sends at a time. The sink slices each connection's bytes on its own clock
and credits each method its own connection's bytes only, outside a guard it measures at every
switch. The design that lets two methods share a trial's time without sharing a connection.

Real processes over loopback, as tests/c/test_noise_fields.py runs them; one test over a
rate-limited path in a network namespace of its own (root).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from test_noise_fields import SINK_CPU, port, schema_problems, send, wrapped  # noqa: F401

PERIOD = 0.1


def share(rec: dict[str, Any]) -> dict[str, Any]:
    st: dict[str, Any] = rec["result"]["share_time"]
    return st


def test_two_byte_counts_add_up_to_what_the_sink_received(copybench: Path,
                                                          port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "sendmsg", "--share-time", "send", "--size", "16K",
               "--duration", "0.5", "--warmup", "0.2", "--verify", "full")
    assert rec["config"]["share_time"] == "send" and rec["config"]["share_order"] == "AB"
    st, res = share(rec), rec["result"]
    pm = st["per_method"]
    assert [m["method"] for m in pm] == ["sendmsg", "send"] == st["methods"]
    # each connection's bytes (warm-up included) arrived on that connection, and the two
    # add up to every byte the sink received (full verification checks each one)
    assert all(m["sent"] == m["received"] > 0 for m in pm), pm
    assert sum(m["received"] for m in pm) == res["verify"]["bytes_checked"], res["verify"]
    assert res["verify"]["mismatches"] == 0
    # the window's bytes: the two connections' add up to the trial's
    assert sum(m["bytes"] for m in pm) == res["bytes"] == res["sender"]["bytes"]
    sink = st["sink"]
    for c, m in enumerate(pm):
        conn = sink["connections"][c]
        assert conn["bytes"] == sum(sink["turn_bytes"][c]), conn
        assert m["receiver"]["threads"] == 1 and m["sender"]["threads"] == 1
        assert len(m["sender"]["slices_bytes"]) == 10, "each method with its slices"
    assert schema_problems(wrapped(rec)) == []


def test_a_paused_connection_sends_nothing_and_its_bytes_are_never_the_others(
        copybench: Path, port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "sendmsg", "--share-time", "send", "--size", "64K",
               "--duration", "1", "--warmup", "0.2")
    st = share(rec)
    turns = st["turns"]
    # the sender: turns alternate between the connections and never overlap in time (the
    # next one starts after the previous released), and every byte a connection sent in the
    # window was sent in one of its own turns
    assert [t["connection"] for t in turns] == [k % 2 for k in range(len(turns))]
    assert all(a["end_s"] <= b["start_s"] for a, b in zip(turns, turns[1:])), turns
    for c, m in enumerate(st["per_method"]):
        assert sum(t["bytes"] for t in turns if t["connection"] == c) == m["bytes"] > 0
    # the sink: what a connection received in the other's turns is recorded apart and counted
    # for neither method; a rate is its own connection's counted bytes over counted time
    sink = st["sink"]
    assert sink["rates_unavailable"] is None, sink["rates_unavailable"]
    for c, conn in enumerate(sink["connections"]):
        assert conn["own_bytes"] + conn["other_bytes"] == conn["bytes"]
        assert conn["counted_bytes"] + conn["guarded_bytes"] == conn["own_bytes"]
        own_turns = [k for k, x in enumerate(sink["turn_connections"]) if x == c]
        assert conn["own_bytes"] == sum(sink["turn_bytes"][c][k] for k in own_turns)
        assert conn["counted_bytes"] * 8 / conn["counted_s"] / 1e9 == pytest.approx(
            conn["gbit_per_s"], rel=1e-6)
        assert st["per_method"][c]["gbit_per_s"] == pytest.approx(conn["gbit_per_s"], rel=1e-6)
    # the guards are the longest drain and lead, in whole grains (their times are the
    # grains' nominal 2 ms; a drain's, its samples' real times): one where there was one
    for guard, seen in (("guard_start_s", "drain_s"), ("guard_end_s", "lead_s")):
        assert (sink[guard] > 0) == (max(sink[seen]) > 0), (guard, sink[guard], sink[seen])
        assert sink[guard] == pytest.approx(round(sink[guard] / sink["grain_s"]) * sink["grain_s"])
    # the socket at each switch: queued bytes and the window, read by each thread
    assert all(t["snd_cwnd_resume"] > 0 and t["outq_release"] is not None for t in turns[1:-1])
    assert st["slow_start_after_idle"] in (0, 1) and st["congestion_control"]


@pytest.mark.parametrize("duration", [0.35, 1.0])
def test_the_switch_period_is_100_ms_whatever_the_window(copybench: Path, port: int,  # noqa: F811
                                                         duration: float) -> None:
    rec = send(copybench, port, "--method", "send", "--share-time", "send", "--size", "16K",
               "--duration", str(duration), "--warmup", "0.1")
    st = share(rec)
    n = math.ceil(duration / PERIOD - 1e-9)
    assert st["period_s"] == PERIOD
    # the sender's switches, 100 ms apart from the window's start (the window's ten slices are
    # duration / 10: 35 ms in a 0.35 s window), and as many turns as 100 ms fit, the last cut
    ks = [t["k"] for t in st["turns"]]
    assert ks == list(range(n)), ks
    starts = [t["start_s"] - (t["handoff_s"] or 0) for t in st["turns"]]
    for k, s in enumerate(starts[1:], 1):
        assert s == pytest.approx(k * PERIOD, abs=0.01), starts
    assert rec["result"]["sender"]["slice_s"] == pytest.approx(duration / 10)
    # the sink's turns on its own clock: the same period
    sink = st["sink"]
    assert sink["period_s"] == PERIOD and sink["turns"] == n
    assert all(t == pytest.approx(PERIOD, abs=0.01) for t in sink["turn_s"][:-1]), sink["turn_s"]
    assert sink["turn_s"][-1] == pytest.approx(duration - (n - 1) * PERIOD, abs=0.01)


@pytest.mark.parametrize("order,first", [("AB", 0), ("BA", 1)])
def test_the_caller_chooses_which_method_has_the_first_turn(copybench: Path, port: int,  # noqa: F811
                                                            order: str, first: int) -> None:
    rec = send(copybench, port, "--method", "sendmsg", "--share-time", "send", "--size", "4K",
               "--duration", "0.4", "--warmup", "0.25", "--share-order", order)
    st = share(rec)
    assert rec["config"]["share_order"] == order and st["order"] == order and st["first"] == first
    assert [t["connection"] for t in st["turns"]] == [(first + k) % 2 for k in range(4)]
    assert st["sink"]["turn_connections"] == [(first + k) % 2 for k in range(4)]
    # the turns alternate through the warm-up too: both connections sent before the window
    for m in st["per_method"]:
        assert m["sent"] > m["bytes"] > 0, m


@pytest.mark.parametrize("other", ["send", "zerocopy"])
def test_zerocopy_completions_are_each_connections_own(copybench: Path, port: int,  # noqa: F811
                                                       other: str) -> None:
    rec = send(copybench, port, "--method", "zerocopy", "--share-time", other, "--size", "64K",
               "--duration", "0.5", "--warmup", "0.2", "--verify", "full")
    st = share(rec)
    zc = [m["zerocopy"] for m in st["per_method"]]
    # per socket: every call of each connection completed on its own error queue, read at
    # its resumes and drained at the end; the trial's count is the sum of the two
    assert zc[0]["sends"] > 0 and zc[0]["completions"] == zc[0]["sends"], zc
    if other == "zerocopy":  # zerocopy against itself: two sockets, two sequences of ids
        assert zc[1]["sends"] > 0 and zc[1]["completions"] == zc[1]["sends"], zc
    else:
        assert zc[1] is None
    total = rec["result"]["zerocopy"]
    assert total["sends"] == sum(z["sends"] for z in zc if z)
    reaped = sum(t["zerocopy_reaped"] for t in st["turns"] if t["connection"] == 0)
    assert 0 <= reaped <= zc[0]["completions"]
    assert rec["result"]["verify"]["mismatches"] == 0
    assert schema_problems(wrapped(rec)) == []


def test_without_it_the_record_says_one_connection_per_method(copybench: Path,
                                                              port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "sendmsg", "--size", "16K", "--duration", "0.3",
               "--warmup", "0.1")
    assert rec["config"]["share_time"] is None and rec["config"]["share_order"] is None
    assert rec["result"]["share_time"] is None


@pytest.mark.parametrize("args,words", [
    (["--method", "send", "--share-time", "vmsplice"], "'vmsplice' cannot share time"),
    (["--method", "splice", "--share-time", "send"], "only with --method send, sendmsg"),
    (["--method", "send", "--share-time", "sendmsg", "--protocol", "udp"], "tcp and --mode stream"),
    (["--method", "send", "--share-time", "sendmsg", "--mode", "pingpong"], "tcp and --mode stream"),
    (["--method", "send", "--share-time", "sendmsg", "--threads", "2"], "one connection per method"),
    (["--method", "send", "--share-time", "sendmsg", "--alternate", "send"], "not with --alternate"),
    (["--method", "send", "--share-time", "sendmsg", "--duration", "0.1"], "--duration"),
    (["--method", "send", "--share-time", "sendmsg", "--duration", "7"], "--duration"),
    (["--method", "send", "--share-order", "BA"], "--share-order: only with --share-time"),
    (["--method", "send", "--share-time", "send", "--share-order", "AC"], "--share-order"),
])
def test_what_cannot_share_time_is_a_one_line_usage_error(copybench: Path, args: list[str],
                                                          words: str) -> None:
    r = subprocess.run([str(copybench), "send", "--host", "127.0.0.1", *args],
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2, r
    assert r.stdout == "" and r.stderr.strip().count("\n") == 0 and words in r.stderr, r.stderr


RATE_MBIT = 400


@pytest.mark.root
def test_rates_are_honest_where_a_paused_connection_still_delivers(copybench: Path) -> None:
    """On a path limited to 400 Mbit/s (tbf on a namespace's loopback) with 1 MiB socket
    buffers, the connection whose turn ends still has most of a megabyte queued: it keeps
    receiving for about 20 ms of the other's turn, sharing the link. Each method's rate is
    then the link's (both methods are limited by it), because the guard leaves out the part of
    each turn the other connection still received in; crediting a connection all of its own
    turns' bytes would understate it (its first 20 ms are shared)."""
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (iproute2)")
    ns = f"cbshare{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    sink = None
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root",
                        "tbf", "rate", f"{RATE_MBIT}mbit", "burst", "1mb", "latency", "20ms"],
                       check=True)
        sink = subprocess.Popen(["ip", "netns", "exec", ns, str(copybench), "sink", "--port", "0",
                                 "--cpus", str(SINK_CPU)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        assert sink.stdout is not None
        p = json.loads(sink.stdout.readline())["port"]
        r = subprocess.run(["ip", "netns", "exec", ns, str(copybench), "send", "--host",
                            "127.0.0.1", "--port", str(p), "--cpus", "0", "--method", "sendmsg",
                            "--share-time", "send", "--size", "64K", "--sockbuf", "1M",
                            "--duration", "1", "--warmup", "0.3"],
                           capture_output=True, text=True, timeout=60, check=False)
        rec = json.loads(r.stdout)
        assert rec["status"] == "ok", rec["error"]
    finally:
        if sink is not None:
            sink.send_signal(signal.SIGTERM)
            sink.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", ns], check=False)
    sink_fig = share(rec)["sink"]
    assert sink_fig["rates_unavailable"] is None, sink_fig["rates_unavailable"]
    # the paused connection delivered in the other's turns, for a measured guard
    assert sink_fig["guard_start_s"] >= 0.01, sink_fig["drain_s"]
    for c, conn in enumerate(sink_fig["connections"]):
        assert conn["other_bytes"] > 0, conn
        honest = conn["gbit_per_s"]
        naive = conn["own_bytes"] * 8 / conn["own_s"] / 1e9
        assert honest == pytest.approx(RATE_MBIT / 1000, rel=0.05), (c, conn)
        assert naive < 0.95 * honest, (c, naive, honest)

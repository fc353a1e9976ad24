"""The record carries what the noise study needs to explain trial-to-trial spread:
per side, the bytes moved in each tenth of the window (``slices_bytes``, ``slice_s``,
``slices_s``); each thread's CPU and its data socket's buffers and TCP state at the window's
two edges (``cpu_*``, ``sndbuf_*``, ``rcvbuf_*``, ``tcp_info_*``); and the NET_RX/NET_TX
softirqs over the window (``softirqs``). A field that cannot be had is null with the reason,
never 0; records without these fields (made before them) stay valid under the trial schema.

Real processes over loopback: a `copybench sink` pinned to CPU 1 (0 on a 1-CPU machine), a
`copybench send` pinned to CPU 0. The binary is src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXIT_WINDOW_MISSED, running_sink, until_window_met
from rundir import verify as v

SINK_CPU = 1 if (os.cpu_count() or 1) > 1 else 0
TCP_INFO = ("snd_cwnd", "rtt_us", "rttvar_us", "rcv_space", "total_retrans", "snd_mss",
            "rcv_mss", "unacked")
EDGES = ("cpu_start", "cpu_end", "sndbuf_start", "sndbuf_end", "rcvbuf_start", "rcvbuf_end",
         "tcp_info_start", "tcp_info_end")


@pytest.fixture(scope="module")
def port(copybench: Path) -> Iterator[int]:
    with running_sink(copybench, SINK_CPU) as (_, sink_port):
        yield sink_port


def trial(copybench: Path, *args: str) -> dict[str, Any]:
    """One trial's record (taken again while its window is missed: a busy machine)."""
    def attempt() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(copybench), *args], capture_output=True, text=True,
                              timeout=60, check=False)
    r = until_window_met(attempt, lambda r: r.returncode == EXIT_WINDOW_MISSED)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-400:]!r} {r.stdout[:400]!r}"
    rec: dict[str, Any] = json.loads(r.stdout)
    assert rec["status"] == "ok", rec["error"]
    return rec


def send(copybench: Path, port: int, *args: str) -> dict[str, Any]:
    return trial(copybench, "send", "--host", "127.0.0.1", "--port", str(port), "--cpus", "0",
                 *args)


def wrapped(rec: dict[str, Any]) -> dict[str, Any]:
    """The record with the runner's identity fields, as the run directory keeps it."""
    out = dict(copy.deepcopy(rec), run_id="r", trial_id="t", cell="c", order_index=0, repetition=0,
               started_at="2026-11-26T22:00:00Z", loadavg=None)
    cfg = dict(rec["config"], kind="copybench", placement="unpinned")
    cfg["transport"] = None if cfg["command"] == "copy" else "loopback"
    out["config"] = cfg
    return out


def schema_problems(rec: dict[str, Any]) -> list[str]:
    return v.schema_problems(v.validator_for(v.load_schema(v.TRIAL_SCHEMA)), rec, "record")


def check_slices(side: dict[str, Any], duration: float) -> None:
    assert side["slice_s"] == pytest.approx(duration / 10), side["slice_s"]
    assert side["slices_unavailable"] is None
    assert len(side["slices_bytes"]) == len(side["slices_s"]) == 10
    # the ten slices partition the side's window: its bytes and seconds exactly
    assert sum(side["slices_bytes"]) == side["bytes"]
    assert sum(side["slices_s"]) == pytest.approx(side["seconds"], abs=1e-6)
    # the inner slices are about a tenth of the window each (the edges are timed waits: never
    # early, a little late under load); the first and last end at the threads' own snapshots,
    # which a UDP receiver takes at its next datagram or 100 ms receive timeout
    assert all(0 < s < 3 * duration / 10 for s in side["slices_s"][1:-1]), side["slices_s"]


def test_a_tcp_stream_records_slices_sockets_cpus_and_softirqs(copybench: Path, port: int) -> None:
    rec = send(copybench, port, "--method", "send", "--size", "16K", "--duration", "1",
               "--warmup", "0.2")
    res = rec["result"]
    for name, cpu in (("sender", 0), ("receiver", SINK_CPU)):
        side = res[name]
        check_slices(side, 1.0)
        assert min(side["slices_bytes"]) > 0, (name, side["slices_bytes"])
        assert side["cpu_start"] == side["cpu_end"] == [cpu], (name, "pinned")
        for k in ("sndbuf_start", "sndbuf_end", "rcvbuf_start", "rcvbuf_end"):
            assert len(side[k]) == 1 and side[k][0] > 0, (name, k, side[k])
        for k in ("tcp_info_start", "tcp_info_end"):
            (ti,) = side[k]
            assert sorted(ti) == sorted(TCP_INFO), ti
            # every field of the subset is old (Linux 2.6); this kernel provides them all
            assert all(isinstance(ti[f], int) and ti[f] >= 0 for f in TCP_INFO), ti
            assert ti["snd_mss"] > 0 and ti["rcv_mss"] > 0 and ti["snd_cwnd"] > 0, ti
        assert side["sockets_unavailable"] is None
    # NET_RX softirqs carry loopback's receive path: the host's, and the sink's CPU's
    sq = res["softirqs"]
    assert res["softirqs_unavailable"] is None and sq["source"] == "/proc/softirqs"
    assert sq["net_rx"] > 0 and sq["net_rx"] == sum(c["net_rx"] for c in sq["cpus"]), sq
    assert sq["window_s"] >= 0.9 * res["seconds"], (sq["window_s"], res["seconds"])
    rsq = res["receiver"]["softirqs"]
    assert [c["cpu"] for c in rsq["cpus"]] == [SINK_CPU], rsq
    assert schema_problems(wrapped(rec)) == []


def test_threads_have_one_entry_each(copybench: Path, port: int) -> None:
    rec = send(copybench, port, "--method", "sendmsg", "--size", "4K", "--threads", "3",
               "--duration", "0.3", "--warmup", "0.05")
    for name in ("sender", "receiver"):
        side = rec["result"][name]
        check_slices(side, 0.3)
        assert all(len(side[k]) == 3 for k in EDGES), {k: side[k] for k in EDGES}
        assert "threads_truncated" not in side
    assert schema_problems(wrapped(rec)) == []


def test_udp_has_buffers_but_no_tcp_info_and_says_why(copybench: Path, port: int) -> None:
    rec = send(copybench, port, "--method", "send", "--protocol", "udp", "--size", "1400",
               "--duration", "0.3", "--warmup", "0.05")
    for name in ("sender", "receiver"):
        side = rec["result"][name]
        check_slices(side, 0.3)
        assert side["sndbuf_start"][0] > 0 and side["rcvbuf_end"][0] > 0
        assert side["tcp_info_start"] == side["tcp_info_end"] == [None]
        assert side["sockets_unavailable"] == "udp: no TCP_INFO"
    assert schema_problems(wrapped(rec)) == []


def test_copy_has_slices_and_cpus_but_no_socket(copybench: Path, tmp_path: Path) -> None:
    rec = trial(copybench, "copy", "--method", "read-write", "--size", "1M", "--cpus", "0",
                "--dir", str(tmp_path), "--duration", "0.3", "--warmup", "0.05")
    side = rec["result"]["sender"]
    check_slices(side, 0.3)
    assert side["cpu_start"] == side["cpu_end"] == [0]
    assert side["sndbuf_start"] == side["tcp_info_end"] == [None]
    assert side["sockets_unavailable"].startswith("copy: ")
    assert rec["result"]["softirqs"] is not None or rec["result"]["softirqs_unavailable"]
    assert schema_problems(wrapped(rec)) == []


def test_the_schema_types_the_new_fields_and_keeps_old_records_valid(copybench: Path,
                                                                      port: int) -> None:
    rec = send(copybench, port, "--method", "send", "--size", "4K", "--duration", "0.2",
               "--warmup", "0.05")
    old = wrapped(rec)
    for side in ("sender", "receiver"):
        for k in ("slice_s", "slices_bytes", "slices_s", "slices_unavailable", *EDGES,
                  "sockets_unavailable", "softirqs", "softirqs_unavailable"):
            old["result"][side].pop(k, None)
    old["result"].pop("softirqs")
    old["result"].pop("softirqs_unavailable")
    assert schema_problems(old) == [], "a record made before the fields must stay valid"
    bad = wrapped(rec)
    bad["result"]["sender"]["slices_bytes"] = bad["result"]["sender"]["slices_bytes"][:9]
    assert schema_problems(bad), "nine slices"
    bad = wrapped(rec)
    bad["result"]["receiver"]["tcp_info_end"] = [{"snd_cwnd": 10}]
    assert schema_problems(bad), "a tcp_info without its fields"
    bad = wrapped(rec)
    bad["result"]["softirqs"]["cpus"][0]["net_rx"] = -1
    assert schema_problems(bad), "a negative softirq count"

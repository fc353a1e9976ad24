"""Peer tools measured in the same run: ``iperf3`` (stream) and ``sockperf`` (pingpong).

Each peer runs on the same topology and placement as copybench; its output is mapped onto
the ``result`` shape of a copybench record (fields a peer cannot give are ``null``), so the
book can draw copybench and its peers on one axis.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from runner.host.pinning import Cpus
from runner.host.proc import ask


@functools.lru_cache(maxsize=None)
def tool_version(name: str) -> str | None:
    """First line of ``NAME --version`` (iperf3 and sockperf both answer it); None when it
    gives none within 10 s (:func:`runner.host.proc.ask`: nothing it started is left)."""
    r = ask([name, "--version"], timeout=10)
    if r.problem is not None:
        return None
    lines = (r.stdout or r.stderr).strip().splitlines()
    return _ANSI.sub("", lines[0]).strip() if lines else None


def iperf3_times(duration_s: float, warmup_s: float) -> tuple[int, int]:
    """iperf3 takes whole seconds for -t (test) and -O (omitted warm-up)."""
    return max(1, math.ceil(duration_s - 1e-9)), math.ceil(warmup_s - 1e-9)


def iperf3_server(port: int, addr: str, cpus: Cpus) -> list[str]:
    argv = ["iperf3", "-s", "-1", "-p", str(port), "-B", addr, "--forceflush"]
    if cpus.sink is not None:
        argv += ["-A", cpus.sink.split(",")[0]]
    return argv


def iperf3_ready(line: str) -> bool:
    return "Server listening" in line


def iperf3_client(host: str, port: int, size: int, threads: int, duration_s: float,
                  warmup_s: float, cpus: Cpus) -> list[str]:
    t, o = iperf3_times(duration_s, warmup_s)
    argv = ["iperf3", "-c", host, "-p", str(port), "-t", str(t), "-O", str(o),
            "-l", str(size), "-P", str(threads), "-J"]
    if cpus.sender is not None:
        argv += ["-A", cpus.sender.split(",")[0]]
    return argv


def parse_iperf3(stdout: str, size: int) -> tuple[dict[str, Any] | None, str | None]:
    """(result, error)."""
    try:
        d = json.loads(stdout)
    except json.JSONDecodeError:
        return None, "iperf3 printed no JSON"
    if d.get("error"):
        return None, f"iperf3: {d['error']}"
    try:
        end = d["end"]
        recv = end["sum_received"]
        cpu = end.get("cpu_utilization_percent", {})
    except KeyError as e:
        return None, f"iperf3 JSON lacks {e}"
    seconds = float(recv["seconds"])
    nbytes = int(recv["bytes"])
    return {
        "bytes": nbytes,
        "messages": None,
        "seconds": seconds,
        "gbit_per_s": recv["bits_per_second"] / 1e9,
        "msgs_per_s": nbytes / size / seconds if seconds > 0 and size else None,
        "rtt_ns": None,
        "sender": None,
        "receiver": None,
        "cpu_utilization_percent": {"sender": cpu.get("host_total"),
                                    "receiver": cpu.get("remote_total")},
        "retransmits": end.get("sum_sent", {}).get("retransmits"),
    }, None


def taskset(cpu: str | None) -> list[str]:
    return ["taskset", "-c", cpu] if cpu is not None else []


def sockperf_server(port: int, addr: str, cpus: Cpus) -> list[str]:
    return taskset(cpus.sink) + ["sockperf", "server", "--tcp", "-i", addr, "-p", str(port)]


def sockperf_ready(line: str) -> bool:
    return "PORT =" in line or "using recvfrom" in line


def sockperf_client(host: str, port: int, size: int, duration_s: float, warmup_s: float,
                    cpus: Cpus) -> list[str]:
    t = max(1, math.ceil(duration_s + warmup_s - 1e-9))
    return taskset(cpus.sender) + ["sockperf", "ping-pong", "--tcp", "-i", host, "-p",
                                   str(port), "-m", str(size), "-t", str(t), "--full-rtt"]


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PCT = re.compile(r"percentile\s+([\d.]+)\s*=\s*([\d.]+)")
_MAX = re.compile(r"<MAX> observation\s*=\s*([\d.]+)")
_AVG = re.compile(r"avg-(?:rtt|latency)\s*=\s*([\d.]+)")
_VALID = re.compile(r"\[Valid Duration\]\s*RunTime=([\d.]+)\s*sec;\s*SentMessages=(\d+);"
                    r"\s*ReceivedMessages=(\d+)")


def parse_sockperf(text: str, size: int) -> tuple[dict[str, Any] | None, str | None]:
    text = _ANSI.sub("", text)
    valid = _VALID.search(text)
    if not valid:
        return None, "sockperf printed no [Valid Duration] summary"
    seconds = float(valid.group(1))
    received = int(valid.group(3))
    pct = {float(p): float(v) * 1000 for p, v in _PCT.findall(text)}
    mx = _MAX.search(text)
    avg = _AVG.search(text)
    if 50.0 not in pct:
        return None, "sockperf printed no percentiles"
    rtt_all = {"p50": pct.get(50.0), "p90": pct.get(90.0), "p99": pct.get(99.0),
               "p999": pct.get(99.9), "max": float(mx.group(1)) * 1000 if mx else None,
               "mean": float(avg.group(1)) * 1000 if avg else None, "count": received}
    rtt = {k: v for k, v in rtt_all.items() if v is not None}
    nbytes = received * size
    return {
        "bytes": nbytes, "messages": received, "seconds": seconds,
        "gbit_per_s": nbytes * 8 / seconds / 1e9 if seconds > 0 else None,
        "msgs_per_s": received / seconds if seconds > 0 else None,
        "rtt_ns": rtt, "sender": None, "receiver": None,
    }, None

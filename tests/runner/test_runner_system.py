"""Pieces that touch the system but not copybench: network namespaces, the reaper, perf
profile reduction on a real `perf record`, the manifest, peer output parsing, records."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, runner_env, runner_namespaces, runner_root_links
from rundir import records
from runner.host import cpuprofile
from runner.trial import peers
from runner.host.proc import Janitor, spawn
from runner.host.netns import leftovers
from runner.trial.transports import make as make_transport

LISTEN = ("import socket,sys; s=socket.socket(); s.bind(('0.0.0.0', 5555)); s.listen(); "
          "print('ready', flush=True); c,_=s.accept(); sys.stdout.write(c.recv(16).decode())")
CONNECT = ("import socket,sys; s=socket.create_connection((sys.argv[1], 5555), timeout=5); "
           "s.sendall(b'hello')")


@pytest.mark.root
@pytest.mark.parametrize("transport,mtu", [("veth", 1500), ("udp-forward", 65521)])
def test_namespace_topology_up_and_gone(runner_root: None, transport: str, mtu: int) -> None:
    j = Janitor()
    names: set[str] = set()
    topo = make_transport(transport, mtu, j)
    try:
        topo.setup()
        names = set(topo.namespaces())
        assert names and names <= runner_namespaces()
        link = subprocess.run(["ip", "-n", topo.sender_ns, "-o", "link", "show", topo.links[0]],
                              capture_output=True, text=True, check=True).stdout
        assert f"mtu {mtu}" in link
        if transport == "veth":
            srv = subprocess.Popen(topo.sink_prefix() + [sys.executable, "-c", LISTEN],
                                   stdout=subprocess.PIPE, text=True)
            assert srv.stdout is not None
            assert srv.stdout.readline().strip() == "ready"
            subprocess.run(topo.sender_prefix() + [sys.executable, "-c", CONNECT,
                                                   topo.host], check=True, timeout=10)
            assert srv.communicate(timeout=10)[0] == "hello"
        else:
            fwd = subprocess.run(["ip", "netns", "exec", topo.sink_ns, "sysctl", "-n",
                                  "net.ipv4.ip_forward"], capture_output=True, text=True)
            assert fwd.stdout.strip() == "1"
            routes = subprocess.run(["ip", "-n", topo.sink_ns, "route"], capture_output=True,
                                    text=True).stdout
            assert "blackhole 198.19.0.0/24" in routes
            get = subprocess.run(["ip", "-n", topo.sender_ns, "route", "get", topo.host],
                                 capture_output=True, text=True).stdout
            assert "via 198.18.0.2" in get
    finally:
        topo.teardown()
        j.close()
    assert not names & runner_namespaces()
    assert not runner_root_links(f"cb{os.getpid()}")


@pytest.mark.root
def test_reaper_cleans_up_after_sigkill(runner_root: None, tmp_path: Path) -> None:
    """A sweep process killed with SIGKILL leaves no namespace or process behind."""
    script = tmp_path / "victim.py"
    script.write_text(
        "import subprocess, os, sys, time\n"
        "from runner.trial.transports import Namespaces\n"
        "from runner.host.proc import Janitor, spawn\n"
        "j = Janitor(); t = Namespaces('veth', 1500, j); t.setup()\n"
        "p = spawn(t.sink_prefix() + ['sleep', '300'], j, None, None)\n"
        "q = spawn(['sleep', '301'], j, None, None)\n"
        "print(' '.join(t.namespaces()), p.pid, q.pid, flush=True)\n"
        "time.sleep(300)\n")
    v = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                         env=runner_env(), cwd=str(ROOT))
    assert v.stdout is not None
    ns_a, ns_b, pid1, pid2 = v.stdout.readline().split()
    assert {ns_a, ns_b} <= runner_namespaces()
    v.send_signal(signal.SIGKILL)
    v.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (
            {ns_a, ns_b} & runner_namespaces() or _alive(int(pid1)) or _alive(int(pid2))):
        time.sleep(0.1)
    assert not ({ns_a, ns_b} & runner_namespaces())
    assert not _alive(int(pid1)) and not _alive(int(pid2))
    assert not leftovers(v.pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_spawned_group_is_killed(tmp_path: Path) -> None:
    from runner.host.proc import kill
    p = spawn(["sh", "-c", "sleep 100 & sleep 100; wait"], None, None, None)
    time.sleep(0.2)
    kids = [int(x) for x in subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True,
                                           text=True).stdout.split()]
    assert len(kids) >= 2
    kill(p, None)
    time.sleep(0.2)
    assert not any(_alive(k) for k in kids)


# --- perf ---------------------------------------------------------------------------------

@pytest.mark.root
def test_perf_reduction_of_a_real_recording(runner_root: None, tmp_path: Path) -> None:
    if shutil.which("perf") is None:
        pytest.skip("perf is not installed")
    ok, why = cpuprofile.available()
    if not ok:
        pytest.skip(f"perf record unavailable: {why}")
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(32 << 20))
    data = tmp_path / "dd.perf.data"
    subprocess.run([*cpuprofile.PERF_RECORD, "-o", str(data), "--", "sh", "-c",
                    f"for i in 1 2 3 4 5 6; do dd if={src} of=/dev/null bs=64k "
                    "status=none; done"], check=True, capture_output=True, timeout=120)
    red = cpuprofile.reduce_file(data)
    assert red.samples > 50
    assert 0 < red.kernel_share <= 1.0 + 1e-9
    # reading a cached file into a user buffer is a kernel copy (copy_to_user family)
    assert red.groups["copy"] > 0.05, red.symbols[:10]
    copy_syms = [s.symbol for s in red.symbols
                 if s.kernel and cpuprofile.group_of(s.symbol, True) == "copy"]
    assert copy_syms
    assert abs(sum(red.groups.values()) - red.kernel_share) < 1e-6
    assert "dd" in red.by_comm
    out = tmp_path / "r.json"
    cpuprofile.store(red, out)
    assert json.loads(out.read_text())["samples"] == red.samples


def test_perf_grouping_patterns() -> None:
    for sym in ("copy_user_enhanced_fast_string", "rep_movs_alternative", "_copy_to_iter",
                "_copy_from_iter", "skb_copy_datagram_iter", "memcpy_orig", "__memcpy",
                "__pi_memcpy", "skb_copy_ubufs"):
        assert cpuprofile.group_of(sym, True) == "copy", sym
    assert cpuprofile.group_of("tcp_sendmsg_locked", True) == "tcp_ip"
    assert cpuprofile.group_of("zerocopy_fill_skb_from_iter", True) == "zerocopy"
    assert cpuprofile.group_of("__memmove_avx_unaligned_erms", False) == "user_copy"
    assert cpuprofile.group_of("main", False) is None
    rows = [(4, "k", "_copy_to_iter"), (6, ".", "main")]
    red = cpuprofile.reduce_rows(rows)
    assert red.samples == 10 and abs(red.groups["copy"] - 0.4) < 1e-9
    assert abs(red.kernel_share - 0.4) < 1e-9


# --- peers ------------------------------------------------------------------------------

SOCKPERF = """sockperf: [Total Run] RunTime=1.000 sec; Warm up time=400 msec; SentMessages=114422; ReceivedMessages=114421
sockperf: ========= Printing statistics for Server No: 0
sockperf: [Valid Duration] RunTime=0.550 sec; SentMessages=66418; ReceivedMessages=66418
sockperf: \x1b[2;35m====> avg-rtt=8.230 (std-dev=1.927)\x1b[0m
sockperf: ---> <MAX> observation =  236.077
sockperf: ---> percentile 99.999 =  203.166
sockperf: ---> percentile 99.900 =   16.000
sockperf: ---> percentile 99.000 =    7.357
sockperf: ---> percentile 90.000 =    5.588
sockperf: ---> percentile 50.000 =    3.699
sockperf: ---> <MIN> observation =    3.371
"""


def test_sockperf_parse() -> None:
    res, err = peers.parse_sockperf(SOCKPERF, 64)
    assert err is None and res is not None
    assert res["rtt_ns"]["p50"] == pytest.approx(3699)
    assert res["rtt_ns"]["p999"] == pytest.approx(16000)
    assert res["rtt_ns"]["max"] == pytest.approx(236077)
    assert res["rtt_ns"]["mean"] == pytest.approx(8230)
    assert res["messages"] == 66418 and res["seconds"] == 0.55
    assert peers.parse_sockperf("garbage", 64)[0] is None


def test_iperf3_parse() -> None:
    doc = {"end": {"sum_received": {"seconds": 2.0, "bytes": 2_000_000_000,
                                    "bits_per_second": 8e9},
                   "sum_sent": {"retransmits": 0},
                   "cpu_utilization_percent": {"host_total": 50.0, "remote_total": 70.0}}}
    res, err = peers.parse_iperf3(json.dumps(doc), 1000)
    assert err is None and res is not None
    assert res["gbit_per_s"] == 8.0 and res["msgs_per_s"] == 1_000_000
    assert peers.parse_iperf3(json.dumps({"error": "unable to connect"}), 1)[1]
    assert peers.iperf3_times(0.2, 0.05) == (1, 1)
    assert peers.iperf3_times(2.0, 0.0) == (2, 0)


# --- records ----------------------------------------------------------------------------

def test_torn_last_line_is_repaired(tmp_path: Path) -> None:
    path = tmp_path / "trials.jsonl"
    with records.Writer(path) as w:
        w.append({"trial_id": "a", "x": float("nan")})
        w.append({"trial_id": "b"})
    with open(path, "a") as f:
        f.write('{"trial_id": "c", "trunc')
    assert [r["trial_id"] for r in records.read(path)] == ["a", "b"]
    assert records.repair(path) > 0
    assert path.read_text().endswith("\n")
    assert json.loads(path.read_text().splitlines()[0])["x"] is None  # NaN -> null


def test_env_prints_manifest() -> None:
    from conftest import run_runner
    r = run_runner("env", "--no-memcpy", timeout=120)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    for key in ("kernel", "distribution", "cpu", "memory", "virtualization", "sysctls",
                "mitigations", "pmu", "perf_event_paranoid", "compiler", "git", "python",
                "tools"):
        assert key in m, key
    assert isinstance(m["pmu"]["available"], bool)
    assert "net.core.optmem_max" in m["sysctls"]

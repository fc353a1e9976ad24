"""The ``remote`` transport against a real sshd (Debian's OpenSSH server) in a network
namespace, reached over a veth pair (tests/remote_host.py): the runner runs in a second
namespace, the "remote" has its own copybench path and working directory, and its own key.

What must hold: a smoke sweep over ``remote`` has every trial ok and verified and
the manifest holds both hosts; killing the runner mid-trial leaves no process on the remote
(checked over the same ssh); an unreachable host, a refused key, a missing or different remote
copybench each give one line; a sink killed on the remote gives a failed trial and the sweep
goes on; a stranger connecting to the remote sink during a trial is refused and counted, and
the trial's bytes and verification are unaffected; the sink exits by itself when the runner's
stdin, its sessions or its heartbeat stop.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import sweep_profile  # noqa: E402
from remote_host import (REMOTE_ADDR, RUNNER_ADDR, STRANGER_ADDR,  # noqa: E402
                         UNREACHABLE_ADDR, RemoteHost, connect_from, sshd_missing)

ROOT = Path(__file__).resolve().parents[2]
PY = os.environ.get("COPYBENCH_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
BIN = Path(os.environ.get("COPYBENCH_BIN", ROOT / "src" / "build" / "copybench")).resolve()
TOKEN = "0123456789abcdef0123456789abcdef"

LONG_EXPERIMENT = {"name": "long", "command": "send", "methods": ["send"], "sizes": ["64K"],
                   "transports": ["loopback"], "placements": ["cross-core"]}

why = sshd_missing() or (None if BIN.is_file() else f"{BIN} not built (make build)")
pytestmark = [pytest.mark.sshd, pytest.mark.skipif(why is not None, reason=str(why))]


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("remote")
    tmp.chmod(0o700)
    h = RemoteHost(tmp, BIN).start()
    h.control_dirs_before = set(glob.glob("/tmp/cbssh-*"))  # type: ignore[attr-defined]
    yield h
    h.stop()


def runner(host: RemoteHost, *args: str, remote: bool = True, copybench: Path | None = None,
           config: Path | None = None, timeout: float = 240, cpus: str = "1",
           background: bool = False, cmd: str = "sweep") -> subprocess.CompletedProcess[str] | subprocess.Popen:
    opts = ["--remote", host.alias, "--remote-ssh-config", str(config or host.ssh_config),
            "--remote-copybench", str(copybench or host.copybench), "--remote-cpus", cpus] \
        if remote else []
    argv = ["ip", "netns", "exec", host.ns_runner, PY, "-m", "runner", cmd, *args, *opts,
            *(["--no-progress"] if cmd == "sweep" else [])]
    env = dict(os.environ, COPYBENCH_BIN=str(BIN), PYTHONPATH=str(ROOT))
    if background:
        # a non-interactive shell (a CI script's background job) starts children with SIGINT
        # ignored, and Python keeps an inherited SIG_IGN: give the runner the default a
        # user's terminal gives it, or the SIGINT the tests send is (rightly) ignored
        return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def records(run_dir: Path) -> list[dict]:
    return [json.loads(ln) for ln in (run_dir / "trials.jsonl").read_text().splitlines()]


def long_profile(tmp: Path, duration: float = 3, reps: int = 1) -> Path:
    p = tmp / f"remote-long-{duration:g}-{reps}.toml"
    p.write_text(sweep_profile(
        "remote-long", seed=7, duration_s=duration, warmup_s=0.2, verify="full",
        description="long send trials over remote, for the kill and stranger tests",
        repetitions={"min": reps, "max": reps, "target_rel_ci": 0.5},
        experiments=[LONG_EXPERIMENT]))
    return p


def wait_remote_sink(host: RemoteHost, timeout: float = 30) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs = [p for p in host.remote_copybench_processes() if " sink " in p]
        if procs:
            return procs
        time.sleep(0.2)
    raise AssertionError("no remote sink started")


def assert_nothing_left(host: RemoteHost, timeout: float = 12) -> None:
    deadline = time.monotonic() + timeout
    left: list[str] = []
    while time.monotonic() < deadline:
        left = host.remote_copybench_processes()
        if not left:
            break
        time.sleep(0.5)
    assert left == [], f"left on the remote: {left}"
    masters = ""
    while True:  # the reaper may still be ending the runner's ssh master
        masters = subprocess.run(["pgrep", "-af", "ControlPath=/tmp/cbssh-"],
                                 capture_output=True, text=True, check=False).stdout.strip()
        if not masters or time.monotonic() > deadline + 10:
            break
        time.sleep(0.5)
    assert masters == "", f"ssh master left: {masters}"
    dirs = set(glob.glob("/tmp/cbssh-*")) - host.control_dirs_before  # type: ignore[attr-defined]
    assert not dirs, f"ssh control directories left: {dirs}"


# --- the sweep ---------------------------------------------------------------------------

def test_smoke_sweep_over_remote(host: RemoteHost) -> None:
    run_dir = host.tmp / "smoke"
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir))
    assert r.returncode == 0, r.stderr[-3000:]
    print(r.stderr)  # the summary table (pytest -s shows it)
    recs = records(run_dir)
    remote = [x for x in recs if x["config"]["transport"] == "remote"]
    assert remote and len(remote) == len([x for x in recs if x["config"]["transport"]])
    for x in recs:
        assert x["status"] == "ok", (x["trial_id"], x["error"])
    kinds = {x["config"]["kind"] for x in remote}
    assert kinds == {"copybench", "peer:iperf3", "peer:sockperf"}, kinds
    for x in remote:
        if x["config"]["kind"] != "copybench":  # the peers' servers ran there too
            assert str(host.ssh_config) in x["invocation"]["sink"]
            assert x["remote"]["sink_cpus"] == "1"
            continue
        res = x["result"]
        assert res["verify"]["mismatches"] == 0 and res["verify"]["bytes_checked"] > 0
        assert res["receiver"]["cpus"] == [1]  # pinned to the remote CPUs asked for
        assert x["remote"]["refused"] == 0 and x["remote"]["sink_exit"]["reason"] == "once"
        assert x["config"]["host"] == REMOTE_ADDR
        assert str(host.copybench) in x["invocation"]["sink"][-1]
    zc = [x["result"]["zerocopy"]["copied_fraction"] for x in remote
          if x["config"]["kind"] == "copybench" and x["config"]["method"] == "zerocopy"
          and x["repetition"] >= 1]
    assert zc  # over a veth the kernel copies every completion (the 'remote' is local)
    print(f"zerocopy copied fraction over remote (veth, same machine): {zc}")
    m = json.loads((run_dir / "manifest.json").read_text())
    hosts = m["remote"]["hosts"]
    for side in ("sender", "sink"):
        h = hosts[side]
        assert h["kernel"]["release"] and h["cpu"]["model"] and h["cpu"]["count"]
        nic = h["nic"]
        assert nic["interface"] and nic["mtu"] == 1500
        assert nic["link_kind"] == "veth"
        assert nic["irqs"] is None and "virtual link" in nic["irqs_unavailable"]
        assert (nic["driver"] or {}).get("driver") == "veth" or nic.get("ethtool_unavailable")
    assert hosts["sink"]["nic"]["interface"] == host.links[1]
    assert hosts["sender"]["nic"]["interface"] == host.links[0]
    assert m["remote"]["build_remote"] == m["remote"]["build_local"]
    assert m["remote"]["copybench"] == str(host.copybench) != str(BIN)
    # the analysis side: the testbed's two hosts, and make compare's machine facts
    from analysis.comparison import compare as K
    from analysis.loading.hosts import hosts_table
    from analysis.loading.run import load_run
    tab = hosts_table(m).set_index("fact")
    assert list(tab.columns) == ["sender", "sink"]
    assert tab.loc["data interface", "sink"] == host.links[1]
    assert "virtual link" in tab.loc["NIC IRQs (affinity)", "sink"]
    assert hosts_table({"run_id": "x"}) is None
    run = load_run(run_dir)
    facts = K.machines(run, run).set_index("fact")
    assert facts.loc["sink kernel", "run"] == hosts["sink"]["kernel"]["release"]
    assert facts.loc["sink MTU", "differs"] == ""
    v = subprocess.run([PY, "-m", "rundir", "verify", str(run_dir)], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    assert_nothing_left(host)


def test_sweep_notebook_over_remote(host: RemoteHost) -> None:
    """python -m runner notebook (make reproduce's path) takes the same options."""
    run_dir = host.tmp / "notebook"
    r = runner(host, "--profile", str(long_profile(host.tmp, duration=0.5, reps=1)),
               "--run-dir", str(run_dir), cmd="notebook")
    assert r.returncode == 0, r.stderr[-3000:]
    (rec,) = records(run_dir)
    assert rec["status"] == "ok" and rec["config"]["transport"] == "remote", rec["error"]
    assert (run_dir / "sweep.ipynb").is_file() and (run_dir / "remote.json").is_file()
    cfg = host.write_client_config(host=UNREACHABLE_ADDR, path=host.tmp / "ssh_config.nb")
    r = runner(host, "--profile", "smoke", "--run-dir", str(host.tmp / "nb-unreach"),
               config=cfg, cmd="notebook", timeout=120)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "unreachable" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]


# --- one-line errors ---------------------------------------------------------------------

def one_line_error(r: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == code, r.stderr
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert needle in lines[0], lines[0]


def test_unreachable_host(host: RemoteHost) -> None:
    cfg = host.write_client_config(host=UNREACHABLE_ADDR, path=host.tmp / "ssh_config.unreach")
    run_dir = host.tmp / "unreach"
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir), config=cfg, timeout=60)
    one_line_error(r, 1, "unreachable")
    assert not run_dir.exists()


def test_refused_key(host: RemoteHost) -> None:
    cfg = host.write_client_config(key="wrong", path=host.tmp / "ssh_config.wrong")
    run_dir = host.tmp / "wrongkey"
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir), config=cfg, timeout=60)
    one_line_error(r, 1, "refused the login")
    assert not run_dir.exists()


def test_missing_and_different_remote_copybench(host: RemoteHost) -> None:
    r = runner(host, "--profile", "smoke", "--run-dir", str(host.tmp / "missing"),
               copybench=host.remote_dir / "no" / "copybench", timeout=60)
    one_line_error(r, 1, "no copybench at")
    other = host.remote_dir / "other" / "copybench"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\necho '{\"tool\":\"copybench\",\"version\":\"0.1.0\","
                     "\"source_sha\":\"0000000000000000\",\"flags_sha\":\"1111111111111111\"}'\n")
    other.chmod(0o755)
    r = runner(host, "--profile", "smoke", "--run-dir", str(host.tmp / "other"),
               copybench=other, timeout=60)
    one_line_error(r, 1, "is not the local build")
    assert not (host.tmp / "missing").exists() and not (host.tmp / "other").exists()


def test_bad_options_are_usage_errors(host: RemoteHost) -> None:
    run_dir = host.tmp / "bad"
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir), "--remote-cpus", "1",
               remote=False)
    one_line_error(r, 2, "--remote-cpus: needs --remote")
    inv = host.tmp / "inventory.toml"
    inv.write_text('[remote]\nhost = "cbremote"\ncpus = "x"\n')
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir), "--inventory", str(inv),
               remote=False)
    one_line_error(r, 2, "cpus: 'x' is not a CPU list")
    r = runner(host, "--profile", "smoke", "--run-dir", str(run_dir), cpus="7")
    one_line_error(r, 2, "CPU 7 is not online")
    assert not run_dir.exists()


# --- robustness --------------------------------------------------------------------------

def test_runner_killed_mid_trial_leaves_nothing_on_the_remote(host: RemoteHost) -> None:
    run_dir = host.tmp / "killed"
    p = runner(host, "--profile", str(long_profile(host.tmp, duration=2.5, reps=2)),
               "--run-dir", str(run_dir), background=True)
    try:
        wait_remote_sink(host)
        time.sleep(0.5)  # inside the trial's window
        os.kill(p.pid, signal.SIGKILL)  # ip netns exec execs the runner: this is python
        p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    assert_nothing_left(host, timeout=12)
    local = subprocess.run(["pgrep", "-af", f"copybench send .*--host {REMOTE_ADDR}"],
                           capture_output=True, text=True, check=False).stdout.strip()
    assert local == "", local
    # --resume reconnects with the run's remote.json (no --remote options) and completes it
    done_before = len(records(run_dir)) if (run_dir / "trials.jsonl").exists() else 0
    assert done_before < 2
    r = runner(host, "--resume", "--run-dir", str(run_dir), remote=False)
    assert r.returncode == 0, r.stderr[-2000:]
    recs = records(run_dir)
    assert len(recs) == 2 and all(x["status"] == "ok" for x in recs), recs
    assert all(x["config"]["transport"] == "remote" for x in recs)
    assert_nothing_left(host)


def test_runner_interrupted_mid_trial_leaves_nothing_on_the_remote(host: RemoteHost) -> None:
    run_dir = host.tmp / "interrupted"
    p = runner(host, "--profile", str(long_profile(host.tmp, duration=3, reps=2)),
               "--run-dir", str(run_dir), background=True)
    try:
        wait_remote_sink(host)
        os.kill(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err[-2000:]
    assert "resume with" in err and "Traceback" not in err, err[-2000:]
    assert_nothing_left(host, timeout=5)


def test_sink_killed_on_the_remote_fails_the_trial_and_the_sweep_goes_on(
        host: RemoteHost) -> None:
    run_dir = host.tmp / "sinkkilled"
    p = runner(host, "--profile", str(long_profile(host.tmp, duration=3.5, reps=3)),
               "--run-dir", str(run_dir), background=True)
    try:
        pid = wait_remote_sink(host)[0].split()[0]
        time.sleep(0.3)
        k = host.ssh(f"kill -KILL {pid}")
        assert k.returncode == 0, k.stderr
        # the next trial: the ssh connection drops (its master is killed) mid-trial
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            sinks = wait_remote_sink(host)
            if sinks[0].split()[0] != pid:
                break
            time.sleep(0.2)
        time.sleep(0.3)
        masters = subprocess.run(["pgrep", "-f", r"^ssh: /tmp/cbssh-.*\[mux\]"],
                                 capture_output=True, text=True, check=False).stdout.split()
        assert len(masters) == 1, masters
        os.kill(int(masters[0]), signal.SIGKILL)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err[-2000:]
    recs = records(run_dir)
    assert len(recs) == 3
    failed = [x for x in recs if x["status"] != "ok"]
    assert [x["order_index"] for x in failed] == [0, 1], [(x["status"], x["error"]) for x in recs]
    for x in failed:
        assert x["error"] and x["remote"]["sink_exit"] is None  # it never said goodbye
    assert recs[2]["status"] == "ok", recs[2]["error"]  # a new connection: the sweep went on
    assert_nothing_left(host)


def test_stranger_is_refused_and_the_trial_is_unaffected(host: RemoteHost) -> None:
    run_dir = host.tmp / "stranger"
    p = runner(host, "--profile", str(long_profile(host.tmp, duration=6, reps=1)),
               "--run-dir", str(run_dir), background=True)
    try:
        wait_remote_sink(host)
        port = None
        for _ in range(50):
            ss = subprocess.run(["ip", "netns", "exec", host.ns_remote, "ss", "-Hltnp"],
                                capture_output=True, text=True, check=True).stdout
            for ln in ss.splitlines():
                if "copybench" in ln and f"{REMOTE_ADDR}:" in ln:
                    port = int(ln.split()[3].rsplit(":", 1)[1])
            if port:
                break
            time.sleep(0.1)
        assert port, "the remote sink's port"
        time.sleep(0.5)  # the runner's session is running (a 6 s window)
        hello = (b"HELLO copybench/1 proto=tcp mode=stream threads=1 size=65536 "
                 b"record=65536 stamped=1 verify=full seed=1 counters=full token="
                 + b"f" * 32 + b"\n")
        other = connect_from(host.ns_runner, STRANGER_ADDR, REMOTE_ADDR, port, hello)
        same = connect_from(host.ns_runner, RUNNER_ADDR, REMOTE_ADDR, port, hello)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    for c in (other, same):  # the answer, or the reset of a close with the greeting unread
        assert "ERR refused" in c.stdout or "ConnectionReset" in c.stdout, (c.stdout, c.stderr)
    assert p.returncode == 0, err[-2000:]
    (rec,) = records(run_dir)
    assert rec["status"] == "ok", rec["error"]
    res = rec["result"]
    assert res["verify"]["mismatches"] == 0 and res["verify"]["bytes_checked"] > 0
    # ok means copybench's own check held: every byte sent (warm-up included) arrived once,
    # so nothing of the strangers' was counted in the trial's bytes
    assert res["bytes"] > 0 and rec["error"] is None
    assert rec["remote"]["refused"] == 2
    reasons = sorted(c["reason"] for c in rec["remote"]["refused_connections"])
    assert any("unexpected peer address" in r for r in reasons), reasons
    assert any(r.startswith("busy") or "token" in r for r in reasons), reasons
    peers = {c["peer"] for c in rec["remote"]["refused_connections"]}
    assert peers == {STRANGER_ADDR, RUNNER_ADDR}
    assert_nothing_left(host)


# --- the sink on its own: lifeline, idle timeout, heartbeat ------------------------------

def _sink(*args: str) -> subprocess.Popen[str]:
    p = subprocess.Popen([str(BIN), "sink", "--bind", "127.0.0.1", "--port", "0", "--once",
                          "--token-stdin", *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdin and p.stdout
    p.stdin.write(TOKEN + "\n")
    p.stdin.flush()
    ready = json.loads(p.stdout.readline())
    assert ready["event"] == "ready"
    p.port = ready["port"]  # type: ignore[attr-defined]
    return p


def _wait(p: subprocess.Popen[str], timeout: float) -> tuple[str, str, float]:
    """Wait for the sink to exit by itself, its stdin left as it is (communicate would close
    it: that is the lifeline)."""
    t0 = time.monotonic()
    try:
        p.wait(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.stdout and p.stderr
    return p.stdout.read(), p.stderr.read(), time.monotonic() - t0


def _exit_event(p: subprocess.Popen[str], timeout: float) -> tuple[dict, float]:
    out, _, took = _wait(p, timeout)
    ev = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    return ev[-1], took


def test_sink_exits_when_its_stdin_closes() -> None:
    p = _sink()
    assert p.stdin
    p.stdin.close()
    ev, took = _exit_event(p, 5)
    assert ev == {"event": "exit", "reason": "lifeline", "sessions": 0, "refused": 0}
    assert took < 2


def test_sink_exits_when_no_session_starts() -> None:
    p = _sink("--idle-timeout", "0.5")
    ev, took = _exit_event(p, 5)
    assert ev["reason"] == "idle" and took < 3


def test_sink_aborts_a_session_whose_sender_goes_silent() -> None:
    """A sender that vanished without a FIN (host or link gone): no PING for 8 s."""
    import socket
    p = _sink()
    c = socket.create_connection(("127.0.0.1", p.port))  # type: ignore[attr-defined]
    c.sendall(b"HELLO copybench/1 proto=tcp mode=stream threads=1 size=64 record=64 "
              b"stamped=1 verify=full seed=1 counters=rusage token=" + TOKEN.encode() + b"\n")
    ok = c.recv(100).decode()
    assert ok.startswith("OK port="), ok
    d = socket.create_connection(("127.0.0.1", int(ok.split("=")[1])))
    d.sendall(f"CBDATA {TOKEN}\n".encode())
    _, err, took = _wait(p, 15)
    assert "no heartbeat from the sender" in err, err
    assert 7 <= took < 10
    c.close()
    d.close()

"""One trial: start the sink (if any), wait for it to be ready, run the sender under a
timeout, and wrap what it printed into the trial record of the design.

The record keeps copybench's own fields unchanged and adds ``run_id``, ``trial_id``,
``cell``, ``order_index``, ``repetition``, ``started_at``, ``loadavg``, the runner-level
factors in ``config`` (``kind``, ``transport``, ``placement``, ``cache``, ``mtu``,
``experiment``, ``profiled``), and ``invocation`` (argv, exit codes, wall time). A trial
that fails or times out is recorded with ``status`` ``failed``/``timeout`` and ``error`` =
what went wrong plus the tail of stderr. A copybench trial that missed its measured window
(exit 3) is run again at once, up to ``WINDOW_RETRIES`` times, and its record carries the earlier
attempts in ``retries``.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import count
from pathlib import Path
from typing import Any, Callable

from runner import peers, perfprof
from runner.placement import Cpus, cpus_for
from runner.plan import Cell, Trial
from runner.proc import Janitor, kill, spawn, stop, tail, wait_for_line
from runner.profile import FILE_SEND_METHODS
from rundir import layout
from rundir.records import SCHEMA_VERSION
from runner.topology import Topology

SINK_READY_S = 10.0
_NS_PORT_BASE = 20000
_ns_ports = count()


@dataclass
class Context:
    binary: Path
    run_dir: Path
    run_id: str
    seed: int
    janitor: Janitor | None
    # the reports' own programs, prepared once per run (runner.originals.prepare): source ->
    # {"dir", "build", "source"} when built, {"error"} when not
    originals: dict[str, dict[str, Any]] | None = None


def trial_seed(seed: int, trial_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{trial_id}".encode()).digest()[:4],
                          "little") & 0x7FFFFFFF


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


def port_for(topo: Topology) -> int:
    if topo.transport == "remote":
        return 0  # the remote sink picks a free port; runner.remote puts it in the argv
    if topo.transport == "loopback":
        return free_port()
    return _NS_PORT_BASE + next(_ns_ports) % 40000


# --- argv ----------------------------------------------------------------------------

def sink_argv(binary: Path, port: int, cpus: Cpus) -> list[str]:
    argv = [str(binary), "sink", "--port", str(port), "--once"]
    return argv + (["--cpus", cpus.sink] if cpus.sink else [])


def sender_argv(binary: Path, cell: Cell, topo: Topology, port: int, cpus: Cpus,
                seed: int) -> list[str]:
    common = ["--duration", f"{cell.duration_s:g}", "--warmup", f"{cell.warmup_s:g}",
              "--verify", cell.verify, "--seed", str(seed)]
    cpu = ["--cpus", cpus.sender] if cpus.sender else []
    file_opts = (["--cache", cell.cache] if cell.cache else []) + \
        (["--dir", cell.dir] if cell.dir else [])
    if cell.command == "copy":
        return [str(binary), "copy", "--method", cell.method, "--size", str(cell.size),
                *file_opts, *cpu, *common]
    argv = [str(binary), "send", "--method", cell.method, "--host", topo.host,
            "--port", str(port), "--transport", cell.protocol, "--mode", cell.mode or "stream",
            "--size", str(cell.size), "--threads", str(cell.threads), *cpu, *common]
    if cell.mode == "pingpong":
        # per-thread perf events and the syscall tracepoint add latency to every round trip
        # (and more to methods that make more syscalls): latency cells keep getrusage only
        argv += ["--counters", "rusage"]
    if cell.method in FILE_SEND_METHODS:
        argv += file_opts
    else:
        argv += ["--fields", str(cell.fields)]
    if cell.transport == "udp-forward":
        argv.append("--no-sink")
    return argv


# --- running a pair ------------------------------------------------------------------

@dataclass
class PairResult:
    status: str  # ok | failed | timeout
    stdout: str
    sender_rc: int | None
    sink_rc: int | None
    sender_tail: str
    sink_tail: str
    problem: str | None  # runner-side description of what went wrong
    wall_s: float
    stderr: str = ""


def run_pair(sink: list[str] | None, ready: Callable[[str], bool] | None,
             sender: list[str], timeout: float, janitor: Janitor | None,
             sink_stop_grace: float = 3.0) -> PairResult:
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="copybench-trial-") as tmp:
        d = Path(tmp)
        sink_p = None
        sink_log = d / "sink.log"
        send_out, send_err = d / "send.out", d / "send.err"
        try:
            if sink is not None:
                with open(sink_log, "wb") as so:
                    try:
                        sink_p = spawn(sink, janitor, so, subprocess.STDOUT)
                    except OSError as e:
                        return PairResult("failed", "", None, None, "", "",
                                          f"cannot start the sink ({sink[0]}): {e}",
                                          time.monotonic() - t0)
                line, why = wait_for_line(sink_log, sink_p, ready or (lambda s: True),
                                          min(SINK_READY_S, timeout))
                if line is None:
                    sink_rc0 = kill(sink_p, janitor)
                    sink_p = None
                    return PairResult("failed", "", None, sink_rc0, "", tail(sink_log),
                                      f"sink {why}", time.monotonic() - t0)
            remaining = max(1.0, timeout - (time.monotonic() - t0))
            with open(send_out, "wb") as so, open(send_err, "wb") as se:
                try:
                    p = spawn(sender, janitor, so, se)
                except OSError as e:
                    return PairResult("failed", "", None, None, "", tail(sink_log),
                                      f"cannot start the sender ({sender[0]}): {e}",
                                      time.monotonic() - t0)
            status = "ok"
            problem = None
            try:
                p.wait(timeout=remaining)
                rc = stop(p, janitor, grace=0)
            except subprocess.TimeoutExpired:
                rc = kill(p, janitor)
                status = "timeout"
                problem = f"timed out after {timeout:g} s (killed)"
            except BaseException:
                kill(p, janitor)
                raise
            sink_rc = None
            if sink_p is not None:
                if sink_stop_grace < 0:
                    sink_rc = kill(sink_p, janitor)
                else:
                    sink_rc = stop(sink_p, janitor,
                                   grace=sink_stop_grace if status == "ok" else 0)
                sink_p = None
            return PairResult(status, send_out.read_text(errors="replace"), rc, sink_rc,
                              tail(send_err), tail(sink_log), problem, time.monotonic() - t0,
                              send_err.read_text(errors="replace")[-200000:])
        finally:
            if sink_p is not None:
                kill(sink_p, janitor)


# --- records ---------------------------------------------------------------------------

def _base(ctx: Context, cell: Cell, trial: Trial, order_index: int, started: str,
          load: list[float]) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": ctx.run_id,
        "trial_id": trial.id,
        "cell": cell.id,
        "order_index": order_index,
        "repetition": trial.repetition,
        "started_at": started,
        "loadavg": load,
    }


def runner_config(cell: Cell, cpus: Cpus, profiled: bool) -> dict[str, Any]:
    return {
        "kind": cell.kind, "experiment": cell.experiment, "transport": cell.transport,
        "placement": cell.placement, "cache": cell.cache, "mtu": cell.mtu,
        "block": cell.block or None, "twin": cell.twin,
        "profiled": profiled, "timeout_s": cell.timeout(),
        "cpus_sender_list": cpus.sender, "cpus_sink_list": cpus.sink,
    }


def cpu_list(spec: str | None) -> list[int] | None:
    return [int(x) for x in spec.split(",")] if spec else None


def intended_config(cell: Cell, seed: int | None = None) -> dict[str, Any]:
    """What the trial was meant to run, for records without copybench's own config."""
    return {
        "command": cell.command, "method": cell.method, "mode": cell.mode,
        "protocol": cell.protocol if cell.command == "send" else None, "size": cell.size,
        "fields": cell.fields, "threads": cell.threads, "duration_s": cell.duration_s,
        "warmup_s": cell.warmup_s, "verify": cell.verify, "cache": cell.cache,
        "no_sink": cell.transport == "udp-forward", "seed": seed,
    }


def _error_text(problem: str | None, own: str | None, pr: PairResult) -> str:
    parts = [p for p in (problem, own) if p]
    if pr.sender_tail:
        parts.append("--- sender stderr (tail) ---\n" + pr.sender_tail)
    if pr.sink_tail and (pr.status != "ok" or pr.sink_rc not in (0, None)):
        parts.append("--- sink stderr (tail) ---\n" + pr.sink_tail)
    return "\n".join(parts) or "failed (no output)"


def run_trial(ctx: Context, cell: Cell, trial: Trial, topo: Topology | None,
              order_index: int, topo_error: str | None = None) -> dict[str, Any]:
    started = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    load = [round(x, 2) for x in os.getloadavg()]
    rec = _base(ctx, cell, trial, order_index, started, load)
    profiled = trial.repetition == 0
    cpus = cpus_for(cell.placement, cell.has_sink)
    if cell.transport == "remote" and topo is not None and topo.remote is not None:
        cpus = topo.remote.placement(cpus)  # the sink's CPUs are the remote host's
    rconf = runner_config(cell, cpus, profiled)
    if topo is None or topo_error:
        rec.update(config={**intended_config(cell, trial_seed(ctx.seed, trial.id)), **rconf},
                   status="failed", tool="copybench" if cell.kind == "copybench" else cell.method,
                   tool_version=None,
                   error=f"topology {cell.transport}: {topo_error or 'not available'}",
                   result=None)
        return rec
    if cell.kind == "copybench":
        return with_window_retries(
            lambda base: _run_copybench(ctx, cell, trial, topo, cpus, base, rconf, profiled), rec)
    if cell.is_original:
        from runner.originals.trial import run_original
        return run_original(ctx.originals or {}, cell, rec, rconf, intended_config(cell),
                            ctx.janitor)
    return _run_peer(ctx, cell, topo, cpus, rec, rconf)


# --- a missed window: tried again at once, under the same trial id ---------------------------

EXIT_WINDOW_MISSED = 3
"""copybench's exit code when its measured window was not the asked one and nothing else went
wrong (src/README.md, "The measured window"): the machine was too busy for that trial."""
WINDOW_RETRIES = 2
"""A trial that missed its window runs again at once, up to this many times, with the same trial
id and argv (same seed). The record written is the last attempt's, so the sweep still writes
exactly one record per trial id; ``retries`` lists the earlier attempts and why each missed. A
wrong result (exit 1: verification, lost bytes...) or a timeout is never retried."""


def window_missed(rec: dict[str, Any]) -> bool:
    """Whether this copybench record failed only because its window was missed."""
    res = rec.get("result")
    win = res.get("window") if isinstance(res, dict) else None
    return (rec.get("status") == "failed"
            and (rec.get("invocation") or {}).get("sender_exit") == EXIT_WINDOW_MISSED
            and isinstance(win, dict) and win.get("missed") is True)


def _attempt(rec: dict[str, Any], n: int) -> dict[str, Any]:
    res = rec.get("result") or {}
    win = res.get("window") or {}
    return {"attempt": n, "started_at": rec.get("started_at"), "loadavg": rec.get("loadavg"),
            "reason": win.get("why") or str(rec.get("error")).splitlines()[0],
            "window": win or None, "interference": res.get("interference"),
            "wall_s": (rec.get("invocation") or {}).get("wall_s")}


def with_window_retries(run: Callable[[dict[str, Any]], dict[str, Any]],
                        base: dict[str, Any]) -> dict[str, Any]:
    """``run(record base)`` until its window is met, at most 1 + WINDOW_RETRIES times."""
    retries: list[dict[str, Any]] = []
    while True:
        rec = run(dict(base))
        if not window_missed(rec) or len(retries) >= WINDOW_RETRIES:
            break
        retries.append(_attempt(rec, len(retries) + 1))
        base = {**base,
                "started_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                "loadavg": [round(x, 2) for x in os.getloadavg()]}
    if retries:
        rec["retries"] = retries
    return rec


def _run_copybench(ctx: Context, cell: Cell, trial: Trial, topo: Topology, cpus: Cpus,
                   rec: dict[str, Any], rconf: dict[str, Any], profiled: bool
                   ) -> dict[str, Any]:
    port = port_for(topo)
    seed = trial_seed(ctx.seed, trial.id)
    core = sender_argv(ctx.binary, cell, topo, port, cpus, seed)
    perf_data = layout.perf_data(ctx.run_dir, trial.id)
    timeout = cell.timeout()
    if profiled:
        perf_data.parent.mkdir(parents=True, exist_ok=True)
        core = [*perfprof.PERF_RECORD, "-o", str(perf_data), "--", *core]
        timeout += 60
    sender = topo.sender_prefix() + core
    if topo.transport == "remote":  # the sink runs on the remote host, over ssh
        sink = topo.remote.sink_argv(cpus, idle_s=timeout)
        pr = topo.remote.run_pair(sink, sender, timeout + 20)
    else:
        sink = topo.sink_prefix() + sink_argv(ctx.binary, port, cpus) if cell.has_sink else None
        pr = run_pair(sink, _sink_ready if sink else None, sender, timeout, ctx.janitor)
    record, parse_problem = _parse_record(pr.stdout)
    config = {**intended_config(cell, seed)}
    if record:
        config.update(record.get("config") or {})
    config.update({k: v for k, v in rconf.items() if k != "cache" or v is not None})
    if config.get("cache") is None:
        config["cache"] = cell.cache
    status = pr.status
    own_error = None
    if status == "ok":
        if record is None:
            status = "failed"
        elif pr.sender_rc != 0 or record.get("status") != "ok":
            status = "failed"
            own_error = record.get("error")
    problem = pr.problem
    if status == "failed" and problem is None:
        # a missed window (exit 3) is said by copybench's own error, "window missed: ..."
        problem = parse_problem or (f"sender exited with status {pr.sender_rc}"
                                    if pr.sender_rc not in (0, None, EXIT_WINDOW_MISSED)
                                    else None)
    rec.update(
        tool=(record or {}).get("tool", "copybench"),
        tool_version=(record or {}).get("tool_version"),
        config=config,
        status=status,
        error=None if status == "ok" else _error_text(problem, own_error, pr),
        result=(record or {}).get("result"),
        invocation={"sender": sender, "sink": sink, "sender_exit": pr.sender_rc,
                    "sink_exit": pr.sink_rc, "wall_s": round(pr.wall_s, 3)},
    )
    if getattr(pr, "remote", None) is not None:
        rec["remote"] = pr.remote  # the remote sink: refused connections, how it ended
    if record is not None:
        extra = {k: v for k, v in record.items()
                 if k not in ("schema_version", "tool", "tool_version", "config", "status",
                              "error", "result")}
        if extra:
            rec["copybench_extra"] = extra
    if profiled:
        rec["perf_profile"] = _reduce_profile(ctx, trial, perf_data, status, seed)
    return rec


def _sink_ready(line: str) -> bool:
    try:
        ev = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(ev, dict) and ev.get("event") == "ready"


def _parse_record(stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    objs = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return None, "sender printed something that is not JSON on stdout"
        if isinstance(obj, dict):
            objs.append(obj)
    if not objs:
        return None, "sender printed no JSON record"
    if len(objs) > 1:
        return objs[-1], f"sender printed {len(objs)} JSON records (expected exactly one)"
    return objs[0], None


def _reduce_profile(ctx: Context, trial: Trial, data: Path, status: str,
                    seed: int | None = None) -> dict[str, Any]:
    out_path = layout.perf_json(ctx.run_dir, trial.id)
    try:
        if not data.exists():
            return {"error": "perf record wrote no data"}
        red = perfprof.reduce_file(data, seed=seed)
        perfprof.store(red, out_path)
        return {"path": str(out_path.relative_to(ctx.run_dir)), "samples": red.samples,
                "kernel_share": red.kernel_share, "groups": red.groups,
                "user_copy_share": red.user_copy_share, "format": red.format,
                # samples per side (sending / receiving threads, by thread name) and windows
                "side_samples": {k: v.get("samples", 0) for k, v in red.sides.items()},
                "windows": len(red.windows)}
    except Exception as e:  # a failed reduction must not lose the trial
        return {"error": f"perf reduction failed: {e}"}
    finally:
        try:
            data.unlink()
            Path(str(data) + ".old").unlink(missing_ok=True)
        except OSError:
            pass


def _peer_pair(topo: Topology, sink: list[str], ready: Callable[[str], bool],
               sender: list[str], timeout: float, janitor: Janitor | None,
               sink_stop_grace: float = 3.0) -> tuple[list[str], PairResult]:
    """(the server's argv as run, the pair's result): for ``remote`` the server runs on the
    other host over ssh (runner.remote)."""
    if topo.transport == "remote":
        sink = topo.remote.peer_argv(sink)
        return sink, topo.remote.run_peer_pair(sink, ready, sender, timeout + 20)
    return sink, run_pair(sink, ready, sender, timeout, janitor, sink_stop_grace)


def _run_peer(ctx: Context, cell: Cell, topo: Topology, cpus: Cpus, rec: dict[str, Any],
              rconf: dict[str, Any]) -> dict[str, Any]:
    port = topo.remote.peer_port() if topo.transport == "remote" else port_for(topo)
    timeout = cell.timeout() + 10
    if cell.kind == "peer:iperf3":
        sink = topo.sink_prefix() + peers.iperf3_server(port, topo.sink_addr, cpus)
        sender = topo.sender_prefix() + peers.iperf3_client(
            topo.host, port, cell.size, cell.threads, cell.duration_s, cell.warmup_s, cpus)
        sink, pr = _peer_pair(topo, sink, peers.iperf3_ready, sender, timeout, ctx.janitor)
        result, perr = (peers.parse_iperf3(pr.stdout, cell.size) if pr.status == "ok"
                        else (None, None))
        t, o = peers.iperf3_times(cell.duration_s, cell.warmup_s)
        timing = {"duration_s": float(t), "warmup_s": float(o)}
    else:
        sink = topo.sink_prefix() + peers.sockperf_server(port, topo.sink_addr, cpus)
        sender = topo.sender_prefix() + peers.sockperf_client(
            topo.host, port, cell.size, cell.duration_s, cell.warmup_s, cpus)
        sink, pr = _peer_pair(topo, sink, peers.sockperf_ready, sender, timeout, ctx.janitor,
                              sink_stop_grace=-1)  # sockperf server serves forever: kill it
        result, perr = (None, None)
        if pr.status == "ok":
            result, perr = peers.parse_sockperf(pr.stdout + "\n" + pr.stderr, cell.size)
        timing = {}
    status = pr.status
    if status == "ok" and (result is None or pr.sender_rc != 0):
        status = "failed"
    config = {**intended_config(cell), "protocol": "tcp", "verify": "off", **timing,
              **rconf, "host": topo.host, "port": port,
              "cpus_sender": cpu_list(cpus.sender), "cpus_receiver": cpu_list(cpus.sink)}
    rec.update(tool=cell.method, tool_version=peers.tool_version(cell.method), config=config,
               status=status,
               error=None if status == "ok" else _error_text(pr.problem or perr, None, pr),
               result=result,
               invocation={"sender": sender, "sink": sink, "sender_exit": pr.sender_rc,
                           "sink_exit": pr.sink_rc, "wall_s": round(pr.wall_s, 3)})
    if getattr(pr, "remote", None) is not None:
        rec["remote"] = pr.remote
    return rec

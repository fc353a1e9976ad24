"""copybench's command lines for one trial of a cell: its sink and its sender (with the
trial's seed, so the verification pattern of a trial is the same when it is run again)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from runner.host.pinning import Cpus
from runner.plan.cells import Cell
from runner.plan.profile import FILE_SEND_METHODS


def trial_seed(seed: int, trial_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{trial_id}".encode()).digest()[:4],
                          "little") & 0x7FFFFFFF


def sink_argv(binary: Path, port: int, cpus: Cpus, once: bool = True) -> list[str]:
    """copybench's sink for one trial (``once``), or one kept across trials (it serves
    sessions one after another until it is stopped)."""
    argv = [str(binary), "sink", "--port", str(port), *(["--once"] if once else [])]
    return argv + (["--cpus", cpus.sink] if cpus.sink else [])


def share_order(repetition: int) -> str:
    """Which connection of a shared-time trial has the window's first turn: the cell's
    method's (AB) in odd rounds, the other's (BA) in even ones, so over each two rounds each
    method leads once, as the block design counterbalances its order (profiled trials,
    round 0: AB)."""
    return "BA" if repetition and repetition % 2 == 0 else "AB"


def sender_argv(binary: Path, cell: Cell, host: str, port: int, cpus: Cpus,
                seed: int, repetition: int = 1) -> list[str]:
    """The sender (or, for a file→file cell, the copy) of ``cell``, sending to ``host``, in
    round ``repetition`` (a shared-time trial's order follows it)."""
    common = ["--duration", f"{cell.duration_s:g}", "--warmup", f"{cell.warmup_s:g}",
              "--verify", cell.verify, "--seed", str(seed)]
    cpu = ["--cpus", cpus.sender] if cpus.sender else []
    file_opts = (["--cache", cell.cache] if cell.cache else []) + \
        (["--dir", cell.dir] if cell.dir else [])
    if cell.command == "copy":
        return [str(binary), "copy", "--method", cell.method, "--size", str(cell.size),
                *file_opts, *cpu, *common]
    argv = [str(binary), "send", "--method", cell.method, "--host", host,
            "--port", str(port), "--protocol", cell.protocol, "--mode", cell.mode or "stream",
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
    if cell.sockbuf:
        argv += ["--sockbuf", str(cell.sockbuf)]
    if cell.recv_size:
        argv += ["--recv-size", str(cell.recv_size)]
    if cell.alternate:
        argv += ["--alternate", cell.alternate]
    if cell.share_time:
        argv += ["--share-time", cell.share_time, "--share-order", share_order(repetition)]
    return argv

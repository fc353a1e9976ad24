#!/usr/bin/env python3
"""Does a pause with nothing in flight restart a TCP connection's congestion window here?

The shared-time design (copybench send --share-time) pauses each of its two connections for
the other's 100 ms turn. Linux restarts the window of a connection that sent nothing for
longer than its RTO with no packet in flight (RFC 2861; ``tcp_slow_start_after_idle``,
tcp(7)), unless its congestion control runs its own (``cong_control``: BBR). This measures it
on the runner's veth topology: two network namespaces joined by a veth pair (198.18.0.1 ->
198.18.0.2, MTU 1500), created for the measurement and removed after it; the host's
sysctls are never touched. For each pause length and each value of
``net.ipv4.tcp_slow_start_after_idle`` (set inside the sender's namespace only), one
connection repeats: a 200 ms bulk send (the window grows), wait until nothing is in flight
(``tcpi_unacked`` and ``SIOCOUTQ`` both 0), pause, send one 64 KiB chunk; ``snd_cwnd`` is
read before the pause and just after that first send.

The sink and the sender run in process groups of their own; whatever ends the script (an
error, Ctrl-C, SIGTERM) kills both groups and removes the namespaces before it exits. A
congestion control the kernel does not offer is refused in one line before anything is set up.

    sudo .venv/bin/python studies/cwnd_after_pause.py [--pauses 0.1,0.3] [--repeats 20]
                                                      [--congestion cubic]

Prints one line per setting: the congestion control, the RTO, the median window before and
after, and in how many repeats the window after the pause was at most 0.6 times the window
before (a restart halves it at least once).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import termios
import time

SENDER_ADDR, SINK_ADDR = "198.18.0.1", "198.18.0.2"
PORT = 5299
CHUNK = 64 * 1024
#: how long the sink may take to listen, and to end after its sender closed (seconds)
SINK_READY_S, SINK_END_S = 10, 5
AVAILABLE = "/proc/sys/net/ipv4/tcp_available_congestion_control"
#: struct tcp_info (linux/tcp.h): 8 one-byte fields, then 32-bit fields from offset 8
TI_RTO, TI_UNACKED, TI_SND_CWND = 8, 24, 80


def tcp_info(s: socket.socket) -> dict[str, int]:
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    field = lambda off: struct.unpack_from("I", raw, off)[0]  # noqa: E731
    return {"rto_us": field(TI_RTO), "unacked": field(TI_UNACKED), "cwnd": field(TI_SND_CWND)}


def outq(s: socket.socket) -> int:
    """SIOCOUTQ (= TIOCOUTQ): bytes in the send queue, sent or not, not yet acknowledged."""
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]


def role_sink(port: int) -> int:
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((SINK_ADDR, port))
    ls.listen(1)
    print("ready", flush=True)
    c, _ = ls.accept()
    while c.recv(1 << 20):
        pass
    return 0


def role_send(port: int, pauses: list[float], repeats: int, cc: str | None) -> int:
    s = socket.socket()
    if cc:  # a positive control: a congestion control without cong_control (cubic)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.settimeout(10)
    s.connect((SINK_ADDR, port))
    cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    buf = b"x" * CHUNK
    for pause in pauses:
        before, after, rto = [], [], []
        for _ in range(repeats):
            end = time.monotonic() + 0.2
            while time.monotonic() < end:
                s.sendall(buf)
            last = time.monotonic()
            while tcp_info(s)["unacked"] or outq(s):  # nothing in flight, nothing queued
                time.sleep(0.0005)
                last = time.monotonic() if outq(s) else last
            ti = tcp_info(s)
            before.append(ti["cwnd"])
            rto.append(ti["rto_us"])
            time.sleep(max(0.0, pause - (time.monotonic() - last)))
            s.sendall(buf)
            after.append(tcp_info(s)["cwnd"])
        # tcp_cwnd_restart halves the window once per RTO idle (at least to the initial
        # window): a restart leaves at most about half
        restarted = sum(1 for b, a in zip(before, after) if a <= 0.6 * b)
        print(f"{cc} pause {pause * 1e3:.0f} ms: rto {statistics.median(rto) / 1e3:.0f} ms, "
              f"snd_cwnd median {statistics.median(before):.0f} before, "
              f"{statistics.median(after):.0f} after the first send; restarted (at most 0.6x) "
              f"in {restarted} of {repeats}", flush=True)
    return 0


class Failed(Exception):
    """A step of the set-up or of the measurement that failed: one line."""


def congestion_problem(cc: str) -> str | None:
    """Why a socket here cannot use the congestion control ``cc`` (None: it can); tried on a
    socket of this namespace, which the two new ones share the kernel's modules with."""
    with socket.socket() as s:
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        except OSError as exc:
            try:
                with open(AVAILABLE, encoding="ascii") as f:
                    offered = ", ".join(f.read().split())
            except OSError:
                offered = "see " + AVAILABLE
            return f"--congestion {cc}: not available here ({exc.strerror}; available: {offered})"
    return None


def run(args: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(args, capture_output=True, text=True, check=False)
    if check and r.returncode:
        said = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        raise Failed(f"{' '.join(args)}: {said}")
    return r


def start(args: list[str], **kw: object) -> subprocess.Popen[str]:
    """A child in a process group of its own (:func:`stop` ends it and all it started)."""
    return subprocess.Popen(args, start_new_session=True, text=True, **kw)  # type: ignore[call-overload]


def stop(proc: subprocess.Popen[str] | None, grace_s: float = 0.0) -> None:
    """End ``proc``'s process group: at once, or after it had ``grace_s`` to end itself."""
    if proc is None:
        return
    try:
        proc.wait(timeout=grace_s) if grace_s else None
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def measure(pauses: list[float], repeats: int, idle_restart: int, cc: str | None) -> None:
    tag = f"cbcw{os.getpid()}"
    a, b = f"{tag}a", f"{tag}b"
    sink = sender = None
    try:
        for ns in (a, b):
            run(["ip", "netns", "add", ns])
        run(["ip", "link", "add", "name", "cwa", "netns", a, "type", "veth", "peer", "name",
             "cwb", "netns", b])
        for ns, dev, addr in ((a, "cwa", SENDER_ADDR), (b, "cwb", SINK_ADDR)):
            run(["ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev])
            run(["ip", "-n", ns, "link", "set", dev, "mtu", "1500", "up"])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        run(["ip", "netns", "exec", a, "sysctl", "-q", "-w",
             f"net.ipv4.tcp_slow_start_after_idle={idle_restart}"])
        me = os.path.abspath(__file__)
        sink = start(["ip", "netns", "exec", b, sys.executable, me, "--role", "sink"],
                     stdout=subprocess.PIPE)
        assert sink.stdout is not None
        ready, _, _ = select.select([sink.stdout], [], [], SINK_READY_S)
        if not ready or sink.stdout.readline().strip() != "ready":
            raise Failed(f"the sink did not start listening within {SINK_READY_S} s")
        print(f"tcp_slow_start_after_idle={idle_restart} (sender's namespace only):", flush=True)
        sender = start(["ip", "netns", "exec", a, sys.executable, me, "--role", "send",
                        "--pauses", ",".join(map(str, pauses)), "--repeats", str(repeats),
                        *(["--congestion", cc] if cc else [])])
        if sender.wait():
            raise Failed(f"the sender failed (exit {sender.returncode})")
    finally:  # nothing outlives the script: both groups killed, then the namespaces go
        stop(sender)
        stop(sink, SINK_END_S if sender is not None and sender.returncode == 0 else 0.0)
        for ns in (a, b):
            run(["ip", "netns", "del", ns], check=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pauses", default="0.1,0.3",
                    help="pause lengths in seconds, comma-separated (default 0.1,0.3)")
    ap.add_argument("--repeats", type=int, default=20, help="repeats per pause (default 20)")
    ap.add_argument("--congestion", metavar="CC",
                    help="the sender socket's congestion control (TCP_CONGESTION; e.g. cubic, the "
                         "positive control; default: the namespace's, which it inherits "
                         "from the host)")
    ap.add_argument("--role", choices=("sink", "send"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    try:
        pauses = [float(x) for x in a.pauses.split(",")]
    except ValueError:
        ap.error(f"--pauses: not a comma-separated list of seconds: {a.pauses!r}")
    if not all(0 < p <= 10 for p in pauses):
        ap.error(f"--pauses: each pause must be above 0 and at most 10 s (got {a.pauses})")
    if not 1 <= a.repeats <= 1000:
        ap.error(f"--repeats: 1 to 1000 (got {a.repeats})")
    if a.congestion is not None and not a.congestion.isidentifier():
        ap.error(f"--congestion: not a congestion control name: {a.congestion!r}")
    if a.role == "sink":
        return role_sink(PORT)
    if a.role == "send":
        return role_send(PORT, pauses, a.repeats, a.congestion)
    if a.congestion is not None and (why := congestion_problem(a.congestion)):
        print(f"cwnd_after_pause: {why}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("cwnd_after_pause: needs root (network namespaces)", file=sys.stderr)
        return 2
    # SIGTERM ends it as Ctrl-C does: through the clean-up of measure()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for idle_restart in (1, 0):
            measure(pauses, a.repeats, idle_restart, a.congestion)
    except Failed as exc:
        print(f"cwnd_after_pause: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("cwnd_after_pause: interrupted; the namespaces and their processes are removed",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

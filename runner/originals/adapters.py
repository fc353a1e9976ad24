"""One adapter per repository: how to start its programs and what their output means.

Every definition below is read from their code at the pinned commit (file names given). In
all three, the *server* is the data sender (it writes an 8-field message in a loop) and the
*client* is the receiver that measures; both use TCP port 8080 (hard-coded) and bind
``INADDR_ANY``. Method names: ``S<n>:two-copy``, ``S<n>:one-copy``, ``S<n>:zero-copy`` (their
Part A1, A2, A3). The ``size`` handed to an adapter is always the **message** size in bytes
(all 8 fields, copybench's meaning); each adapter maps it to the argument its program takes
and records both.

S1 (yashchoudhery/GRS-Assignment-2, MT24147_Part_A*):
  server ``server_a{1,2,3}`` (no arguments; never exits; one thread per connection, sends
  until the peer goes away). The client sends the size *per field* as a raw ``size_t``;
  the server allocates 8 fields of that size. A1 memcpy's the 8 fields into one buffer and
  ``send()``s it; A2 ``sendmsg()`` with an 8-entry iovec; A3 the same with ``MSG_ZEROCOPY``
  after ``SO_ZEROCOPY`` on the connection, draining the error queue after each send (the
  completions are read and discarded; nothing waits for them before reusing the buffer).
  client ``client_a{1,2,3} <IP> <Port> <Threads> <Size per field> <Duration s>``: one
  connection per thread (5 or 10 connect attempts 1 s apart), each ``recv()``s into a 64 KiB
  buffer until ``Duration`` seconds (gettimeofday) after its handshake. Prints
  ``Total Data Received: <MiB> MB`` (bytes / 2^20), ``Throughput: <x> Gbps`` = MiB*8 /
  (Duration*1000), i.e. bits / (1.048576e9 * Duration) -- the *nominal* duration, not the
  measured one, and 2^20-byte "MB" -- and ``Latency: <y> us`` = Duration*1e6 / (bytes /
  (8*size per field)): the window divided by the number of messages' worth of bytes
  received in a stream -- an inverse message rate, **not a round trip**.

S2 (arpitadebnath29/GRS_PA02, MT25018_Part_A*):
  server ``MT25018_Part_A{1,2,3}_Server <message_size> <max_threads>`` (size is per
  *message*, field = size/8). A1 sends the 8 fields with **8 separate ``send()`` calls** (no
  serialising memcpy: its "two-copy" is 8 system calls per message); A2 one ``sendmsg()``
  with 8 iovecs; A3 the same with ``MSG_ZEROCOPY`` (``SO_ZEROCOPY`` set on the listening and
  the accepted socket), **never reading the error queue**; on ``ENOBUFS`` it sleeps 1 us and
  retries. The server accepts ``max_threads`` connections, then sleeps 2 s and returns from
  ``main``, which ends every sending thread: **it stops sending about 2 s after the last
  client connected**, whatever duration the clients were given.
  client ``MT25018_Part_A{1,2,3}_Client <server_ip> <message_size> <duration_s>``: one
  connection per process (their script starts ``threads`` processes); reads whole
  messages (8 x field bytes; A2 with ``recvmsg`` into 8 iovecs) until ``duration`` s pass
  or the server closes. Prints ``Total bytes received``, ``Total messages received``,
  ``Elapsed time`` (measured, gettimeofday), ``Throughput: <x> Gbps`` = bytes*8 /
  (elapsed*1e9), and ``Average latency: <y> us`` = mean time to receive one whole message
  over every 100th message. Their script writes **only the first client's** lines to the
  CSV.

S3 (shivam697/GRS_PA02, MT25043_Part_A*):
  server ``{two,one,zero}_copy_server [msg_size] [duration]`` (defaults 8192 B, 10 s;
  size per *message*, field = size/8). After a 1-byte handshake it sends messages for
  ``duration`` whole seconds (``tv_sec`` difference) per connection, then closes it; the
  accept loop never exits. two-copy: the fields are memcpy'd into one buffer **once,
  before the loop**; each iteration is one ``send()`` of that buffer (no per-message
  copy); one-copy: ``sendmsg()`` with 8 iovecs; zero-copy: the same with ``MSG_ZEROCOPY``
  (``SO_ZEROCOPY`` on the listening socket, inherited) and **one** non-blocking
  ``MSG_ERRQUEUE`` read per send. **Their Part C script starts the server with no
  arguments**, so it always sent 8192-byte messages for 10 s, whatever size the client was
  given (the client never tells the server its size). The adapter passes size and
  duration (``server_args="explicit"``) unless asked to run it as scripted
  (``server_args="script"``).
  client ``{two,one,zero}_copy_client <server_ip> <thread_count> <message_size>
  <duration_s>``: one connection per thread; ``recv()`` into 64 KiB until ``duration`` whole
  seconds (``tv_sec`` difference: between duration-1 and duration s) after the handshake
  or EOF. Prints ``Total bytes received``, ``Test Duration (Actual)`` (from before the
  threads start until all joined: includes connecting), ``Throughput: <x> Gbps`` =
  bytes*8 / (actual*1e9), and ``Average Latency: <y> us`` = the mean duration of one
  ``recv()`` call (of up to 64 KiB) -- neither a message latency nor a round trip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from rundir.vocabulary import REPORT_NAMES
from runner.originals import OriginalsUsageError

PORT = 8080
FIELDS = 8
#: their methods (Part A1, A2, A3), by the reports' names
METHODS = tuple(REPORT_NAMES.values())


class ParseError(Exception):
    """Their output lacks a line the adapter needs (the message says which)."""


def _num(pattern: str, text: str, what: str, cast: Callable[[str], float] = float,
         all_: bool = False):
    found = re.findall(pattern, text, flags=re.MULTILINE)
    if not found:
        raise ParseError(f"no {what!r} line in the client's output")
    return [cast(x) for x in found] if all_ else cast(found[-1])


@dataclass(frozen=True)
class Program:
    """One method of one repository: its server and client binaries and argument rules."""
    source: str                      # S1, S2, S3
    method: str                      # two-copy, one-copy, zero-copy
    server_bin: str
    client_bin: str
    size_unit: str                   # what their size argument means: "field" or "message"
    clients_are_processes: bool = False   # S2: one client process per connection
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.source}:{self.method}"

    def size_arg(self, size: int) -> int:
        """Their size argument for a message of ``size`` bytes (8 fields)."""
        if size <= 0 or size % FIELDS:
            raise OriginalsUsageError(f"{self.name}: size {size} must be a positive multiple of "
                                      f"{FIELDS} (the message is {FIELDS} fields)")
        return size // FIELDS if self.size_unit == "field" else size

    def server_argv(self, size: int, threads: int, duration: int,
                    server_args: str = "explicit") -> list[str]:
        s = self.size_arg(size)
        if self.source == "S1":
            return [f"./{self.server_bin}"]
        if self.source == "S2":
            return [f"./{self.server_bin}", str(s), str(threads)]
        if server_args == "script":
            return [f"./{self.server_bin}"]
        return [f"./{self.server_bin}", str(s), str(duration)]

    def client_argvs(self, host: str, size: int, threads: int, duration: int
                     ) -> list[list[str]]:
        s = str(self.size_arg(size))
        c = f"./{self.client_bin}"
        if self.source == "S1":
            return [[c, host, str(PORT), str(threads), s, str(duration)]]
        if self.source == "S2":
            return [[c, host, s, str(duration)] for _ in range(threads)]
        return [[c, host, str(threads), s, str(duration)]]

    def parse(self, client_outputs: list[str], size: int, duration: int,
              server_output: str = "", server_args: str = "explicit") -> dict[str, object]:
        return PARSERS[self.source](client_outputs, size, duration, server_output, server_args)


def parse_s1(outs: list[str], size: int, duration: int, server_out: str = "",
             server_args: str = "explicit") -> dict[str, object]:
    """S1's client output -> result. ``bytes`` is recovered from the printed MiB (2
    decimals, so +-5243 B); ``seconds`` is their denominator (the nominal duration)."""
    text = outs[0]
    mib = _num(r"^Total Data Received: ([0-9.]+) MB", text, "Total Data Received")
    gbps = _num(r"^Throughput: ([0-9.]+) Gbps", text, "Throughput")
    lat = _num(r"^Latency: ([0-9.]+) us", text, "Latency")
    retries = len(re.findall(r"retrying connection", text))
    nbytes = round(mib * 2**20)
    messages = nbytes / size
    return {
        "bytes": nbytes, "messages": messages, "seconds": float(duration),
        "gbit_per_s": nbytes * 8 / duration / 1e9, "msgs_per_s": messages / duration,
        "latency_us": lat, "connect_retries": retries,
        "printed": {"total_mib": mib, "throughput_gbps": gbps, "latency_us": lat},
        "metrics": {
            "throughput_gbps": "MiB received * 8 / (nominal duration * 1000): bits / "
                               "(1.048576e9 * duration)",
            "latency_us": "nominal duration / (bytes received / message size): inverse "
                          "message rate of a stream, not a round trip",
            "gbit_per_s": "bytes (from the printed MiB) * 8 / nominal duration / 1e9"},
    }


def parse_s2(outs: list[str], size: int, duration: int, server_out: str = "",
             server_args: str = "explicit") -> dict[str, object]:
    """S2: one output per client process. ``gbit_per_s`` is the sum over clients of each
    one's bytes over its own elapsed time; ``published_gbps`` is the first client's printed
    number, the one their script put in the CSV."""
    clients = []
    for i, text in enumerate(outs):
        try:
            c = {"bytes": _num(r"^Total bytes received: (\d+)", text, "Total bytes received",
                               int),
                 "messages": _num(r"^Total messages received: (\d+)", text,
                                  "Total messages received", int),
                 "elapsed_s": _num(r"^Elapsed time: ([0-9.]+) seconds", text, "Elapsed time"),
                 "throughput_gbps": _num(r"^Throughput: ([0-9.]+) Gbps", text, "Throughput"),
                 "mb_per_s": _num(r"^Average throughput: ([0-9.]+) MB/s", text,
                                  "Average throughput")}
        except ParseError as e:
            raise ParseError(f"client {i + 1}: {e}") from None
        lat = re.findall(r"^Average latency: ([0-9.]+) ", text, flags=re.MULTILINE)
        c["latency_us"] = float(lat[-1]) if lat else None
        c["ended_early"] = c["elapsed_s"] < duration - 0.5
        clients.append(c)
    nbytes = sum(c["bytes"] for c in clients)
    messages = sum(c["messages"] for c in clients)
    seconds = max(c["elapsed_s"] for c in clients)
    gbit = sum(c["bytes"] * 8 / c["elapsed_s"] / 1e9 for c in clients if c["elapsed_s"] > 0)
    lats = [c["latency_us"] for c in clients if c["latency_us"] is not None]
    server: dict[str, object] = {}
    for key, pat, cast in (("bytes_sent", r"^Total bytes sent: (\d+)", int),
                           ("messages_sent", r"^Total messages sent: (\d+)", int),
                           ("elapsed_s", r"^Elapsed time: ([0-9.]+) seconds", float),
                           ("throughput_gbps", r"^Throughput: ([0-9.]+) Gbps", float)):
        m = re.findall(pat, server_out, flags=re.MULTILINE)
        if m:
            server[key] = cast(m[-1])
    return {
        "bytes": nbytes, "messages": messages, "seconds": seconds,
        "gbit_per_s": gbit, "msgs_per_s": sum(c["messages"] / c["elapsed_s"]
                                              for c in clients if c["elapsed_s"] > 0),
        "latency_us": sum(lats) / len(lats) if lats else None,
        "published_gbps": clients[0]["throughput_gbps"],
        "published_latency_us": clients[0]["latency_us"],
        "stopped_early": seconds < duration - 0.5,
        "clients": clients, "server": server,
        "printed": {"throughput_gbps": [c["throughput_gbps"] for c in clients],
                    "latency_us": [c["latency_us"] for c in clients]},
        "metrics": {
            "throughput_gbps": "per client process: bytes * 8 / (measured elapsed * 1e9); "
                               "their CSV holds the first client's only",
            "latency_us": "mean time to receive one whole message (8 fields), sampled every "
                          "100th message; not a round trip",
            "gbit_per_s": "sum over client processes of bytes * 8 / own elapsed / 1e9",
            "stopped_early": "the server returns from main 2 s after its last accept, so "
                             "clients see EOF before their duration"},
    }


def parse_s3(outs: list[str], size: int, duration: int, server_out: str = "",
             server_args: str = "explicit") -> dict[str, object]:
    """S3's client output -> result; ``seconds`` is their measured duration (includes
    connecting and the handshake)."""
    text = outs[0]
    nbytes = _num(r"^Total bytes received: (\d+)", text, "Total bytes received", int)
    secs = _num(r"^Test Duration \(Actual\): ([0-9.]+) seconds", text, "Test Duration")
    gbps = _num(r"^Throughput: ([0-9.]+) Gbps", text, "Throughput")
    lat = _num(r"^Average Latency: ([0-9.]+) us", text, "Average Latency")
    sent_size = 8192 if server_args == "script" else size
    return {
        "bytes": nbytes, "messages": nbytes / sent_size, "seconds": secs,
        "gbit_per_s": nbytes * 8 / secs / 1e9 if secs > 0 else 0.0,
        "msgs_per_s": nbytes / sent_size / secs if secs > 0 else 0.0,
        "latency_us": lat, "message_bytes_sent": sent_size,
        # their threads stop at a whole-second tv_sec difference, so a full window lasts at
        # least duration - 1 s; their duration runs until every thread has joined, so shorter
        # means every connection ended before its window did (EOF or an error)
        "stopped_early": secs < duration - 1,
        "printed": {"total_bytes": nbytes, "duration_s": secs, "throughput_gbps": gbps,
                    "latency_us": lat},
        "metrics": {
            "throughput_gbps": "bytes received by all threads * 8 / (wall time from before "
                               "the threads start to all joined * 1e9)",
            "latency_us": "mean duration of one recv() call into a 64 KiB buffer: neither a "
                          "message latency nor a round trip",
            "message_bytes_sent": "what the server sends per message: the size it was "
                                  "given, or 8192 when started without arguments as their "
                                  "script does",
            "stopped_early": "their measured duration (until every thread joined) is "
                             "below duration - 1 s, the least a full window lasts under "
                             "their tv_sec rule: every connection ended early"},
    }


PARSERS: dict[str, Callable[..., dict[str, object]]] = {
    "S1": parse_s1, "S2": parse_s2, "S3": parse_s3}

_BINS = {
    "S1": {"two-copy": ("server_a1", "client_a1"), "one-copy": ("server_a2", "client_a2"),
           "zero-copy": ("server_a3", "client_a3")},
    "S2": {m: (f"MT25018_Part_A{i}_Server", f"MT25018_Part_A{i}_Client")
           for i, m in enumerate(METHODS, start=1)},
    "S3": {m: (f"{m.replace('-', '_')}_server", f"{m.replace('-', '_')}_client")
           for m in METHODS},
}

PROGRAMS: dict[str, Program] = {}
for _src, _methods in _BINS.items():
    for _m, (_s, _c) in _methods.items():
        PROGRAMS[f"{_src}:{_m}"] = Program(_src, _m, _s, _c,
                                           "field" if _src == "S1" else "message",
                                           clients_are_processes=_src == "S2")


def binaries(source: str) -> list[str]:
    """Every binary the adapter needs from a repository's build."""
    return sorted({b for m in _BINS[source].values() for b in m})


def program(name: str) -> Program:
    try:
        return PROGRAMS[name]
    except KeyError:
        raise OriginalsUsageError(f"unknown method {name!r} (allowed: "
                                  f"{', '.join(PROGRAMS)})") from None

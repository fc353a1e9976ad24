"""The other host of a two-host run (the ``remote`` transport's sink side), over ssh.

Before anything is created the runner connects (one multiplexed ssh connection per sweep,
:mod:`runner.host.ssh`), checks that the remote copybench reports the same ``--build-info``
(version, source hash, flags hash) as the local one, that the data address is the remote's and
that the CPUs exist there (:meth:`RemoteHost.open`). Each trial then starts ``copybench sink
--once --token-stdin --bind DATA_ADDR --port 0 --peer SENDER_ADDR --idle-timeout T`` over ssh
(:meth:`RemoteHost.sink_argv`; :class:`runner.trial.transports.Remote` runs the pair): it listens
only on the data address, serves only the runner's sender (a per-sweep random token, sent on
the sink's stdin and to the sender in its environment, never on a command line), refuses and
counts everything else, and exits when its session ends, when stdin closes (the runner or its
ssh went away), when no session starts within the trial's timeout (at least 15 s), or when the
sender's heartbeat stops for 8 s. Nothing is installed or written there.
"""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
from pathlib import Path
from typing import Any

from runner.host.errors import RunnerError, UsageError
from runner.host.hostfacts import FACTS_SCRIPT, local_facts, parse_facts
from runner.host.inventory import RemoteSpec, cpulist, ip_address
from runner.host.pinning import Cpus
from runner.host.proc import Janitor, ask
from runner.host.ssh import Ssh, SshError

SINK_IDLE_S = 15


class RemoteError(RunnerError):
    """The remote host cannot be used (unreachable, key, binary, address): one line."""


CHECK_SCRIPT = r"""
cb=$1; addr=$2
if command -v "$cb" >/dev/null 2>&1 || [ -x "$cb" ]; then
  printf 'build\t%s\n' "$("$cb" --build-info 2>&1 | head -n 1)"
else
  printf 'build\t\n'
fi
printf 'online\t%s\n' "$(cat /sys/devices/system/cpu/online 2>/dev/null)"
printf 'iperf3\t%s\n' "$(iperf3 --version 2>/dev/null | head -n 1)"
printf 'sockperf\t%s\n' "$(sockperf --version 2>/dev/null | head -n 1)"
printf 'addrs\t%s\n' "$(ip -o addr show 2>/dev/null | awk '{split($4, a, "/"); printf "%s ", a[1]}')"
"""

def local_build_info(binary: Path) -> dict[str, Any] | None:
    r = ask([str(binary), "--build-info"], timeout=30)  # its process group ended after
    try:
        d = json.loads(r.stdout.strip().splitlines()[0])
        return d if isinstance(d, dict) else None
    except (json.JSONDecodeError, IndexError):
        return None


def source_addr(dest: str) -> str | None:
    """This host's source address towards ``dest`` (no packet is sent)."""
    fam = socket.AF_INET6 if ":" in dest else socket.AF_INET
    try:
        with socket.socket(fam, socket.SOCK_DGRAM) as s:
            s.connect((dest, 9))
            return str(s.getsockname()[0])
    except OSError:
        return None


_BUILD_KEYS = ("version", "source_sha", "flags_sha")


class RemoteHost:
    """An open remote host: its ssh connection, the checked copybench, the sweep's token."""

    def __init__(self, spec: RemoteSpec, binary: Path) -> None:
        self.spec = spec
        self.binary = binary
        self.ssh = Ssh(spec.host, spec.ssh_config)
        self.token = secrets.token_hex(16)
        self.data_addr = spec.data_addr or ""
        self.sender_addr = spec.sender_addr or ""
        self.cpus = spec.cpus
        self.build: dict[str, Any] | None = None
        self.local_build = local_build_info(binary)
        self.janitor: Janitor | None = None
        self._open = False

    # --- connecting and checking ---------------------------------------------------
    def open(self) -> "RemoteHost":
        """Connect, check the binary, the data address and the CPUs; RemoteError/UsageError
        (one line) otherwise. Nothing is created on the remote."""
        try:
            self._check()
        except BaseException:
            self.close()
            raise
        self._open = True
        return self

    def _check(self) -> None:
        where = f"remote {self.spec.host}"
        if not self.data_addr:
            self.data_addr = self._resolve_host()
        r = self.ssh.run([CHECK_SCRIPT], script=True, args=[self.spec.copybench,
                                                            self.data_addr], timeout=60)
        if r.returncode != 0:
            raise RemoteError(f"{where}: the check script failed (exit {r.returncode}): "
                              f"{(r.stderr.strip().splitlines() or ['no message'])[-1]}")
        kv = dict(ln.split("\t", 1) for ln in r.stdout.splitlines() if "\t" in ln)
        build_line = kv.get("build", "").strip()
        if not build_line:
            raise RemoteError(f"{where}: no copybench at {self.spec.copybench} (build it there "
                              "from this commit with make -C src, or give --remote-copybench "
                              "PATH)")
        try:
            self.build = json.loads(build_line)
            assert isinstance(self.build, dict)
        except (json.JSONDecodeError, AssertionError):
            raise RemoteError(f"{where}: {self.spec.copybench} --build-info printed "
                              f"{build_line[:80]!r}: not this version of copybench (build it "
                              "there from this commit with make -C src)") from None
        mine = self.local_build
        if mine is None:
            raise RemoteError(f"the local copybench {self.binary} does not report its build "
                              "(--build-info): rebuild it (make -C src)")
        diff = [k for k in _BUILD_KEYS if self.build.get(k) != mine.get(k)]
        if diff:
            raise RemoteError(
                f"{where}: {self.spec.copybench} is not the local build ("
                + ", ".join(f"{k} {self.build.get(k)} there, {mine.get(k)} here" for k in diff)
                + "): build it there from the same commit with make -C src")
        addrs = kv.get("addrs", "").split()
        if addrs and self.data_addr not in addrs:
            raise RemoteError(f"{where}: data address {self.data_addr} is not one of its "
                              f"addresses ({', '.join(addrs)}); give --remote-data-addr")
        online = kv.get("online", "").strip()
        have = set(cpulist(online)) if online else set()
        if self.cpus:
            missing = [c for c in cpulist(self.cpus) if have and c not in have]
            if missing:
                raise UsageError(f"--remote-cpus {self.cpus}: CPU {missing[0]} is not online on "
                                 f"{self.spec.host} (online: {online})")
        else:
            self.cpus = str(min(have)) if have else None
        if not self.sender_addr:
            src = source_addr(self.data_addr)
            if src is None:
                raise RemoteError(f"{where}: no route from here to the data address "
                                  f"{self.data_addr}")
            self.sender_addr = src

    def _resolve_host(self) -> str:
        """The data address by default: the address ssh connects to (``ssh -G``)."""
        try:
            g = subprocess.run(["ssh", *(["-F", self.spec.ssh_config]
                                         if self.spec.ssh_config else []),
                                "-G", self.spec.host], capture_output=True, text=True,
                               timeout=15, check=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise RemoteError(f"remote {self.spec.host}: ssh -G: {e}") from None
        name = next((ln.split(None, 1)[1] for ln in g.stdout.splitlines()
                     if ln.startswith("hostname ")), self.spec.host.rpartition("@")[2])
        try:
            return ip_address(name)
        except ValueError:
            pass
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError:
            raise RemoteError(f"remote {self.spec.host}: cannot resolve {name}; give "
                              "--remote-data-addr") from None
        infos.sort(key=lambda i: i[0] != socket.AF_INET)
        return str(infos[0][4][0])

    # --- what the run directory keeps --------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {"host": self.spec.host, "source": self.spec.source,
                "data_addr": self.data_addr, "sender_addr": self.sender_addr,
                "copybench": self.spec.copybench, "cpus": self.cpus,
                "ssh_config": self.spec.ssh_config,
                "build_remote": self.build, "build_local": self.local_build}

    def hosts(self) -> dict[str, Any]:
        """Both hosts' facts for the manifest (the same script here and there)."""
        out: dict[str, Any] = {"sender": local_facts(self.data_addr)}
        try:
            r = self.ssh.run([FACTS_SCRIPT], script=True, args=["own", self.data_addr],
                             timeout=60)
            out["sink"] = {"role": f"sink ({self.spec.host})", **parse_facts(r.stdout)}
        except (SshError, OSError) as e:
            out["sink"] = {"unavailable": str(e)}
        return out

    # --- trials ------------------------------------------------------------------------
    def attach(self, janitor: Janitor | None) -> None:
        """Tell the reaper how to end the ssh master and kill remote sinks if we die."""
        if janitor is not None and janitor is not self.janitor:
            self.janitor = janitor
            janitor.note(self.ssh.reaper_line())

    def placement(self, cpus: Cpus) -> Cpus:
        """Sender CPUs here as the placement says; the sink's are the remote CPUs."""
        return Cpus(cpus.sender, self.cpus if cpus.sink is not None else None)

    def sink_argv(self, cpus: Cpus, idle_s: float = SINK_IDLE_S) -> list[str]:
        """``idle_s``: how long the sink waits for its session (the sender may first write a
        large file, or start under perf): the trial's timeout, at least SINK_IDLE_S."""
        argv = [self.spec.copybench, "sink", "--bind", self.data_addr, "--port", "0",
                "--once", "--token-stdin", "--peer", self.sender_addr,
                "--idle-timeout", f"{max(float(idle_s), SINK_IDLE_S):g}"]
        if cpus.sink:
            argv += ["--cpus", cpus.sink]
        # the remote shell prints its pid (the sink's, after exec) for the reaper
        script = 'printf \'{"event":"pid","pid":%s}\\n\' "$$"; exec "$@"'
        return self.ssh.argv(["sh", "-c", script, "sh", *argv])

    # --- peers (iperf3, sockperf) -----------------------------------------------------
    def peer_port(self) -> int:
        """A port for a peer server there (they cannot pick their own and print it): random in
        20000-59999; one in use fails that trial with the server's message."""
        return 20000 + secrets.randbelow(40000)

    def peer_argv(self, server: list[str]) -> list[str]:
        """A peer server over ssh, under a wrapper that kills it when the session's stdin
        closes (sockperf serves forever; iperf3 -1 ends after its test). Peers have no token:
        for the trial's duration they serve whoever connects, like any iperf3 or sockperf."""
        # (an asynchronous command's stdin is /dev/null unless redirected: hence fd 3)
        script = ('printf \'{"event":"pid","pid":%s}\\n\' "$$"; exec 3<&0; "$@" </dev/null & '
                  'p=$!; (cat <&3 >/dev/null; kill -KILL $p 2>/dev/null) & wait $p')
        return self.ssh.argv(["sh", "-c", script, "sh", *server])

    def close(self) -> None:
        self.ssh.close()
        if self.janitor is not None:
            self.janitor.note("-" + self.ssh.reaper_line()[1:])
        self._open = False

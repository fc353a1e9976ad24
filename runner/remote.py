"""The ``remote`` transport: the sender runs here, the sink on another host reached over SSH.

The host is named outside the profile (profiles stay portable), on the command line
(``--remote user@host|alias``, ``--remote-data-addr``, ``--remote-copybench``,
``--remote-cpus``, ``--remote-ssh-config``, ``--remote-sender-addr``) or in a small TOML
inventory (``--inventory FILE``)::

    [remote]
    host = "user@host"            # or an alias of ~/.ssh/config (required)
    data_addr = "10.0.0.2"        # the address the sender sends to (default: the ssh host's)
    copybench = "/opt/cb/copybench"  # the remote program (default: copybench on its PATH)
    cpus = "1"                    # the sink's CPUs there (default: its first online CPU)
    ssh_config = "~/.ssh/config"  # passed as ssh -F (default: ssh's own lookup)
    sender_addr = "10.0.0.1"      # the only address the sink serves (default: this host's
                                  # source address towards data_addr)

Before anything is created the runner connects (one multiplexed ssh connection per sweep,
``runner.ssh``), checks that the remote copybench reports the same ``--build-info`` (version,
source hash, flags hash) as the local one, that the data address is the remote's and that the
CPUs exist there. Each trial starts ``copybench sink --once --token-stdin --bind DATA_ADDR
--port 0 --peer SENDER_ADDR --idle-timeout T`` over ssh: it listens only on the data address,
serves only the runner's sender (a per-sweep random token, sent on the sink's stdin and to the
sender in its environment, never on a command line), refuses and counts everything else, and
exits when its session ends, when stdin closes (the runner or its ssh went away), when no
session starts within the trial's timeout (at least 15 s), or when the sender's heartbeat
stops for 8 s.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import shlex
import socket
import subprocess
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from rundir import atomic, layout
from runner.errors import RunnerError, UsageError
from runner.placement import Cpus
from runner.proc import Janitor, _pdeathsig, kill_group, tail, wait_for_line
from runner.ssh import Ssh, SshError

SINK_READY_S = 20.0
SINK_IDLE_S = 15
_KEYS = {"host", "data_addr", "copybench", "cpus", "ssh_config", "sender_addr"}


class RemoteError(RunnerError):
    """The remote host cannot be used (unreachable, key, binary, address): one line."""


@dataclass(frozen=True)
class RemoteSpec:
    host: str
    data_addr: str | None = None
    copybench: str = "copybench"
    cpus: str | None = None
    ssh_config: str | None = None
    sender_addr: str | None = None
    source: str = "command line"


def _cpulist(v: str) -> list[int]:
    out: list[int] = []
    for part in v.split(","):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise ValueError
        lo, hi = int(a), int(b or a)
        if hi < lo:
            raise ValueError
        out.extend(range(lo, hi + 1))
    return out


def _ip(v: str) -> str:
    return str(ipaddress.ip_address(v))


def validate(d: dict[str, Any], where: str) -> RemoteSpec:
    """A spec from a dict of the inventory's/command line's keys; one-line UsageError."""
    def bad(key: str, msg: str) -> UsageError:
        return UsageError(f"{where}: {key}: {msg}")
    for k in d:
        if k not in _KEYS:
            raise bad(k, f"unknown key (allowed: {', '.join(sorted(_KEYS))})")
    for k, v in d.items():
        if v is not None and not isinstance(v, str):
            raise bad(k, f"must be a string, not {type(v).__name__}")
    host = d.get("host")
    if not host:
        raise bad("host", "required (user@host or an ssh alias)")
    if host.startswith("-") or any(c.isspace() for c in host):
        raise bad("host", f"{host!r} is not an ssh destination (user@host or an alias)")
    for k in ("data_addr", "sender_addr"):
        if d.get(k):
            try:
                _ip(d[k])
            except ValueError:
                raise bad(k, f"{d[k]!r} is not a numeric IPv4 or IPv6 address") from None
    if d.get("cpus"):
        try:
            _cpulist(d["cpus"])
        except ValueError:
            raise bad("cpus", f"{d['cpus']!r} is not a CPU list (e.g. 0, 1, 0-1, 2,3)") from None
    cb = d.get("copybench") or "copybench"
    if cb.startswith("-"):
        raise bad("copybench", f"{cb!r} is not a path")
    cfg = d.get("ssh_config")
    if cfg:
        cfg = os.path.expanduser(cfg)
        if not os.path.isfile(cfg):
            raise bad("ssh_config", f"{cfg}: no such file")
    return RemoteSpec(host=host, data_addr=_ip(d["data_addr"]) if d.get("data_addr") else None,
                      copybench=cb, cpus=d.get("cpus") or None, ssh_config=cfg or None,
                      sender_addr=_ip(d["sender_addr"]) if d.get("sender_addr") else None,
                      source=where)


def load_inventory(path: str) -> RemoteSpec:
    where = f"inventory {path}"
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"{where}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{where}: not TOML: {e}") from None
    extra = set(doc) - {"remote"}
    if extra:
        raise UsageError(f"{where}: {sorted(extra)[0]}: unknown table (allowed: [remote])")
    if not isinstance(doc.get("remote"), dict):
        raise UsageError(f"{where}: remote: a [remote] table is required")
    return validate(doc["remote"], where)


def from_args(inventory: str | None, host: str | None, data_addr: str | None,
              copybench: str | None, cpus: str | None, ssh_config: str | None,
              sender_addr: str | None) -> RemoteSpec | None:
    """The remote of the command line (options override the inventory's keys), or None."""
    opts = {"host": host, "data_addr": data_addr, "copybench": copybench, "cpus": cpus,
            "ssh_config": ssh_config, "sender_addr": sender_addr}
    given = {k: v for k, v in opts.items() if v is not None}
    if inventory is None and not given:
        return None
    if inventory is not None:
        base = asdict(load_inventory(inventory))
        src = base.pop("source")
        base.update(given)
        return validate(base, src if not given else f"{src} and the command line")
    if "host" not in given:
        raise UsageError(f"--remote-{sorted(given)[0].replace('_', '-')}: needs --remote "
                         "USER@HOST (or --inventory FILE)")
    return validate(given, "--remote")


# --- the profile over two hosts -------------------------------------------------------

def adapt_profile(profile: Any) -> tuple[Any, list[str]]:
    """The profile as run over two hosts: every socket experiment's transports become
    ``remote`` (loopback and veth are one-host topologies; udp-forward, a one-host trick to
    see real zero copy, is left out: over a real NIC the UDP data leaves the machine
    anyway, and the remote transport runs TCP); ``same-core`` placements become
    ``cross-core`` (sender and sink are never on one CPU across hosts); peers (iperf3,
    sockperf) run over remote too, their servers there. file->file ``copy`` experiments stay
    as they are (local)."""
    notes: list[str] = []
    exps = []
    for e in profile.experiments:
        if e.command != "send":
            exps.append(e)
            continue
        tcp = [t for t in e.transports if t in ("loopback", "veth", "remote")]
        if not tcp:
            notes.append(f"remote: experiment {e.name}: transports {', '.join(e.transports)} "
                         "are one-host topologies: not run over remote")
            continue
        pl = tuple(dict.fromkeys("cross-core" if p == "same-core" else p
                                 for p in e.placements))
        if pl != tuple(e.placements):
            notes.append(f"remote: experiment {e.name}: same-core is cross-core across hosts")
        if e.originals:
            notes.append(f"remote: experiment {e.name}: the reports' own programs "
                         f"({', '.join(e.originals)}) run on one host (their fixed port and "
                         "addresses): left out over remote")
            e = replace(e, originals=(), originals_rounds=0)
        exps.append(replace(e, transports=("remote",), placements=pl))
    return replace(profile, experiments=tuple(exps)), notes


# --- the remote host -------------------------------------------------------------------

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

# Facts about one host and its data interface; run here (``sh -c``) and there (over ssh).
# mode "own": the interface that holds ADDR; mode "route": the one the route to ADDR leaves by.
FACTS_SCRIPT = r"""
mode=$1; addr=$2
kv() { printf '%s\t%s\n' "$1" "$2"; }
block() { printf '@@%s\n' "$1"; cat; printf '@@end\n'; }
kv kernel_release "$(uname -r)"
kv kernel_version "$(uname -v)"
kv machine "$(uname -m)"
kv hostname "$(uname -n)"
kv distribution "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
kv cpu_model "$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//')"
kv cpu_count "$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)"
kv cpu_online "$(cat /sys/devices/system/cpu/online 2>/dev/null)"
kv governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
kv mem_total_kb "$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)"
kv virt "$(systemd-detect-virt 2>/dev/null)"
kv iperf3 "$(iperf3 --version 2>/dev/null | head -n 1)"
kv sockperf "$(sockperf --version 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | head -n 1)"
for s in net.core.optmem_max net.core.rmem_max net.core.wmem_max net.core.rmem_default \
         net.core.wmem_default net.ipv4.tcp_rmem net.ipv4.tcp_wmem \
         net.ipv4.tcp_congestion_control kernel.perf_event_paranoid; do
  kv "sysctl:$s" "$(cat /proc/sys/$(echo $s | tr . /) 2>/dev/null | tr -s '\t ' ' ')"
done
if [ "$mode" = own ]; then
  dev=$(ip -o addr show 2>/dev/null | awk -v a="$addr" '{split($4, p, "/"); if (p[1] == a) {print $2; exit}}')
else
  dev=$(ip -o route get "$addr" 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p')
fi
kv interface "$dev"
if [ -n "$dev" ]; then
  kv mtu "$(cat /sys/class/net/$dev/mtu 2>/dev/null)"
  kv speed "$(cat /sys/class/net/$dev/speed 2>&1)"
  kv link_kind "$(ip -d -o link show dev "$dev" 2>/dev/null | grep -o -w -E 'veth|vlan|bond|bridge|macvlan|ipvlan|vxlan|tun|dummy' | head -n 1)"
  [ -e /sys/class/net/$dev/device ] && kv device "$(readlink -f /sys/class/net/$dev/device)"
  if command -v ethtool >/dev/null 2>&1 || [ -x /usr/sbin/ethtool ] || [ -x /sbin/ethtool ]; then
    et=$(command -v ethtool || echo /usr/sbin/ethtool)
    "$et" -i "$dev" 2>&1 | block ethtool_i
    "$et" -k "$dev" 2>&1 | block ethtool_k
  else
    kv ethtool_missing "ethtool not installed"
  fi
  if [ -d /sys/class/net/$dev/device/msi_irqs ]; then
    for irq in $(ls /sys/class/net/$dev/device/msi_irqs); do
      printf '%s %s %s\n' "$irq" "$(cat /proc/irq/$irq/smp_affinity_list 2>/dev/null)" \
        "$(awk -v i="$irq:" '$1 == i {print $NF}' /proc/interrupts)"
    done | block irqs
  fi
fi
"""


def parse_facts(text: str) -> dict[str, Any]:
    kv: dict[str, str] = {}
    blocks: dict[str, list[str]] = {}
    cur: str | None = None
    for line in text.splitlines():
        if line.startswith("@@"):
            name = line[2:]
            cur = None if name == "end" else name
            if cur:
                blocks[cur] = []
            continue
        if cur:
            blocks[cur].append(line)
            continue
        k, _, v = line.partition("\t")
        kv[k] = v.strip()
    return _facts(kv, blocks)


def _int(v: str | None) -> int | None:
    try:
        return int(v) if v not in (None, "") else None
    except ValueError:
        return None


def _facts(kv: dict[str, str], blocks: dict[str, list[str]]) -> dict[str, Any]:
    dev = kv.get("interface") or None
    nic: dict[str, Any] = {"interface": dev}
    if dev is None:
        nic["unavailable"] = "no interface found for the data address"
    else:
        nic["mtu"] = _int(kv.get("mtu"))
        speed = _int(kv.get("speed"))
        nic["speed_mbit_s"] = speed if speed is not None and speed >= 0 else None
        if nic["speed_mbit_s"] is None:
            nic["speed_unavailable"] = (f"/sys/class/net/{dev}/speed: "
                                        f"{kv.get('speed') or 'empty'}"
                                        + (" (a virtual link has no speed)"
                                           if kv.get("link_kind") else ""))
        nic["link_kind"] = kv.get("link_kind") or None
        nic["device"] = kv.get("device") or None
        if "ethtool_missing" in kv:
            nic["driver"] = nic["offloads"] = None
            nic["ethtool_unavailable"] = kv["ethtool_missing"]
        else:
            info = {}
            for ln in blocks.get("ethtool_i", []):
                k, _, v = ln.partition(":")
                if v:
                    info[k.strip()] = v.strip()
            nic["driver"] = info or None
            if not info:
                nic["driver_unavailable"] = " ".join(blocks.get("ethtool_i", [])) or "no output"
            offl = {}
            for ln in blocks.get("ethtool_k", []):
                k, _, v = ln.partition(":")
                if v and not ln.startswith("Features for"):
                    offl[k.strip()] = v.strip()
            nic["offloads"] = offl or None
        irqs = [ln.split(None, 2) for ln in blocks.get("irqs", [])]
        if irqs:
            nic["irqs"] = [{"irq": int(p[0]), "affinity": p[1] if len(p) > 1 else None,
                            "name": p[2] if len(p) > 2 else None} for p in irqs]
        else:
            nic["irqs"] = None
            nic["irqs_unavailable"] = (
                "no PCI MSI interrupts: a virtual link (" + kv["link_kind"] + ")"
                if kv.get("link_kind") else
                f"/sys/class/net/{dev}/device/msi_irqs not readable (no PCI device or no MSI)")
    return {
        "hostname": kv.get("hostname") or None,
        "kernel": {"release": kv.get("kernel_release") or None,
                   "version": kv.get("kernel_version") or None,
                   "machine": kv.get("machine") or None},
        "distribution": kv.get("distribution") or None,
        "cpu": {"model": kv.get("cpu_model") or None, "count": _int(kv.get("cpu_count")),
                "online": kv.get("cpu_online") or None,
                "governor": kv.get("governor") or None},
        "memory_bytes": (_int(kv.get("mem_total_kb")) or 0) * 1024 or None,
        "virtualization": kv.get("virt") or None,
        "tools": {"iperf3": kv.get("iperf3") or None, "sockperf": kv.get("sockperf") or None},
        "sysctls": {k.split(":", 1)[1]: (v or None) for k, v in kv.items()
                    if k.startswith("sysctl:")},
        "nic": nic,
    }


def local_build_info(binary: Path) -> dict[str, Any] | None:
    try:
        r = subprocess.run([str(binary), "--build-info"], capture_output=True, text=True,
                           timeout=30, check=False)
        d = json.loads(r.stdout.strip().splitlines()[0])
        return d if isinstance(d, dict) else None
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
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


class Remote:
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
    def open(self) -> "Remote":
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
        have = set(_cpulist(online)) if online else set()
        if self.cpus:
            missing = [c for c in _cpulist(self.cpus) if have and c not in have]
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
            return _ip(name)
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

    def spec_json(self) -> dict[str, Any]:
        d = asdict(self.spec)
        d.pop("source")
        return d

    def hosts(self) -> dict[str, Any]:
        """Both hosts' facts for the manifest (the same script here and there)."""
        out: dict[str, Any] = {}
        try:
            r = subprocess.run(["sh", "-c", FACTS_SCRIPT, "sh", "route", self.data_addr],
                               capture_output=True, text=True, timeout=60, check=False)
            out["sender"] = {"role": "sender (this host)", **parse_facts(r.stdout)}
        except (OSError, subprocess.TimeoutExpired) as e:
            out["sender"] = {"unavailable": str(e)}
        try:
            r2 = self.ssh.run([FACTS_SCRIPT], script=True, args=["own", self.data_addr],
                              timeout=60)
            out["sink"] = {"role": f"sink ({self.spec.host})", **parse_facts(r2.stdout)}
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

    def run_peer_pair(self, sink: list[str], ready: Any, sender: list[str],
                      timeout: float) -> Any:
        return self._pair(sink, ready, sender, timeout, copybench=False)

    def run_pair(self, sink: list[str], sender: list[str], timeout: float) -> Any:
        return self._pair(sink, _ready, sender, timeout, copybench=True)

    def _pair(self, sink: list[str], ready: Any, sender: list[str], timeout: float,
              copybench: bool) -> Any:
        """Start the server there, wait for ``ready``, run the sender here. For copybench the
        sink's port comes from its ready line and the token goes to both."""
        from runner.execute import PairResult
        t0 = time.monotonic()
        janitor = self.janitor
        events: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory(prefix="copybench-remote-") as tmp:
            d = Path(tmp)
            s_out, s_err = d / "sink.out", d / "sink.err"
            send_out, send_err = d / "send.out", d / "send.err"
            rpid: int | None = None
            port: int | None = None
            sink_p = None

            def result(status: str, stdout: str, rc: int | None, sink_rc: int | None,
                       problem: str | None, stderr: str = "") -> PairResult:
                events[:] = _events(s_out)
                pr = PairResult(status, stdout, rc, sink_rc, tail(send_err),
                                tail(s_err), problem, time.monotonic() - t0, stderr)
                refused = [e for e in events if e.get("event") == "refused"]
                ex = next((e for e in events if e.get("event") == "exit"), None)
                seen = sorted({e.get("peer") for e in refused
                               if e.get("reason") == "unexpected peer address"})
                if rc not in (0, None) and problem is None and seen:
                    # the sender itself may have been refused: its address seen there is not
                    # the one the sink was told to serve (NAT, another route)
                    problem = (f"the remote sink refused connections from {', '.join(seen)} "
                               f"(it serves only {self.sender_addr}); if that is this host, "
                               "give --remote-sender-addr with the address the remote sees")
                    pr.problem = problem
                pr.remote = {"host": self.spec.host, "data_addr": self.data_addr,
                             "sink_port": port, "sink_pid": rpid, "sink_cpus": cpus_of(sink)}
                if copybench:
                    pr.remote.update({"refused": len(refused),
                                      "refused_connections": refused[:20], "sink_exit": ex})
                return pr

            try:
                with open(s_out, "wb") as so, open(s_err, "wb") as se:
                    try:
                        sink_p = subprocess.Popen(sink, stdin=subprocess.PIPE, stdout=so,
                                                  stderr=se, start_new_session=True,
                                                  preexec_fn=_pdeathsig)
                    except OSError as e:
                        return result("failed", "", None, None, f"cannot start ssh: {e}")
                if janitor:
                    janitor.note(f"+pg {sink_p.pid}")
                assert sink_p.stdin is not None
                try:
                    sink_p.stdin.write((self.token + "\n").encode())
                    sink_p.stdin.flush()
                except BrokenPipeError:
                    pass
                line, why = wait_for_line(s_out, sink_p, ready, min(SINK_READY_S, timeout))
                pid_ev = next((e for e in _events(s_out) if e.get("event") == "pid"), None)
                if pid_ev:
                    rpid = int(pid_ev["pid"])
                    if janitor:
                        janitor.note(f"+rsink {rpid}")
                if line is None:
                    rc0 = self._kill(sink_p)
                    sink_p = None
                    err = tail(s_err)
                    problem = (f"remote sink {why}"
                               + (f": {err.splitlines()[-1]}" if err else ""))
                    if rc0 == 255 and err:
                        from runner.ssh import classify
                        problem = "remote sink: " + classify(self.spec.host, err)
                    return result("failed", "", None, rc0, problem)
                if copybench:
                    port = int(json.loads(line)["port"])
                    argv = _with_port(sender, port)
                    env = dict(os.environ, COPYBENCH_TOKEN=self.token)
                else:
                    argv, env = list(sender), None
                remaining = max(1.0, timeout - (time.monotonic() - t0))
                with open(send_out, "wb") as so, open(send_err, "wb") as se:
                    try:
                        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=so,
                                             stderr=se, start_new_session=True,
                                             preexec_fn=_pdeathsig, env=env)
                    except OSError as e:
                        return result("failed", "", None, None,
                                      f"cannot start the sender ({argv[0]}): {e}")
                if janitor:
                    janitor.note(f"+pg {p.pid}")
                status, problem = "ok", None
                try:
                    rc = p.wait(timeout=remaining)
                except subprocess.TimeoutExpired:
                    kill_group(p.pid)
                    rc = p.wait()
                    status, problem = "timeout", f"timed out after {timeout:g} s (killed)"
                finally:
                    kill_group(p.pid)
                    if janitor:
                        janitor.note(f"-pg {p.pid}")
                # the sink ends by itself after its one session (--once)
                # (a sender that failed may never have reached it: no need to wait then; a
                # peer server is ended by closing its stdin: iperf3 -1 has ended, sockperf not)
                sink_rc = self._finish(sink_p, grace=5.0 if copybench and status == "ok"
                                       and rc == 0 else 0.0)
                sink_p = None
                if rpid and janitor:
                    janitor.note(f"-rsink {rpid}")
                if status == "ok" and copybench:
                    ex = next((e for e in _events(s_out) if e.get("event") == "exit"), None)
                    if ex is None:
                        problem = ("the remote sink did not end its session normally (it "
                                   f"was killed or failed; ssh exit status {sink_rc})")
                return result(status, send_out.read_text(errors="replace"), rc, sink_rc,
                              problem, send_err.read_text(errors="replace")[-200000:])
            finally:
                if sink_p is not None:
                    self._kill(sink_p)

    def _finish(self, p: subprocess.Popen[bytes], grace: float) -> int | None:
        try:
            return p.wait(timeout=grace) if grace > 0 else self._kill(p)
        except subprocess.TimeoutExpired:
            return self._kill(p)
        finally:
            self._close_stdin(p)
            if self.janitor:
                self.janitor.note(f"-pg {p.pid}")

    @staticmethod
    def _close_stdin(p: subprocess.Popen[bytes]) -> None:
        try:
            if p.stdin:
                p.stdin.close()
        except OSError:
            pass

    def _kill(self, p: subprocess.Popen[bytes]) -> int:
        """Close the sink's stdin (its lifeline: it exits), then end the ssh client."""
        self._close_stdin(p)
        try:
            return p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            kill_group(p.pid)
            return p.wait()

    def remote_processes(self) -> list[str]:
        """Processes of the remote copybench still running there (for checks and tests)."""
        r = self.ssh.run(["sh", "-c", 'for p in /proc/[0-9]*; do c=$(tr "\\0" " " '
                          '< $p/cmdline 2>/dev/null); case "$c" in "$1 "*) echo "${p#/proc/} '
                          '$c";; esac; done', "sh", self.spec.copybench], timeout=30)
        return [ln for ln in r.stdout.splitlines() if ln.strip()]

    def close(self) -> None:
        self.ssh.close()
        if self.janitor is not None:
            self.janitor.note("-" + self.ssh.reaper_line()[1:])
        self._open = False


def cpus_of(argv: Sequence[str]) -> str | None:
    """The CPUs of the remote server command (the last element is the sh -c line): copybench's
    --cpus, iperf3's -A, taskset -c."""
    toks = shlex.split(argv[-1]) if argv else []
    if toks[:2] == ["sh", "-c"]:
        toks = toks[4:]  # sh -c SCRIPT sh ARGV...
    for opt in ("--cpus", "-A", "-c"):
        if opt in toks and toks.index(opt) + 1 < len(toks):
            return toks[toks.index(opt) + 1]
    return None


def _ready(line: str) -> bool:
    try:
        ev = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(ev, dict) and ev.get("event") == "ready" and "port" in ev


def _events(path: Path) -> list[dict[str, Any]]:
    out = []
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(ev, dict):
            out.append(ev)
    return out


def _with_port(argv: list[str], port: int) -> list[str]:
    out = list(argv)
    i = len(out) - 1 - out[::-1].index("--port")
    out[i + 1] = str(port)
    return out


# --- the run directory -----------------------------------------------------------------

def save(run_dir: Path, remote: Remote) -> None:
    atomic.write_text(run_dir / layout.REMOTE, json.dumps(
        {"spec": remote.spec_json(), **remote.describe()}, indent=1) + "\n")


def saved_spec(run_dir: Path) -> RemoteSpec | None:
    p = run_dir / layout.REMOTE
    if not p.is_file():
        return None
    d = json.loads(p.read_text(encoding="utf-8"))["spec"]
    return validate({k: v for k, v in d.items() if v is not None}, str(p))


# --- command line ----------------------------------------------------------------------

def add_options(p: Any, plan_only: bool = False) -> None:
    """The ``--remote*`` and ``--inventory`` options of ``sweep`` (and ``plan``, where only
    the adaptation of the profile matters: nothing connects)."""
    g = p.add_argument_group("two hosts (the remote transport)")
    g.add_argument("--remote", metavar="USER@HOST", help="run the sink on this host over "
                   "ssh (an alias of ~/.ssh/config works); socket experiments run over it")
    g.add_argument("--inventory", metavar="FILE", help="TOML with a [remote] table (host, "
                   "data_addr, copybench, cpus, ssh_config, sender_addr)")
    if plan_only:
        return
    g.add_argument("--remote-data-addr", metavar="ADDR",
                   help="the remote address the sender sends to (default: the ssh host's)")
    g.add_argument("--remote-copybench", metavar="PATH",
                   help="copybench on the remote host (default: copybench on its PATH)")
    g.add_argument("--remote-cpus", metavar="LIST",
                   help="the sink's CPUs on the remote host (default: its first online CPU)")
    g.add_argument("--remote-ssh-config", metavar="FILE", help="ssh -F FILE")
    g.add_argument("--remote-sender-addr", metavar="ADDR", help="the only address the "
                   "remote sink serves (default: this host's source address to the data "
                   "address)")


def spec_to_json(spec: RemoteSpec) -> dict[str, Any]:
    """The spec's keys (as the inventory has them), for the sweep notebook's parameter."""
    d = asdict(spec)
    d.pop("source")
    return {k: v for k, v in d.items() if v is not None}


def spec_from_json(text: str) -> RemoteSpec | None:
    """The sweep notebook's ``remote`` parameter (JSON, empty for one host) -> a spec."""
    if not text:
        return None
    d = json.loads(text)
    return validate(d, "--remote") if d else None


def from_namespace(args: Any) -> RemoteSpec | None:
    return from_args(getattr(args, "inventory", None), getattr(args, "remote", None),
                     getattr(args, "remote_data_addr", None),
                     getattr(args, "remote_copybench", None),
                     getattr(args, "remote_cpus", None),
                     getattr(args, "remote_ssh_config", None),
                     getattr(args, "remote_sender_addr", None))

"""Facts about a host and its data interface, for the manifest of a two-host run: kernel,
distribution, CPU, memory, sysctls, and of the interface the data goes over the MTU, link
speed, ``ethtool -i``/``-k`` and the IRQ affinity of its MSI queues (``null`` with the reason
where a value cannot be read). One POSIX sh script collects them, run here (``sh -c``) and
on the remote host (over ssh, :mod:`runner.host.remotehost`); :func:`parse_facts` reads its output.
"""

from __future__ import annotations

from typing import Any

from runner.host.proc import ask

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


def local_facts(data_addr: str) -> dict[str, Any]:
    """This host's facts, its data interface being the one the route to ``data_addr`` leaves
    by."""
    r = ask(["sh", "-c", FACTS_SCRIPT, "sh", "route", data_addr], timeout=60)
    if r.problem is not None:  # a tool it asks hung: its process group is ended
        return {"unavailable": r.problem}
    return {"role": "sender (this host)", **parse_facts(r.stdout)}

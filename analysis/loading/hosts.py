"""The two hosts of a run over the ``remote`` transport, from its manifest.

A two-host run's ``manifest.json`` has ``remote.hosts.sender`` (this host) and
``remote.hosts.sink`` (the other), both collected by the same probe (runner/host/hostfacts.py); a
one-host run has no ``remote``. :func:`hosts_table` sets the facts of both side by side (for
the testbed page and ``make compare``); a value the probe could not read is shown with its
reason, never as a guess.
"""

from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

#: (label, path inside one host's facts)
HOST_FACTS: tuple[tuple[str, Sequence[str]], ...] = (
    ("host name", ("hostname",)),
    ("kernel", ("kernel", "release")),
    ("distribution", ("distribution",)),
    ("CPU model", ("cpu", "model")),
    ("CPUs", ("cpu", "count")),
    ("memory (bytes)", ("memory_bytes",)),
    ("virtualisation", ("virtualization",)),
    ("data interface", ("nic", "interface")),
    ("NIC driver", ("nic", "driver", "driver")),
    ("NIC firmware", ("nic", "driver", "firmware-version")),
    ("MTU", ("nic", "mtu")),
    ("link speed (Mbit/s)", ("nic", "speed_mbit_s")),
    ("TSO", ("nic", "offloads", "tcp-segmentation-offload")),
    ("GRO", ("nic", "offloads", "generic-receive-offload")),
    ("NIC IRQs (affinity)", ("nic", "irqs")),
    ("TCP congestion control", ("sysctls", "net.ipv4.tcp_congestion_control")),
    ("optmem_max", ("sysctls", "net.core.optmem_max")),
    ("iperf3", ("tools", "iperf3")),
)
_WHY = {("nic", "speed_mbit_s"): ("nic", "speed_unavailable"),
        ("nic", "irqs"): ("nic", "irqs_unavailable"),
        ("nic", "driver", "driver"): ("nic", "ethtool_unavailable")}


def dig(d: Any, path: Sequence[str]) -> Any:
    """The value at a key path in nested dicts, or None where the path breaks."""
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def is_two_host(manifest: dict[str, Any] | None) -> bool:
    return isinstance(dig(manifest, ("remote", "hosts")), dict)


def host_value(host: dict[str, Any] | None, path: Sequence[str]) -> Any:
    """One fact of one host; ``None`` when absent."""
    v = dig(host, path)
    if path == ("nic", "irqs") and isinstance(v, list):
        return ", ".join(f"{q.get('irq')}→{q.get('affinity')}" for q in v) or None
    return v


def _show(host: dict[str, Any] | None, path: Sequence[str]) -> str:
    v = host_value(host, path)
    if v is None or v == "":
        why = dig(host, _WHY.get(tuple(path), ()))
        return f"— ({why})" if isinstance(why, str) and why else "—"
    return str(v)


def hosts_table(manifest: dict[str, Any] | None) -> pd.DataFrame | None:
    """Facts of both hosts (columns ``sender``, ``sink``), or None for a one-host run."""
    if not is_two_host(manifest):
        return None
    assert manifest is not None
    hosts = manifest["remote"]["hosts"]
    rows = [{"fact": "role", "sender": "sender (runs the runner)",
             "sink": f"sink ({manifest['remote'].get('host')}, data address "
                     f"{manifest['remote'].get('data_addr')})"}]
    for label, path in HOST_FACTS:
        rows.append({"fact": label, "sender": _show(hosts.get("sender"), path),
                     "sink": _show(hosts.get("sink"), path)})
    return pd.DataFrame(rows)


def sink_facts(manifest: dict[str, Any] | None) -> dict[str, Any]:
    """The sink host's facts by label (for comparing two runs); empty for a one-host run."""
    if not is_two_host(manifest):
        return {}
    assert manifest is not None
    sink = manifest["remote"]["hosts"].get("sink")
    out: dict[str, Any] = {"sink host": manifest["remote"].get("host")}
    for label, path in HOST_FACTS:
        out[f"sink {label}"] = host_value(sink, path)
    sender = manifest["remote"]["hosts"].get("sender")
    for label, path in HOST_FACTS:
        if path[0] == "nic":
            out[f"sender {label}"] = host_value(sender, path)
    return out

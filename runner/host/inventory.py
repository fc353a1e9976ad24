"""The remote host of a two-host run, as the user names it: on the command line (``--remote
user@host|alias``, ``--remote-data-addr``, ``--remote-copybench``, ``--remote-cpus``,
``--remote-ssh-config``, ``--remote-sender-addr``) or in a small TOML inventory
(``--inventory FILE``)::

    [remote]
    host = "user@host"            # or an alias of ~/.ssh/config (required)
    data_addr = "10.0.0.2"        # the address the sender sends to (default: the ssh host's)
    copybench = "/opt/cb/copybench"  # the remote program (default: copybench on its PATH)
    cpus = "1"                    # the sink's CPUs there (default: its first online CPU)
    ssh_config = "~/.ssh/config"  # passed as ssh -F (default: ssh's own lookup)
    sender_addr = "10.0.0.1"      # the only address the sink serves (default: this host's
                                  # source address towards data_addr)

The host is named outside the profile (profiles stay portable). Every key is checked here
(one-line :class:`~runner.host.errors.UsageError`); the run directory keeps the spec in
``remote.json`` so that ``--resume`` reconnects by itself.
"""

from __future__ import annotations

import ipaddress
import json
import os
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rundir import atomic, layout
from rundir import utf8
from runner.host.errors import UsageError

_KEYS = {"host", "data_addr", "copybench", "cpus", "ssh_config", "sender_addr"}

@dataclass(frozen=True)
class RemoteSpec:
    host: str
    data_addr: str | None = None
    copybench: str = "copybench"
    cpus: str | None = None
    ssh_config: str | None = None
    sender_addr: str | None = None
    source: str = "command line"


def cpulist(v: str) -> list[int]:
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


def ip_address(v: str) -> str:
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
                ip_address(d[k])
            except ValueError:
                raise bad(k, f"{d[k]!r} is not a numeric IPv4 or IPv6 address") from None
    if d.get("cpus"):
        try:
            cpulist(d["cpus"])
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
    return RemoteSpec(host=host, data_addr=ip_address(d["data_addr"]) if d.get("data_addr") else None,
                      copybench=cb, cpus=d.get("cpus") or None, ssh_config=cfg or None,
                      sender_addr=ip_address(d["sender_addr"]) if d.get("sender_addr") else None,
                      source=where)


def load_inventory(path: str) -> RemoteSpec:
    where = f"inventory {path}"
    try:
        doc = utf8.toml_loads(utf8.read(Path(path), "inventory"))
    except utf8.NotUtf8 as e:
        raise UsageError(f"{where}: {e}") from None
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



def spec_to_json(spec: RemoteSpec) -> dict[str, Any]:
    """The spec's keys (as the inventory has them), without the unset ones: the sweep
    notebook's ``remote`` parameter."""
    d = asdict(spec)
    d.pop("source")
    return {k: v for k, v in d.items() if v is not None}


def spec_from_json(text: str) -> RemoteSpec | None:
    """The sweep notebook's ``remote`` parameter (JSON, empty for one host) -> a spec."""
    if not text:
        return None
    d = json.loads(text)
    return validate(d, "--remote") if d else None


# --- the run directory: remote.json ---------------------------------------------------------

def save(run_dir: Path, spec: RemoteSpec, described: dict[str, Any]) -> None:
    """``remote.json``: the spec (every key, unset ones null) and what the connection found."""
    d = asdict(spec)
    d.pop("source")
    atomic.write_text(run_dir / layout.REMOTE, json.dumps({"spec": d, **described}, indent=1)
                      + "\n")


def saved_spec(run_dir: Path) -> RemoteSpec | None:
    p = run_dir / layout.REMOTE
    if not p.is_file():
        return None
    try:
        d = json.loads(utf8.read(p))["spec"]
        items = {k: v for k, v in d.items() if v is not None}
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError(f"--resume: {p}: not the remote host this run was made with "
                         f"({e}); nothing was run or written") from None
    return validate(items, str(p))

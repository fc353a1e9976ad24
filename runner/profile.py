"""Sweep profiles: TOML files validated into typed dataclasses before anything runs.

A profile has three tables and a list of experiments::

    [profile]      name, description, seed, duration_s, warmup_s, verify, timeout_s,
                   budget_s, fields, dir
    [repetitions]  min, max, target_rel_ci, confidence, resamples
    [topology]     veth_mtu, udp_mtu
    [[experiment]] name, command, methods, sizes, threads, placements, transports, modes,
                   caches, peers, perf, and per-experiment overrides of duration_s,
                   warmup_s, timeout_s, verify, fields, dir

The full design is the union of each experiment's factorial (see ``runner.plan``). Any
unknown key, wrong type, value outside its allowed set or empty factor list raises
``ProfileError`` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.errors import ProfileError

PROFILE_DIR = Path(__file__).parent / "profiles"

MESSAGE_METHODS = ("send", "sendmsg", "zerocopy", "uring-zc", "vmsplice")
FILE_SEND_METHODS = ("read-write", "mmap-write", "sendfile", "splice", "splice2")
COPY_METHODS = ("read-write", "sendfile", "splice", "splice2", "copy_file_range")
UDP_METHODS = ("send", "sendmsg", "zerocopy", "uring-zc")
COMMANDS = ("send", "copy")
TRANSPORTS = ("loopback", "veth", "udp-forward")
PLACEMENTS = ("same-core", "cross-core", "unpinned")
MODES = ("stream", "pingpong")
CACHES = ("warm", "cold")
VERIFY = ("full", "sample", "off")

MIN_SIZE = 1
MAX_SIZE = 1 << 30
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([KMG]?)(?:i?B)?\s*$", re.IGNORECASE)


def parse_size(value: object) -> int:
    """``64``, ``"4K"``, ``"1M"``, ``"1GiB"`` -> bytes (binary suffixes, as copybench)."""
    if isinstance(value, bool):
        raise ValueError("not a size")
    if isinstance(value, int):
        n = value
    elif isinstance(value, str):
        m = _SIZE_RE.match(value)
        if not m:
            raise ValueError("not a size")
        n = int(m.group(1)) * _SUFFIX[m.group(2).upper()]
    else:
        raise ValueError("not a size")
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise ValueError("out of range")
    return n


def format_size(n: int) -> str:
    """Bytes -> the shortest exact binary-suffix form (``65536`` -> ``64K``)."""
    for suffix, mult in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n % mult == 0:
            return f"{n // mult}{suffix}"
    return str(n)


@dataclass(frozen=True)
class Repetitions:
    min: int
    max: int
    target_rel_ci: float
    confidence: float
    resamples: int


@dataclass(frozen=True)
class Topology:
    veth_mtu: int
    udp_mtu: int


@dataclass(frozen=True)
class Experiment:
    name: str
    command: str
    methods: tuple[str, ...]
    sizes: tuple[int, ...]
    threads: tuple[int, ...]
    placements: tuple[str, ...]
    transports: tuple[str, ...]
    modes: tuple[str, ...]
    caches: tuple[str, ...]
    peers: bool
    perf: bool
    duration_s: float
    warmup_s: float
    timeout_s: float | None
    verify: str
    fields: int
    dir: str | None


@dataclass(frozen=True)
class Profile:
    path: str
    name: str
    description: str
    seed: int
    budget_s: float | None
    repetitions: Repetitions
    topology: Topology
    experiments: tuple[Experiment, ...]
    text: str


# key -> (type description, validator); validators raise ValueError(message)
_PROFILE_KEYS = {
    "name", "description", "seed", "duration_s", "warmup_s", "verify", "timeout_s",
    "budget_s", "fields", "dir",
}
_REP_KEYS = {"min", "max", "target_rel_ci", "confidence", "resamples"}
_TOPO_KEYS = {"veth_mtu", "udp_mtu"}
_EXP_KEYS = {
    "name", "command", "methods", "sizes", "threads", "placements", "transports", "modes",
    "caches", "peers", "perf", "duration_s", "warmup_s", "timeout_s", "verify", "fields",
    "dir",
}
_TOP_KEYS = {"profile", "repetitions", "topology", "experiment"}


class _Checker:
    """Small typed accessors that raise ProfileError naming file and key."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> ProfileError:
        return ProfileError(self.path, key, message)

    def unknown(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        for k in table:
            if k not in allowed:
                key = f"{where}.{k}" if where else k
                raise self.fail(key, f"unknown key (allowed: {', '.join(sorted(allowed))})")

    def number(self, table: dict[str, Any], key: str, where: str, default: float | None,
               lo: float, hi: float, integer: bool = False) -> Any:
        full = f"{where}.{key}"
        if key not in table:
            if default is None:
                raise self.fail(full, "missing (required)")
            return default
        v = table[key]
        kind = "an integer" if integer else "a number"
        ok = isinstance(v, int) if integer else isinstance(v, (int, float))
        if isinstance(v, bool) or not ok:
            raise self.fail(full, f"{v!r} is not {kind} (allowed: {lo} to {hi})")
        if not lo <= v <= hi:
            raise self.fail(full, f"{v!r} out of range (allowed: {lo} to {hi})")
        return int(v) if integer else float(v)

    def string(self, table: dict[str, Any], key: str, where: str, default: str | None,
               choices: tuple[str, ...] | None = None) -> Any:
        full = f"{where}.{key}"
        if key not in table:
            return default
        v = table[key]
        if not isinstance(v, str) or not v.strip():
            allowed = f" (allowed: {', '.join(choices)})" if choices else ""
            raise self.fail(full, f"{v!r} is not a non-empty string{allowed}")
        if choices is not None and v not in choices:
            raise self.fail(full, f"unknown value {v!r} (allowed: {', '.join(choices)})")
        return v

    def boolean(self, table: dict[str, Any], key: str, where: str, default: bool) -> bool:
        if key not in table:
            return default
        v = table[key]
        if not isinstance(v, bool):
            raise self.fail(f"{where}.{key}", f"{v!r} is not a boolean (allowed: true, false)")
        return v

    def choices(self, table: dict[str, Any], key: str, where: str,
                allowed: tuple[str, ...], default: tuple[str, ...] | None) -> tuple[str, ...]:
        full = f"{where}.{key}"
        if key not in table:
            if default is None:
                raise self.fail(full, f"missing (required; allowed: {', '.join(allowed)})")
            return default
        v = table[key]
        if not isinstance(v, list):
            raise self.fail(full, f"must be a list (allowed values: {', '.join(allowed)})")
        if not v:
            raise self.fail(full, f"empty factor (give at least one of: {', '.join(allowed)})")
        for item in v:
            if item not in allowed:
                raise self.fail(full, f"unknown value {item!r} (allowed: {', '.join(allowed)})")
        if len(set(v)) != len(v):
            raise self.fail(full, "duplicate values")
        return tuple(v)

    def sizes(self, table: dict[str, Any], key: str, where: str) -> tuple[int, ...]:
        full = f"{where}.{key}"
        allowed = "byte counts or strings like \"64\", \"4K\", \"1M\" from 1 B to 1G"
        if key not in table:
            raise self.fail(full, f"missing (required; {allowed})")
        v = table[key]
        if not isinstance(v, list):
            raise self.fail(full, f"must be a list ({allowed})")
        if not v:
            raise self.fail(full, f"empty factor ({allowed})")
        out = []
        for item in v:
            try:
                out.append(parse_size(item))
            except ValueError:
                raise self.fail(full, f"bad size {item!r} ({allowed})") from None
        if len(set(out)) != len(out):
            raise self.fail(full, "duplicate sizes")
        return tuple(out)

    def ints(self, table: dict[str, Any], key: str, where: str, lo: int, hi: int,
             default: tuple[int, ...]) -> tuple[int, ...]:
        full = f"{where}.{key}"
        if key not in table:
            return default
        v = table[key]
        if not isinstance(v, list):
            raise self.fail(full, f"must be a list of integers {lo} to {hi}")
        if not v:
            raise self.fail(full, f"empty factor (give integers {lo} to {hi})")
        for item in v:
            if isinstance(item, bool) or not isinstance(item, int) or not lo <= item <= hi:
                raise self.fail(full, f"bad value {item!r} (allowed: integers {lo} to {hi})")
        if len(set(v)) != len(v):
            raise self.fail(full, "duplicate values")
        return tuple(v)


def resolve(name_or_path: str) -> Path:
    """A profile name (``quick``) or a path to a TOML file."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or "/" in name_or_path:
        return p
    return PROFILE_DIR / f"{name_or_path}.toml"


def available() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


def load(name_or_path: str) -> Profile:
    path = resolve(name_or_path)
    shown = str(path)
    if not path.is_file():
        raise ProfileError(shown, "-", f"no such profile (available: {', '.join(available())},"
                           " or a path to a .toml file)")
    text = path.read_text(encoding="utf-8")
    return parse(text, shown)


def parse(text: str, path: str) -> Profile:
    c = _Checker(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(path, "-", f"not valid TOML: {e}") from None
    c.unknown(doc, _TOP_KEYS, "")

    prof = doc.get("profile")
    if not isinstance(prof, dict):
        raise c.fail("profile", "missing [profile] table")
    c.unknown(prof, _PROFILE_KEYS, "profile")
    name = c.string(prof, "name", "profile", None)
    if name is None:
        raise c.fail("profile.name", "missing (required)")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise c.fail("profile.name", f"{name!r} (allowed: letters, digits, '_', '.', '-')")
    description = c.string(prof, "description", "profile", "")
    seed = c.number(prof, "seed", "profile", 1, 0, 2**63 - 1, integer=True)
    budget = c.number(prof, "budget_s", "profile", 0, 0, 7 * 86400)
    defaults = {
        "duration_s": c.number(prof, "duration_s", "profile", 2.0, 0.05, 3600),
        "warmup_s": c.number(prof, "warmup_s", "profile", 0.5, 0, 3600),
        "timeout_s": c.number(prof, "timeout_s", "profile", 0, 0, 86400) or None,
        "verify": c.string(prof, "verify", "profile", "sample", VERIFY),
        "fields": c.number(prof, "fields", "profile", 8, 1, 1024, integer=True),
        "dir": c.string(prof, "dir", "profile", None),
    }

    reps_t = doc.get("repetitions", {})
    if not isinstance(reps_t, dict):
        raise c.fail("repetitions", "must be a table")
    c.unknown(reps_t, _REP_KEYS, "repetitions")
    rmin = c.number(reps_t, "min", "repetitions", 3, 1, 1000, integer=True)
    rmax = c.number(reps_t, "max", "repetitions", max(rmin, 10), 1, 1000, integer=True)
    if rmax < rmin:
        raise c.fail("repetitions.max", f"{rmax} is below repetitions.min = {rmin}"
                     f" (allowed: {rmin} to 1000)")
    reps = Repetitions(
        min=rmin, max=rmax,
        target_rel_ci=c.number(reps_t, "target_rel_ci", "repetitions", 0.03, 0.0001, 1.0),
        confidence=c.number(reps_t, "confidence", "repetitions", 0.95, 0.5, 0.999),
        resamples=c.number(reps_t, "resamples", "repetitions", 2000, 100, 100000,
                           integer=True),
    )

    topo_t = doc.get("topology", {})
    if not isinstance(topo_t, dict):
        raise c.fail("topology", "must be a table")
    c.unknown(topo_t, _TOPO_KEYS, "topology")
    topo = Topology(
        veth_mtu=c.number(topo_t, "veth_mtu", "topology", 1500, 68, 65535, integer=True),
        udp_mtu=c.number(topo_t, "udp_mtu", "topology", 65521, 68, 65535, integer=True),
    )

    exps_t = doc.get("experiment")
    if not isinstance(exps_t, list) or not exps_t:
        raise c.fail("experiment", "missing: at least one [[experiment]] table is required")
    exps = []
    names: set[str] = set()
    for i, table in enumerate(exps_t):
        where = f"experiment[{i}]"
        if not isinstance(table, dict):
            raise c.fail(where, "must be a table")
        exp = _experiment(c, table, where, defaults)
        if exp.name in names:
            raise c.fail(f"{where}.name", f"duplicate experiment name {exp.name!r}")
        names.add(exp.name)
        exps.append(exp)
    return Profile(path=path, name=name, description=description, seed=seed,
                   budget_s=budget or None, repetitions=reps, topology=topo,
                   experiments=tuple(exps), text=text)


def _experiment(c: _Checker, e: dict[str, Any], where: str,
                defaults: dict[str, Any]) -> Experiment:
    name = c.string(e, "name", where, None)
    if name is None:
        raise c.fail(f"{where}.name", "missing (required)")
    where = f"experiment[{name}]"
    c.unknown(e, _EXP_KEYS, where)
    command = c.string(e, "command", where, None, COMMANDS)
    if command is None:
        raise c.fail(f"{where}.command", f"missing (required; allowed: {', '.join(COMMANDS)})")
    allowed_methods: tuple[str, ...]
    if command == "send":
        allowed_methods = MESSAGE_METHODS + FILE_SEND_METHODS
    else:
        allowed_methods = COPY_METHODS
        for k in ("transports", "modes", "threads", "peers"):
            if k in e:
                raise c.fail(f"{where}.{k}", "not applicable to command 'copy' (allowed keys: "
                             "methods, sizes, placements, caches, perf, duration_s, warmup_s,"
                             " timeout_s, verify, dir)")
    methods = c.choices(e, "methods", where, allowed_methods, None)
    has_file = any(m in FILE_SEND_METHODS for m in methods) or command == "copy"
    if "caches" in e and not has_file:
        raise c.fail(f"{where}.caches", "only applies to file methods (allowed: "
                     f"{', '.join(FILE_SEND_METHODS)} with send, or command 'copy')")
    return Experiment(
        name=name,
        command=command,
        methods=methods,
        sizes=c.sizes(e, "sizes", where),
        threads=c.ints(e, "threads", where, 1, 64, (1,)),
        placements=c.choices(e, "placements", where, PLACEMENTS, ("cross-core",)),
        transports=c.choices(e, "transports", where, TRANSPORTS, ("loopback",))
        if command == "send" else ("none",),
        modes=c.choices(e, "modes", where, MODES, ("stream",)) if command == "send"
        else ("stream",),
        caches=c.choices(e, "caches", where, CACHES, ("warm",)),
        peers=c.boolean(e, "peers", where, False),
        perf=c.boolean(e, "perf", where, False),
        duration_s=c.number(e, "duration_s", where, defaults["duration_s"], 0.05, 3600),
        warmup_s=c.number(e, "warmup_s", where, defaults["warmup_s"], 0, 3600),
        timeout_s=c.number(e, "timeout_s", where, defaults["timeout_s"] or 0, 0, 86400)
        or None,
        verify=c.string(e, "verify", where, defaults["verify"], VERIFY),
        fields=c.number(e, "fields", where, defaults["fields"], 1, 1024, integer=True),
        dir=c.string(e, "dir", where, defaults["dir"]),
    )

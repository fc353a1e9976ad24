"""Sweep profiles: TOML files validated into typed dataclasses before anything runs.

A profile has three tables and a list of experiments, and may take experiments from files of
``[[experiment]]`` tables with a top-level ``include = "parts/claim-blocks.toml"`` (before
its first table; :func:`expand`)::

    [profile]      name, description, seed, duration_s, warmup_s, verify, timeout_s,
                   budget_s, fields, dir
    [repetitions]  min, max, target_rel_ci, confidence, resamples   (the adaptive design)
    [design]       rounds_min, rounds_max, target, descriptive_target, confidence, noise,
                   primary, exclude_steal_above, strict, sequential  (the block design)
    [topology]     veth_mtu, udp_mtu
    [[experiment]] name, command, methods, sizes, threads, placements, transports, modes,
                   caches, peers, perf, perf_trials, purpose, claims, family, margin, twin,
                   own_block, comparisons, target, and per-experiment overrides of duration_s,
                   warmup_s, timeout_s, verify, fields, dir

An experiment's ``target`` (block design only) is the CI half-width, relative, that its own
comparisons are planned to at the noise model's sd, at its own ``family`` and the design's
confidence (:func:`runner.plan.blocks.rounds_needed`): every block that holds its cells runs
at least those rounds, and the budget never cuts them (it cuts the other blocks, or the
top-up gets less), as it never cuts the A/A control's rounds. For a descriptive reading
that must reach a declared precision (copybench beside iperf3: its parity margin).

``[design] sequential = { spending, first_look, look_every, rounds_max, budget_s, planning }``
turns on the sequential top-up (:mod:`decision.sequential`, :mod:`runner.plan.topup`): the blocks
with declared ``comparisons`` (``{ "zerocopy/send" = "band", "8t/4t" = [0.7] }``: a
ratio of two methods, or of two thread counts of one method, and the boundaries of the
decision rules that read it, on the ratio of the primary metric) run to their first look,
and the rest of the budget goes, one look at a time, to the blocks whose comparisons are
still undecided.

A profile with a ``[design]`` table uses the block design (:mod:`runner.plan.blocks`): cells of
one configuration that differ only in method form a block that runs back to back in each
round, and each block gets the rounds its comparisons need (planned from a noise model before
anything runs). Without it, the older adaptive design (:mod:`runner.plan.adaptive`) applies.

The full design is the union of each experiment's factorial (see ``runner.plan.rounds``). Any
unknown key, wrong type, value outside its allowed set or empty factor list raises
``ProfileError`` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from decision import families
from decision import schedule as sq
from decision.band import NAMED
from rundir import utf8
# the factors' words (rundir.vocabulary owns them; the plan's modules import them from here)
from rundir.vocabulary import (CACHES, COMMANDS, COPY_METHODS, FILE_SEND_METHODS,  # noqa: F401
                               MESSAGE_METHODS, MODES, PLACEMENTS, REPORT_NAMES, TRANSPORTS,
                               UDP_METHODS, VERIFY)
from runner.host.errors import ProfileError

PROFILE_DIR = Path(__file__).resolve().parent.parent / "profiles"

#: what a block of cells is for, in the order the budget serves them
PURPOSES = ("claim", "control", "question", "descriptive")
PRIMARY = ("paired", "unpaired")
#: the reports whose own programs can join a block (runner.originals), and the copybench
#: method each of their methods runs beside: their Part A1/A2/A3 = two-/one-/zero-copy
ORIGINAL_SOURCES = ("S1", "S2", "S3")
ORIGINAL_METHOD_OF = REPORT_NAMES

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
class Sequential:
    """The sequential top-up of a block design (``[design] sequential``): the looks, the
    spending function, the maximum rounds of a block, the seconds reserved for the top-up
    and the planning file the plan reads the expected effects from."""

    spending: str
    first_look: int
    look_every: int
    rounds_max: int
    budget_s: float  # reserved for the top-up: the planned rounds get budget_s less this
    planning: str | None = None  # expected effects (python -m runner planning), relative
    drop_below: float = sq.DROP_BELOW  # comparisons less likely than this by N are dropped

    def design(self, alpha: float) -> sq.SequentialDesign:
        return sq.SequentialDesign(spending=self.spending, alpha=alpha,
                                   first_look=self.first_look, look_every=self.look_every,
                                   rounds_max=self.rounds_max, drop_below=self.drop_below)


@dataclass(frozen=True)
class Design:
    """The block design: paired rounds, rounds per block planned from a noise model."""

    rounds_min: int
    rounds_max: int
    target: float  # CI half-width (relative) wanted for claim, control and question blocks
    descriptive_target: float  # ... for descriptive blocks
    confidence: float
    noise: str | None  # noise model file (from `python -m runner noise`), profile-relative
    primary: str  # paired (per-round ratios) | unpaired (ratio of medians): declared here
    exclude_steal_above: float | None  # a trial whose window had more steal is excluded
    strict: bool  # refuse to run when a decision rule cannot be met at its planned rounds
    descriptive_rounds_min: int = 0  # the budget may cut descriptive blocks down to this
    sequential: Sequential | None = None  # the top-up after the first look (None: fixed)


@dataclass(frozen=True)
class TopologySettings:
    """The profile's ``[topology]`` table (the transports themselves: runner.trial.transports)."""

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
    purpose: str = "descriptive"
    claims: tuple[str, ...] = ()
    family: int = 1  # comparisons in the decision family (for the multiplicity correction)
    margin: float | None = None  # the decision rule's margin (relative), e.g. 0.03
    twin: bool = False  # A/A control: each block gets a second copy of its first method
    # the A/A control in a block of its own: two copies (twins 1 and 2) of its first method,
    # apart from the claims' cells of the same configuration (needs ``twin``)
    own_block: bool = False
    perf_trials: int = 1  # profiled (perf record) trials per cell when perf = true
    pair_threads: bool = False  # thread counts of one configuration share a block
    originals: tuple[str, ...] = ()  # reports whose own programs join these blocks (S1-S3)
    originals_rounds: int = 0  # their cells run in rounds 1..N only (0: every round)
    sockbuf: int = 0  # both ends' socket buffers fixed at this size (0: the kernel autotunes)
    sink: str = ""  # "kept": one copybench sink kept across the trials ("": a fresh one each)
    alternate: str = ""  # copybench send --alternate: the odd slices' method ("": one method)
    # how a block's comparisons X vs send are measured: "separate" (today's: each method in a
    # trial of its own) or "shared-time" (copybench send --share-time: X and send in one
    # trial, two connections taking 100 ms turns)
    procedure: str = "separate"
    # the sequential top-up: ratios ("a/b" of methods, "Nt/Mt" of thread counts) and the
    # boundaries their decision rules read them against
    comparisons: tuple[tuple[str, tuple[float, ...]], ...] = ()
    # the CI half-width (relative) this experiment's own comparisons are planned to, at its
    # family; its blocks are never cut below the rounds it needs (None: the purpose's target)
    target: float | None = None


#: copybench's sink's bytes per recv() on a TCP stream when nothing says otherwise
#: (src/control.h RECV_SIZE_DEFAULT); a cell at this receive size keeps recv_size 0
RECV_SIZE_DEFAULT = 64 << 10
#: the range copybench send --recv-size takes (src/control.h RECV_SIZE_MIN, RECV_SIZE_MAX)
RECV_SIZE_RANGE = (4096, 64 << 20)


@dataclass(frozen=True)
class Receiver:
    """The profile's ``[receiver]`` table: the receiver's bytes per recv() as a robustness
    factor. Every copybench TCP stream cell of ``experiments`` (every experiment when empty)
    is measured at each of ``recv_sizes`` (copybench send --recv-size): the sink's default
    size is the cell as it is, each other size a cell of its own, in a block of its own that
    runs in the same rounds, so a claim is read under each receive size on the same host
    load."""

    recv_sizes: tuple[int, ...]
    experiments: tuple[str, ...] = ()

    @property
    def others(self) -> tuple[int, ...]:
        """The sizes other than the sink's default: the cells they add."""
        return tuple(n for n in self.recv_sizes if n != RECV_SIZE_DEFAULT)

    def applies(self, exp: "Experiment") -> bool:
        return exp.command == "send" and (not self.experiments or exp.name in self.experiments)


@dataclass(frozen=True)
class Profile:
    path: str
    name: str
    description: str
    seed: int
    budget_s: float | None
    repetitions: Repetitions
    topology: TopologySettings
    experiments: tuple[Experiment, ...]
    text: str
    design: Design | None = None
    receiver: Receiver | None = None  # [receiver]: the receive size as a factor (None: the sink's)


#: the one table of the numeric values a profile's ``[profile]`` table and its experiments
#: share: key -> (lowest, highest) allowed, both included; every check reads it
RANGES: dict[str, tuple[float, float]] = {
    "seed": (0, 2**63 - 1),
    "budget_s": (1, 7 * 86400),
    "duration_s": (0.05, 3600),
    "warmup_s": (0, 3600),
    "timeout_s": (1, 86400),
    "fields": (1, 1024),
}
#: the keys of RANGES that take integers
_INTEGER_KEYS = {"seed", "fields"}
#: what leaving an optional key out means (said with its range when a value is refused)
_LEFT_OUT = {
    "budget_s": "leave it out for no budget",
    "timeout_s": "leave it out for the default: 30 s + 2 x window + size at 50 MB/s",
}

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
    "dir", "purpose", "claims", "family", "margin", "twin", "own_block", "perf_trials",
    "pair_threads",
    "originals", "originals_rounds", "comparisons", "sockbuf", "sink", "alternate",
    "procedure", "target",
}
_DESIGN_KEYS = {"rounds_min", "rounds_max", "target", "descriptive_target", "confidence",
                "noise", "primary", "exclude_steal_above", "strict", "descriptive_rounds_min",
                "sequential"}
_SEQ_KEYS = {"spending", "first_look", "look_every", "rounds_max", "budget_s", "planning",
             "drop_below"}
_COMPARISON_RE = re.compile(r"^(?:([0-9]+)t/([0-9]+)t|([a-z_0-9-]+)/([a-z_0-9-]+))$")
_TOP_KEYS = {"profile", "repetitions", "design", "topology", "experiment", "receiver"}
_RECEIVER_KEYS = {"recv_sizes", "experiments"}
_CLAIM_RE = re.compile(r"^(C([1-9]|1[0-5])|P1|Q[0-9]+|AA)$")


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

    def ranged(self, table: dict[str, Any], key: str, where: str, default: Any) -> Any:
        """A value of :data:`RANGES` (``default`` when the key is absent, None allowed)."""
        if key not in table:
            return default
        lo, hi = RANGES[key]
        integer = key in _INTEGER_KEYS
        v = table[key]
        allowed = f"allowed: {_number_text(lo)} to {_number_text(hi)}" + (
            f"; {_LEFT_OUT[key]}" if key in _LEFT_OUT else "")
        ok = isinstance(v, int) if integer else isinstance(v, (int, float))
        if isinstance(v, bool) or not ok:
            kind = "an integer" if integer else "a number"
            raise self.fail(f"{where}.{key}", f"{v!r} is not {kind} ({allowed})")
        if not lo <= v <= hi:
            raise self.fail(f"{where}.{key}", f"{v!r} out of range ({allowed})")
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


#: what a profile says that is not its design: where it was read from, its words, its
#: description (two profiles that differ only there plan the same run)
_NOT_DESIGN = ("path", "text", "description")
#: the Profile's own fields under the TOML table that sets them
_TABLE_OF = {"name": "profile", "seed": "profile", "budget_s": "profile"}


def first_difference(run: Profile, given: Profile) -> tuple[str, Any, Any] | None:
    """The first place where ``given`` would plan another run than ``run``, as (key path,
    run's value, given value), or None when both expand to the same design: every value
    after includes, defaults and the ``[profile]`` table's values handed to each
    experiment (``experiment[<name>].duration_s``); the experiments by name, in order."""
    return _difference("", _design_of(run), _design_of(given))


def _design_of(p: Profile) -> dict[str, Any]:
    d = {f"{_TABLE_OF[k]}.{k}" if k in _TABLE_OF else k: v
         for k, v in asdict(p).items() if k not in _NOT_DESIGN and k != "experiments"}
    d["experiment"] = tuple(e.name for e in p.experiments)
    d.update({f"experiment[{e.name}]": asdict(e) for e in p.experiments})
    return d


def _difference(path: str, a: Any, b: Any) -> tuple[str, Any, Any] | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            got = _difference(f"{path}.{k}" if path else k, a.get(k), b.get(k))
            if got is not None:
                return got
        return None
    return None if a == b else (path, a, b)


def file_dirs(p: Profile) -> list[tuple[str, str]]:
    """(key, directory) of every experiment whose trials make files (``copy``, or a file
    method of ``send``) in a ``dir`` the profile names: where copybench creates them."""
    return [(f"experiment[{e.name}].dir", e.dir) for e in p.experiments
            if e.dir and (e.command == "copy" or any(m in FILE_SEND_METHODS for m in e.methods))]


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def resolve(name_or_path: str) -> Path:
    """A profile name (``quick``) or a path to a TOML file."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or "/" in name_or_path:
        return p
    return PROFILE_DIR / f"{name_or_path}.toml"


def available() -> list[str]:
    """The profiles in runner/profiles/ (TOML files with a [profile] table; the noise model
    beside them is not one)."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml")
                  if re.search(r"^\[profile\]", p.read_text(encoding="utf-8"), re.M))


def load(name_or_path: str) -> Profile:
    path = resolve(name_or_path)
    shown = str(path)
    if not path.is_file():
        raise ProfileError(shown, "-", f"no such profile (available: {', '.join(available())},"
                           " or a path to a .toml file)")
    return parse(expand(_read(path, shown), path, shown), shown)


def _read(path: Path, shown: str) -> str:
    try:
        return utf8.read(path, "profile")
    except utf8.NotUtf8 as e:
        raise ProfileError(shown, "-", str(e)) from None
    except OSError as e:
        raise ProfileError(shown, "-", f"cannot be read: {e.strerror or e}") from None


_INCLUDE_LINE = re.compile(r"^include[ \t]*=.*$", re.M)
_EXPERIMENT_LINE = re.compile(r"^[ \t]*\[\[[ \t]*experiment[ \t]*\]\]", re.M)
_INCLUDED_KEYS = {"experiment", "include"}
_INCLUDE_ALLOWED = ('a path, relative to the file that names it, of a file of [[experiment]] '
                    'tables (e.g. "parts/claim-blocks.toml"), or a list of them')


def expand(text: str, path: Path, shown: str, chain: tuple[Path, ...] = ()) -> str:
    """A profile's text with its ``include`` expanded: ``include = "parts/x.toml"`` (a
    top-level key, on one line, before the first table; a list of paths takes several) names
    files of ``[[experiment]]`` tables, relative to the file that names them, whose text goes
    in before the profile's own experiments (an included file may include others). The
    result is the profile as one TOML text, its include lines left as comments: the copy a
    run keeps reads the same without the included files. A missing or cyclic include raises
    ProfileError naming the file and the chain."""
    try:
        doc = utf8.toml_loads(text)
    except tomllib.TOMLDecodeError:
        return text  # parse() reports it
    if "include" not in doc:
        return text
    names = doc["include"]
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(
            isinstance(n, str) and n.strip() for n in names):
        raise ProfileError(shown, "include", f"{doc['include']!r} (allowed: {_INCLUDE_ALLOWED})")
    lines = _INCLUDE_LINE.findall(text)
    if len(lines) != 1:
        raise ProfileError(shown, "include", "must be one line 'include = ...' before the "
                           f"first table (allowed: {_INCLUDE_ALLOWED})")
    parts = []
    for name in names:
        inc = path.parent / name
        if inc.resolve() in {p.resolve() for p in (*chain, path)}:
            where = " -> ".join(str(p) for p in (*chain, path, inc))
            raise ProfileError(shown, "include", f"{name!r} is a cyclic include ({where})")
        if not inc.is_file():
            raise ProfileError(shown, "include", f"{name!r}: no such file {inc} "
                               f"(allowed: {_INCLUDE_ALLOWED})")
        inc_text = expand(_read(inc, str(inc)), inc, str(inc), (*chain, path))
        try:
            keys = set(utf8.toml_loads(inc_text))
        except tomllib.TOMLDecodeError as e:
            raise ProfileError(str(inc), "-", f"not valid TOML: {e}") from None
        if keys - _INCLUDED_KEYS:
            raise ProfileError(shown, "include", f"{name!r} holds "
                               f"{', '.join(sorted(keys - _INCLUDED_KEYS))} (allowed in an "
                               "included file: [[experiment]] tables and include)")
        parts.append(f"# ---- included from {name} ----\n{inc_text.rstrip()}\n"
                     f"# ---- end of {name} ----\n")
    own = _INCLUDE_LINE.sub(lambda m: f"# {m.group(0)} (expanded below)", text, count=1)
    first = _EXPERIMENT_LINE.search(own)
    cut = len(own) if first is None else _before_comments(own, first.start())
    body = own[:cut]
    return body + ("" if body.endswith("\n\n") or not body else
                   "\n" if body.endswith("\n") else "\n\n") + "\n".join(parts) \
        + ("\n" + own[cut:] if own[cut:] else "")


def _before_comments(text: str, at: int) -> int:
    """Where the comment lines just above position ``at`` (a line's start) begin."""
    lines = text[:at].splitlines(keepends=True)
    while lines and lines[-1].lstrip().startswith("#"):
        lines.pop()
    return sum(len(x) for x in lines)


def parse(text: str, path: str) -> Profile:
    c = _Checker(path)
    try:
        doc = utf8.toml_loads(text)
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
    seed = c.ranged(prof, "seed", "profile", 1)
    budget = c.ranged(prof, "budget_s", "profile", None)
    defaults = {
        "duration_s": c.ranged(prof, "duration_s", "profile", 2.0),
        "warmup_s": c.ranged(prof, "warmup_s", "profile", 0.5),
        "timeout_s": c.ranged(prof, "timeout_s", "profile", None),
        "verify": c.string(prof, "verify", "profile", "sample", VERIFY),
        "fields": c.ranged(prof, "fields", "profile", 8),
        "dir": c.string(prof, "dir", "profile", None),
    }
    reps = _repetitions(c, doc)
    design = _design(c, doc)
    if design is not None and design.sequential is not None and budget \
            and design.sequential.budget_s >= budget:
        raise c.fail("design.sequential.budget_s", f"{design.sequential.budget_s:g} is not "
                     f"below profile.budget_s = {budget:g} (allowed: 0 to {budget:g}, the "
                     "planned rounds get the rest)")
    topo = _topology(c, doc)
    exps = _experiments(c, doc, defaults)
    seq = design is not None and design.sequential is not None
    for e in exps:
        if e.comparisons and not seq:
            raise c.fail(f"experiment[{e.name}].comparisons", "needs [design] sequential (the "
                         "top-up reads the comparisons; without it the design is fixed)")
    return Profile(path=path, name=name, description=description, seed=seed,
                   budget_s=budget, repetitions=reps, topology=topo,
                   experiments=tuple(exps), text=text, design=design,
                   receiver=_receiver(c, doc, exps))


def _receiver(c: _Checker, doc: dict[str, Any], exps: list[Experiment]) -> Receiver | None:
    """``[receiver]``: ``recv_sizes`` (two or more sizes, the sink's default 64K among them,
    each 4K to 64M) and optionally ``experiments`` (names of ``send`` experiments; all when
    left out)."""
    if "receiver" not in doc:
        return None
    t = doc["receiver"]
    if not isinstance(t, dict):
        raise c.fail("receiver", "must be a table (recv_sizes = [65536, 262144])")
    c.unknown(t, _RECEIVER_KEYS, "receiver")
    sizes = c.sizes(t, "recv_sizes", "receiver")
    lo, hi = RECV_SIZE_RANGE
    for n in sizes:
        if not lo <= n <= hi:
            raise c.fail("receiver.recv_sizes", f"{n} is out of range (allowed: 4K to 64M, "
                         "what copybench send --recv-size takes)")
    if RECV_SIZE_DEFAULT not in sizes or len(sizes) < 2:
        raise c.fail("receiver.recv_sizes", f"{list(sizes)} (allowed: two sizes or more, the "
                     f"sink's default {RECV_SIZE_DEFAULT} among them: the claims are read at it)")
    names = {e.name: e for e in exps}
    chosen: tuple[str, ...] = ()
    if "experiments" in t:
        v = t["experiments"]
        if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
            raise c.fail("receiver.experiments", "must be a non-empty list of experiment names")
        for x in v:
            if x not in names:
                raise c.fail("receiver.experiments", f"unknown experiment {x!r} (allowed: "
                             f"{', '.join(n for n, e in names.items() if e.command == 'send')})")
            if names[x].command != "send":
                raise c.fail("receiver.experiments", f"{x!r} is a {names[x].command!r} "
                             "experiment: only 'send' has a receiver")
        if len(set(v)) != len(v):
            raise c.fail("receiver.experiments", "duplicate values")
        chosen = tuple(v)
    return Receiver(recv_sizes=sizes, experiments=chosen)


def _repetitions(c: _Checker, doc: dict[str, Any]) -> Repetitions:
    reps_t = doc.get("repetitions", {})
    if not isinstance(reps_t, dict):
        raise c.fail("repetitions", "must be a table")
    c.unknown(reps_t, _REP_KEYS, "repetitions")
    rmin = c.number(reps_t, "min", "repetitions", 3, 1, 1000, integer=True)
    rmax = c.number(reps_t, "max", "repetitions", max(rmin, 10), 1, 1000, integer=True)
    if rmax < rmin:
        raise c.fail("repetitions.max", f"{rmax} is below repetitions.min = {rmin}"
                     f" (allowed: {rmin} to 1000)")
    return Repetitions(
        min=rmin, max=rmax,
        target_rel_ci=c.number(reps_t, "target_rel_ci", "repetitions", 0.03, 0.0001, 1.0),
        confidence=c.number(reps_t, "confidence", "repetitions", sq.CONFIDENCE, 0.5, 0.999),
        resamples=c.number(reps_t, "resamples", "repetitions", 2000, 100, 100000,
                           integer=True),
    )


def _design(c: _Checker, doc: dict[str, Any]) -> Design | None:
    if "design" not in doc:
        return None
    des_t = doc["design"]
    if not isinstance(des_t, dict):
        raise c.fail("design", "must be a table")
    if "repetitions" in doc:
        raise c.fail("repetitions", "a profile has either [design] (blocks) or "
                     "[repetitions] (adaptive), not both")
    c.unknown(des_t, _DESIGN_KEYS, "design")
    dmin = c.number(des_t, "rounds_min", "design", 3, 2, 1000, integer=True)
    dmax = c.number(des_t, "rounds_max", "design", max(dmin, 30), 2, 1000, integer=True)
    if dmax < dmin:
        raise c.fail("design.rounds_max", f"{dmax} is below design.rounds_min = {dmin}"
                     f" (allowed: {dmin} to 1000)")
    steal = c.number(des_t, "exclude_steal_above", "design", -1, -1, 1.0)
    return Design(
        rounds_min=dmin, rounds_max=dmax,
        target=c.number(des_t, "target", "design", 0.05, 0.001, 1.0),
        descriptive_target=c.number(des_t, "descriptive_target", "design", 0.10,
                                    0.001, 1.0),
        confidence=c.number(des_t, "confidence", "design", sq.CONFIDENCE, 0.5, 0.999),
        noise=c.string(des_t, "noise", "design", None),
        primary=c.string(des_t, "primary", "design", "paired", PRIMARY),
        exclude_steal_above=None if steal < 0 else steal,
        strict=c.boolean(des_t, "strict", "design", False),
        descriptive_rounds_min=c.number(des_t, "descriptive_rounds_min", "design", dmin,
                                        2, dmin, integer=True),
        sequential=_sequential(c, des_t))


def _sequential(c: _Checker, des_t: dict[str, Any]) -> Sequential | None:
    """``[design] sequential``: validated here, and by decision.sequential's own checks."""
    if "sequential" not in des_t:
        return None
    t = des_t["sequential"]
    where = "design.sequential"
    if not isinstance(t, dict):
        raise c.fail(where, "must be a table (keys: " + ", ".join(sorted(_SEQ_KEYS)) + ")")
    c.unknown(t, _SEQ_KEYS, where)
    if des_t.get("primary", "paired") != "paired":
        raise c.fail(where, "needs design.primary = \"paired\" (the top-up reads the "
                     "per-round ratios)")
    spending = c.string(t, "spending", where, sq.POCOCK, tuple(sorted(sq.SPENDING_NAMES)))
    first = c.number(t, "first_look", where, 6, 2, 1000, integer=True)
    every = c.number(t, "look_every", where, 6, 2, 1000, integer=True)
    most = c.number(t, "rounds_max", where, 90, 2, 1000, integer=True)
    for key, v in (("first_look", first), ("look_every", every), ("rounds_max", most)):
        if v % 2:
            raise c.fail(f"{where}.{key}", f"{v} is odd (allowed: even integers: each pair of "
                         "rounds is counterbalanced, so a look after an odd round would cut "
                         "a pair)")
    if most < first:
        raise c.fail(f"{where}.rounds_max", f"{most} is below first_look = {first} "
                     f"(allowed: {first} to 1000)")
    return Sequential(spending=spending, first_look=first, look_every=every, rounds_max=most,
                      budget_s=c.number(t, "budget_s", where, 0, 0, 7 * 86400),
                      planning=c.string(t, "planning", where, None),
                      drop_below=c.number(t, "drop_below", where, sq.DROP_BELOW, 0.0, 0.99))


def _topology(c: _Checker, doc: dict[str, Any]) -> TopologySettings:
    topo_t = doc.get("topology", {})
    if not isinstance(topo_t, dict):
        raise c.fail("topology", "must be a table")
    c.unknown(topo_t, _TOPO_KEYS, "topology")
    return TopologySettings(
        veth_mtu=c.number(topo_t, "veth_mtu", "topology", 1500, 68, 65535, integer=True),
        udp_mtu=c.number(topo_t, "udp_mtu", "topology", 65521, 68, 65535, integer=True),
    )


def _experiments(c: _Checker, doc: dict[str, Any],
                 defaults: dict[str, Any]) -> list[Experiment]:
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
    return exps


def _experiment(c: _Checker, e: dict[str, Any], where: str,
                defaults: dict[str, Any]) -> Experiment:
    name = c.string(e, "name", where, None)
    if name is None:
        raise c.fail(f"{where}.name", "missing (required)")
    where = f"experiment[{name}]"
    c.unknown(e, _EXP_KEYS, where)
    if e.get("purpose") in ("claim", "control") and not e.get("claims"):
        raise c.fail(f"{where}.claims", f"missing: a {e['purpose']} experiment names the claims "
                     "it serves (C1 to C15, P1, AA)")
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
    exp = Experiment(
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
        duration_s=c.ranged(e, "duration_s", where, defaults["duration_s"]),
        warmup_s=c.ranged(e, "warmup_s", where, defaults["warmup_s"]),
        timeout_s=c.ranged(e, "timeout_s", where, defaults["timeout_s"]),
        verify=c.string(e, "verify", where, defaults["verify"], VERIFY),
        fields=c.ranged(e, "fields", where, defaults["fields"]),
        dir=c.string(e, "dir", where, defaults["dir"]),
        purpose=c.string(e, "purpose", where, "descriptive", PURPOSES),
        claims=_claims(c, e, where),
        family=_family(c, e, where),
        margin=(c.number(e, "margin", where, 0, 0.001, 10.0) if "margin" in e else None),
        twin=c.boolean(e, "twin", where, False),
        own_block=_own_block(c, e, where),
        perf_trials=c.number(e, "perf_trials", where, 1, 1, 20, integer=True),
        pair_threads=c.boolean(e, "pair_threads", where, False),
        comparisons=_comparisons(c, e, where, methods),
        sockbuf=_sockbuf(c, e, where, command),
        sink=_sink(c, e, where, command),
        alternate=_alternate(c, e, where, command, methods),
        procedure=_procedure(c, e, where, command, methods),
        target=(c.number(e, "target", where, 0, 0.001, 1.0) if "target" in e else None),
        **_originals(c, e, where, command, methods),
    )
    lo, hi = SHARED_WINDOW_S
    if exp.procedure == "shared-time" and not lo <= exp.duration_s <= hi:
        raise c.fail(f"{where}.duration_s", f"{exp.duration_s:g} s: 'shared-time' takes windows "
                     f"of {lo:g} to {hi:g} s (a turn per connection at least, at most 60 turns "
                     "of 100 ms)")
    return exp


def _sockbuf(c: _Checker, e: dict[str, Any], where: str, command: str) -> int:
    """``sockbuf``: fix both ends' socket buffers (copybench send --sockbuf) at this size, as
    the kernel reports it (4K to 1G), instead of letting TCP autotune them."""
    if "sockbuf" not in e:
        return 0
    full = f"{where}.sockbuf"
    if command != "send":
        raise c.fail(full, "only for command 'send' (a socket's buffers)")
    bad = any(t not in ("loopback", "veth") for t in e.get("transports", ["loopback"]))
    if bad:
        raise c.fail(full, "only for TCP transports (loopback, veth): udp-forward has no "
                     "autotuned buffer")
    try:
        n = parse_size(e["sockbuf"])
    except ValueError as err:
        raise c.fail(full, f"{err} (a size from 4K to 1G, e.g. 256K)") from None
    if not 4096 <= n <= 2**30:
        raise c.fail(full, f"{n} is out of range (allowed: 4K to 1G)")
    return n


#: the transports whose sink runs here and may be kept across trials (remote's runs over ssh
#: for one trial; udp-forward has none)
KEPT_SINK_TRANSPORTS = ("loopback", "veth")
#: the methods copybench send --alternate switches between (src/README.md)
ALTERNATING_METHODS = ("send", "sendmsg", "zerocopy")


def _own_block(c: _Checker, e: dict[str, Any], where: str) -> bool:
    """``own_block``: the A/A pair in a block of its own; only with ``twin``."""
    own = c.boolean(e, "own_block", where, False)
    if own and not c.boolean(e, "twin", where, False):
        raise c.fail(f"{where}.own_block", "needs twin = true (a block of its own holds the "
                     "A/A pair); allowed: true with twin = true, or false")
    return own


def _sink(c: _Checker, e: dict[str, Any], where: str, command: str) -> str:
    """``sink``: ``"fresh"`` (the default: copybench's sink started for each trial) or
    ``"kept"`` (one sink per transport and sink CPUs, serving the cells' trials one after
    another, stopped at the sweep's end): "" for fresh, "kept"."""
    if "sink" not in e:
        return ""
    full = f"{where}.sink"
    v = c.string(e, "sink", where, None, ("fresh", "kept"))
    if v == "fresh":
        return ""
    if command != "send":
        raise c.fail(full, "only for command 'send' (copy has no sink)")
    bad = [t for t in e.get("transports", ["loopback"]) if t not in KEPT_SINK_TRANSPORTS]
    if bad:
        raise c.fail(full, f"'kept' only on transports whose sink runs here "
                     f"({', '.join(KEPT_SINK_TRANSPORTS)}), not {bad[0]}")
    return v


#: how a block's comparisons are measured: each method in a trial of its own (today's), or
#: each comparison X vs send in one trial of two connections taking turns
PROCEDURES = ("separate", "shared-time")
#: the methods copybench send --share-time pairs, and the one every comparison is against
SHARED_METHODS = ("send", "sendmsg", "zerocopy")
SHARED_BASE = "send"
#: the windows --share-time takes (src/README.md: at least a turn per connection, at most 60)
SHARED_WINDOW_S = (0.2, 6.0)


def _procedure(c: _Checker, e: dict[str, Any], where: str, command: str,
               methods: tuple[str, ...]) -> str:
    """``procedure``: ``"separate"`` (the default: each method of a block in its own trial)
    or ``"shared-time"`` (each method X of the experiment against ``send`` in one trial,
    copybench send --share-time send: TCP stream, one thread, windows of 0.2 to 6 s; the
    experiment lists send and the methods compared with it; with ``twin`` also send against
    itself, the A/A)."""
    if "procedure" not in e:
        return "separate"
    full = f"{where}.procedure"
    v = c.string(e, "procedure", where, None, PROCEDURES)
    if v == "separate":
        return v
    if command != "send":
        raise c.fail(full, "'shared-time' only for command 'send'")
    bad = [m for m in methods if m not in SHARED_METHODS]
    if bad:
        raise c.fail(full, f"method {bad[0]} cannot share time (allowed methods: "
                     f"{', '.join(SHARED_METHODS)})")
    if SHARED_BASE not in methods:
        raise c.fail(full, f"'shared-time' compares each method with {SHARED_BASE}: list "
                     f"{SHARED_BASE} among the methods")
    if any(m != "stream" for m in e.get("modes", ["stream"])) or any(
            t == "udp-forward" for t in e.get("transports", ["loopback"])):
        raise c.fail(full, "'shared-time' only for TCP stream cells (modes = [\"stream\"], "
                     "no udp-forward)")
    if any(t != 1 for t in e.get("threads", [1])):
        raise c.fail(full, "'shared-time' runs one connection per method (threads = [1])")
    for k in ("alternate", "comparisons", "originals", "peers", "pair_threads", "perf"):
        if k in e and e[k] not in (False, [], {}, ""):
            why = ("the sequential top-up reads today's procedure" if k == "comparisons"
                   else "a CPU profile of a trial is one method's" if k == "perf"
                   else "they are trials of their own")
            raise c.fail(full, f"'shared-time' not with {k} ({why}); give it an experiment "
                         "of its own")
    return v


def _alternate(c: _Checker, e: dict[str, Any], where: str, command: str,
               methods: tuple[str, ...]) -> str:
    """``alternate``: the method copybench send --alternate sends in the odd slices of each
    window, each of the experiment's methods in the even ones (TCP stream; send, sendmsg or
    zerocopy each, zerocopy not with itself)."""
    if "alternate" not in e:
        return ""
    full = f"{where}.alternate"
    v = c.string(e, "alternate", where, None, ALTERNATING_METHODS)
    if command != "send":
        raise c.fail(full, "only for command 'send'")
    bad = [m for m in methods if m not in ALTERNATING_METHODS]
    if bad:
        raise c.fail(full, f"method {bad[0]} cannot alternate (allowed methods: "
                     f"{', '.join(ALTERNATING_METHODS)})")
    if v == "zerocopy" and "zerocopy" in methods:
        raise c.fail(full, "zerocopy cannot alternate with itself (one socket's completion "
                     "ids); alternate it with send or sendmsg")
    if any(m != "stream" for m in e.get("modes", ["stream"])) or any(
            t == "udp-forward" for t in e.get("transports", ["loopback"])):
        raise c.fail(full, "only for TCP stream cells (modes = [\"stream\"], no udp-forward)")
    return v


def _family(c: _Checker, e: dict[str, Any], where: str) -> int:
    """``family``: the decision family of a question's experiment. A claim's family is the
    one table's (decision.families) that the runner and the analysis both read, so a claim
    experiment may not declare one."""
    tabled = [x for x in (e.get("claims") or []) if x in families.FAMILY]
    if "family" in e and tabled:
        raise c.fail(f"{where}.family", f"the family of claim {tabled[0]} comes from the one "
                     "table the runner and the analysis read (decision/families.py): remove "
                     "family from this experiment (allowed only on experiments without "
                     f"claims of that table: {', '.join(families.FAMILY)})")
    return int(c.number(e, "family", where, 1, 1, 1000, integer=True))


def _comparisons(c: _Checker, e: dict[str, Any], where: str,
                 methods: tuple[str, ...]) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """``comparisons``: a table "a/b" (two of the experiment's methods) or "Nt/Mt" (two of
    its thread counts, which pair_threads puts in one block) -> the boundaries of the
    decision rules that read that ratio (positive numbers, on the primary metric; the claims'
    band by name: ``"band"`` for [1 - t, 1 + t], ``"inverse band"`` for the same band on the
    inverse ratio, decision.claimtable)."""
    full = f"{where}.comparisons"
    if "comparisons" not in e:
        return ()
    v = e["comparisons"]
    allowed = ('a table "a/b" (two of its methods) or "Nt/Mt" (two of its thread counts, '
               'with pair_threads) = [boundaries > 0]')
    if not isinstance(v, dict) or not v:
        raise c.fail(full, f"must be a non-empty table ({allowed})")
    threads = e.get("threads", [1])
    out = []
    for name, bounds in v.items():
        m = _COMPARISON_RE.match(name)
        if m is None:
            raise c.fail(full, f"bad comparison {name!r} ({allowed})")
        if m.group(3) is not None:
            bad = [x for x in (m.group(3), m.group(4)) if x not in methods]
            if bad or m.group(3) == m.group(4):
                what = f"unknown method {bad[0]!r}" if bad else "a method against itself"
                raise c.fail(full, f"{name!r}: {what} (allowed: two of {', '.join(methods)})")
        else:
            ts = (int(m.group(1)), int(m.group(2)))
            if not e.get("pair_threads") or any(t not in threads for t in ts) or ts[0] == ts[1]:
                raise c.fail(full, f"{name!r}: thread counts must be two of threads = "
                             f"{threads} with pair_threads = true (one block)")
        if isinstance(bounds, str):
            bounds = [bounds]
        if not isinstance(bounds, list) or not bounds or not all(
                (isinstance(b, (int, float)) and not isinstance(b, bool) and b > 0)
                or (isinstance(b, str) and b in NAMED) for b in bounds):
            raise c.fail(full, f"{name!r}: boundaries must be a non-empty list of numbers > 0 "
                         "(the ratios at which its decision rules change their reading) or "
                         f"of the claims' band by name ({', '.join(map(repr, NAMED))})")
        nums = [x for b in bounds for x in (NAMED[b] if isinstance(b, str) else (b,))]
        out.append((name, tuple(sorted(float(b) for b in nums))))
    return tuple(out)


def _originals(c: _Checker, e: dict[str, Any], where: str, command: str,
               methods: tuple[str, ...]) -> dict[str, Any]:
    """``originals`` (which reports' own programs run beside this experiment's cells) and
    ``originals_rounds``. Their programs are TCP streams of 8-field messages: they pair with
    copybench's send, sendmsg and zerocopy on loopback or veth."""
    if "originals" not in e:
        if "originals_rounds" in e:
            raise c.fail(f"{where}.originals_rounds", "needs originals (allowed: a list of "
                         f"{', '.join(ORIGINAL_SOURCES)})")
        return {}
    srcs = c.choices(e, "originals", where, ORIGINAL_SOURCES, None)
    if command != "send":
        raise c.fail(f"{where}.originals", "only with command 'send' (their programs send "
                     "over TCP)")
    if not any(m in ORIGINAL_METHOD_OF for m in methods):
        raise c.fail(f"{where}.originals", "needs one of the methods "
                     f"{', '.join(ORIGINAL_METHOD_OF)} (their two-, one- and zero-copy run "
                     "beside these)")
    if set(e.get("modes", ["stream"])) != {"stream"}:
        raise c.fail(f"{where}.originals", "only with modes = [\"stream\"] (their programs "
                     "stream; none answers a ping-pong)")
    bad = set(e.get("transports", ["loopback"])) - {"loopback", "veth"}
    if bad:
        raise c.fail(f"{where}.originals", f"transport {sorted(bad)[0]!r} (their programs run "
                     "on loopback or veth)")
    return {"originals": srcs,
            "originals_rounds": c.number(e, "originals_rounds", where, 0, 0, 1000,
                                         integer=True)}


def _claims(c: _Checker, e: dict[str, Any], where: str) -> tuple[str, ...]:
    full = f"{where}.claims"
    if "claims" not in e:
        return ()
    v = e["claims"]
    allowed = "claim ids C1 to C15, P1 (placement), Q<n> (a question), AA (the A/A control)"
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
        raise c.fail(full, f"must be a non-empty list of strings ({allowed})")
    for x in v:
        if not _CLAIM_RE.match(x):
            raise c.fail(full, f"unknown claim {x!r} ({allowed})")
    return tuple(v)

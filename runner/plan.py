"""The plan: the factorial design of a profile, filtered to valid cells, in shuffled rounds.

A *cell* is one configuration (method, size, threads, placement, transport, mode, cache,
kind, ...); its id is a stable hash of the factors that affect the measurement. Every cell
is repeated: round *r* holds the *r*-th repetition of every cell still running, shuffled
with ``random.Random(f"{seed}:{r}")``. Rounds 1..min are fixed and stored in ``plan.json``;
later rounds (up to max) hold only the cells whose bootstrap CI is still wider than the
target (``runner.adaptive``), so they are derived, deterministically, from the records.
Cells marked for CPU profiles get one extra *profiled* trial (repetition 0, under
``perf record``) in round 1; it is never used for statistics.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections import Counter
from pathlib import Path
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from runner.errors import UsageError
from runner.profile import (
    FILE_SEND_METHODS, MESSAGE_METHODS, ORIGINAL_METHOD_OF, UDP_METHODS, Experiment, Profile,
    format_size,
)

NAMESPACE_TRANSPORTS = ("veth", "udp-forward")
UDP_HEADERS = 28  # IPv4 (20) + UDP (8)
SOCKPERF_MAX = 65000  # sockperf's largest message
ROOT_REASON = "network namespaces need root (CAP_SYS_ADMIN)"


@dataclass(frozen=True)
class Cell:
    kind: str  # copybench | peer:iperf3 | peer:sockperf | original:S1..S3
    command: str  # send | copy
    method: str
    transport: str | None  # loopback | veth | udp-forward; None for file->file copy
    placement: str
    mode: str | None  # stream | pingpong; None for copy
    size: int
    threads: int
    cache: str | None
    duration_s: float
    warmup_s: float
    verify: str
    fields: int
    mtu: int | None
    twin: int = 0  # the A/A control's second copy of a method (part of the identity when > 0)
    # not part of the identity:
    experiment: str = field(default="", compare=False)
    timeout_s: float | None = field(default=None, compare=False)
    dir: str | None = field(default=None, compare=False)
    perf: bool = field(default=False, compare=False)
    perf_trials: int = field(default=1, compare=False)
    block: str = field(default="", compare=False)  # the block design's block id
    # an original program's cell: the copybench cell whose block it joins (its own window is
    # whole seconds, so its factors alone would put it in a block of its own) ...
    block_as: str = field(default="", compare=False)
    # ... and the last round it runs in (0: every round of its block)
    rounds_cap: int = field(default=0, compare=False)

    def factors(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("experiment", "timeout_s", "dir", "perf", "perf_trials", "block",
                  "rounds_cap"):
            d.pop(k)
        if not d["block_as"]:  # an original program's cell is the one beside its copybench
            d.pop("block_as")  # cell: two copybench cells never share one
        if not d["twin"]:  # cells without a twin keep the ids they had before twins existed
            d.pop("twin")
        return d

    @property
    def id(self) -> str:
        blob = json.dumps(self.factors(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    @property
    def protocol(self) -> str:
        return "udp" if self.transport == "udp-forward" else "tcp"

    @property
    def needs_namespaces(self) -> bool:
        return self.transport in NAMESPACE_TRANSPORTS

    @property
    def has_sink(self) -> bool:
        return self.command == "send" and self.transport != "udp-forward"

    @property
    def is_original(self) -> bool:
        return self.kind.startswith("original:")

    def label(self) -> str:
        parts = [self.method if self.kind == "copybench" or self.is_original else self.kind,
                 format_size(self.size)]
        if self.command == "send":
            parts += [self.transport or "", self.mode or ""]
        else:
            parts.append("copy")
        parts.append(self.placement)
        if self.threads != 1:
            parts.append(f"{self.threads}t")
        if self.cache:
            parts.append(self.cache)
        if self.twin:
            parts.append(f"twin {self.twin}")
        return " ".join(parts)

    def timeout(self) -> float:
        if self.timeout_s:
            return self.timeout_s
        return 30.0 + 2 * (self.duration_s + self.warmup_s) + self.size / 50e6

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Cell":
        return cls(**d)


@dataclass(frozen=True)
class Trial:
    cell: str
    repetition: int  # 1..max (the round, in the block design); 0 = a profiled trial
    profile_index: int = 1  # which profiled trial of the cell (perf_trials > 1)

    @property
    def id(self) -> str:
        if self.repetition == 0:
            return f"{self.cell}-p" + (str(self.profile_index) if self.profile_index > 1 else "")
        return f"{self.cell}-{self.repetition}"

    @staticmethod
    def parse(trial_id: str) -> "Trial":
        cell, rep = trial_id.rsplit("-", 1)
        if rep.startswith("p"):
            return Trial(cell, 0, int(rep[1:] or 1))
        return Trial(cell, int(rep))


@dataclass
class Capabilities:
    """What the machine offers; decides which cells are valid."""

    methods: tuple[str, ...] | None = None  # from `copybench methods --json`; None = all
    root: bool = True
    cpus: int = 2
    peers: dict[str, bool] = field(default_factory=dict)
    perf: bool = True
    perf_why: str = ""

    @classmethod
    def detect(cls, methods: tuple[str, ...] | None) -> "Capabilities":
        from runner.perfprof import available
        from runner.placement import online_cpus
        from runner.netns import can_create_netns
        perf, why = available()
        return cls(methods=methods, root=can_create_netns(), cpus=len(online_cpus()),
                   peers={p: shutil.which(p) is not None for p in ("iperf3", "sockperf")},
                   perf=perf, perf_why=why)


@dataclass
class Plan:
    profile: str
    seed: int
    cells: dict[str, Cell]
    skipped: dict[str, int]  # reason -> number of cells
    notes: list[str]
    rounds: list[list[str]]  # fixed rounds (1..min), trial ids in run order
    rep_min: int
    rep_max: int
    blocks: dict[str, Any] | None = None  # the block design: block id -> Block as JSON
    design: dict[str, Any] | None = None  # the profile's [design], as planned

    @property
    def fixed_trials(self) -> int:
        return sum(len(r) for r in self.rounds)

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "seed": self.seed,
            "repetitions": {"min": self.rep_min, "max": self.rep_max},
            "cells": {cid: c.to_json() for cid, c in self.cells.items()},
            "skipped": self.skipped,
            "notes": self.notes,
            "rounds": self.rounds,
            **({"order": "round r = shuffle(sorted ids, random.Random(f'{seed}:{r}')); rounds "
                         "after min hold only cells whose CI half-width is above the target"}
               if self.blocks is None else
               {"order": "round r = the blocks with at least r planned rounds in "
                         "shuffled order (random.Random(f'{seed}:{r}')), each block's cells "
                         "back to back: odd r shuffled (random.Random(f'{seed}:{r}:{block}')), "
                         "even r the order of round r-1 reversed; a cell with a rounds cap "
                         "(an original program) sits out the rounds after it",
                "design": self.design, "blocks": self.blocks}),
        }


def _skip(skipped: Counter[str], reason: str) -> None:
    skipped[reason] += 1


def expand(profile: Profile, caps: Capabilities,
           sources: dict[str, list[Experiment]] | None = None
           ) -> tuple[dict[str, Cell], Counter[str]]:
    """Every experiment's factorial, filtered to valid cells (deduplicated by id). With
    ``sources``, it also collects, per cell id, the experiments that listed the cell."""
    cells: dict[str, Cell] = {}
    skipped: Counter[str] = Counter()
    for exp in profile.experiments:
        for cell in _expand_experiment(profile, exp, caps, skipped):
            old = cells.get(cell.id)
            if sources is not None:
                sources.setdefault(cell.id, []).append(exp)
            if old is None:
                cells[cell.id] = cell
            elif cell.perf and (not old.perf or cell.perf_trials > old.perf_trials):
                cells[cell.id] = Cell(**{**asdict(old), "perf": True,
                                         "perf_trials": max(cell.perf_trials,
                                                            old.perf_trials if old.perf else 1)})
    return cells, skipped


def _expand_experiment(profile: Profile, exp: Experiment, caps: Capabilities,
                       skipped: Counter[str]) -> Iterable[Cell]:
    udp_max = profile.topology.udp_mtu - UDP_HEADERS
    peer_keys: set[tuple[Any, ...]] = set()
    for transport in exp.transports:
        if transport in NAMESPACE_TRANSPORTS and not caps.root:
            n = (len(exp.methods) * len(exp.sizes) * len(exp.threads) * len(exp.placements)
                 * len(exp.modes) * len(exp.caches))
            skipped[f"{transport}: {ROOT_REASON}"] += n
            continue
        for method in exp.methods:
            is_file = exp.command == "copy" or method in FILE_SEND_METHODS
            for mode in exp.modes:
                for size in exp.sizes:
                    for threads in exp.threads:
                        for placement in exp.placements:
                            for cache in (exp.caches if is_file else (None,)):
                                reason = _invalid(exp, transport, method, mode, size, threads,
                                                  placement, is_file, caps, udp_max)
                                if reason:
                                    _skip(skipped, reason)
                                    continue
                                mtu = (profile.topology.veth_mtu if transport == "veth" else
                                       profile.topology.udp_mtu if transport == "udp-forward"
                                       else None)
                                cell = Cell(
                                    kind="copybench", command=exp.command, method=method,
                                    transport=None if exp.command == "copy" else transport,
                                    placement=placement,
                                    mode=mode if exp.command == "send" else None,
                                    size=size, threads=threads, cache=cache,
                                    duration_s=exp.duration_s, warmup_s=exp.warmup_s,
                                    verify=exp.verify if transport != "udp-forward" else "off",
                                    fields=exp.fields, mtu=mtu, experiment=exp.name,
                                    timeout_s=exp.timeout_s, dir=exp.dir, perf=exp.perf,
                                    perf_trials=exp.perf_trials)
                                yield cell
                                if exp.twin and method == exp.methods[0]:
                                    yield Cell(**{**asdict(cell), "twin": 1, "perf": False})
                                if exp.peers and exp.command == "send" and not is_file:
                                    key = (transport, placement, mode, size, threads, mtu)
                                    if key not in peer_keys:
                                        peer_keys.add(key)
                                        yield from _peer_cells(cell, caps, skipped)
                                yield from _original_cells(exp, cell, skipped)


def _invalid(exp: Experiment, transport: str, method: str, mode: str, size: int, threads: int,
             placement: str, is_file: bool, caps: Capabilities, udp_max: int) -> str | None:
    if caps.methods is not None and method not in caps.methods:
        return f"{method}: not built into this copybench (see `copybench methods`)"
    if placement == "cross-core" and caps.cpus < 2:
        return "cross-core: the machine has one CPU"
    if exp.command == "copy":
        return None
    if is_file and mode == "pingpong":
        return "pingpong: message methods only"
    if is_file and transport == "udp-forward":
        return "udp-forward: message methods only (file methods are TCP)"
    if transport == "udp-forward":
        if method not in UDP_METHODS:
            return f"udp-forward: {method} is TCP only (UDP methods: {', '.join(UDP_METHODS)})"
        if mode == "pingpong":
            return "udp-forward: stream only (nothing answers a pingpong)"
        if placement == "cross-core":
            return "udp-forward: no receiver, so cross-core is the same as same-core"
        if size > udp_max:
            return (f"udp-forward: sizes above {udp_max} B would be fragmented at MTU "
                    f"{udp_max + UDP_HEADERS} (fragmentation copies)")
        if threads != 1:
            return "udp-forward: one sender thread"
    if method in MESSAGE_METHODS and mode == "pingpong" and threads != 1:
        return "pingpong: one connection"
    return None


def _peer_cells(cell: Cell, caps: Capabilities, skipped: Counter[str]) -> Iterable[Cell]:
    base = {**asdict(cell), "method": "", "perf": False, "cache": None,
            "experiment": f"{cell.experiment}:peers", "verify": "off", "fields": 1}
    if cell.transport == "udp-forward":
        _skip(skipped, "peers: not run on udp-forward (no receiver)")
        return
    if cell.mode == "stream":
        if not caps.peers.get("iperf3"):
            _skip(skipped, "peer:iperf3: iperf3 is not installed")
            return
        yield Cell(**{**base, "kind": "peer:iperf3", "method": "iperf3"})
    else:
        if not caps.peers.get("sockperf"):
            _skip(skipped, "peer:sockperf: sockperf is not installed")
            return
        if cell.size > SOCKPERF_MAX or cell.size < 14:
            _skip(skipped, f"peer:sockperf: message sizes 14 to {SOCKPERF_MAX} B only")
            return
        yield Cell(**{**base, "kind": "peer:sockperf", "method": "sockperf"})


#: their programs take the window in whole seconds; S3's client stops when the tv_sec
#: difference reaches it (between duration - 1 and duration s), so S3 gets at least 2
ORIGINAL_MIN_WINDOW_S = {"S1": 1, "S2": 1, "S3": 2}


def original_window(source: str, window_s: float) -> int:
    import math
    return max(ORIGINAL_MIN_WINDOW_S[source], math.ceil(window_s - 1e-9))


def _original_cells(exp: Experiment, cell: Cell, skipped: Counter[str]) -> Iterable[Cell]:
    """The reports' own programs beside a copybench cell, in its block (``originals``)."""
    from runner.profile import ORIGINAL_METHOD_OF
    theirs = ORIGINAL_METHOD_OF.get(cell.method)
    if not exp.originals or theirs is None or cell.mode != "stream":
        return
    from runner.originals.execute import MAX_DURATION_S, MAX_SIZE, TRANSPORTS
    for src in exp.originals:
        why = (f"transport {cell.transport} (their programs run on "
               f"{' or '.join(TRANSPORTS)})" if cell.transport not in TRANSPORTS else
               "sizes that are a multiple of 8 only (8 fields)" if cell.size % 8 else
               f"sizes up to {format_size(MAX_SIZE)}" if cell.size > MAX_SIZE else
               f"windows up to {MAX_DURATION_S} s" if original_window(src, cell.duration_s)
               > MAX_DURATION_S else None)
        if why:
            _skip(skipped, f"original:{src}: {why}")
            continue
        yield Cell(**{**asdict(cell), "kind": f"original:{src}", "method": f"{src}:{theirs}",
                      "cache": None, "duration_s": float(original_window(src, cell.duration_s)),
                      "warmup_s": 0.0, "verify": "off", "fields": 8, "perf": False,
                      "perf_trials": 1, "dir": None, "timeout_s": None,
                      "experiment": f"{exp.name}:originals", "block_as": cell.id,
                      "rounds_cap": exp.originals_rounds})


def round_order(ids: Iterable[str], seed: int, round_no: int) -> list[str]:
    order = sorted(ids)
    random.Random(f"{seed}:{round_no}").shuffle(order)
    return order


def make(profile: Profile, caps: Capabilities, seed: int | None = None,
         rehearsal: bool = False) -> Plan:
    seed = profile.seed if seed is None else seed
    sources: dict[str, list[Experiment]] = {}
    cells, skipped = expand(profile, caps, sources)
    notes = []
    root_skips = {r.split(":")[0]: n for r, n in skipped.items() if r.endswith(ROOT_REASON)}
    if root_skips:
        what = " and ".join(f"{n} {t}" for t, n in sorted(root_skips.items()))
        notes.append(f"not root: skipping {what} cell(s): {ROOT_REASON} (run as root to "
                     "include them); loopback and file cells run")
    for reason, n in sorted(skipped.items()):
        if not reason.endswith(ROOT_REASON):
            notes.append(f"skipped {n} cell(s): {reason}")
    if not caps.perf and any(c.perf for c in cells.values()):
        notes.append(f"CPU profiles skipped ({caps.perf_why})")
        cells = {cid: Cell(**{**asdict(c), "perf": False}) for cid, c in cells.items()}
    if profile.design is not None:
        return _make_blocks(profile, seed, cells, sources, skipped, notes, rehearsal)
    if rehearsal:
        raise UsageError(f"--rehearsal: profile {profile.name} has no [design] (block design)")
    rounds = []
    for r in range(1, profile.repetitions.min + 1):
        ids = [Trial(cid, r).id for cid in cells]
        if r == 1:
            ids += _profiled_ids(cells)
        rounds.append(round_order(ids, seed, r))
    return Plan(profile=profile.name, seed=seed, cells=cells, skipped=dict(skipped),
                notes=notes, rounds=rounds, rep_min=profile.repetitions.min,
                rep_max=profile.repetitions.max)


def _profiled_ids(cells: dict[str, Cell]) -> list[str]:
    return [Trial(cid, 0, k).id for cid, c in cells.items() if c.perf
            for k in range(1, c.perf_trials + 1)]


class PlanError(UsageError):
    """A block design whose decision rules cannot be met (a strict profile refuses to run)."""


def noise_path(profile: Profile) -> Path | None:
    """The profile's noise model: relative to the profile file, else to runner/profiles/."""
    from runner.profile import PROFILE_DIR
    if not profile.design or not profile.design.noise:
        return None
    given = Path(profile.design.noise)
    for base in (Path(profile.path).parent, PROFILE_DIR):
        cand = given if given.is_absolute() else base / given
        if cand.is_file():
            return cand
    return None


#: a rehearsal runs this share of each block's planned rounds, at least one; the A/A control's
#: block keeps two (so the paired statistics run) and profiled cells two profiled trials
REHEARSAL_SHARE = 0.1


def _make_blocks(profile: Profile, seed: int, cells: dict[str, Cell],
                 sources: dict[str, list[Experiment]], skipped: Counter[str],
                 notes: list[str], rehearsal: bool = False) -> Plan:
    from runner import design as D
    from runner.profile import PURPOSES
    des = profile.design
    assert des is not None
    path = noise_path(profile)
    if des.noise and path is None:
        notes.append(f"noise model {des.noise!r} not found: every block assumes sd "
                     f"{D.FALLBACK_SD} (run python -m runner pilot to measure this machine)")
    noise = D.Noise.load(path) if path else D.Noise([], "none")
    keys_of = {cid: sorted({D.block_key(c.factors(), ("threads",) if e.pair_threads else ())
                            for e in sources.get(cid, [])} or {D.block_key(c.factors())})
               for cid, c in cells.items() if not c.block_as}
    for cid, c in cells.items():  # an original program joins its copybench cell's block
        if c.block_as:
            keys_of[cid] = keys_of[c.block_as]
    groups = D.group(keys_of)
    block_of = {cid: bid for bid, ids in groups.items() for cid in ids}
    blocks: list[D.Block] = []
    for key, ids in sorted(groups.items()):
        # the block's purpose, claims, family and margins: from the experiments that list its
        # copybench cells (an original program's experiment lists them too)
        exps = [e for cid in ids if not cells[cid].block_as for e in sources.get(cid, [])]
        purpose = min((e.purpose for e in exps), key=PURPOSES.index, default="descriptive")
        first = cells[min(ids, key=lambda c: (cells[c].kind != "copybench", c))]
        kind = D.cell_kind(first.mode, first.command, first.cache)
        sd, why = noise.sd(kind, first.placement, first.duration_s)
        margins = [e.margin for e in exps if e.margin is not None]
        target = des.descriptive_target if purpose == "descriptive" else des.target
        threads = sorted({cells[c].threads for c in ids})
        label = " ".join(x for x in (first.transport or "file→file", first.placement,
                                     first.mode or "copy", format_size(first.size),
                                     "/".join(map(str, threads)) + "t" if threads != [1] else "",
                                     first.cache or "") if x)
        blocks.append(D.Block(
            id=key, label=label, cells=sorted(ids), purpose=purpose,
            claims=sorted({c for e in exps for c in e.claims}),
            family=max((e.family for e in exps), default=1),
            margin=min(margins) if margins else None, kind=kind,
            placement=first.placement, window_s=first.duration_s, sd=sd, sd_source=why,
            seconds_per_round=sum(trial_seconds(cells[c]) for c in ids), target=target,
            caps={c: cells[c].rounds_cap for c in ids if cells[c].rounds_cap},
            cell_seconds={c: trial_seconds(cells[c]) for c in ids if cells[c].rounds_cap}))
    cells = {cid: Cell(**{**asdict(c), "block": block_of[cid]}) for cid, c in cells.items()}
    singles = _profiled_ids(cells)
    fixed = sum(trial_seconds(cells[Trial.parse(t).cell], True) for t in singles)
    notes += D.plan_rounds(blocks, des, profile.budget_s, fixed)
    bad = D.unreachable(blocks, des)
    if bad:
        msg = (f"{len(bad)} decision rule(s) cannot be met at the planned rounds: "
               + "; ".join(bad[:5]) + (" …" if len(bad) > 5 else ""))
        if des.strict and not rehearsal:
            raise PlanError(f"profile {profile.name}: {msg} (raise the budget or "
                            "rounds_max, or lengthen the windows)")
        notes.append("warning: " + msg)
    if rehearsal:
        for b in blocks:
            keep = 2 if "AA" in b.claims else 1
            b.rounds = max(keep, round(b.rounds * REHEARSAL_SHARE))
            b.expected_half_width = D.half_width(b.sd, b.rounds, des.confidence, b.family)
        cells = {cid: Cell(**{**asdict(c), "perf_trials": min(c.perf_trials, 2)})
                 for cid, c in cells.items()}
        singles = _profiled_ids(cells)
        notes.append(f"rehearsal: every block runs about {REHEARSAL_SHARE:.0%} of its planned "
                     "rounds, at least one (the A/A block two), and profiled cells two profiled "
                     "trials: a check that the pipeline and the book work on this plan, not a "
                     "result")
    n_rounds = max((b.rounds for b in blocks), default=0)
    rounds = [D.round_order(blocks, seed, r, singles if r == 1 else None)
              for r in range(1, n_rounds + 1)]
    design = {**asdict(des), "noise_file": str(path) if path else None,
              "noise_source": noise.source, "rehearsal": rehearsal}
    return Plan(profile=profile.name, seed=seed, cells=cells, skipped=dict(skipped),
                notes=notes, rounds=rounds, rep_min=n_rounds, rep_max=n_rounds,
                blocks={b.id: b.to_json() for b in blocks}, design=design)


def from_json(d: dict[str, Any]) -> Plan:
    return Plan(profile=d["profile"], seed=d["seed"],
                cells={k: Cell.from_json(v) for k, v in d["cells"].items()},
                skipped=d["skipped"], notes=d["notes"], rounds=d["rounds"],
                rep_min=d["repetitions"]["min"], rep_max=d["repetitions"]["max"],
                blocks=d.get("blocks"), design=d.get("design"))


# --- time estimate -------------------------------------------------------------------

# measured on the 2-CPU reference VM: process start, sink ready, teardown
# the reports' own programs (runner/originals: fresh namespaces, their server up, their client
# run, all stopped): 1.07 s for a 1 s window (S1, S2); S3's client stops when the tv_sec
# difference reaches its 2 s, 1.7-2.0 s after it starts
OVERHEAD_S = {"copybench": 0.15, "peer:iperf3": 0.1, "peer:sockperf": 2.4,
              "original:S1": 0.1, "original:S2": 0.1, "original:S3": 0.0}
PERF_EXTRA_S = 1.5  # perf record start-up, perf report
# measured: vmsplice sets up a ring of page-aligned buffers (up to 256 MiB): 0.1 s (256 KiB
# messages) to 0.7 s (64 B) more than sendmsg per trial here
METHOD_EXTRA_S = {"vmsplice": 0.45}
FILE_WRITE_BPS = 1.0e9  # generating the source file
COLD_READ_BPS = 1.0e9  # re-reading a dropped file


def trial_seconds(cell: Cell, profiled: bool = False) -> float:
    t = OVERHEAD_S[cell.kind]
    if cell.kind == "peer:iperf3":
        import math
        t += max(1, math.ceil(cell.duration_s)) + math.ceil(cell.warmup_s)
    elif cell.kind == "peer:sockperf":
        import math
        t += max(1, math.ceil(cell.duration_s + cell.warmup_s))
    else:
        t += cell.duration_s + cell.warmup_s + METHOD_EXTRA_S.get(cell.method, 0.0)
    if cell.cache is not None:
        t += cell.size / FILE_WRITE_BPS
    if profiled:
        t += PERF_EXTRA_S
    return t


@dataclass(frozen=True)
class Estimate:
    trials_min: int
    trials_max: int
    seconds_min: float
    seconds_max: float
    seconds_expected: float  # min reps plus half of the adaptive headroom


def estimate(plan: Plan, setup_s: float = 0.0) -> Estimate:
    perf = sum(trial_seconds(c, profiled=True) * c.perf_trials
               for c in plan.cells.values() if c.perf)
    n_perf = sum(c.perf_trials for c in plan.cells.values() if c.perf)
    if plan.blocks is not None:  # every round is planned: the estimate is the plan's sum
        secs = perf + setup_s + sum(trial_seconds(plan.cells[Trial.parse(t).cell])
                                    for rnd in plan.rounds for t in rnd
                                    if Trial.parse(t).repetition > 0)
        trials = sum(len(rnd) for rnd in plan.rounds)
        return Estimate(trials, trials, secs, secs, secs)
    per_rep = sum(trial_seconds(c) for c in plan.cells.values())
    n = len(plan.cells)
    lo = per_rep * plan.rep_min + perf + setup_s
    hi = per_rep * plan.rep_max + perf + setup_s
    return Estimate(trials_min=n * plan.rep_min + n_perf, trials_max=n * plan.rep_max + n_perf,
                    seconds_min=lo, seconds_max=hi, seconds_expected=lo + 0.5 * (hi - lo))


def summary_rows(plan: Plan) -> list[tuple[str, int, float]]:
    """(experiment/kind, cells, seconds per repetition) for the plan printout."""
    groups: dict[str, list[Cell]] = {}
    for c in plan.cells.values():
        groups.setdefault(f"{c.experiment} [{c.kind}]", []).append(c)
    return [(k, len(v), sum(trial_seconds(c) for c in v)) for k, v in sorted(groups.items())]


def _block_seconds(b: dict[str, Any]) -> float:
    """A planned block's time, from its JSON (plans made before caps existed have none)."""
    from runner.design import block_seconds
    return block_seconds(b["rounds"], b["seconds_per_round"], b.get("caps") or {},
                         b.get("cell_seconds") or {})


def block_rows(plan: Plan) -> list[dict[str, Any]]:
    """The block design's plan, one row per block, claims first (for the printout)."""
    if plan.blocks is None:
        return []
    from runner.profile import PURPOSES
    rows = sorted(plan.blocks.values(),
                  key=lambda b: (PURPOSES.index(b["purpose"]), b["claims"], b["label"]))
    return [{"block": b["label"], "purpose": b["purpose"],
             "claims": ",".join(b["claims"]) or "—", "cells": len(b["cells"]),
             "rounds": b["rounds"], "sd": b["sd"],
             "expected ±": b["expected_half_width"], "target ±": b["target"],
             "minutes": _block_seconds(b) / 60,
             "note": b["note"]} for b in rows]

"""The sweep's core types: a :class:`Cell` (one configuration: method, size, threads,
placement, transport, mode, cache, kind, ...; its id is a stable hash of the factors that
affect the measurement), a :class:`Trial` (one run of a cell: a repetition, or a profiled
trial) and a :class:`Plan` (the cells and the rounds they run in, as ``plan.json`` keeps it).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from runner.plan.profile import format_size

NAMESPACE_TRANSPORTS = ("veth", "udp-forward")


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
    sockbuf: int = 0  # fixed socket buffers (bytes; part of the identity when > 0)
    # copybench's sink kept across trials ("kept"; part of the identity when set) instead of
    # a fresh one per trial ("")
    sink: str = ""
    # copybench send --alternate: the method of the window's odd slices (part of the identity
    # when set; "": one method)
    alternate: str = ""
    # an A/A control's block of its own (the experiment's name; part of the identity and of
    # the block key when set, so its cells stand apart from the same configuration's others)
    group: str = ""
    # copybench send --share-time: the method of the trial's second connection, against which
    # the cell's method is measured in the same trial (part of the identity when set; "":
    # today's procedure, one method per trial)
    share_time: str = ""
    # copybench send --recv-size: the sink's bytes per recv() on a TCP stream (part of the
    # identity when > 0; 0: the sink's default, 64 KiB)
    recv_size: int = 0
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
        if not d["sockbuf"]:  # autotuned buffers: the ids they had before fixed ones existed
            d.pop("sockbuf")
        for k in ("sink", "alternate", "group", "share_time", "recv_size"):  # the ids they
            if not d[k]:                                       # had before these options
                d.pop(k)
        return d

    @property
    def id(self) -> str:
        blob = json.dumps(self.factors(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    @property
    def protocol(self) -> str:
        return "udp" if self.transport == "udp-forward" else "tcp"

    @property
    def has_sink(self) -> bool:
        return self.command == "send" and self.transport != "udp-forward"

    @property
    def shares_time(self) -> bool:
        """A shared-time trial (copybench send --share-time): two methods' measurements."""
        return bool(self.share_time)

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
        if self.group:
            parts.append("own block")
        if self.sockbuf:
            parts.append(f"sockbuf {format_size(self.sockbuf)}")
        if self.alternate:
            parts.append(f"alternating with {self.alternate}")
        if self.share_time:
            parts.append(f"sharing time with {self.share_time}")
        if self.sink:
            parts.append(f"sink {self.sink}")
        if self.recv_size:
            parts.append(f"recv {format_size(self.recv_size)}")
        return " ".join(parts)

    def timeout(self) -> float:
        if self.timeout_s:
            return self.timeout_s
        return 30.0 + 2 * (self.duration_s + self.warmup_s) + self.size / 50e6

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("sockbuf", "sink", "alternate", "group", "share_time", "recv_size"):  # plans without
            if not d[k]:                                  # these controls read as before them
                d.pop(k)
        return d

    @property
    def takes_recv_size(self) -> bool:
        """A copybench TCP stream trial with a sink: its receiver's bytes per recv() are a
        setting (copybench send --recv-size)."""
        return (self.kind == "copybench" and self.has_sink and self.protocol == "tcp"
                and self.mode == "stream" and not self.shares_time)

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
    # two hosts (the remote transport): what that changed in the profile's design
    hosts: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "seed": self.seed,
            "repetitions": {"min": self.rep_min, "max": self.rep_max},
            "cells": {cid: c.to_json() for cid, c in self.cells.items()},
            "skipped": self.skipped,
            "notes": self.notes,
            **({"hosts": self.hosts} if self.hosts is not None else {}),
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

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Plan":
        """A plan from its ``plan.json``."""
        return cls(profile=d["profile"], seed=d["seed"],
                   cells={k: Cell.from_json(v) for k, v in d["cells"].items()},
                   skipped=d["skipped"], notes=d["notes"], rounds=d["rounds"],
                   rep_min=d["repetitions"]["min"], rep_max=d["repetitions"]["max"],
                   blocks=d.get("blocks"), design=d.get("design"), hosts=d.get("hosts"))

"""The block design: what is compared runs together, and each comparison gets the rounds it
needs, planned before anything runs.

* A *block* is every cell of one configuration (transport, placement, mode, size, threads,
  cache, window, ...) that differs only in the method: copybench's methods, their peer tools
  and, in the A/A control, a twin of one method. Cells listed by several experiments are one
  cell, so a configuration is always one block.
* A *round* runs every block that still needs rounds, in shuffled block order, and each
  block's cells back to back in shuffled order: the methods of a block see the same host
  load, so their per-round ratios are paired (Kalibera & Jones, ISMM 2013: randomized
  multiple interleaved trials).
* The rounds a block needs come from a *noise model* (:class:`Noise`, measured by a pilot:
  ``python -m runner noise RUN``): the standard deviation of the per-round log ratio of two
  methods, per kind of cell and window. A block needs the smallest n with
  ``t(1 - a/(2m), n-1) * sd / sqrt(n) <= ln(1 + target)`` (m = the decision family's size),
  within ``rounds_min..rounds_max``. The budget serves claim blocks first, then the A/A
  control, then the questions, then descriptive blocks; what cannot reach its target in the
  budget is said before the run starts.
* With the sequential top-up (``[design] sequential``; :mod:`runner.plan.topup`), a block with
  declared comparisons is planned to its first look only, and gets more rounds, one look at
  a time, while a comparison is undecided; every other block keeps its planned rounds.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable


from decision import interval as I
from decision import sequential as sq
from decision import sesoi
from decision.band import SESOI
from rundir import utf8 as rundir_text
from runner.host.errors import ProfileError
from runner.plan.profile import PURPOSES, Design

#: used when the noise model has no entry for a kind of cell: large, so the plan is cautious
FALLBACK_SD = 0.15
#: the factors that may differ inside one block (a shared-time trial of a configuration joins
#: its block: the two designs of one comparison run in the same rounds, back to back)
IN_BLOCK = ("kind", "method", "twin", "verify", "fields", "share_time")


@dataclass(frozen=True)
class NoiseEntry:
    kind: str  # stream | pingpong | file
    placement: str
    window_s: float
    log_ratio_sd: float  # sd of the per-round log ratio of two methods of one block
    trial_cv: float | None = None  # per-trial coefficient of variation (one method)
    rounds: int | None = None


@dataclass
class Noise:
    """The noise model: per (kind of cell, placement, window), the paired log-ratio sd."""

    entries: list[NoiseEntry]
    source: str = ""

    @classmethod
    def load(cls, path: Path) -> "Noise":
        try:
            doc = rundir_text.toml_loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ProfileError(str(path), "-", f"cannot read the noise model: {e}") from None
        entries = []
        for i, t in enumerate(doc.get("sd", [])):
            try:
                entries.append(NoiseEntry(kind=str(t["kind"]), placement=str(t["placement"]),
                                          window_s=float(t["window_s"]),
                                          log_ratio_sd=float(t["log_ratio_sd"]),
                                          trial_cv=t.get("trial_cv"), rounds=t.get("rounds")))
            except (KeyError, TypeError, ValueError) as e:
                raise ProfileError(str(path), f"sd[{i}]", f"bad entry ({e}); needs kind, "
                                   "placement, window_s, log_ratio_sd") from None
        return cls(entries, str(doc.get("meta", {}).get("run", path.name)))

    def sd(self, kind: str, placement: str, window_s: float) -> tuple[float, str]:
        """The sd for a kind of cell at a window (nearest measured window, same kind and
        placement), and where it came from."""
        same = [e for e in self.entries if e.kind == kind and e.placement == placement]
        if not same:
            same = [e for e in self.entries if e.kind == kind]
        if not same:
            return FALLBACK_SD, f"no estimate for {kind}: assumed {FALLBACK_SD}"
        best = min(same, key=lambda e: (abs(math.log(e.window_s / window_s)), -e.window_s))
        return best.log_ratio_sd, (f"{best.kind} {best.placement} {best.window_s:g} s "
                                   f"window (pilot)")


@dataclass
class Block:
    id: str
    label: str
    cells: list[str]
    purpose: str
    claims: list[str]
    family: int
    margin: float | None
    kind: str
    placement: str
    window_s: float
    sd: float
    sd_source: str
    seconds_per_round: float
    target: float
    rounds: int = 0
    expected_half_width: float = math.nan  # relative, at the planned rounds
    reaches_target: bool = False
    note: str = ""
    # cells that run in rounds 1..N only (an original program's ``originals_rounds``) and
    # the seconds one trial of each takes; seconds_per_round counts every cell
    caps: dict[str, int] = field(default_factory=dict)
    cell_seconds: dict[str, float] = field(default_factory=dict)
    # the sequential top-up: looks, family, comparisons (runner.plan.topup); empty: fixed rounds
    sequential: dict[str, Any] = field(default_factory=dict)
    # claims of the block this machine cannot test (decision.families.untestable): claim ->
    # why; their comparisons are never topped up
    untestable: dict[str, str] = field(default_factory=dict)
    # an experiment's own target (``target`` in the profile): the rounds its comparisons
    # need at its family, which the budget never cuts; and what they are for: experiment,
    # target, family, expected half-width at those rounds (empty: none)
    hold: int = 0
    held_by: dict[str, Any] = field(default_factory=dict)

    @property
    def first_look(self) -> int:
        """The rounds a sequential block is planned to (its first look); 0 for the others."""
        return int(self.sequential["looks"][0]) if self.sequential else 0

    def seconds(self, rounds: int) -> float:
        """The block's time for ``rounds`` rounds (capped cells stop at their cap)."""
        return block_seconds(rounds, self.seconds_per_round, self.caps, self.cell_seconds)

    def runs_in(self, cell: str, r: int) -> bool:
        cap = self.caps.get(cell, 0)
        return r <= self.rounds and (not cap or r <= cap)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        if not d["sequential"]:  # plans of the fixed design keep the keys they had
            d.pop("sequential")
        if not d["untestable"]:
            d.pop("untestable")
        if not d["hold"]:  # nor do plans without an experiment's own target
            d.pop("hold")
            d.pop("held_by")
        return d


def block_seconds(rounds: int, seconds_per_round: float, caps: dict[str, int],
                  cell_seconds: dict[str, float]) -> float:
    """A block's time for ``rounds`` rounds: every cell each round, less the rounds a capped
    cell sits out (also read from a plan.json's blocks)."""
    return rounds * seconds_per_round - sum(cell_seconds.get(c, 0.0) * max(0, rounds - cap)
                                            for c, cap in caps.items() if cap)


def block_key(factors: dict[str, Any], also: tuple[str, ...] = ()) -> str:
    """The id of the block a cell belongs to: a hash of the factors its block shares (all
    but method, kind, twin, verify, fields, and ``also``, e.g. threads)."""
    shared = {k: v for k, v in factors.items() if k not in IN_BLOCK and k not in also}
    return hashlib.sha256(json.dumps(shared, sort_keys=True).encode()).hexdigest()[:10]


def group(keys_of: dict[str, list[str]]) -> dict[str, list[str]]:
    """Blocks as connected components: cells that share a key (under any experiment that
    lists them) are in one block. ``keys_of``: cell id -> its keys. Returns block id (the
    smallest key of the component) -> sorted cell ids."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cid, keys in keys_of.items():
        for k in keys:
            a, b = find(f"c:{cid}"), find(f"k:{k}")
            if a != b:
                parent[max(a, b)] = min(a, b)
    comps: dict[str, list[str]] = {}
    for cid, keys in keys_of.items():
        comps.setdefault(find(f"c:{cid}"), []).append(cid)
    out = {}
    for members in comps.values():
        bid = min(k for cid in members for k in keys_of[cid])
        out[bid] = sorted(members)
    return out


def half_width(sd: float, n: int, confidence: float, family: int) -> float:
    """Expected relative CI half-width of a paired ratio after n rounds (t interval on the
    log ratios, Bonferroni over the family)."""
    return math.expm1(I.half_log(sd, n, I.level_of(family, 1 - confidence)))


def expected_half_width(b: Block, design: Design) -> float:
    """The relative CI half-width a block's comparisons are expected to reach: at its planned
    rounds (fixed design), or at its maximum with the last look's repeated-CI quantile (the
    top-up's blocks)."""
    if not b.first_look:
        return half_width(b.sd, b.rounds, design.confidence, b.family)
    looks = sq.Schedule(tuple(b.sequential["looks"]))
    q = sq.quantiles(looks, b.sequential["family"], 1 - design.confidence,
                     design.sequential.spending if design.sequential else sq.POCOCK)[-1]
    return math.expm1(I.half_log(b.sd, looks.rounds_max, quantile=q))


def rounds_needed(sd: float, target: float, confidence: float, family: int, lo: int,
                  hi: int) -> int:
    for n in range(lo, hi + 1):
        if half_width(sd, n, confidence, family) <= target:
            return n
    return hi


def control_rounds(b: Block, design: Design) -> sesoi.ControlRounds:
    """The rounds of the A/A control in block ``b``: the fewest at which its 95 % CI of a true
    ratio of 1 lies inside the claims' band with 80 % probability at the block's noise-model
    sd (decision.sesoi.control_rounds), at most the design's maximum (the top-up's, else
    ``rounds_max``)."""
    most = design.sequential.rounds_max if design.sequential is not None else design.rounds_max
    return sesoi.control_rounds(b.sd, SESOI, most)


def plan_rounds(blocks: list[Block], design: Design, budget_s: float | None,
                fixed_s: float = 0.0) -> list[str]:
    """Give each block its rounds; within the budget, serve purposes in PURPOSES order.
    Returns the notes that say what could not reach its target."""
    def fixed(b: Block) -> int:
        """The rounds a block is planned to whatever its noise: the top-up's blocks their
        first look, and the block of the A/A control (in a design with the top-up) at least
        the control's rounds (:func:`control_rounds`); 0 for the others."""
        aa = control_rounds(b, design).rounds if design.sequential is not None \
            and "AA" in b.claims else 0
        return max(b.first_look, aa)

    def floor(b: Block) -> int:
        if fixed(b):  # never cut
            return fixed(b)
        # an experiment's own target (Block.hold) is never cut either
        return max(b.hold, design.descriptive_rounds_min if b.purpose == "descriptive"
                   else design.rounds_min)

    for b in blocks:
        b.rounds = fixed(b) or rounds_needed(b.sd, b.target, design.confidence, b.family,
                                             floor(b), design.rounds_max)
    notes: list[str] = []
    if budget_s:
        total = fixed_s + sum(b.seconds(b.rounds) for b in blocks)
        # over budget: cut the lowest-priority tier first, toward rounds_min
        for purpose in reversed(PURPOSES):
            if total <= budget_s:
                break
            tier = [b for b in blocks if b.purpose == purpose]
            while total > budget_s and any(b.rounds > floor(b) for b in tier):
                b = max((b for b in tier if b.rounds > floor(b)),
                        key=lambda b: (b.rounds, b.seconds_per_round))
                total -= b.seconds(b.rounds) - b.seconds(b.rounds - 1)
                b.rounds -= 1
        if total > budget_s:
            notes.append(f"the plan needs {total / 60:.0f} min at the minimum rounds per "
                         f"block ({design.rounds_min}; descriptive "
                         f"{design.descriptive_rounds_min}), over the budget of "
                         f"{budget_s / 60:.0f} min")
    for b in blocks:
        b.expected_half_width = expected_half_width(b, design)
        b.reaches_target = b.expected_half_width <= b.target + 1e-12
        if not b.reaches_target and b.purpose != "descriptive":
            most = (f"up to {b.sequential['looks'][-1]} rounds (top-up)" if b.first_look
                    else f"{b.rounds} rounds")
            b.note = (f"cannot reach ±{b.target:.0%} with {most} "
                      f"(expected ±{b.expected_half_width:.1%}; sd {b.sd:.3f})")
    notes += held_notes(blocks)
    missed = [b for b in blocks if b.note]
    if missed:
        notes.append(f"{len(missed)} block(s) of claims, control or questions cannot reach "
                     f"their target in the budget: " + "; ".join(
                         f"{b.label} [{', '.join(b.claims) or b.purpose}]: {b.note}"
                         for b in missed[:8]) + (" …" if len(missed) > 8 else ""))
    return notes


def hold_rounds(sd: float, target: float, confidence: float, family: int,
                design: Design) -> int:
    """The rounds an experiment's own ``target`` needs at the noise model's ``sd`` (its
    family, the design's confidence), at least the fewest a t CI needs (2), at most
    ``rounds_max``: :func:`rounds_needed`, the function every block is planned with."""
    return rounds_needed(sd, target, confidence, family, 2, design.rounds_max)


def held_notes(blocks: Iterable[Block]) -> list[str]:
    """One line per experiment with its own target: the rounds its blocks run and the
    half-width expected there; a block planned by the top-up or the A/A control keeps
    those rounds (the experiment's are then not what it runs)."""
    by: dict[tuple[str, float, int], list[Block]] = {}
    for b in blocks:
        if b.hold:
            h = b.held_by
            by.setdefault((h["experiment"], h["target"], h["family"]), []).append(b)
    out = []
    for (name, target, family), bs in sorted(by.items()):
        parts = []
        for b in sorted(bs, key=lambda b: b.label):
            hw = b.held_by["expected_half_width"]
            runs = "" if b.rounds >= b.hold else (
                f", but it runs {b.rounds} (the top-up's or the A/A control's)")
            parts.append(f"{b.label}: {b.hold} rounds (sd {b.sd:.3f}, expected ±{hw:.1%}"
                         f"{runs})")
        out.append(f"{name}: its own target ±{target:.0%} (family {family}) holds "
                   f"{len(bs)} block(s) at the rounds it needs, never cut by the budget: "
                   + "; ".join(parts))
    return out


def unreachable(blocks: Iterable[Block], design: Design) -> list[str]:
    """Decision rules that cannot be met at the planned rounds: the rule's margin is below
    the CI half-width the block can reach (so 'no difference beyond the margin' could never
    be concluded)."""
    out = []
    for b in blocks:
        at = f"up to {b.sequential['looks'][-1]} rounds" if b.first_look else f"{b.rounds} rounds"
        if b.margin is not None and b.purpose in ("claim", "control") \
                and not b.expected_half_width < b.margin:
            out.append(f"{b.label} [{', '.join(b.claims)}]: margin ±{b.margin:.1%} but the "
                       f"CI half-width at {at} is ±{b.expected_half_width:.1%}")
    return out


def in_block_order(cells: Iterable[str], seed: int, r: int, block: str) -> list[str]:
    """A block's cells in round r, counterbalanced: odd rounds shuffle them
    (``random.Random(f"{seed}:{r}:{block}")``), and each even round runs the round before it
    in reverse, so over every two rounds each cell is as often before as after any other (an
    unbalanced order once put one A/A twin first in all six rounds of a run)."""
    order = sorted(cells)
    first = r if r % 2 else r - 1
    random.Random(f"{seed}:{first}:{block}").shuffle(order)
    return order if r % 2 else order[::-1]


def round_order(blocks: list[Block], seed: int, r: int,
                singles: list[str] | None = None) -> list[str]:
    """Round r: the blocks that still need rounds, shuffled; each block's cells back to back
    in counterbalanced order (:func:`in_block_order`; a cell past its cap sits out);
    ``singles`` (e.g. profiled trials) are shuffled in as blocks of one."""
    rng = random.Random(f"{seed}:{r}")
    units: list[list[str]] = []
    for b in sorted(blocks, key=lambda b: b.id):
        if b.rounds >= r:
            cells = [c for c in in_block_order(b.cells, seed, r, b.id) if b.runs_in(c, r)]
            units.append([f"{cid}-{r}" for cid in cells])
    units += [[t] for t in sorted(singles or [])]
    rng.shuffle(units)
    return [t for u in units for t in u]

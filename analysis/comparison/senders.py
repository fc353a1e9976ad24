"""C13's cells side by side: what each side of sendfile and of read + send spent per GB moved,
which side set the rate, and on which CPU class; and the sender's CPU profile
(``bench/sender-profile``'s committed JSON), read into words.

The CPU figures are each trial's own (getrusage of a side's threads over the window,
``sender_cpu_s_per_gb`` / ``receiver_cpu_s_per_gb`` of the tidy table); the side that set the
rate is :mod:`analysis.statistics.bottleneck`'s reading of the cell's median busy fractions.
C13's cells are the claim rule's own (:func:`analysis.claims.base.rule_cells`: its blocks,
transport, thread count and cache; its methods and size).
"""

from __future__ import annotations

import glob
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import pandas as pd

from analysis.claims import robustness as RB
from analysis.claims.base import rule_cells
from analysis.claims.rules import RULES
from analysis.comparison.machines import label as machine_label
from analysis.loading.run import Run
from analysis.statistics import bottleneck as BN
from analysis.statistics.fmt import fmt_size

#: the claim whose cells are read, and its rule (sendfile / read-write, 100 MB, loopback)
CLAIM = "C13"
RULE = RULES[CLAIM][0]
METHODS = (RULE.numerator, RULE.denominator)
#: the sender profiles committed by bench/sender-profile (relative to the repository root)
PROFILES = "bench/results/sender-profile-*.json"
#: the receive size of a run whose records do not say it
NOT_RECORDED = "not recorded"
#: the table's columns, in order
COLUMNS = ["run", "cpu class", "receive size", "placement", "method", "n", "gbit_per_s",
           "sender_cpu_s_per_gb", "receiver_cpu_s_per_gb", "sender_busy", "receiver_busy",
           "receiver_bytes_per_call", "limit"]


def cells(run: Run) -> pd.DataFrame:
    """The run's measured trials of C13's cells (both placements): the rule's configuration,
    its two methods, its size."""
    d = rule_cells(run, RULE, None)
    d = d[d["method"].isin(METHODS)]
    return d[d["size"].isin(RULE.sizes)] if RULE.sizes else d


def sides(d: pd.DataFrame) -> pd.DataFrame:
    """Per placement and method of C13's trials ``d``: the trials, the median Gbit/s, each
    side's median CPU-seconds per GB and busy fraction, the receiver's median bytes per
    receive call, and the side that set the rate (:func:`bottleneck.cell_limits`)."""
    by = ["placement", "method"]
    cols = [c for c in COLUMNS if c not in ("run", "cpu class", "receive size")]
    if d.empty:
        return pd.DataFrame(columns=cols)
    x = d.copy()
    calls = x["receiver_syscalls"].astype(float)
    x["receiver_bytes_per_call"] = x["receiver_bytes"].astype(float) / calls.where(calls > 0)
    g = x.groupby(by, sort=True)
    med = g[["gbit_per_s", "sender_cpu_s_per_gb", "receiver_cpu_s_per_gb",
             "receiver_bytes_per_call"]].median()
    med["n"] = g.size()
    lim = BN.cell_limits(x, by).set_index(by)
    out = med.join(lim).reset_index()
    return out[cols]


def table(runs: Iterable[Run]) -> pd.DataFrame:
    """:func:`sides` of each run at each receive size it measured (the sink's receive call,
    :mod:`analysis.claims.robustness`), labelled by the run, its CPU class (the manifest's
    CPU count and model) and the receive size, runs in the order given."""
    parts = []
    for run in runs:
        for size in RB.receive_sizes(run):
            s = sides(cells(RB.at_receive_size(run, size)))
            if s.empty:
                continue
            # a run whose records do not say their receive size (its sink's default then,
            # which has changed) is labelled so, not with today's default
            s.insert(0, "receive size", fmt_size(size) if RB.records_receive_size(run)
                     else NOT_RECORDED)
            s.insert(0, "cpu class", machine_label(run))
            s.insert(0, "run", run.run_id)
            parts.append(s)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)


def declares(plan: dict[str, Any] | None, claim: str = CLAIM) -> bool:
    """Whether a run's plan declares a block for ``claim``."""
    blocks = (plan or {}).get("blocks")
    return isinstance(blocks, dict) and any(
        claim in ((b or {}).get("claims") or []) for b in blocks.values() if isinstance(b, dict))


def chosen(ref_dir: Path, ref_plan: dict[str, Any] | None,
           siblings: Sequence[tuple[Path, dict[str, Any] | None]], newest: int = 3) -> list[Path]:
    """The runs the table reads: the reference and the newest runs committed beside it, up to
    ``newest`` in all, of the reference's profile whose plans declare C13 and that were made
    before it (by name: a run's directory begins with its UTC time), oldest first."""
    profile = (ref_plan or {}).get("profile")
    older = [p for p, plan in siblings
             if p.name < ref_dir.name and (plan or {}).get("profile") == profile
             and declares(plan)]
    return sorted(older)[-(newest - 1):] + [ref_dir] if newest > 1 else [ref_dir]


# ------------------------------------------------------------------ the sender profile

class BadProfile(ValueError):
    """A sender-profile JSON that cannot be read: one line naming the file and what is wrong."""


@dataclass(frozen=True)
class Stage:
    stage: str
    share: float
    cpu_s_per_gb: float | None


@dataclass(frozen=True)
class MethodProfile:
    placement: str
    method: str
    samples: int
    rounds: int
    copy_share: float
    stages: tuple[Stage, ...]
    gbit_per_s: float  # the rounds' median (a shared machine's: not a result)
    sender_cpu_s_per_gb: float
    pacing_timer_arms_per_gb: float | None

    def share(self, stage: str) -> float:
        return next((s.share for s in self.stages if s.stage == stage), 0.0)


@dataclass(frozen=True)
class SenderProfile:
    path: Path
    cpu_model: str
    cpus: int | None
    kernel: str
    note: str
    congestion_control: str | None
    size: int
    methods: tuple[MethodProfile, ...]
    what: dict[str, str]  # stage -> what it is
    placed_on: dict[str, dict[str, str]]  # placement -> side ("sender", "sink") -> its CPU list

    def of(self, placement: str, method: str) -> MethodProfile | None:
        return next((m for m in self.methods
                     if m.placement == placement and m.method == method), None)


def _median(v: list[float]) -> float:
    v = sorted(v)
    if not v:
        return math.nan
    h = len(v) // 2
    return v[h] if len(v) % 2 else (v[h - 1] + v[h]) / 2


def _num(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{what} is not a finite number ({x!r})")
    return float(x)


def read_profile(path: str | Path) -> SenderProfile:
    """One committed sender profile; :class:`BadProfile` (one line) when it is missing, not
    JSON, or lacks what the chapter reads."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadProfile(f"{path}: cannot be read as a sender profile "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    try:
        if not isinstance(obj, dict):
            raise ValueError(f"a JSON {type(obj).__name__}, not an object")
        mach, cfg = obj["machine"], obj["config"]
        cpu = mach["cpu"]
        rounds = obj["rounds"]
        if not isinstance(rounds, list):
            raise ValueError("rounds is not a list")
        what = {str(s["stage"]): str(s["what"]) for s in obj["stages"]}
        methods = []
        for s in obj["summary"]:
            pl, me = str(s["placement"]), str(s["method"])
            mine = [r for r in rounds if r.get("placement") == pl and r.get("method") == me]
            if not mine:
                raise ValueError(f"{pl} {me}: no rounds")
            stages = tuple(Stage(str(t["stage"]), _num(t["share"], f"{pl} {me} share"),
                                 None if t.get("cpu_s_per_gb") is None else
                                 _num(t["cpu_s_per_gb"], f"{pl} {me} CPU-s/GB"))
                           for t in s["stages"])
            total = sum(t.share for t in stages)
            if stages and abs(total - 1) > 1e-6:
                raise ValueError(f"{pl} {me}: stage shares add up to {total:.4f}, not 1")
            arms = [r["pacing_timer_arms_per_gb"] for r in mine
                    if r.get("pacing_timer_arms_per_gb") is not None]
            methods.append(MethodProfile(
                pl, me, int(s["samples"]), len(mine), _num(s["copy_share"], "copy_share"),
                stages, _median([_num(r["gbit_per_s"], "gbit_per_s") for r in mine]),
                _median([_num(r["sender_cpu_s_per_gb"], "sender_cpu_s_per_gb") for r in mine]),
                _median([_num(a, "pacing arms") for a in arms]) if arms else None))
        if not methods:
            raise ValueError("its summary is empty")
        return SenderProfile(path, str(cpu["model"]), cpu.get("count"), str(mach["kernel"]),
                             str(obj.get("note") or ""), cfg.get("congestion_control"),
                             int(cfg["size"]), tuple(methods), what,
                             {str(pl): {str(k): str(v) for k, v in sides.items()}
                              for pl, sides in cfg["cpus"].items()})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        kind = f"lacks {exc}" if isinstance(exc, KeyError) else str(exc)
        raise BadProfile(f"{path}: not a sender profile bench/sender-profile writes "
                         f"({kind})") from None


def newest_profile(root: str | Path = ".") -> Path | None:
    """The newest committed sender profile (by name: the name carries its date), or None."""
    found = sorted(glob.glob(str(Path(root) / PROFILES)))
    return Path(found[-1]) if found else None



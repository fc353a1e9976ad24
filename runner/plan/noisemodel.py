"""``python -m runner noise RUN``: the noise model a block design plans with, from a run's own
records (the ``pilot`` profile's, or any block-design run).

For every block with two or more copybench methods and at least three rounds, the per-round
log ratio of each pair of its methods (both measured in the same round, back to back) gives
a standard deviation; pooled (root mean square) per kind of cell (stream, pingpong, file),
placement and window, it is the ``log_ratio_sd`` the planner needs. The per-trial
coefficient of variation of each method is kept beside it, for throughput (or RTT) and for
CPU-seconds per GB on each side, so the book can show both against the window.

A shared-time trial (``procedure = "shared-time"``: two methods in one trial,
:mod:`rundir.sharetime`) is a comparison of its own: its per-round log ratio is its two
methods' rates in the one record, and its sd is pooled apart, as the kind
``stream shared-time`` (:data:`rundir.sharetime.NOISE_KIND`), for the blocks that run the
design.

The quantity itself is :mod:`decision.quantities`' (the analysis reports the same one, from the
same definition); the runner never imports the analysis.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from rundir import records, sharetime
from decision import quantities as Q
from decision.schedule import CONFIDENCE
from runner.plan.blocks import rounds_needed

METRICS: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "primary": Q.primary,
    "sender_cpu": lambda r: Q.cpu_per_gb(r, "sender"),
    "receiver_cpu": lambda r: Q.cpu_per_gb(r, "receiver")}


@dataclass
class Row:
    kind: str
    placement: str
    window_s: float
    metric: str
    log_ratio_sd: float | None  # pooled over the blocks' method pairs
    trial_cv: float | None  # median over the cells
    blocks: int
    rounds: int


def _blocks(recs: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[int, dict[str, Any]]]]:
    """The ok, measured copybench records of block-design runs: block -> cell -> round."""
    by_block: dict[str, dict[str, dict[int, dict[str, Any]]]] = defaultdict(
        lambda: defaultdict(dict))
    for r in recs:
        cfg = r.get("config") or {}
        if r.get("status") != "ok" or (r.get("repetition") or 0) < 1 or not cfg.get("block"):
            continue
        if cfg.get("kind", "copybench") != "copybench" or cfg.get("twin"):
            continue
        if cfg.get("sockbuf") or cfg.get("sink") == "kept" or cfg.get("alternate") \
                or cfg.get("share_time"):
            continue  # fixed buffers, a kept sink, two methods in one trial: controls, not
            # the procedure planned (shared time is pooled apart: _shared)
        # one run's block: the same configuration in another run is another block (its
        # rounds are other rounds)
        by_block[f"{r.get('run_id')}/{cfg['block']}"][r["cell"]][int(r["repetition"])] = r
    return by_block


#: a shared-time method's value of each metric, from its figures in the record
SHARED_METRICS: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "primary": sharetime.rate,
    "sender_cpu": lambda m: sharetime.cpu_per_gb(m, "sender"),
    "receiver_cpu": lambda m: sharetime.cpu_per_gb(m, "receiver")}


def _shared(recs: Iterable[dict[str, Any]]) -> dict[tuple[str, str, float], list[Any]]:
    """The ok shared-time records of block-design runs: (placement, window) -> per shared
    cell (one run's), its two methods' figures by round (``{"a": {round: figures}, "b":
    ...}``)."""
    by_cell: dict[str, dict[str, Any]] = {}
    for r in recs:
        cfg = r.get("config") or {}
        if r.get("status") != "ok" or (r.get("repetition") or 0) < 1 or not cfg.get("block") \
                or sharetime.procedure(r) != sharetime.SHARED or cfg.get("mode") != "stream":
            continue
        pm = sharetime.methods(r)
        if not pm:
            continue
        key = f"{r.get('run_id')}/{r['cell']}"
        c = by_cell.setdefault(key, {"at": (str(cfg.get("placement")),
                                            float(cfg.get("duration_s") or 0)),
                                     "a": {}, "b": {}})
        c["a"][int(r["repetition"])], c["b"][int(r["repetition"])] = pm
    out: dict[tuple[str, str, float], list[Any]] = defaultdict(list)
    for c in by_cell.values():
        out[(sharetime.NOISE_KIND, *c["at"])].append({"a": c["a"], "b": c["b"]})
    return out


def rows(recs: Iterable[dict[str, Any]]) -> list[Row]:
    """The noise quantity (decision.quantities) per kind of cell, placement, window and
    metric, pooled over the blocks; shared-time comparisons apart (:func:`_shared`)."""
    acc: dict[tuple[str, str, float, str], dict[str, Any]] = defaultdict(
        lambda: {"var": [], "cv": [], "blocks": 0, "rounds": 0})
    recs = list(recs)
    for key0, comparisons in _shared(recs).items():
        for mname, fn in SHARED_METRICS.items():
            a = acc[(*key0, mname)]
            for comp in comparisons:  # one pair of methods per shared cell: its own ratio
                Q.accumulate(a, {side: {k: fn(m) for k, m in by_round.items()}
                                 for side, by_round in comp.items()})
    for cells in _blocks(recs).values():
        any_rec = next(iter(next(iter(cells.values())).values()))
        cfg = any_rec["config"]
        kind = Q.cell_kind(cfg.get("mode"), cfg.get("command", "send"), cfg.get("cache"))
        key0 = (kind, str(cfg.get("placement")), float(cfg.get("duration_s") or 0))
        for mname, fn in METRICS.items():
            a = acc[(*key0, mname)]
            values = {cid: {k: fn(r) for k, r in by_round.items()}
                      for cid, by_round in cells.items()}
            Q.accumulate(a, values)
    return [Row(kind, placement, window, mname, Q.pooled_sd(a["var"]),
                statistics.median(a["cv"]) if a["cv"] else None, a["blocks"], a["rounds"])
            for (kind, placement, window, mname), a in sorted(acc.items())]


#: per-trial cost beyond the window (process start, warm-up, sink set-up), measured here
TRIAL_OVERHEAD_S = 0.4


def best_windows(rs: list[Row], target: float = 0.05, family: int = 4,
                 confidence: float = CONFIDENCE) -> dict[tuple[str, str], tuple[float, float]]:
    """The rule that picks a window from a pilot, declared before the pilot runs: per kind of
    cell and placement, the window with the least time to reach ``target`` on a paired
    ratio: rounds_needed(sd(w)) * (w + overhead). Returns (kind, placement) -> (window,
    minutes per two-method comparison)."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for r in rs:
        if r.metric != "primary" or r.log_ratio_sd is None:
            continue
        n = rounds_needed(r.log_ratio_sd, target, confidence, family, 2, 1000)
        cost = n * 2 * (r.window_s + TRIAL_OVERHEAD_S) / 60
        key = (r.kind, r.placement)
        if key not in out or cost < out[key][1]:
            out[key] = (r.window_s, cost)
    return out


#: the first line's start of every noise model :func:`to_toml` writes (``noise --out`` replaces
#: only a file that begins with it: :mod:`rundir.outpath`)
HEADER = "# The noise model of a block design"


def to_toml(rs: list[Row], run_dir: Path | list[Path],
            per_run: dict[str, list[Row]] | None = None) -> str:
    dirs = run_dir if isinstance(run_dir, list) else [run_dir]
    lines = [f"{HEADER} (runner/plan/blocks.py): per kind of cell, placement",
             "# and window, the sd of the per-round log ratio of two methods measured back to",
             f"# back. Made by: python -m runner noise {' '.join(map(str, dirs))}", "",
             "[meta]", f'run = "{" + ".join(d.name for d in dirs)}"', ""]
    for r in rs:
        if r.metric != "primary" or r.log_ratio_sd is None:
            continue
        lines += ["[[sd]]", f'kind = "{r.kind}"', f'placement = "{r.placement}"',
                  f"window_s = {r.window_s:g}", f"log_ratio_sd = {r.log_ratio_sd:.4f}",
                  f"blocks = {r.blocks}"]
        if r.trial_cv is not None:
            lines.append(f"trial_cv = {r.trial_cv:.4f}")
        lines += [f"rounds = {r.rounds}", ""]
    lines.append("# The window with the least time to ±5 % on a paired ratio (family of 4), per kind and")
    lines.append("# placement: rounds_needed(sd) * 2 trials * (window + overhead); windows are compared")
    lines.append("# only within one run (the noise of a day differs from another's)")
    for name, runs_rows in (per_run or {dirs[0].name: rs}).items():
        for (kind, placement), (w, cost) in sorted(best_windows(runs_rows).items()):
            if sum(1 for r in runs_rows if r.kind == kind and r.placement == placement
                   and r.metric == "primary" and r.log_ratio_sd is not None) < 2:
                continue  # one window measured: nothing to choose between
            lines.append(f"#   {name}: {kind:8s} {placement:10s} best window {w:g} s "
                         f"({cost:.1f} min per comparison)")
    lines.append("# CPU-seconds per GB (sender, receiver): the same statistics, for the record")
    for r in rs:
        if r.metric == "primary":
            continue
        sd = "n/a" if r.log_ratio_sd is None else f"{r.log_ratio_sd:.4f}"
        cv = "n/a" if r.trial_cv is None else f"{r.trial_cv:.4f}"
        lines.append(f"#   {r.metric:12s} {r.kind:8s} {r.placement:10s} {r.window_s:g} s: "
                     f"log_ratio_sd {sd}, trial_cv {cv}")
    return "\n".join(lines) + "\n"


def table(rs: list[Row]) -> str:
    head = f"{'kind':8s} {'placement':10s} {'window':>7s} {'metric':12s} {'ratio sd':>9s} " \
           f"{'trial CV':>9s} {'blocks':>6s} {'rounds':>6s}"
    out = [head]
    for r in rs:
        out.append(f"{r.kind:8s} {r.placement:10s} {r.window_s:6g}s {r.metric:12s} "
                   f"{'—' if r.log_ratio_sd is None else f'{r.log_ratio_sd:.3f}':>9s} "
                   f"{'—' if r.trial_cv is None else f'{r.trial_cv:.3f}':>9s} "
                   f"{r.blocks:6d} {r.rounds:6d}")
    return "\n".join(out)


def from_run(run_dir: Path) -> list[Row]:
    return from_runs([run_dir])


def from_runs(run_dirs: list[Path]) -> list[Row]:
    """The noise model pooled over several runs (each block of each run is one sample of
    its kind of cell: the pooled sd weighs them by their degrees of freedom). Records are
    read as the analysis reads them (:func:`rundir.records.read` with ``fields``): a line
    that is not a record, or a record without its cell or with a throughput that is not a
    number, raises :class:`rundir.records.RecordError` naming the file and line."""
    def recs() -> Iterable[dict[str, Any]]:
        for d in run_dirs:
            path = records.trials_file(d)
            if path is None:
                raise records.RecordError(f"no trials.jsonl or trials.jsonl.gz in {d}")
            yield from records.read(path, fields=True)
    return rows(recs())

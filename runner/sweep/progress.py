"""Progress while a sweep runs (trials done, ETA, the current cell) and the summary table.

On a terminal: a rich progress bar. Elsewhere (CI logs, tests): one plain line every ~5% of
the trials. The ETA scales the plan's per-trial estimates by how fast the run has really
gone so far, so it settles quickly even when trials differ a lot in length. With the
sequential top-up, the ETA counts the top-up's budget not yet granted (an upper bound: the
top-up ends early when every comparison is decided), and every line says when the top-up
stage is running.
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict
from typing import Any, Iterable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from decision.quantities import primary
from rundir import sharetime
from runner.plan.adaptive import median_ci
from runner.plan.cells import Cell
from runner.plan.profile import format_size


def fmt_duration(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{sec:02d}s"


class Reporter:
    def __init__(self, total: int, est_total_s: float, enabled: bool = True,
                 console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled
        self.total = total
        self.done = 0
        self.est_total = est_total_s
        self.est_done = 0.0
        self.t0 = time.monotonic()
        self.live = enabled and self.console.is_terminal
        self._next_line = 0
        self.stage = ""  # "top-up" while the sequential top-up runs
        self.pending_s = 0.0  # the top-up's budget not yet granted (counted in the ETA)
        self._progress: Progress | None = None
        if self.live:
            self._progress = Progress(
                TextColumn("[bold]{task.fields[cell]:<44}"), BarColumn(),
                MofNCompleteColumn(), TextColumn("trials  elapsed {task.fields[elapsed]}"
                                                 "  ETA {task.fields[eta]}"),
                console=self.console, transient=False)
            self._task = self._progress.add_task("sweep", total=total, cell="starting",
                                                 elapsed="0m00s", eta="?")
            self._progress.start()

    PRIOR_S = 30.0  # how much the plan's estimate weighs against the observed pace

    def eta(self) -> float:
        """Remaining estimated seconds, scaled by the observed pace (smoothed so that one
        slow first trial does not dominate)."""
        elapsed = time.monotonic() - self.t0
        remaining_est = max(0.0, self.est_total - self.est_done) + self.pending_s
        pace = (elapsed + self.PRIOR_S) / (self.est_done + self.PRIOR_S)
        return remaining_est * pace

    def add(self, trials: int, est_s: float) -> None:
        self.total += trials
        self.est_total += est_s
        if self._progress:
            self._progress.update(self._task, total=self.total)

    def set_stage(self, stage: str) -> None:
        """Name the stage every progress line shows (the top-up)."""
        self.stage = stage

    def grant(self, trials: int, est_s: float, budget_s: float) -> None:
        """A top-up look: its trials join the total, its seconds leave the pending budget."""
        self.pending_s = max(0.0, self.pending_s - budget_s)
        self.add(trials, est_s)

    def _label(self, label: str) -> str:
        return f"{self.stage}: {label}" if self.stage else label

    def start(self, label: str) -> None:
        if self._progress:
            self._progress.update(self._task, cell=self._label(label)[:44],
                                  elapsed=fmt_duration(time.monotonic() - self.t0),
                                  eta=fmt_duration(self.eta()))

    def finish_trial(self, est_s: float, label: str, status: str) -> None:
        self.done += 1
        self.est_done += est_s
        elapsed = time.monotonic() - self.t0
        if self._progress:
            self._progress.update(self._task, completed=self.done,
                                  elapsed=fmt_duration(elapsed), eta=fmt_duration(self.eta()))
        elif self.enabled and (self.done >= self._next_line or status != "ok"
                               or self.done == self.total):
            self._next_line = self.done + max(1, self.total // 20)
            mark = "" if status == "ok" else f"  [{status}]"
            print(f"[{self.done}/{self.total}] elapsed {fmt_duration(elapsed)} "
                  f"ETA {fmt_duration(self.eta())}  {self._label(label)}{mark}", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self._progress:
            self._progress.stop()
            self._progress = None

    def note(self, line: str) -> None:
        if self._progress:
            self._progress.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=sys.stderr, flush=True)


def summary_table(cells: dict[str, Cell], records: Iterable[dict[str, Any]]) -> Table:
    by_cell: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("repetition", 0) >= 1:
            by_cell[r["cell"]].append(r)
    table = Table(title="sweep summary (median, 95% bootstrap CI half-width)",
                  show_lines=False)
    for col in ("kind/method", "transport", "mode", "size", "thr", "placement", "cache",
                "ok/n", "median", "±CI", "zc copied"):
        table.add_column(col, justify="right" if col in ("size", "thr", "ok/n", "median",
                                                           "±CI", "zc copied") else "left")
    order = sorted(cells.values(), key=lambda c: (c.command, c.kind, c.method, c.transport,
                                                  c.mode or "", c.size, c.threads,
                                                  c.placement, c.cache or ""))
    for c in order:
        recs = by_cell.get(c.id, [])
        # a shared-time cell's value: its own method's rate (its connection's, at the sink)
        value = ((lambda r: sharetime.rate(sharetime.methods(r)[0]) if sharetime.methods(r)
                  else None) if c.share_time else primary)
        vals = [v for v in (value(r) for r in recs) if v is not None]
        ok = sum(1 for r in recs if r.get("status") == "ok")
        if vals:
            ci = median_ci(vals, key=c.id)
            if c.mode == "pingpong":
                med = f"{ci.median / 1000:.1f} µs"
            else:
                med = f"{ci.median:.2f} Gb/s"
            width = f"{ci.rel_half_width * 100:.1f}%" if math.isfinite(ci.rel_half_width) \
                else "-"
        else:
            med, width = "-", "-"
        zc = _copied(recs)
        name = c.method if c.kind == "copybench" else c.kind
        name += f" | {c.share_time} (shared time)" if c.share_time else " (twin)" if c.twin \
            else ""
        table.add_row(name, c.transport, c.mode or "copy", format_size(c.size),
                      str(c.threads), c.placement, c.cache or "", f"{ok}/{len(recs)}", med,
                      width, zc)
    return table


def _copied(recs: list[dict[str, Any]]) -> str:
    comp = copied = 0
    for r in recs:
        zc = (r.get("result") or {}).get("zerocopy")
        if isinstance(zc, dict) and isinstance(zc.get("completions"), int):
            comp += zc["completions"]
            copied += zc.get("copied") or 0
    return f"{copied / comp:.0%}" if comp else ""

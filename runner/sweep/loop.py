"""A sweep: plan -> run directory -> trials, round by round, resumable.

Run directory (``data/raw/<run-id>/``)::

    plan.json        the cells, the seed, the fixed rounds (1..min) in run order, the skips
    profiles/*.toml  the profile as run (a copy)
    manifest.json    the environment (runner.host.manifest), written before the first trial
    trials.jsonl     one record per trial, appended and fsync'd as each ends
    perf/*.json      reduced CPU profiles of the profiled trials
    sessions.json    start/end/outcome of each invocation (a run may take several)
    SHA256SUMS       written when the sweep completes (rundir.verify.seal)

Resume: the records already in ``trials.jsonl`` are skipped; the rest of the plan runs in the
same order. Adaptive rounds are re-derived from the records, so an interrupted run resumed
to completion has exactly the trials an uninterrupted one would have had. So are the looks of
the sequential top-up (:mod:`runner.plan.topup`), which follows the planned rounds: each look is
granted from the records of the rounds granted before it, replayed from the start.
"""

from __future__ import annotations

import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rundir import layout, records
from decision.quantities import primary
from rundir.records import TrialRecord
from runner.plan.adaptive import decide
from runner.host.errors import RunnerError
from runner.plan.estimate import trial_seconds
from runner.plan.cells import Cell, Plan, Trial
from runner.plan.rounds import round_order
from runner.host.proc import Janitor
from runner.plan.profile import Profile
from runner.sweep.progress import Reporter, fmt_duration
from runner.host.remotehost import RemoteHost
from runner.host import netns
from runner.plan import topup
from runner.sweep.runfiles import RunDirError, in_run_dir
from runner.trial.transports import TopologyError, Transport, make
from runner.trial.trialrecord import Context
from runner.sweep.trials import run_trial


class Interrupted(BaseException):
    """SIGTERM or SIGHUP during the sweep, raised by its handler wherever the main thread is.
    A BaseException, as KeyboardInterrupt is: the trial code's ``except Exception`` (a
    profile's reduction keeps its trial whatever fails in it) must never take the sweep's
    interruption for a failure of its own and let the sweep run on."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


@dataclass
class Outcome:
    run_dir: Path
    complete: bool
    counts: Counter[str]
    wall_s: float
    interrupted: str | None = None


class Sweep:
    def __init__(self, profile: Profile, plan: Plan, run_dir: Path, run_id: str,
                 binary: Path, progress: bool = True) -> None:
        self.profile = profile
        self.plan = plan
        self.run_dir = run_dir
        self.run_id = run_id
        self.binary = binary
        self.progress = progress
        self.transports: dict[str, Transport] = {}
        self.transport_errors: dict[str, str] = {}
        self.janitor: Janitor | None = None
        self.by_cell: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.done: set[str] = set()
        self.order_index = 0
        self.counts: Counter[str] = Counter()
        self.remote: RemoteHost | None = None  # the other host of the ``remote`` transport
        # the reports' own programs, fetched and built once (original_trial.prepare)
        self.originals: dict[str, dict[str, Any]] | None = None
        self.reporter: Reporter | None = None

    # --- state from existing records -----------------------------------------------------
    def load_records(self) -> None:
        path = self.run_dir / layout.TRIALS
        cut = records.repair(path)
        if cut:
            print(f"runner: resume: dropped a torn last line ({cut} bytes) of {path}",
                  file=sys.stderr)
        for r in records.read(path):
            tid = str(r.get("trial_id"))
            if tid in self.done:
                raise RunnerError(f"{path}: trial {tid} recorded twice")
            self.done.add(tid)
            self.by_cell[r["cell"]].append(r)
            self.order_index = max(self.order_index, int(r.get("order_index", -1)) + 1)

    def _values(self, cid: str, before: int) -> tuple[int, list[float]]:
        recs = [r for r in self.by_cell.get(cid, []) if 1 <= r["repetition"] < before]
        vals = [v for v in (primary(r) for r in recs) if v is not None]
        return len(recs), vals

    def round_ids(self, r: int) -> list[str]:
        if r <= self.plan.rep_min:
            return self.plan.rounds[r - 1]
        if r > self.plan.rep_max:
            return []
        active = []
        for cid in self.plan.cells:
            attempts, vals = self._values(cid, r)
            if attempts < r - 1:
                continue  # stopped earlier
            if decide(attempts, vals, self.profile.repetitions, cid).more:
                active.append(Trial(cid, r).id)
        return round_order(active, self.plan.seed, r)

    # --- transports ----------------------------------------------------------------------
    def transport(self, cell: Cell) -> tuple[Transport | None, str | None]:
        t = cell.transport or "loopback"  # copy runs locally
        if t in self.transport_errors:
            return None, self.transport_errors[t]
        transport = self.transports.get(t)
        if transport is None:
            transport = make(t, cell.mtu, self.janitor, self.remote)
            try:
                transport.setup()
            except TopologyError as e:
                self.transport_errors[t] = str(e)
                self.note(f"runner: {e}; its trials are recorded as failed")
                return None, str(e)
            self.transports[t] = transport
        return transport, None

    def teardown(self) -> None:
        for transport in self.transports.values():
            transport.teardown()
        self.transports.clear()

    def note(self, line: str) -> None:
        if self.reporter:
            self.reporter.note(line)
        else:
            print(line, file=sys.stderr, flush=True)

    # --- the loop ------------------------------------------------------------------------
    def run(self) -> Outcome:
        """Every trial not yet recorded, round by round; stops cleanly on SIGINT, SIGTERM or
        SIGHUP (records flushed, namespaces removed) and says how it ended."""
        t0 = time.monotonic()
        remaining_fixed = [tid for rnd in self.plan.rounds for tid in rnd if tid not in self.done]
        est = sum(trial_seconds(self.plan.cells[Trial.parse(t).cell],
                                Trial.parse(t).repetition == 0)
                  for t in remaining_fixed)
        self.reporter = Reporter(len(remaining_fixed), est, enabled=self.progress)
        self.reporter.pending_s = topup.budget_s(self.plan)
        failure: RunDirError | None = None
        try:
            writer = records.Writer(self.run_dir / layout.TRIALS)
        except OSError as e:
            self.reporter.close()
            raise RunDirError(e, self.run_dir, len(self.done)) from None
        interrupted: str | None = None
        old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}

        def _raise(signum: int, frame: object) -> None:
            raise Interrupted(signum)

        for s in old:
            signal.signal(s, _raise)
        complete = False
        try:
            self.janitor = Janitor()
            if any(c.transport not in (None, "loopback", "remote")
                   for c in self.plan.cells.values()):  # namespaces: for a resume, if the
                netns.claim(self.run_dir, self.janitor)  # reaper is killed too
            self._rounds(writer)
            complete = True
        except KeyboardInterrupt:
            interrupted = "SIGINT"
        except Interrupted as e:
            interrupted = str(e)
        except OSError as e:
            if not in_run_dir(e, self.run_dir):
                raise
            failure = RunDirError(e, self.run_dir, len(self.done))
        finally:
            _ignore_signals()  # from here on a signal must not cut the clean-up short
            writer.close()
            self.reporter.close()
            self._clean_up(old)
        if failure is not None:
            raise failure
        return Outcome(self.run_dir, complete, self.counts, time.monotonic() - t0, interrupted)

    def _rounds(self, writer: records.Writer) -> None:
        assert self.reporter is not None
        ctx = Context(binary=self.binary, run_dir=self.run_dir, run_id=self.run_id,
                      seed=self.plan.seed, janitor=self.janitor, originals=self.originals)
        r = 1
        while True:
            ids = self.round_ids(r)
            if not ids:
                break
            if r > self.plan.rep_min:
                todo = [t for t in ids if t not in self.done]
                self.reporter.add(len(todo), sum(
                    trial_seconds(self.plan.cells[Trial.parse(t).cell]) for t in todo))
            for tid in ids:
                if tid not in self.done:
                    self._trial(ctx, Trial.parse(tid), writer)
            r += 1
        self._topup(ctx, writer)

    def _topup(self, ctx: Context, writer: records.Writer) -> None:
        """The sequential top-up after the planned rounds: one look at a time to the block
        :func:`runner.plan.topup.next_look` names, until no undecided block's next look fits the
        budget. Every grant is decided from the records of the rounds granted before it, so
        a resumed run replays the same grants and runs only the trials not yet recorded."""
        assert self.reporter is not None
        granted = topup.planned_rounds(self.plan)
        budget = topup.budget_s(self.plan)
        if not granted or budget <= 0:
            return
        self.reporter.set_stage("top-up")
        self.note(f"runner: top-up stage: {len(granted)} blocks at their first look; budget "
                  f"{budget / 60:.1f} min of estimated trial time")
        used, looks = 0.0, 0
        while (g := topup.next_look(self.plan, granted, used,
                                    lambda cid: self.by_cell.get(cid, []))) is not None:
            granted[g.block] = g.last
            used += g.seconds
            looks += 1
            todo = [t for t in g.trials if t not in self.done]
            self.reporter.grant(len(todo), sum(trial_seconds(self.plan.cells[Trial.parse(t).cell])
                                               for t in todo), g.seconds)
            label = (self.plan.blocks or {})[g.block]["label"]
            self.note(f"runner: top-up look {looks}: {label} rounds {g.first}-{g.last} "
                      f"({fmt_duration(g.seconds)}; by the order rule, {g.why()})")
            for tid in g.trials:
                if tid not in self.done:
                    self._trial(ctx, Trial.parse(tid), writer)
        self.reporter.pending_s = 0.0
        self.note(f"runner: top-up done: {looks} looks, {fmt_duration(used)} of the "
                  f"{fmt_duration(budget)} budget")

    def _trial(self, ctx: Context, trial: Trial, writer: records.Writer) -> None:
        assert self.reporter is not None
        cell = self.plan.cells[trial.cell]
        self.reporter.start(f"{cell.label()} #{trial.repetition or 'perf'}")
        transport, err = self.transport(cell)
        rec: TrialRecord = run_trial(ctx, cell, trial, transport, self.order_index, err)
        if (rec.status != "ok" and transport is not None and transport.namespaces()
                and not cell.is_original):  # theirs run in namespaces of their own
            # a failed trial may leave something behind in its namespaces: remove them;
            # the next trial gets fresh ones
            transport.teardown()
            self.transports.pop(transport.name, None)
        line = rec.to_json()
        writer.append(line)
        self.done.add(trial.id)
        self.by_cell[cell.id].append(line)
        self.order_index += 1
        self.counts[rec.status] += 1
        self.reporter.finish_trial(trial_seconds(cell, trial.repetition == 0), cell.label(),
                                   rec.status)

    def _clean_up(self, old: dict[Any, Any]) -> None:
        """Remove what the sweep made; a second signal must not cut this short."""
        _ignore_signals()
        try:
            self.teardown()
            netns.unclaim(self.janitor)
            if self.janitor:
                self.janitor.close()
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for s, h in old.items():
                signal.signal(s, h)


def _ignore_signals() -> None:
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)

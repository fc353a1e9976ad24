"""The receiver's incidental settings as a robustness factor: each claim's verdict under each
receive size a run measured it at.

copybench's sink reads a TCP stream in calls of a set size (copybench send --recv-size, 64 KiB
unless asked). tcp_recvmsg() keeps copying while segments are queued, so the size sets the
receiver's cost per byte, and a comparison whose sender is not the bottleneck measures the
receiver rather than the method (C13's sendfile idles while the receiver takes the CPU). A
profile's ``[receiver]`` factor measures its TCP stream cells at several sizes, each in blocks
of its own in the same rounds (runner/plan/profile.py :class:`~runner.plan.profile.Receiver`);
the run's readers read the sink's default (:attr:`analysis.loading.run.Run.measured`), and
this module reads the claims once per size, on a view of the run that holds that size's
trials only, and labels each claim:

* :data:`ROBUST` -- the same verdict under every size;
* :data:`DEPENDS` -- another verdict under some size (every reading is given);
* :data:`ONE_SIZE` -- a verdict under one receive size only (a latency or file-copy claim
  has no receive size; a run without the factor has one);
* :data:`NO_VERDICT` -- under no size a verdict: not run in this profile, or not testable
  here, under every size the run measured.

Pure functions of a loaded run: nothing is written.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import pandas as pd

from analysis.claims.base import NOT_RUN, NOT_TESTABLE, ClaimResult, claim_blocks
from analysis.loading.run import RECV_SIZE_DEFAULT, Run
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size

ROBUST = "robust to the receiver"
DEPENDS = "depends on the receiver"
ONE_SIZE = "measured under one receive size"
NO_VERDICT = "no verdict under any receive size"
LABELS = (ROBUST, DEPENDS, ONE_SIZE, NO_VERDICT)
#: the verdicts that read no measurement: a size that gives one does not count for the label
NO_READING = (NOT_RUN, NOT_TESTABLE)

Evaluate = Callable[[Run], Sequence[ClaimResult]]


@dataclass(frozen=True)
class Reading:
    """One claim result (a claim, its placement and reading) under each receive size."""

    key: str  # ClaimResult.key: "C13 (same-core)"
    claim: str
    basis: str
    # receive size (bytes) -> the verdict there, and the verdict with its estimate in words;
    # only the sizes the run measured the claim at
    verdicts: dict[int, str]
    texts: dict[int, str]
    label: str

    @property
    def text(self) -> str:
        """The label and, where it depends on the receiver, every size's reading."""
        if self.label != DEPENDS:
            return self.label
        return f"{self.label}: " + "; ".join(
            f"{fmt_size(n)} per recv(): {self.texts[n]}" for n in sorted(self.verdicts))


def receive_sizes(run: Run) -> list[int]:
    """The receive sizes the run measured TCP stream trials at, the sink's default first
    (records that do not say count as the default)."""
    t = run.trials
    ok = t[(t["status"] == "ok") & (t["repetition"].fillna(1) >= 1)]
    sizes = {int(n) for n in ok["recv_size"].dropna()} if "recv_size" in ok else set()
    return [RECV_SIZE_DEFAULT] + sorted(sizes - {RECV_SIZE_DEFAULT})


def records_receive_size(run: Run) -> bool:
    """Whether the run's trials say the receive size they were measured at (records made
    before the sink reported it do not: their sink's default then, which has changed)."""
    t = run.trials
    return "recv_size" in t and bool(t["recv_size"].notna().any())


def at_receive_size(run: Run, size: int) -> Run:
    """A view of the run whose :attr:`~Run.measured` holds the trials measured at receive
    size ``size`` (at the sink's default: also every trial without one, as the run's own)."""
    return dataclasses.replace(run, recv_size=None if size == RECV_SIZE_DEFAULT else size)


def _measured_claim(run: Run, r: ClaimResult, size: int) -> bool:
    """Whether the run holds trials at receive size ``size`` in the blocks its plan declares
    for the result's claim (every block, in a run without the block design), at its
    placement where it has one."""
    if size == RECV_SIZE_DEFAULT:
        return True
    m = at_receive_size(run, size).measured
    blocks = claim_blocks(run, r.claim)
    if blocks is not None:
        m = m[m["block"].isin(blocks)]
    if r.placement:
        m = m[m["placement"] == r.placement]
    return not m.empty


def _estimate(r: ClaimResult) -> str:
    """The verdict in words with its estimate and CI (which a refutation's direction names)."""
    if not r.direction and all(math.isfinite(x) for x in (r.value, r.lo, r.hi)):
        return f"{r.verdict_text} ({fmt_ratio_ci(r.value, r.lo, r.hi, times=False)})"
    return r.verdict_text


def _ident(r: ClaimResult) -> tuple[str, str, str]:
    return (r.claim, r.key, r.basis)


def readings(run: Run, evaluate: Evaluate | None = None,
             base: Sequence[ClaimResult] | None = None) -> list[Reading]:
    """Each claim result of the run (``evaluate``: :func:`analysis.claims.evaluate`) under
    each receive size the run measured it at, labelled, in the default size's order.
    ``base``: the run's results as already evaluated (the default size is the run's own
    view, so they are not evaluated again)."""
    if evaluate is None:
        from analysis.claims import evaluate as evaluate_all
        evaluate = evaluate_all
    sizes = receive_sizes(run)
    by_size = {n: {_ident(r): r for r in (
        base if base is not None and n == RECV_SIZE_DEFAULT else evaluate(at_receive_size(run, n)))}
        for n in sizes}
    out = []
    for ident, base in by_size[RECV_SIZE_DEFAULT].items():
        measured = [n for n in sizes
                    if ident in by_size[n] and _measured_claim(run, base, n)]
        rs = {n: by_size[n][ident] for n in measured}
        verdicts = {n: r.verdict for n, r in rs.items()}
        read = {n: v for n, v in verdicts.items() if v not in NO_READING}
        label = (NO_VERDICT if not read else ONE_SIZE if len(read) < 2 else
                 ROBUST if len(set(read.values())) == 1 else DEPENDS)
        out.append(Reading(key=base.key, claim=base.claim, basis=base.basis,
                           verdicts=verdicts, texts={n: _estimate(r) for n, r in rs.items()},
                           label=label))
    return out


def records_receive_size(run: Run) -> bool:
    """Whether any trial of the run says its receive size (records written before copybench
    recorded it say nothing; its sink read 256 KiB per call before it read 64 KiB)."""
    return "recv_size" in run.trials and bool(run.trials["recv_size"].notna().any())


def table(rows: Sequence[Reading], recorded: bool = True) -> pd.DataFrame:
    """One row per claim result: its verdict under each receive size (a column each, "—"
    where it was not measured at that size) and its label. ``recorded`` False (a run whose
    records do not say the size, :func:`records_receive_size`): the default size's column
    says so instead of naming a size."""
    sizes = sorted({n for r in rows for n in r.verdicts})

    def title(n: int) -> str:
        if n == RECV_SIZE_DEFAULT and not recorded:
            return "verdict (receive size not recorded)"
        return f"verdict at {fmt_size(n)}"

    return pd.DataFrame([{"claim": r.key, "basis": r.basis,
                          **{title(n): r.texts.get(n, "—") for n in sizes},
                          "receiver": r.label} for r in rows])

"""Run-level comparisons beside the claims.

* :func:`send_comparisons`: every message method against two-copy ``send`` (method x size x
  transport x placement x threads, TCP stream), each read against the one band of "no
  difference" (the claims' band, :data:`decision.band.SESOI`); :data:`FIFTY_SIX` is the loopback cross-core set of the first paper run
  (``20261122T052509Z-paper-0690``: 4 methods x 8 sizes at 1 thread + 4 methods x 2 sizes x
  2, 4, 8 threads), and ``legacy=True`` the rule runs without blocks used before the block
  design (kept to reproduce that run's count; the book uses the current rule only).
* :func:`file_comparisons`: every file method against ``read-write``, the same way;
  :func:`baseline_comparisons` is the engine of both, :func:`crossovers` the size where a
  method starts to beat its baseline (the findings' ratio figures), :func:`pairwise` every
  pair of methods (what a superlative is decided from).
* :func:`twin_pairs`: the A/A control. A block holding the same method twice (``twin`` 0
  and 1) must give a ratio whose CI contains 1.0; a run where it does not says so (about 1
  honest run in 20 at a 95 % level).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pandas as pd

from analysis.statistics import stats as S
from decision import rule as R
from decision import interval as I
from decision import parity as PA
from decision import sesoi
from decision.band import CONFIDENCE, SESOI
from analysis.claims.base import (compare_pair, crossover_of, paired_rounds, paired_values,
                                  stream_cells)
from analysis.statistics.fmt import fmt_ratio_ci
from analysis.loading.run import FILE_METHODS, MESSAGE_METHODS, Run, select, values

#: the message-method-vs-send set of the message chapter's comparison table at its
#: reference transport and placement (loopback, cross-core), every thread count
FIFTY_SIX = {"transport": "loopback", "placement": "cross-core"}
FACTORS = ("transport", "placement", "threads")
FILE_FACTORS = ("scenario", "transport", "placement", "cache", "threads")


def send_comparisons(run: Run, legacy: bool = False, threshold: float = SESOI,
                     **filters: Any) -> pd.DataFrame:
    """One row per (method, size, transport, placement, threads) with both the method and
    ``send`` (TCP stream): ratio method/send and its decision against +-threshold.

    Family: the sizes of one (method, transport, placement, threads). ``legacy=False``: the
    run's declared design (paired by block and round when it has blocks), CI at level
    1 - 0.05/m, the CI decides. ``legacy=True``: the rule of runs before the block design
    (ratio of medians with a 95 % bootstrap CI, Mann-Whitney p Holm-adjusted over the
    family, "greater"/"less" only when the adjusted p < 0.05 as well)."""
    return baseline_comparisons(run, select(stream_cells(run), **filters), "send",
                                MESSAGE_METHODS, FACTORS, legacy=legacy, threshold=threshold)


def file_comparisons(run: Run, threshold: float = SESOI,
                     **filters: Any) -> pd.DataFrame:
    """Every file method against ``read-write`` (the copy through user space), per path
    (file → socket, file → file), transport, placement, cache state and threads; family: the
    sizes of one method in one such configuration."""
    m = run.measured
    fm = m[m["scenario"].isin(["file→socket", "file→file"])].copy()
    if fm.empty:
        return pd.DataFrame()
    fm["cache"] = fm["cache"].fillna("n/a")
    return baseline_comparisons(run, select(fm, **filters), "read-write", FILE_METHODS,
                                FILE_FACTORS, threshold=threshold)


def _method_sizes(cells: pd.DataFrame, baseline: str, methods: Sequence[str],
                  factors: Sequence[str], metric: str
                  ) -> Iterator[tuple[dict[str, Any], pd.DataFrame, str, list[int]]]:
    """(configuration, its cells, method, sizes where both the method and the baseline have
    two values or more) for every method of every configuration ``factors`` name."""
    for key, g in cells.groupby(list(factors), sort=True, dropna=False):
        conf = dict(zip(factors, key))
        for meth in [m for m in methods if m != baseline and (g["method"] == m).any()]:
            sizes = sorted(int(s) for s in g.loc[g["method"] == meth, "size"].unique()
                           if values(select(g, method=meth, size=s), metric).size >= 2
                           and values(select(g, method=baseline, size=s), metric).size >= 2)
            yield conf, g, meth, sizes


def baseline_comparisons(run: Run, cells: pd.DataFrame, baseline: str, methods: Sequence[str],
                         factors: Sequence[str], legacy: bool = False,
                         threshold: float = SESOI,
                         metric: str = "gbit_per_s") -> pd.DataFrame:
    """Each of ``methods`` against ``baseline``, size by size, within each configuration
    ``factors`` name (see :func:`send_comparisons` for the two designs)."""
    rule = R.DecisionRule("direction", threshold=threshold)
    rows: list[dict[str, Any]] = []
    if cells.empty:
        return pd.DataFrame(rows)
    for conf, g, meth, sizes in _method_sizes(cells, baseline, methods, factors, metric):
        if not sizes:
            continue
        if legacy:
            fam = S.compare_family([(values(select(g, method=meth, size=s), metric),
                                     values(select(g, method=baseline, size=s), metric))
                                    for s in sizes], threshold)
            for s, c in zip(sizes, fam):
                ds = R.direction_and_size(c.ratio.lo, c.ratio.hi, threshold)
                rows.append({**conf, "method": meth, "size": s, "design": "legacy",
                             "ratio": c.ratio.value, "lo": c.ratio.lo, "hi": c.ratio.hi,
                             "p_adj": c.p_holm, "decision": c.direction,
                             "direction": ds.direction, "effect": ds.size,
                             "reading": ds.label(), "why": ""})
            continue
        for i, s in enumerate(sizes):
            c = compare_pair(run, g, {"method": meth, "size": s},
                             {"method": baseline, "size": s}, metric, len(sizes), rule,
                             s, seed=i)
            if c is None:
                continue
            ds = R.direction_and_size(c.primary.ratio.lo, c.primary.ratio.hi, threshold)
            rows.append({**conf, "method": meth, "size": s, "design": c.primary.kind,
                         "n": c.primary.n, "ratio": c.primary.ratio.value,
                         "lo": c.primary.ratio.lo, "hi": c.primary.ratio.hi,
                         "CI level": c.primary.ratio.confidence,
                         "p_adj": c.primary.p_adj, "decision": c.decision.outcome,
                         "direction": ds.direction, "effect": ds.size,
                         "reading": ds.label(), "why": c.decision.why,
                         "sensitivity": (f"{c.sensitivity.kind} → {c.sens_decision.outcome}"
                                         if c.sensitivity is not None and c.sens_decision
                                         else "—"),
                         # what its distance from a decision rests on (undecided ones)
                         "rounds": c.primary.rounds or c.primary.n, "sd_log": c.primary.sd_log,
                         "family": c.primary.family,
                         "rounds_max": (c.schedule.rounds_max if c.schedule is not None
                                        else math.nan),
                         "rounds_needed": c.rounds_needed()})
    return pd.DataFrame(rows)


def pairwise(run: Run, cells: pd.DataFrame, methods: Sequence[str], factors: Sequence[str],
             metric: str = "gbit_per_s", threshold: float = SESOI
             ) -> pd.DataFrame:
    """Every pair of ``methods`` measured in ``cells``, each later method of the list against
    each earlier one (its ``baseline`` column), by :func:`baseline_comparisons` with the same
    families (so a method against the list's first, ``send`` or ``read-write``, is the row of
    the findings' table): what a superlative within one configuration and size is decided
    from (:func:`analysis.words.headlines.leader_text`)."""
    present = [m for m in methods if (cells["method"] == m).any()] if len(cells) else []
    out = [baseline_comparisons(run, cells, b, present[i + 1:], factors, threshold=threshold,
                                metric=metric).assign(baseline=b)
           for i, b in enumerate(present[:-1])]
    out = [t for t in out if len(t)]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def crossovers(run: Run, cells: pd.DataFrame, baseline: str, methods: Sequence[str],
               factors: Sequence[str], metric: str = "gbit_per_s") -> pd.DataFrame:
    """Per configuration and method, the size where the method starts to beat ``baseline``
    (first upward crossing of the log ratio along size) with its bootstrap CI, paired by
    round when the run has blocks; NaN where the curves do not cross in the measured range."""
    rows: list[dict[str, Any]] = []
    for conf, g, meth, sizes in _method_sizes(cells, baseline, methods, factors, metric):
        if len(sizes) < 2:
            continue
        c, design = crossover_of(run, g, meth, baseline, metric, sizes)
        rows.append({**conf, "method": meth, "crossover": c.size, "lo": c.lo, "hi": c.hi,
                     "p_none": c.p_none, "design": design,
                     "sizes": len(sizes)})
    return pd.DataFrame(rows)


def twin_pairs(run: Run, metric: str = "gbit_per_s",
               threshold: float = SESOI) -> pd.DataFrame:
    """The A/A control: per block that holds a method twice (twin 0 and twin 1, or in a
    block of its own twins 1 and 2), the ratio of the later copy to the earlier, paired by round (t CI at 95 %, one comparison per block), the unpaired
    ratio of medians beside it, whether it ``passes`` the A/A's one rule
    (:data:`decision.sesoi.AA_RULE`: the CI contains 1.0, as it must when the two cells are
    the same measurement) and, beside the rule as the pair's resolution, its decision against
    the band ``threshold`` (the claims' band:
    "equivalent" where the CI lies inside it, i.e. the rounds the pair ran resolve the band
    the claims are read at; "inconclusive" where the CI reaches past a boundary); ``band``
    is that threshold."""
    m = run.measured
    if "twin" not in m or not (m["twin"] == 1).any():
        return pd.DataFrame()
    rows = []
    for (block, meth), blk in m[m["block"].notna()].groupby(["block", "method"], sort=True):
        # the twin against the cell it repeats (same configuration), not against every cell
        # of the method in its block: a claims block holds the method at other thread
        # counts, sizes or placements too
        keys = [k for k in TWIN_KEYS if k in blk]
        for _, t1 in blk[blk["twin"] > 0].groupby("cell", sort=True):
            # its partner: the same configuration's copy before it in the block (twin 0, or
            # in an A/A block of its own, whose two cells are twins 1 and 2, twin 1)
            same = (blk["twin"] == int(t1["twin"].iloc[0]) - 1)
            for k in keys:
                v = t1[k].iloc[0]
                same &= (blk[k] == v) | (blk[k].isna() & pd.isna(v))
            t0 = blk[same]
            if t0.empty:
                continue
            rows.append(_twin_row(run, block, meth, t1, t0, metric, threshold))
    return pd.DataFrame(rows)


#: what a twin shares with the cell it repeats
TWIN_KEYS = ("size", "threads", "placement", "transport", "mode", "duration_s", "protocol",
             "fields", "verify", "cache", "sockbuf")


def aa_false_positives(pairs: pd.DataFrame) -> "sesoi.FalsePositives":
    """The design's false-positive rate from a run's A/A pairs (:func:`twin_pairs`): the pairs
    that fail the one rule (:data:`decision.sesoi.AA_RULE`) among those read, with its
    Clopper-Pearson CI (:func:`decision.sesoi.false_positives`)."""
    if pairs.empty or "passes" not in pairs:
        return sesoi.false_positives(0, 0)
    return sesoi.false_positives(int((~pairs["passes"].astype(bool)).sum()), len(pairs))


#: what the pooled A/A rate over every committed run is called for all classes together
ALL_CLASSES = "all"


def committed_aa(entries: Sequence[Any],
                 pairs_of: Callable[[Path], pd.DataFrame]) -> pd.DataFrame:
    """Every A/A pair of the runs ``entries`` (catalog entries: :class:`rundir.catalog.Entry`,
    each run's pairs given by ``pairs_of``: its directory -> its :func:`twin_pairs`), one row
    per pair with its ``run`` and ``cpu_class``; runs without an A/A block add none."""
    frames = []
    for e in entries:
        aa = pairs_of(e.path)
        if not aa.empty:
            frames.append(aa.assign(run=e.run_id, cpu_class=e.cpu_class))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["run", "cpu_class", "passes"])


def aa_rate_by_class(pairs: pd.DataFrame) -> dict[str, "sesoi.FalsePositives"]:
    """The design's false-positive rate (:func:`aa_false_positives`) from pooled A/A pairs
    (:func:`committed_aa`), per CPU class (in order of first appearance) and over all
    (:data:`ALL_CLASSES`), each pair judged by :data:`decision.sesoi.AA_RULE`."""
    out = {str(c): aa_false_positives(g) for c, g in pairs.groupby("cpu_class", sort=False)} \
        if not pairs.empty else {}
    out[ALL_CLASSES] = aa_false_positives(pairs)
    return out


def _twin_row(run: Run, block: str, meth: str, t1: pd.DataFrame, t0: pd.DataFrame,
              metric: str, threshold: float) -> dict:
    """One A/A comparison: twin 1's cell against the twin-0 cell of its configuration."""
    g = pd.concat([t1, t0])
    met = "rtt_p50_us" if (g["mode"] == "pingpong").all() else metric
    j = pd.concat([t1.groupby("repetition")[met].median().rename("a"),
                   t0.groupby("repetition")[met].median().rename("b")], axis=1,
                  join="inner").dropna()
    p = S.paired_ratio(j["a"].to_numpy(), j["b"].to_numpy(), 1)
    u = S.unpaired_ratio(values(t1, met), values(t0, met), 1)
    primary = p if run.primary == S.PAIRED else u
    r = primary.ratio
    first = t1.iloc[0]
    # the chance that a null difference reads "equivalent" at the rounds it ran, at the
    # noise model's sd the plan gave its block (decision.sesoi.control_rounds plans it)
    sd = ((getattr(run, "plan", None) or {}).get("blocks") or {}).get(block, {}).get("sd")
    chance = (sesoi.equivalence_power(threshold, float(sd), I.t_quantile(CONFIDENCE, p.n), p.n)
              if isinstance(sd, (int, float)) and sd > 0 and p.n >= 2 else math.nan)
    return {"block": block, "method": meth, "metric": met,
            "configuration": f"{first['transport']}, {first['placement']}, "
                             f"{first['mode']}, size {int(first['size'])}",
            "rounds": p.n, "design": primary.kind, "ratio": r.value, "lo": r.lo,
            "hi": r.hi, "contains 1": bool(r.lo <= 1 <= r.hi),
            # the A/A's one rule (decision.sesoi.AA_RULE): the CI at 95 % contains 1
            "passes": sesoi.aa_passes(r.lo, r.hi),
            "decision": R.band_outcome(r.lo, r.hi, threshold),
            "band": threshold, "planning sd": float(sd) if chance == chance else math.nan,
            "chance equivalent": chance,
            "p": primary.p, "wilcoxon p": p.p_sens,
            "unpaired": fmt_ratio_ci(u.ratio.value, u.ratio.lo, u.ratio.hi,
                                     times=False)}


def _peer_cells(m: pd.DataFrame, size: int) -> tuple[dict[str, Any], pd.DataFrame]:
    """The parity rule's configuration at ``size`` and the rows of the blocks that hold
    iperf3 there (copybench cells of the same configuration in other blocks are no part of
    the reading)."""
    f = {"transport": PA.TRANSPORT, "placement": PA.PLACEMENT, "size": size, "threads": 1,
         "mode": "stream"}
    blocks = select(m, **f, kind="peer:iperf3")["block"].dropna().unique()
    return f, m[m["block"].isin(blocks)] if "block" in m else m.iloc[0:0]


def parity_declaration(run: Run) -> PA.Declaration:
    """The parity declaration ``run`` is read under (:func:`decision.parity.declaration`):
    from the copybench methods measured beside iperf3, paired by round, at the rule's sizes."""
    m = run.measured
    have: set[str] = set()
    if not m.empty and "kind" in m and (m["kind"] == "peer:iperf3").any():
        for size in PA.SIZES:
            f, d = _peer_cells(m, size)
            for meth in (PA.METHOD, PA.EARLIER.method):
                a, _ = paired_values(d, {**f, "kind": "copybench", "method": meth},
                                     {**f, "kind": "peer:iperf3"}, "gbit_per_s")
                if len(a) >= 2:
                    have.add(meth)
    return PA.declaration(have)


def parity(run: Run) -> pd.DataFrame:
    """copybench against iperf3 at the sizes of the parity rule (:mod:`decision.parity`), the
    method of the declaration the run is read under (:func:`parity_declaration`: ``sendmsg``
    where the blocks hold it, else ``send``, column ``method``): per size, the ratio
    copybench / iperf3 paired by round in the block the two share (geometric mean, t CI at
    the rule's level), its rounds, the per-round sd of the log ratio and the rule's reading.
    Sizes without both cells in one block are left out (a run without them gives no rows)."""

    cols = ["size", "method", "rounds", "ratio", "lo", "hi", "n", "half_width", "sd_log",
            "reading"]
    m = run.measured
    if m.empty or "kind" not in m or not (m["kind"] == "peer:iperf3").any():
        return pd.DataFrame(columns=cols)
    method = parity_declaration(run).method
    rows = []
    for size in PA.SIZES:
        f, d = _peer_cells(m, size)
        a, b = paired_values(d, {**f, "kind": "copybench", "method": method},
                             {**f, "kind": "peer:iperf3"}, "gbit_per_s")
        if len(a) < 2:
            continue
        t = S.paired_ratio(a, b, family=PA.FAMILY, alpha=round(1 - PA.CONFIDENCE, 12))
        e = t.ratio
        rows.append({"size": size, "method": method, "rounds": len(a), "ratio": e.value,
                     "lo": e.lo, "hi": e.hi, "n": e.n, "half_width": (e.hi / e.lo) ** 0.5 - 1,
                     "sd_log": t.sd_log, "reading": PA.reading(e.lo, e.hi)})
    return pd.DataFrame(rows, columns=cols)


def memcpy_gap(run: Run) -> pd.DataFrame:
    """The cost of ``send``'s memcpy of the fields into one buffer, where the blocks beside
    iperf3 hold both ``send`` and ``sendmsg`` (:data:`decision.parity.GAP_METHOD` and
    :data:`~decision.parity.METHOD`): per size of the parity rule, ``send`` / ``sendmsg``
    throughput paired by round in that block (geometric mean, t CI at the rule's level), and
    each method's sender CPU-seconds per GB (medians over the block's rounds) with ``send``'s
    extra (the median of the per-round differences). No rows where the run lacks either."""
    g, o = PA.GAP_METHOD, PA.METHOD
    cols = ["size", "rounds", "ratio", "lo", "hi", f"{g}_sender_s_per_gb",
            f"{o}_sender_s_per_gb", "extra_sender_s_per_gb"]
    m = run.measured
    if m.empty or "kind" not in m or not (m["kind"] == "peer:iperf3").any():
        return pd.DataFrame(columns=cols)
    rows = []
    for size in PA.SIZES:
        f, d = _peer_cells(m, size)
        a_, b_ = {**f, "kind": "copybench", "method": g}, {**f, "kind": "copybench", "method": o}
        a, b = paired_values(d, a_, b_, "gbit_per_s")
        if len(a) < 2:
            continue
        e = S.paired_ratio(a, b, family=1, alpha=round(1 - PA.CONFIDENCE, 12)).ratio
        cpu = paired_rounds(d, a_, b_, "sender_cpu_s_per_gb") \
            if "sender_cpu_s_per_gb" in d else pd.DataFrame({"a": [], "b": []})
        rows.append({"size": size, "rounds": len(a), "ratio": e.value, "lo": e.lo, "hi": e.hi,
                     f"{g}_sender_s_per_gb": float(cpu["a"].median()) if len(cpu) else math.nan,
                     f"{o}_sender_s_per_gb": float(cpu["b"].median()) if len(cpu) else math.nan,
                     "extra_sender_s_per_gb": float((cpu["a"] - cpu["b"]).median())
                     if len(cpu) else math.nan})
    return pd.DataFrame(rows, columns=cols)

"""The PA02 reports' throughput claims over sizes and threads: C4, C6 (S2) and C8, C9, C11
(S3), at the configuration the reports describe (veth between two namespaces; S3's tables at
4 threads), one verdict per placement. The rules are in :mod:`analysis.claims.rules`."""

from __future__ import annotations

import numpy as np

from analysis.claims.base import (HOLDS, INCONCLUSIVE, REFUTED, ClaimResult, Compared,
                                  _result, collapse, compare_pair, evaluate_rules, rule_cells,
                                  set_estimate)
from analysis.claims.rules import RULES, Rule
from analysis.fmt import fmt_num
from analysis.run import Run, select, values

C4 = ("S2", "One-copy beats two-copy at every size tested",
      "one vs two-copy Gbit/s: 512 B 5.44 vs 1.14 … 64 KB 66.42 vs 17.80")
C6 = ("S2", "One-copy at 64 KB collapses from 4 to 8 threads",
      "1/2/4/8 threads: 66.42, 62.95, 58.63, 23.73 Gbit/s")
C8 = ("S3", "Two-copy beats one-copy from 1 KB to 16 KB; one-copy wins only at 64 KB",
      "4 threads: 1 KB 2.63 vs 2.33 … 64 KB 43.90 vs 46.89")
C9 = ("S3", "Zero-copy never beats two-copy on one machine; at best ~52% of it",
      "4 threads: 1 KB 0.91 vs 2.63 … 64 KB 22.91 vs 43.90 Gbit/s")
C11 = ("S3", "Best thread count is 2-4; 8 threads degrade super-linearly", "qualitative")


def c4(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C4"], C4)


def c8(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C8"], C8)


def c9(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C9"], C9)


def _threads(run: Run, rule: Rule, placement: str | None, method: str, th: int
             ) -> np.ndarray:
    d = rule_cells(run, rule, placement)
    return values(select(d, method=method, size=rule.sizes[0], threads=th), rule.metric)


def _threads_compare(run: Run, rule: Rule, placement: str | None, method: str, a: int,
                     b: int) -> Compared:
    """Thread count a against b: paired where both are in one block (the profile's
    pair_threads), else the ratio of medians."""
    d = rule_cells(run, rule, placement)
    f = {"method": method, "size": rule.sizes[0]}
    c = compare_pair(run, d, {**f, "threads": a}, {**f, "threads": b}, rule.metric,
                     rule.family, rule.decision, rule.sizes[0], rule.paired)
    assert c is not None  # both sides were checked to have data
    return c


def _fill(r: ClaimResult, c: Compared) -> None:
    set_estimate(r, c.primary.ratio)
    r.design = c.primary.kind
    if c.sensitivity is not None and c.sens_decision is not None:
        s = c.sensitivity.ratio
        r.sensitivity = (f"{c.sensitivity.kind}: {fmt_num(s.value)} [{fmt_num(s.lo)}, "
                         f"{fmt_num(s.hi)}] → {c.sens_decision.outcome}")


def _stream_threads_missing(run: Run, rule: Rule, placement: str | None,
                            need: tuple[int, ...], method: str) -> str | None:
    have = [th for th in need if _threads(run, rule, placement, method, th).size >= 2]
    if len(have) == len(need):
        return None
    lack = [th for th in need if th not in have]
    return (f"no {'/'.join(map(str, lack))}-thread {method} stream cells at "
            f"{rule.configuration(placement)} in this run")


def c6(run: Run) -> list[ClaimResult]:
    rule = RULES["C6"][0]
    out = []
    for pl in rule.placements:
        r = _result(rule, C6, pl)
        why = _stream_threads_missing(run, rule, pl, (8, 4), "sendmsg")
        if why:
            r.reason = why
            out.append(r)
            continue
        c = _threads_compare(run, rule, pl, "sendmsg", 8, 4)
        dec = c.decision
        _fill(r, c)
        r.statistic = rule.statistic
        r.verdict = {"holds": HOLDS, "refuted": REFUTED}.get(dec.outcome, INCONCLUSIVE)
        r.boundary = dec.why if r.verdict == INCONCLUSIVE else ""
        r.reason = f"{dec.why}; published 0.40"
        out.append(r)
    return collapse(out)


def c11(run: Run) -> list[ClaimResult]:
    rule = RULES["C11"][0]
    out = []
    for pl in rule.placements:
        r = _result(rule, C11, pl)
        why = _stream_threads_missing(run, rule, pl, (1, 2, 4, 8), "send")
        if why:
            r.reason = why
            out.append(r)
            continue
        x = {k: _threads(run, rule, pl, "send", k) for k in (1, 2, 4, 8)}
        med = {k: float(np.median(v)) for k, v in x.items()}
        best = max(med, key=lambda k: med[k])
        mid = 2 if med[2] >= med[4] else 4
        c = _threads_compare(run, rule, pl, "send", 8, mid)
        dec = c.decision
        _fill(r, c)
        r.statistic = f"{rule.statistic} (= {mid})"
        degrade = dec.outcome == "less"
        r.verdict = HOLDS if best in (2, 4) and degrade else \
            REFUTED if best in (1, 8) or dec.outcome in ("greater", "equivalent") \
            else INCONCLUSIVE
        r.boundary = dec.why if r.verdict == INCONCLUSIVE else ""
        r.reason = (f"best thread count by median: {best} "
                    f"({', '.join(f'{k}: {fmt_num(v)}' for k, v in med.items())} Gbit/s); "
                    f"8 vs {mid} threads: {dec.outcome} ({dec.why}); super-linearity itself "
                    "is not tested")
        out.append(r)
    return collapse(out)



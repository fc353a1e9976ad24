"""The PA02 reports' throughput claims over sizes and threads: C4, C6 (S2) and C8, C9, C11
(S3), at the configuration the reports describe (veth between two namespaces; S3's tables at
4 threads), one verdict per placement. The rules are in :mod:`analysis.claims.rules`.

The thread-count claims (C6, C11) compare thread counts inside one block (paired by round
where the profile puts the thread counts in one block). They are testable only where every
thread of each side has a CPU of its own (their applicability condition): on fewer CPUs a
thread-count comparison measures oversubscription, not the claim.
"""

from __future__ import annotations

from analysis.claims.applicability import absent, not_applicable
from analysis.claims.base import (COPYBENCH, HOLDS, INCONCLUSIVE, NOT_TESTABLE, REFUTED,
                                  THEIR_PROGRAM,
                                  ClaimResult, Compared, claim_blocks, compare_pair,
                                  new_result, original_cells, set_estimate, set_rounds,
                                  stream_cells)
from analysis.claims.engine import collapse, evaluate_rules
from analysis.claims.rules import RULES, Rule
from analysis.statistics.fmt import fmt_ratio_ci
from analysis.loading.run import Run, select, values

C4 = ("S2", "One-copy beats two-copy at every size tested",
      "one vs two-copy Gbit/s: 512 B 5.44 vs 1.14 … 64 KB 66.42 vs 17.80")
C6 = ("S2", "One-copy at 64 KB collapses from 4 to 8 threads",
      "1/2/4/8 threads: 66.42, 62.95, 58.63, 23.73 Gbit/s")
C8 = ("S3", "Two-copy beats one-copy from 1 KB to 16 KB; one-copy wins only at 64 KB",
      "4 threads: 1 KB 2.63 vs 2.33 … 64 KB 43.90 vs 46.89")
C9 = ("S3", "Zero-copy never beats two-copy on one machine; at best ~52% of it",
      "4 threads: 1 KB 0.91 vs 2.63 … 64 KB 22.91 vs 43.90 Gbit/s")
C11 = ("S3", "Best thread count is 2-4; 8 threads degrade super-linearly", "qualitative")

#: C11's comparisons between thread counts (numerator, denominator), one family
C11_PAIRS = ((2, 1), (4, 1), (8, 2), (8, 4))


def c4(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C4"], C4)


def c8(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C8"], C8)


def c9(run: Run) -> list[ClaimResult]:
    return evaluate_rules(run, RULES["C9"], C9)


def thread_cells(run: Run, rule: Rule, placement: str | None, theirs: bool = False):
    """The cells of a thread-count rule at one placement, every thread count, in the blocks
    the plan declares for its claim (``theirs``: the reports' own programs' trials)."""
    d = original_cells(run) if theirs else stream_cells(run)
    d = d[d["mode"] == "stream"]
    blocks = claim_blocks(run, rule.claim)
    if blocks is not None:
        d = d[d["block"].isin(blocks)]
    return select(d, transport=rule.transport, placement=placement)


def _has(d, rule: Rule, method: str, threads: tuple[int, ...]) -> bool:
    return all(values(select(d, method=method, size=rule.sizes[0], threads=t),
                      rule.metric).size >= 2 for t in threads)


def _compare(run: Run, d, rule: Rule, method: str, a: int, b: int, family: int,
             decision=None) -> Compared | None:
    f = {"method": method, "size": rule.sizes[0]}
    return compare_pair(run, d, {**f, "threads": a}, {**f, "threads": b}, rule.metric,
                        family, decision or rule.decision, rule.sizes[0], rule.paired)


def _fill(r: ClaimResult, c: Compared) -> None:
    set_estimate(r, c.primary.ratio)
    set_rounds(r, c.primary)
    r.size = c.size
    r.design = c.primary.kind
    r.details = [c.row()]
    if c.sensitivity is not None and c.sens_decision is not None:
        s = c.sensitivity.ratio
        r.sensitivity = (f"{c.sensitivity.kind}: "
                         f"{fmt_ratio_ci(s.value, s.lo, s.hi, times=False)} → "
                         f"{c.sens_decision.outcome}")


def _thread_rows(run: Run, rule: Rule, stmt: tuple[str, str, str], theirs: bool,
                 decide) -> list[ClaimResult]:
    """One result per placement: the applicability condition, the cells, then ``decide``."""
    method = "S2:one-copy" if theirs else {"C6": "sendmsg", "C11": "send"}[rule.claim]
    basis = THEIR_PROGRAM if theirs else COPYBENCH
    reading = "S2's program here" if theirs else None
    need = (8, 4) if rule.claim == "C6" else (1, 2, 4, 8)
    out = []
    for pl in rule.placements:
        r = new_result(rule, stmt, pl, basis, reading)
        d = thread_cells(run, rule, pl, theirs)
        why = not_applicable(run, rule, pl, d)
        if why:
            r.verdict, r.reason = NOT_TESTABLE, why
        elif not _has(d, rule, method, need):
            lack = [t for t in need if not _has(d, rule, method, (t,))]
            r.verdict, r.reason = absent(run, rule, pl, why=(
                f"no {'/'.join(map(str, lack))}-thread {method} stream cells at "
                f"{rule.configuration(pl)} in this run"))
        else:
            decide(run, rule, r, d, method)
        out.append(r)
    return collapse(out)


def _decide_c6(run: Run, rule: Rule, r: ClaimResult, d, method: str) -> None:
    c = _compare(run, d, rule, method, 8, 4, rule.family)
    assert c is not None  # both thread counts were checked to have data
    _fill(r, c)
    r.details = [dict(x, pair="8/4 threads") for x in r.details]  # the ratio's own label
    r.statistic = rule.statistic
    out = c.decision.outcome  # a direction: less | greater | equivalent | inconclusive
    r.verdict = HOLDS if out in rule.expected[0] else INCONCLUSIVE if out == "inconclusive" \
        else REFUTED
    if r.verdict == REFUTED:
        r.direction = (f"{out} where the claim says less (a collapse): 8/4 threads "
                       + fmt_ratio_ci(c.primary.ratio.value, c.primary.ratio.lo,
                                      c.primary.ratio.hi, times=False))
    r.boundary = c.decision.why if r.verdict == INCONCLUSIVE else ""
    r.reason = f"8 vs 4 threads: {out} ({c.decision.why}); published 23.73/58.63 = 0.405"


def c6(run: Run, theirs: bool = False) -> list[ClaimResult]:
    """C6 on copybench's one-copy, or (``theirs``) on S2's own one-copy program."""
    return _thread_rows(run, RULES["C6"][0], C6, theirs, _decide_c6)


def _decide_c11(run: Run, rule: Rule, r: ClaimResult, d, method: str) -> None:
    """The best thread count from CIs between thread counts (never from medians)."""
    comps = {p: _compare(run, d, rule, method, *p, rule.family) for p in C11_PAIRS}
    out = {p: c.decision.outcome if c is not None else "inconclusive"
           for p, c in comps.items()}
    r.details = [dict(c.row(), pair=f"{p[0]}/{p[1]} threads") for p, c in comps.items() if c]
    r.statistic = (f"{rule.statistic}, paired within the block (CI level "
                   f"{1 - 0.05 / rule.family:.2%})")
    peak = [t for t in (2, 4) if out[(t, 1)] == "greater" and out[(8, t)] == "less"]
    one_best = out[(2, 1)] == "less" and out[(4, 1)] == "less"
    eight_not_worse = all(out[(8, t)] in ("greater", "equivalent") for t in (2, 4))
    if peak:
        r.verdict, pick = HOLDS, (8, peak[0])
    elif one_best:
        r.verdict, pick = REFUTED, (4, 1)
        r.direction = "1 thread is decided faster than both 2 and 4"
    elif eight_not_worse:
        r.verdict, pick = REFUTED, (8, 4)
        r.direction = "8 threads are decided not slower than 2 and 4 (" + ", ".join(
            f"8/{t}: {out[(8, t)]}" for t in (2, 4)) + ")"
    else:
        r.verdict = INCONCLUSIVE
        pick = next((p for p in C11_PAIRS if out[p] == "inconclusive"), (8, 4))
        r.boundary = "; ".join(f"{a}/{b} threads: {comps[(a, b)].decision.why}"
                               for a, b in C11_PAIRS
                               if comps[(a, b)] is not None and out[(a, b)] == "inconclusive")
    c = comps[pick]
    if c is not None:
        set_estimate(r, c.primary.ratio)
        set_rounds(r, c.primary)
        r.size = c.size
        r.design = c.primary.kind
        r.statistic += f"; shown: {pick[0]}/{pick[1]} threads"
    r.reason = "; ".join(f"{a}/{b} threads: {out[(a, b)]}"
                         + (f" ({comps[(a, b)].decision.why})" if comps[(a, b)] else "")
                         for a, b in C11_PAIRS) + "; super-linearity itself is not tested"


def c11(run: Run) -> list[ClaimResult]:
    return _thread_rows(run, RULES["C11"][0], C11, False, _decide_c11)

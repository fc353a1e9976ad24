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
from analysis.statistics import stats as S
from decision.claimtable import C6_THREADS, quote
from analysis.statistics.fmt import fmt_ratio_ci
from decision import claimtable
from decision import interval as I
from decision import rule as R
from decision import verdict as V
from analysis.loading.run import Run, select, values

C4 = ("S2", "One-copy beats two-copy at every size tested",
      f"one vs two-copy Gbit/s: 512 B {quote('C4', 512)} … 64 KB {quote('C4', 65536)}")
C6 = ("S2", "One-copy at 64 KB collapses from 4 to 8 threads",
      f"1/2/4/8 threads: {', '.join(C6_THREADS[t] for t in (1, 2, 4, 8))} Gbit/s")
C8 = ("S3", "Two-copy beats one-copy from 1 KB to 16 KB; one-copy wins only at 64 KB",
      f"4 threads: 1 KB {quote('C8', 1024)} … 64 KB {quote('C8', 65536)}")
C9 = ("S3", "Zero-copy never beats two-copy on one machine; at best ~52% of it",
      f"4 threads: 1 KB {quote('C9', 1024)} … 64 KB {quote('C9', 65536)} Gbit/s")
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


def _compare(run: Run, d, rule: Rule, method: str, a: int, b: int,
              family: int) -> Compared | None:
    """a/b threads of ``method`` at the rule's size, read by what the claim expects of that
    comparison (C6: 8/4 less; C11: t/1 greater, 8/t less)."""
    f = {"method": method, "size": rule.sizes[0]}
    return compare_pair(run, d, {**f, "threads": a}, {**f, "threads": b}, rule.metric,
                        family, rule.decision, rule.sizes[0], rule.paired,
                        expect=rule.expects(rule.sizes[0], f"{a}t/{b}t"))


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
                         + (c.sens_read.outcome if c.sens_read is not None
                            else c.sens_decision.outcome))


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
    read = c.read  # what C6 expects: 8/4 threads less (decision.rule.Expect)
    assert read is not None
    r.verdict = V.every({c.size: read})
    if r.verdict == REFUTED:
        r.direction = ("not a collapse: 8/4 threads "
                       + fmt_ratio_ci(c.primary.ratio.value, c.primary.ratio.lo,
                                      c.primary.ratio.hi, times=False)
                       + f", {read.why}")
    r.boundary = f"{read.why} ({c.distance()})" if r.verdict == INCONCLUSIVE else ""
    pub = claimtable.REPORTED["C6"][rule.sizes[0]]
    r.reason = (f"8 vs 4 threads: {read.outcome} ({read.why}); published "
                f"{pub[0]}/{pub[1]} = {claimtable.published('C6')[rule.sizes[0]]:.3f}")


def c6(run: Run, theirs: bool = False) -> list[ClaimResult]:
    """C6 on copybench's one-copy, or (``theirs``) on S2's own one-copy program."""
    return _thread_rows(run, RULES["C6"][0], C6, theirs, _decide_c6)


def _decide_c11(run: Run, rule: Rule, r: ClaimResult, d, method: str) -> None:
    """The best thread count from CIs between thread counts (never from medians)."""
    comps = {p: _compare(run, d, rule, method, *p, rule.family) for p in C11_PAIRS}
    none = R.Read(R.UNSETTLED, (), "no pairs")
    reads = {p: (c.read if c is not None and c.read is not None else none)
             for p, c in comps.items()}
    r.details = [dict(c.row(), pair=f"{p[0]}/{p[1]} threads") for p, c in comps.items() if c]
    r.statistic = (f"{rule.statistic}, paired within the block (CI level "
                   f"{I.level_of(rule.family, S.ALPHA):.2%})")
    verdict, t = V.best_threads({t: reads[(t, 1)] for t in (2, 4)},
                                {t: reads[(8, t)] for t in (2, 4)})
    r.verdict = verdict
    if verdict == HOLDS:
        pick = (8, t)
    elif verdict == REFUTED:
        pick = (8, 4)
        r.direction = ("no thread count of 2 or 4 beats 1 by the band while 8 falls below "
                       "it: " + ", ".join(f"{a}/{b} threads {reads[(a, b)].why}"
                                          for a, b in C11_PAIRS
                                          if reads[(a, b)].outcome == R.CONTRADICTS))
    else:
        pick = next((p for p in C11_PAIRS if reads[p].outcome == R.UNSETTLED), (8, 4))
        r.boundary = "; ".join(f"{a}/{b} threads: {reads[(a, b)].why}"
                               for a, b in C11_PAIRS if reads[(a, b)].outcome == R.UNSETTLED)
    c = comps[pick]
    if c is not None:
        set_estimate(r, c.primary.ratio)
        set_rounds(r, c.primary)
        r.size = c.size
        r.design = c.primary.kind
        r.statistic += f"; shown: {pick[0]}/{pick[1]} threads"
    r.reason = "; ".join(f"{a}/{b} threads: {reads[(a, b)].outcome} ({reads[(a, b)].why})"
                         for a, b in C11_PAIRS) + "; super-linearity itself is not tested"


def c11(run: Run) -> list[ClaimResult]:
    return _thread_rows(run, RULES["C11"][0], C11, False, _decide_c11)

"""The reports' own programs beside copybench: for each claim of S1-S3, the number the
report published, the authors' program on this testbed and copybench on this testbed, each
with its CI, and the claim's verdict under both.

Their program is judged by the claim's own rule (:mod:`analysis.claims.rules`), with
copybench's methods replaced by theirs (``send`` -> ``S<n>:two-copy``, ``sendmsg`` ->
``one-copy``, ``zerocopy`` -> ``zero-copy``) and, where the claim quotes a latency, with the
latency their program prints, by its own definition (S1: the window over the messages
received; S3: the mean time of one ``recv()``). Their cells run in the same blocks and rounds
as copybench's (runner/originals), so both ratios are paired the same way. Only the stream
readings have a counterpart: none of their programs answers a ping-pong.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

from analysis.claims import crossover, latency, throughput as pa02
from analysis.claims.base import (NOT_RUN, THEIR_PROGRAM, ClaimResult, compare_pair,
                                  original_cells, rule_cells)
from analysis.claims.engine import apply_rule
from analysis.claims.rules import RULES, THREADS, Rule
from analysis.loading.run import Run, select
from decision import claimtable
from rundir.vocabulary import REPORT_NAMES

#: (source, statement, published) of each claim, as its module states it
STATEMENTS = {"C1": latency.C1, "C4": pa02.C4, "C5": crossover.C5, "C6": pa02.C6,
              "C8": pa02.C8, "C9": pa02.C9, "C10": latency.C10}

#: the source whose programs each claim quotes
SOURCE_OF = {"C1": "S1", "C4": "S2", "C5": "S2", "C6": "S2", "C8": "S3", "C9": "S3",
             "C10": "S3"}
#: the reports' numbers per claim and message size: (numerator, denominator) of the rule's
#: ratio, in the report's unit (typed once: decision.claimtable.REPORTED); the verdict table
#: sets them beside the ratio measured here
REPORTED: dict[tuple[str, int], tuple[float, float]] = {
    (c, s): pair for c in ("C1", "C4", "C5", "C6", "C8", "C9", "C10", "C13")
    for s in claimtable.REPORTED[c] if (pair := claimtable.reported_pair(c, s)) is not None}


def their_rule(rule: Rule) -> Rule | None:
    """The claim's rule applied to the report's own programs, or None where they have no
    counterpart (a ping-pong reading)."""
    src = SOURCE_OF.get(rule.claim)
    if src is None or rule.mode != "stream":
        return None
    metric = "their_latency_us" if rule.metric == "inv_msg_rate_us" else rule.metric
    if rule.combine == THREADS:
        return dataclasses.replace(rule, metric=metric)
    return dataclasses.replace(rule, numerator=f"{src}:{REPORT_NAMES[rule.numerator]}",
                               denominator=f"{src}:{REPORT_NAMES[rule.denominator]}",
                               metric=metric)


#: the method of a thread-count rule (C6: one-copy, as S2 published it)
THREAD_METHOD = {"C6": "sendmsg"}
#: what each report's own code does that its words do not say (runner/originals/adapters):
#: the reading their program's verdict is for
CODE_READING = {"S1": "S1's program here",
                "S2": "S2's program here (its two-copy: 8 send() calls per message)",
                "S3": "S3's program here (its two-copy copies the fields once, before its "
                      "loop)"}


def their_reading(rule: Rule) -> str:
    src = SOURCE_OF[rule.claim]
    return CODE_READING[src] + (f"; {rule.reading}" if rule.reading else "")


def their_results(run: Run) -> list[ClaimResult]:
    """Every claim of S1-S3 decided on the report's own program run here (the claim as
    its code behaves), by the claim's own rule, per placement: the verdicts beside
    copybench's (the claim as the report words it)."""
    out: list[ClaimResult] = []
    for claim in SOURCE_OF:
        res: list[ClaimResult] = []
        for rule in RULES[claim]:
            theirs = their_rule(rule)
            if theirs is None:
                continue
            if rule.combine == THREADS:
                res += pa02.c6(run, theirs=True)
                continue
            res += [apply_rule(run, theirs, STATEMENTS[claim], pl, THEIR_PROGRAM,
                               their_reading(rule)) for pl in rule.placements]
        if res and all(r.verdict == NOT_RUN for r in res):
            one = res[0]
            one.part = one.placement = ""
            one.reading = f"{SOURCE_OF[claim]}'s program here"
            one.reason = ("their programs did not run in this run (the claims and paper "
                          "profiles run them)")
            res = [one]
        out += res
    return out


def _compare(run: Run, rule: Rule, placement: str | None, size: int, method: str | None
             ) -> Any:
    if method and ":" in method:  # a thread-count rule about one of their programs
        d = original_cells(run)
        d = select(d[d["mode"] == rule.mode], transport=rule.transport, placement=placement)
    else:
        d = rule_cells(run, rule, placement)
    if rule.combine == THREADS:
        f = {"method": method, "size": size}
        return compare_pair(run, d, {**f, "threads": int(rule.numerator)},
                            {**f, "threads": int(rule.denominator)}, rule.metric,
                            rule.family, rule.decision, size, rule.paired)
    # the seed apply_rule gives this size's comparison, so an unpaired (bootstrap) CI shown
    # here is the one that decided
    seed = list(rule.sizes).index(size) if size in rule.sizes else 0
    return compare_pair(run, d, {"method": rule.numerator, "size": size},
                        {"method": rule.denominator, "size": size}, rule.metric,
                        rule.family, rule.decision, size, rule.paired, seed=seed)


def _cell(c: Any) -> dict[str, float]:
    if c is None:
        return {"ratio": math.nan, "lo": math.nan, "hi": math.nan, "n": 0}
    r = c.primary.ratio
    return {"ratio": r.value, "lo": r.lo, "hi": r.hi, "n": c.primary.n}


def rows(run: Run) -> pd.DataFrame:
    """One row per claim, reading, placement and size: published ratio, their program's ratio
    [CI] and copybench's [CI] (same rule, family and pairing), and each verdict."""
    out = []
    c6 = {r.placement: r.verdict for r in pa02.c6(run)}
    c6_theirs = {r.placement: r.verdict for r in pa02.c6(run, theirs=True)}
    has_theirs = not original_cells(run).empty
    for claim in SOURCE_OF:
        for rule in RULES[claim]:
            theirs = their_rule(rule)
            if theirs is None:
                continue
            src = SOURCE_OF[claim]
            method = THREAD_METHOD.get(claim)
            for pl in rule.placements:
                threads = rule.combine == THREADS
                cb_v = (c6.get(pl or "", c6.get("", NOT_RUN)) if threads
                        else apply_rule(run, rule, STATEMENTS[claim], pl).verdict)
                th_v = ((c6_theirs.get(pl or "", c6_theirs.get("", NOT_RUN)) if threads
                         else apply_rule(run, theirs, STATEMENTS[claim], pl).verdict)
                        if has_theirs else NOT_RUN)
                for size in rule.sizes:
                    pub = REPORTED.get((claim, size))
                    cb = _cell(_compare(run, rule, pl, size, method))
                    tc = (_compare(run, theirs, pl, size, f"{src}:{REPORT_NAMES[method]}"
                                   if method else None) if has_theirs else None)
                    th = _cell(tc)
                    out.append({
                        "claim": claim, "source": src, "reading": rule.reading,
                        "placement": pl, "size": size, "metric": rule.metric,
                        "their_metric": theirs.metric,
                        "published": pub[0] / pub[1] if pub else math.nan,
                        **{f"theirs_{k}": v for k, v in th.items()},
                        **{f"copybench_{k}": v for k, v in cb.items()},
                        "verdict_copybench": cb_v, "verdict_theirs": th_v,
                    })
    return pd.DataFrame(out)

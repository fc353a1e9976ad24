"""The rules engine: one rule of :mod:`analysis.claims.rules` applied to a run at one
placement, each comparison read by its CI, the comparisons combined into the verdict.

Order of the checks, the same for every rule: the rule's applicability condition (a testbed
that fails it: *not testable here*); the cells the plan declares for the claim (none: *not
run in this profile*, or *not testable here* when its trials failed); then the comparisons,
each a CI at the family's Bonferroni level read by the rule (never a point estimate), and
the combination. A refutation says which way the data contradict the claim.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import pandas as pd

from analysis.statistics import bottleneck as BN
from analysis.statistics import stats as S
from analysis.claims.applicability import absent, not_applicable
from analysis.claims.base import (COPYBENCH, HOLDS, INCONCLUSIVE, NOT_RUN, NOT_TESTABLE,
                                  REFUTED, ClaimResult, Compared, compare_pair, crossover_of,
                                  new_result, rule_cells, set_estimate, set_rounds, sizes_text,
                                  sizes_with)
from analysis.claims.rules import CROSSOVER
from decision import reading as RD
from decision import rule as R
from decision import verdict as V
from analysis.statistics.fmt import fmt_num, fmt_ratio_ci, fmt_size
from analysis.loading.run import Run, select

if TYPE_CHECKING:
    from analysis.claims.rules import Rule


def _ci(e: S.Estimate) -> str:
    return fmt_ratio_ci(e.value, e.lo, e.hi, times=False)


def apply_rule(run: Run, rule: "Rule", stmt: tuple[str, str, str], placement: str | None,
               basis: str = COPYBENCH, reading: str | None = None) -> ClaimResult:
    """Evaluate one rule at one placement. ``stmt`` = (source, statement, published)."""
    r = new_result(rule, stmt, placement, basis, reading)
    d = rule_cells(run, rule, placement)
    why = not_applicable(run, rule, placement, d)
    if why:
        r.verdict, r.reason = NOT_TESTABLE, why
        return r
    a, b, metric = rule.numerator, rule.denominator, rule.metric
    planned = sizes_with(d, a, b, metric)
    sizes = [s for s in rule.sizes if s in planned] if rule.sizes else planned
    if not sizes or (rule.combine == CROSSOVER and len(sizes) < 2):
        r.verdict, r.reason = absent(run, rule, placement, list(rule.sizes) or None)
        return r
    r.design = run.primary if run.has_blocks else S.UNPAIRED
    if rule.combine == CROSSOVER:
        return _crossover(run, rule, r, d, sizes)
    missing = [s for s in rule.sizes if s not in sizes]
    family = rule.family or len(sizes)
    comps: dict[int, Compared] = {}
    for i, s in enumerate(rule.sizes or sizes):
        if s in sizes:
            c = compare_pair(run, d, {"method": a, "size": s}, {"method": b, "size": s},
                             metric, family, rule.decision, s, rule.paired, seed=i,
                             expect=rule.expects(s))
            if c is not None:
                comps[s] = c
    if not comps:
        r.verdict, r.reason = absent(run, rule, placement, sizes)
        return r
    r.details = [c.row() for c in comps.values()]
    family = max(c.primary.family for c in comps.values())  # each comparison's one family
    r.statistic = rule.statistic + (f" (CI level {S.family_confidence(family):.2%})"
                                    if family > 1 else "")
    bounds = _bounds(run, rule, d, list(comps))
    bound_sizes = [s for s, b in bounds.items() if b == RD.RECEIVER]
    pick = _every(rule, r, comps, missing, sizes, bound_sizes)
    set_estimate(r, pick.primary.ratio)
    set_rounds(r, pick.primary)
    r.size = pick.size
    if len(comps) > 1:
        r.statistic += f"; shown: {fmt_size(pick.size)}"
    if pick.sensitivity is not None and pick.sens_decision is not None:
        sens = pick.sens_read.outcome if pick.sens_read is not None else \
            pick.sens_decision.outcome
        r.sensitivity = f"{pick.sensitivity.kind}: {_ci(pick.sensitivity.ratio)} → {sens}"
    if r.verdict == INCONCLUSIVE and not r.boundary:
        r.boundary = "; ".join(f"{fmt_size(s)}: {c.why} ({c.distance()})"
                               for s, c in comps.items() if c.open) or pick.why
    r.reason = "; ".join(f"{fmt_size(s)}: {RD.RECEIVER_BOUND if s in bound_sizes else _outcome(c)}"
                         f" ({c.why})" for s, c in comps.items()) \
        + (f"; no cells at {sizes_text(missing)}" if missing else "")
    if bounds:
        r.bound = RD.bound(bounds.values())
    if bound_sizes:
        _receiver_bound(r, bound_sizes)
    return r


#: the rule modes whose cells are streams from a sender into copybench's receiver (a message
#: stream, a file sent into a socket: bottleneck.SCENARIOS)
_SIDED = ("stream", "file→socket")


def _bounds(run: Run, rule: "Rule", d: pd.DataFrame, sizes: Sequence[int]) -> dict[int, str]:
    """Per size compared: the side that set the rate of its two cells (decision.reading.bound,
    from the run's table of sides); {} where the rule's metric is not a rate one side sets or
    its cells have no receiver of copybench's (a round trip, a file→file copy)."""
    if rule.metric not in RD.RATE_METRICS or rule.mode not in _SIDED:
        return {}
    both = d[d["method"].isin([rule.numerator, rule.denominator])]
    return {s: BN.cells_bound(run, both[both["size"] == s]) for s in sizes}


def _receiver_bound(r: ClaimResult, sizes: Sequence[int]) -> None:
    """A verdict some of whose sizes rest on a cell copybench's receiver set the rate of
    (decision.reading.claim_verdict): refuted by a size that tests the sender stays refuted
    and names them; any other reads receiver-bound (not testable here, the reason first)."""
    where = f"at {sizes_text(sorted(sizes))}"
    r.bound_note = f"{RD.RECEIVER_BOUND} {where}"
    if r.verdict == REFUTED:
        return
    r.verdict, r.direction, r.scope, r.boundary = NOT_TESTABLE, "", "", ""
    r.condition = (f"{RD.RECEIVER_BOUND} {where}: copybench's receiver, busy at least "
                   f"{BN.BUSY:.0%} of the window (same-core: the larger share), set the rate")
    r.reason = f"{RD.RECEIVER_BOUND} {where}; per size: {r.reason}"


def _outcome(c: Compared) -> str:
    """A size's outcome in words: the claim's reading (agrees / contradicts / open), or the
    band reading where the comparison serves no expectation."""
    return c.read.outcome if c.read is not None else c.decision.outcome


def scope_text(run_at: Sequence[int], missing: Sequence[int],
               uncompared: Sequence[int] = ()) -> str:
    """The scope of a verdict decided at only some of its rule's sizes ("at 4 KiB, 64 KiB
    only; not run at 1 KiB, 16 KiB"); a size the plan ran but that gave no comparison is
    named so ("no comparison at ..."), not "not run"; "" where no size is left out."""
    if not missing and not uncompared:
        return ""
    out = [f"at {sizes_text(sorted(run_at))} only"]
    if missing:
        out.append(f"not run at {sizes_text(sorted(missing))}")
    if uncompared:
        out.append(f"no comparison at {sizes_text(sorted(uncompared))}")
    return "; ".join(out)


def _every(rule: "Rule", r: ClaimResult, comps: dict[int, Compared], missing: list[int],
           sizes: list[int], bound_sizes: Sequence[int] = ()) -> Compared:
    """Every size must agree with the claim; one that contradicts refutes it, whatever the
    others (decision.verdict.every: the minimum-effect reading of each size's CI). A size
    resting on a receiver-bound cell (``bound_sizes``) neither agrees nor contradicts: the
    others decide a refutation, and nothing else is decided (:func:`_receiver_bound`)."""
    reads = {s: c.read for s, c in comps.items() if c.read is not None
             and s not in bound_sizes}
    verdict = V.every(reads)
    if bound_sizes and RD.claim_verdict(verdict, bound_sizes, REFUTED) != REFUTED:
        r.verdict = INCONCLUSIVE  # read receiver-bound once the reason is written
        return comps[sorted(bound_sizes)[0]]
    if verdict == REFUTED:
        s = V.first(reads, R.CONTRADICTS)
        c = comps[s]  # type: ignore[index]
        r.verdict = REFUTED
        e = rule.expects(s)
        r.direction = (f"{_side_words(c, e)} at {fmt_size(s)} where the claim says "
                       f"{e.text() if e else '?'}: {rule.numerator}/{rule.denominator} "
                       f"{_ci(c.primary.ratio)}")
        return c
    if verdict == INCONCLUSIVE:
        r.verdict = INCONCLUSIVE
        return comps[V.first(reads, R.UNSETTLED) or next(iter(comps))]
    r.verdict = HOLDS  # where the plan lacks a size of the claim: at the sizes run, said so
    r.scope = scope_text(list(comps), missing,
                         [s for s in sizes if s not in comps])
    return min(comps.values(), key=lambda c: abs(math.log(c.primary.ratio.value)))


def _side_words(c: Compared, e: "R.Expect | None") -> str:
    """Where a contradicting CI lies, in words: "below 1.12" (and "less" or "equivalent"
    where the band reading names it)."""
    if e is None:
        return c.decision.outcome
    (edge, *_) = e.edges() if e.kind != R.EQUIVALENT else (0.0,)
    lo, hi = c.primary.ratio.lo, c.primary.ratio.hi
    if e.kind == R.EQUIVALENT:
        return "outside [{:g}, {:g}]".format(*e.edges())
    where = "below" if (lo + hi) / 2 < edge else "above"
    band = {"less": "less", "greater": "greater", "equivalent": "equivalent"}.get(
        c.decision.outcome)
    return f"{where} {edge:g}" + (f" ({band})" if band else "")


def _crossover(run: Run, rule: "Rule", r: ClaimResult, d: pd.DataFrame,
               sizes: list[int]) -> ClaimResult:
    """Where a first reaches b, and whether a pays off above the claimed band, both from
    CIs: the crossover's bootstrap CI and P(no crossover), and each size's comparison."""
    a, b, metric = rule.numerator, rule.denominator, rule.metric
    band_lo, band_hi = rule.band
    c, r.design = crossover_of(run, d, a, b, metric, sizes)
    family = len(sizes)
    direction = rule.decision  # the direction against the smallest effect of interest
    comps = {s: compare_pair(run, d, {"method": a, "size": s}, {"method": b, "size": s},
                             metric, family, direction, s, rule.paired, seed=i,
                             expect=rule.expects(s))
             for i, s in enumerate(sizes)}
    r.details = [x.row() for x in comps.values() if x is not None]
    family = max([family, *(x.primary.family for x in comps.values() if x is not None)])
    r.value, r.lo, r.hi = c.size, c.lo, c.hi
    shown = max((x for x in comps.values() if x is not None),
                key=lambda x: (x.primary.rounds or x.primary.n), default=None)
    if shown is not None:  # the crossover rests on every round; the most a size has
        set_rounds(r, shown.primary)
    r.statistic = (f"{rule.statistic} (bytes, {r.design} bootstrap; P(no crossover in range) "
                   f"= {c.p_none:.2f}; sizes above the band at CI level "
                   f"{S.family_confidence(family):.2%})")
    r.configuration = rule.configuration(r.placement or None).replace(
        "every file size measured", "sizes " + sizes_text(c.sizes))
    above = {s: x for s, x in comps.items() if s > band_hi and x is not None}
    # above the band the claim expects an effect (decision.rule.Expect greater): a size whose
    # CI lies wholly below its edge does not pay off there
    paying = V.above_crossover({s: x.read for s, x in above.items() if x.read is not None})
    not_paying = {s: x for s, x in above.items()
                  if x.read is not None and x.read.outcome == R.CONTRADICTS}
    covers = min(sizes) <= band_lo and max(sizes) >= band_hi
    side = R.side(c.lo, c.hi, band_lo, band_hi)
    bounded = side != "none"
    inside = side == "inside"
    outside = side in ("above", "below")
    p_max = rule.p_none_max
    why = []
    if not_paying:
        s, x = next(iter(not_paying.items()))
        r.verdict = REFUTED
        r.direction = (f"does not pay off above the band: {a}/{b} at {fmt_size(s)} "
                       f"{_ci(x.primary.ratio)}, {_side_words(x, rule.expects(s))}")
    elif covers and c.p_none >= 1 - p_max:
        r.verdict = REFUTED
        r.direction = f"no crossover in the range (bootstrap probability {c.p_none:.2f})"
    elif outside and c.p_none <= p_max:
        r.verdict = REFUTED
        r.direction = ("crossover " + side
                       + f" the claimed band: {fmt_num(c.size)} B [{fmt_num(c.lo)}, {fmt_num(c.hi)}]")
    elif inside and c.p_none <= p_max and above and paying == HOLDS:
        r.verdict = HOLDS
    else:
        r.verdict = INCONCLUSIVE
        if c.p_none > p_max:
            why.append(f"P(no crossover in range) = {c.p_none:.2f} > {p_max:g}")
        if not inside:
            why.append("the crossover CI is not inside the band" if bounded else
                       "no crossover CI (too few resamples cross)")
        if not above:
            why.append(f"no size above {fmt_size(band_hi)} to show it pays off")
        undecided = [fmt_size(s) for s, x in above.items() if x.open]
        if undecided:
            edge = R.Expect(R.GREATER, rule.decision.threshold).text()
            why.append(f"not decided {edge} above the band at " + ", ".join(undecided))
        r.boundary = "; ".join(why)
    per = "; ".join(f"{fmt_size(s)}: {_outcome(x)} ({x.why})"
                    for s, x in comps.items() if x is not None)
    # a mean ratio that does not cross 1 in the measured range has no crossover size
    at = (f"crossover {fmt_num(c.size)} B" if math.isfinite(c.size) else
          "no crossover of the mean ratio in the measured range")
    r.reason = (f"{at}, P(no crossover) {c.p_none:.2f}, band "
                f"{fmt_size(band_lo)}–{fmt_size(band_hi)}; per size: {per}")
    copied = select(run.measured, method=a, transport=rule.transport)["zc_copied_fraction"]
    if a == "zerocopy" and copied.notna().any():
        r.reason += (f"; copied fraction of zero-copy completions on {rule.transport}: "
                     f"{copied.median():.2f}")
    return r


def evaluate_rules(run: Run, rules: Sequence["Rule"], stmt: tuple[str, str, str],
                   basis: str = COPYBENCH, reading_of=None) -> list[ClaimResult]:
    """Every rule of a claim at every placement it names; ``reading_of(rule)`` overrides
    each rule's reading (the reports' own programs). When every result is the same
    non-verdict for the same reason, one row says so."""
    out = [apply_rule(run, rule, stmt, pl, basis,
                      reading_of(rule) if reading_of is not None else None)
           for rule in rules for pl in rule.placements]
    return collapse(out)


def collapse(out: list[ClaimResult]) -> list[ClaimResult]:
    """Rows that all say *not testable here* (or all *not run*) with no estimate become one
    row naming every reason once."""
    states = {x.verdict for x in out}
    if len(out) > 1 and len(states) == 1 and states <= {NOT_TESTABLE, NOT_RUN} \
            and not any(math.isfinite(x.value) for x in out) \
            and len({x.basis for x in out}) == 1:
        one = out[0]
        one.part, one.placement = "", ""
        one.reading = " | ".join(dict.fromkeys(x.reading for x in out if x.reading))
        one.reason = "; ".join(dict.fromkeys(x.reason for x in out))
        one.rule = " | ".join(dict.fromkeys(x.rule for x in out))
        one.boundaries = " | ".join(dict.fromkeys(x.boundaries for x in out))
        one.configuration = " | ".join(dict.fromkeys(x.configuration for x in out))
        return [one]
    return out

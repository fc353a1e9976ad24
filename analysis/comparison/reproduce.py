"""The "Results Reproduced" rule: whether a reviewer's run reproduces each verdict of the
reference run. One implementation: ``make compare`` applies it, and the artifact appendix
prints :func:`rule_text` (no second statement of the rule).

Per verdict (one claim, rule reading, placement and measurement), reference against run,
the first that applies of:

* **not comparable** (with the reason): not run in one of the two profiles, decided at only
  some of its rule's sizes in one of them (its plan left the others out), or not testable
  on one machine only (on a machine that has what the other lacked, a decided verdict is a
  new result, not a failure);
* **both not testable**: neither machine could test it (their own category: nothing was
  tested, so nothing is reproduced);
* **direction first**: the direction verdict (*holds*, *refuted*, or undecided) decides the
  category; the verdict on the report's published number (:attr:`ClaimResult.magnitude`)
  can only add to a reproduced direction, never stand in for one:

  * **reproduced: same verdict and magnitude**: both runs decide the same direction verdict,
    their CIs overlap (for a crossover size: the crossover CIs; a verdict both decide without
    an estimate, e.g. no crossover in range, needs none), and both decide the same verdict on
    the published number;
  * **reproduced: same verdict**: the same, with the published number not decided the same
    way on both (undecided on one, or opposite);
  * **same verdict, not reproduced in size**: the same decided direction verdict with CIs
    that do not overlap (the effect is there on both, but not of the same size);
  * **not reproduced**: opposite decided verdicts, or a decided reference that the rerun
    leaves undecided;
  * **newly decided**: the reference is undecided and the rerun decided (more rounds or a
    quieter machine: a new result, neither a reproduction nor a failure);
  * **both undecided**: undecided on both (their own category: a wide CI on both sides
    agrees with anything, so it is never counted as reproduced, whatever the magnitudes).

Of these, *reproduced* (either kind), *not reproduced in size*, *not reproduced*, *newly
decided* and *both undecided* are the verdicts **compared** (tested in both runs); a compare in which no verdict was tested
in both runs says "0 claims compared".

The whole study (:func:`run_judgement`; in words, :func:`analysis.words.reproduction.criterion_text`): a reviewer's run reproduces
it when no verdict the reference decides is reversed (holds in one run, refuted in the other)
and at least :data:`MIN_SHARE` % of the reference's decided verdicts that both runs tested
are reproduced (either kind above). The number was read post hoc from the committed pairs of
a paper run and the claims run made after it on the same class of machine
(:data:`CRITERION_PAIRS`, ``studies/reproduction_criterion.py`` recomputes them) and
declared at :data:`CRITERION_DECLARED`, before any rerun it judges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Sequence

import pandas as pd

from analysis.claims.base import (HOLDS, INCONCLUSIVE, MAGNITUDE_DECIDED, NOT_RUN,
                                  NOT_TESTABLE, REFUTED, UNDETERMINED, ClaimResult)
from analysis.loading.run import Run, instant
from decision import claimtable
from decision import rule as R

SAME_AND_MAGNITUDE = "reproduced: same verdict and magnitude"
SAME_DECIDED = "reproduced: same verdict"
NOT_IN_SIZE = "same verdict, not reproduced in size"
NEWLY_DECIDED = "newly decided"
BOTH_UNDECIDED = "both undecided"
BOTH_NOT_TESTABLE = "both not testable"
NOT_REPRODUCED = "not reproduced"
NOT_COMPARABLE = "not comparable"
#: the categories in the order the total names them
CATEGORIES = (SAME_AND_MAGNITUDE, SAME_DECIDED, NOT_IN_SIZE, NOT_REPRODUCED, NEWLY_DECIDED,
              BOTH_UNDECIDED, BOTH_NOT_TESTABLE, NOT_COMPARABLE)
REPRODUCED = (SAME_AND_MAGNITUDE, SAME_DECIDED)
#: the verdicts tested in both runs
COMPARED = (*REPRODUCED, NOT_IN_SIZE, NOT_REPRODUCED, NEWLY_DECIDED, BOTH_UNDECIDED)
DECIDED = (HOLDS, REFUTED)
#: verdicts the run could not decide: a CI across a boundary, or a method that failed here
UNDECIDED = (INCONCLUSIVE, UNDETERMINED)


@dataclass(frozen=True)
class Judgement:
    status: str
    why: str

    @property
    def reproduced(self) -> bool:
        return self.status in REPRODUCED


@dataclass(frozen=True)
class Revision:
    """One revision of the rule: when it was committed (UTC, to the minute) and what
    changed. A judgement of two runs both made after the latest revision could not have
    been seen when the rule in force was written."""

    when: str
    what: str


#: The run-level criterion's number: the smallest share, in percent, of the reference's
#: decided verdicts tested in both runs that a reviewer's run must reproduce (besides
#: reversing none). Post hoc: read from :data:`CRITERION_PAIRS` after those reruns had been
#: judged; the smallest of their shares (21 of 24, 87.5 %) rounded down to a multiple of 5,
#: because at 13 to 31 decided verdicts one verdict moves a share by 3 to 8 points, so a
#: finer number would claim a precision four pairs do not have.
MIN_SHARE = 85
#: when the run-level criterion was committed (UTC, to the minute): a revision of the rule
CRITERION_DECLARED = "2026-11-28T14:01Z"
#: The committed pairs the number was read from, oldest first: (reference: a paper run, rerun:
#: the claims run made after it on a machine with the same CPU model, reproduced verdicts,
#: the reference's decided verdicts tested in both, reversed verdicts), each judged against
#: its own paper run under the rules in force when :data:`MIN_SHARE` was set. A reference
#: test recomputes them (``studies/reproduction_criterion.py`` prints them).
CRITERION_PAIRS: tuple[tuple[str, str, int, int, int], ...] = (
    ("20261123T062509Z-paper", "20261123T081603Z-claims", 18, 18, 0),
    ("20261122T052509Z-paper-0690", "20261124T061344Z-claims", 12, 13, 0),
    ("20261124T133652Z-paper-e8c3", "20261124T161827Z-claims", 21, 24, 0),
    ("20261127T121419Z-paper-ebfc", "20261127T154147Z-claims", 28, 31, 0),
)

@dataclass(frozen=True)
class Criterion:
    """One declaration of the run-level criterion: when (UTC), the smallest share (percent)
    of the reference's decided comparison sets a rerun must reproduce, the reversals it may
    have, and where the number comes from."""

    declared: str
    min_share: int
    reversals: int
    source: str


#: the criterion read post hoc from :data:`CRITERION_PAIRS` (no error rate)
EARLIER_CRITERION = Criterion(CRITERION_DECLARED, MIN_SHARE, 0, "post hoc: the smallest "
                              "share of four committed pairs, rounded down")
#: the criterion in force: by simulation (``make criterion``: decision/criterion.json), the
#: smallest whole-percent share that a rerun of the reference's truth reaches, none
#: reversed, with probability >= 95 % under the design; declared before any rerun it judges
IN_FORCE = Criterion("2026-11-29T16:38Z", 92, 0, "simulated: decision/criterion.json "
                     "(reruns of the reference's truth under the design)")
#: the file ``make criterion`` writes the simulated criteria and their power tables to
CRITERION_FILE = Path(__file__).resolve().parents[2] / "decision" / "criterion.json"
#: which criterion judges a pair of runs: both on one CPU class (the catalog's wording), or not
SAME_CLASS = "same-class"
CROSS_CLASS = "cross-class"
#: the criterion in force for a rerun on another CPU class than the reference's: the same
#: simulation restricted to the reference's decided comparison sets whose verdicts are the
#: same on every class measured (analysis.comparison.stability over the committed runs; the
#: sets are listed in decision/criterion.json's cross_class.judged); declared before any
#: rerun it judges as its test
IN_FORCE_CROSS = Criterion("2026-11-29T17:25Z", 95, 0, "simulated: decision/criterion.json "
                           "cross_class (reruns of the reference's truth, judged on the sets "
                           "the same on every class measured)")
#: each class relation's criterion in force
IN_FORCE_BY = {SAME_CLASS: IN_FORCE, CROSS_CLASS: IN_FORCE_CROSS}

#: every revision of the rule, oldest first (the rule in force is the last)
REVISIONS = (
    Revision("2026-11-24T07:38Z",
             "a crossover size is compared by its CI, not like a ratio, and either run's "
             "verdict may be the inconclusive one (mended after the reference machine's own "
             "reruns had been judged by the first statement)"),
    Revision("2026-11-26T03:44Z",
             "stricter: reproduced only by the same decided verdict with overlapping CIs or "
             "the same verdict on the published magnitude; both undecided, both not testable "
             "and newly decided are categories of their own, never counted as reproduced; "
             "the statistic's widened band and the speed normalisation are gone (mended after "
             "the committed reruns had been judged by the earlier rule, so those runs are not "
             "its test)"),
    Revision("2026-11-27T01:38Z",
             "direction first: the same verdict on the published number no longer reproduces "
             "a verdict whose direction is undecided or not the same (it only adds to a "
             "reproduced direction: same verdict and magnitude); the same decided direction "
             "with CIs that do not overlap is its own category, not reproduced in size "
             "(mended after every committed run had been judged by the earlier rule, so none "
             "of them is its test)"),
    Revision("2026-11-28T07:00Z",
             "the categories are unchanged, and judge the verdicts of the claims' rule in "
             "force, the minimum-effect test: a verdict both runs refute with CIs wholly below "
             "the claim's edge is compared as decided (before, both read 'inconclusive' and "
             "the pair 'both undecided': C4 cross-core and C13 same-core between the reference "
             "run and the claims run of 2026-11-27; every committed run is re-read post hoc)"),
    Revision(CRITERION_DECLARED,
             "the verdicts' categories are unchanged; added: the run-level criterion, when a "
             "reviewer's run reproduces the study as a whole (no decided verdict reversed, and "
             "at least {p} % of the reference's decided verdicts tested in both runs "
             "reproduced); its number was read post hoc from the committed pairs of a paper "
             "run and the claims run after it on the same class of machine, after those "
             "reruns had been judged, so none of them is its test: the next reviewer's run "
             "against a reference made after it is its first real test".format(p=MIN_SHARE)),
    Revision(IN_FORCE.declared,
             "the run-level criterion counts comparison sets, not verdicts (two readings "
             "that share their CIs, C9's and C3's, count once), and its number comes from a "
             "simulation with a known error rate: the smallest share ({p} %) of the "
             "reference's decided comparison sets that a rerun of the same truth reproduces, "
             "none reversed, with probability at least 95 % under the design (make "
             "criterion, decision/criterion.json, with the chance of passing when 1 to 5 "
             "sets truly differ); mended after the run: the committed reruns, the AMD "
             "claims rerun 20261127T154147Z-claims among them, had been judged by the "
             "earlier criterion".format(p=IN_FORCE.min_share)),
    Revision(IN_FORCE_CROSS.declared,
             "the verdicts' categories and the same-class criterion are unchanged; added: a "
             "rerun on another CPU class than the reference's is judged only on the "
             "reference's decided comparison sets whose verdicts are the same on every class "
             "measured (the stability labels over the committed runs), by the share ({p} %) "
             "that a rerun of the same truth reaches on those sets, none reversed, with "
             "probability at least 95 % (make criterion writes both criteria); mended after "
             "the run: the labels are read from the committed runs, the AMD reruns "
             "20261127T121419Z-paper-ebfc and 20261127T154147Z-claims among them, which had "
             "been judged against the reference before, so their judgements under it are "
             "post hoc".format(p=IN_FORCE_CROSS.min_share)),
)
#: when the rule in force was committed
MENDED = REVISIONS[-1].when


def tests_the_rule(run: Run, ref: Run) -> bool:
    """Whether judging ``run`` against ``ref`` is a real test of the rule in force: both
    were made after :data:`MENDED`, so neither's verdicts were seen when it was written."""
    made = [run.created_at, ref.created_at]
    return all(t is not None and t > instant(MENDED) for t in made)


def rule_text(mark: tuple[str, str] = ("*", "*")) -> str:
    """The rule in words, each category's name between ``mark`` (Markdown emphasis for the
    compare report; the book glues plain text, where a mark is shown as typed, so it passes
    quotation marks)."""
    o, c = mark
    return (
        "The direction verdict decides first. A verdict of the reference run is reproduced by "
        "a reviewer's run only when both runs decide the same verdict (holds, or refuted) and "
        "their CIs overlap (for a crossover size, the crossover CIs; a verdict both runs "
        "decide without an estimate, such as no crossover in range, needs none); when both "
        "also decide the same verdict on the report's published number (inside our CI, "
        "detectably smaller or detectably larger than ours) it is reproduced in verdict and "
        "magnitude, and otherwise in verdict only. "
        "The published number never stands in for an undecided or different direction. The "
        f"same decided verdict with CIs that do not overlap is {o}not reproduced in size{c}. "
        f"Opposite decided verdicts, or a decided reference left undecided, are {o}not "
        f"reproduced{c}. Undecided on both is {o}both undecided{c} and not testable on both "
        f"is {o}both not testable{c}: neither is counted as reproduced. A reference undecided "
        f"that the reviewer's run decides is {o}newly decided{c}. A verdict not run in one of "
        "the two profiles, decided at only some of its sizes in one of them, or not testable "
        f"on one machine only, is {o}not comparable{c} (on a machine that has what the other "
        "lacked, a decided verdict is a new result, not a failure). "
        "The verdicts tested in both runs are the ones compared; a comparison in which none "
        "was says \"0 claims compared\".")


#: the verdict on a report's published number, in the words of the expected results
MAGNITUDE_WORDS = {**{m: f"published number {m}" for m in MAGNITUDE_DECIDED},
                   INCONCLUSIVE: "a published size not measured"}


def _overlap(a: ClaimResult, b: ClaimResult) -> bool | None:
    return R.overlap(a.lo, a.hi, b.lo, b.hi)


def _condition(r: ClaimResult) -> str:
    """The missing condition a not-testable verdict names (its reason up to the semicolon
    that says what the machine has)."""
    return r.reason.split(";")[0].strip()


def _ci(r: ClaimResult) -> str:
    return r.ci_text() if math.isfinite(r.value) else "no estimate"


def judge(ref: ClaimResult, run: ClaimResult) -> Judgement:
    """The rule on one verdict (see the module doc for the order of the categories)."""
    v_ref, v_run = ref.verdict, run.verdict
    if NOT_RUN in (v_ref, v_run):
        side = "the reference" if v_ref == NOT_RUN else "the reviewer's run"
        return Judgement(NOT_COMPARABLE, f"not run in {side}'s profile")
    if ref.scope != run.scope:  # decided at only some of its rule's sizes in one run
        side, r = ("the reference", ref) if ref.scope else ("the reviewer's run", run)
        return Judgement(NOT_COMPARABLE, f"decided {r.scope} in {side}'s profile")
    if v_ref == v_run == NOT_TESTABLE:
        same = _condition(ref) == _condition(run)
        return Judgement(BOTH_NOT_TESTABLE, f"not testable on both machines: "
                         + (_condition(ref) if same else f"reference {_condition(ref)}; "
                            f"run {_condition(run)}"))
    if v_ref == NOT_TESTABLE:
        return Judgement(NOT_COMPARABLE, "decided on the reviewer's machine, which has "
                         f"what the reference lacked ({_condition(ref)}): a new result"
                         if v_run in DECIDED else
                         f"not testable on the reference's machine: {_condition(ref)}")
    if v_run == NOT_TESTABLE:
        return Judgement(NOT_COMPARABLE, f"not testable on the reviewer's machine: "
                         f"{_condition(run)}")
    cis = f"reference {_ci(ref)}, run {_ci(run)}"
    ov = _overlap(ref, run)
    if v_ref == v_run and v_ref in DECIDED:
        if ov or not (math.isfinite(ref.value) or math.isfinite(run.value)):
            same = (f"CIs overlap: {cis}" if ov else "neither with an estimate to compare "
                    f"(reference: {ref.direction or v_ref}; run: {run.direction or v_run})")
            m_ref, m_run = ref.magnitude, run.magnitude
            if m_ref == m_run and m_ref in MAGNITUDE_DECIDED:
                return Judgement(SAME_AND_MAGNITUDE, f"{v_ref} on both, {same}; published "
                                 f"number {m_ref} on both ({ref.magnitude_text or 'its band'})")
            mag = (f"published number: reference {m_ref or 'not judged'}, run "
                   f"{m_run or 'not judged'}")
            return Judgement(SAME_DECIDED, f"{v_ref} on both, {same}; {mag}")
        return Judgement(NOT_IN_SIZE, f"{v_ref} on both, but the CIs "
                         + ("do not overlap" if ov is False else "cannot be compared")
                         + f": {cis}")
    if v_ref in DECIDED and v_run in DECIDED:
        return Judgement(NOT_REPRODUCED, f"opposite verdicts: reference {v_ref}, run {v_run}")
    if v_ref in UNDECIDED and v_run in DECIDED:
        return Judgement(NEWLY_DECIDED, f"{v_ref} in the reference, {v_run} in the "
                         f"run: {cis}")
    if v_ref in UNDECIDED and v_run in UNDECIDED:
        return Judgement(BOTH_UNDECIDED, f"{v_ref} in the reference, {v_run} in the run: "
                         f"{cis}" if v_ref != v_run else f"{v_ref} on both: {cis}")
    return Judgement(NOT_REPRODUCED, f"reference {v_ref}, left {v_run} by the run: {cis}")


def key(r: ClaimResult) -> tuple[str, str, str, str]:
    return (r.claim, r.rule_id or r.part, r.placement, r.basis)


def comparison_set(r: ClaimResult) -> str:
    """The set of comparisons a verdict's CIs come from: its claim, the declared comparisons
    and cells' mode its rule reads (decision.claimtable), its placement and measurement. Two
    readings of one claim that read the same comparisons (C9's 'never beats' and 'at best
    ~52 %', C3's two crossover readings) share it, and so share their CIs; a verdict the
    table does not hold is a set of its own."""
    claim, _, reading = (r.rule_id or f"{r.claim}:{r.part}").partition(":")
    try:
        row = claimtable.row(claim, reading)
        what = f"{'+'.join(row.comparisons)} {row.mode}"
    except KeyError:
        what = f"[{reading}]"
    return " | ".join((claim, what, r.placement or "—", r.basis))


def table(ref: Sequence[ClaimResult], run: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per verdict of the reference run: both verdicts (direction and published
    magnitude), both statistics, the category under the rule and why."""
    by_run = {key(r): r for r in run}
    whole = {r.claim: r for r in run if not r.placement}
    rows: list[dict[str, Any]] = []
    for q in ref:
        r = by_run.get(key(q)) or whole.get(q.claim)
        j = Judgement(NOT_COMPARABLE, "the run has no such verdict") if r is None \
            else judge(q, r)
        rows.append({"claim": q.claim, "reading": q.reading or "—",
                     "placement": q.placement or "—", "basis": q.basis,
                     "reference": q.verdict, "reference magnitude": q.magnitude or "—",
                     "reference estimate": q.ci_text(),
                     "run": r.verdict if r is not None else "—",
                     "run magnitude": (r.magnitude or "—") if r is not None else "—",
                     "run estimate": r.ci_text() if r is not None else "—",
                     "status": j.status, "why": j.why, "comparison set": comparison_set(q)})
    return pd.DataFrame(rows, columns=["claim", "reading", "placement", "basis", "reference",
                                       "reference magnitude", "reference estimate", "run",
                                       "run magnitude", "run estimate", "status", "why",
                                       "comparison set"])


def counts(t: pd.DataFrame) -> dict[str, int]:
    """Verdicts per category (every category, zeros included)."""
    n = t["status"].value_counts() if len(t) else pd.Series(dtype=int)
    return {c: int(n.get(c, 0)) for c in CATEGORIES}


def reproduced_of(t: pd.DataFrame) -> tuple[int, int]:
    """(reproduced, compared): the verdicts reproduced, in verdict and magnitude or in verdict
    only, and the verdicts tested in both runs."""
    n = counts(t)
    return sum(n[c] for c in REPRODUCED), sum(n[c] for c in COMPARED)


def total(t: pd.DataFrame) -> str:
    """The one-line total, by category: how many verdicts were compared (tested in both
    runs), how many of those were reproduced and how; then the rest."""
    n = counts(t)
    reproduced, compared = reproduced_of(t)
    rest = (f"{n[BOTH_NOT_TESTABLE]} both not testable, {n[NOT_COMPARABLE]} not comparable "
            f"(of {len(t)} reference verdicts)")
    if not compared:
        return f"0 claims compared (no verdict was tested in both runs); {rest}"
    return (f"{compared} claim verdicts compared: {reproduced} reproduced "
            f"({n[SAME_AND_MAGNITUDE]} in verdict and magnitude, {n[SAME_DECIDED]} in verdict "
            f"only), {n[NOT_IN_SIZE]} the same verdict not reproduced in size, "
            f"{n[NOT_REPRODUCED]} not reproduced, {n[NEWLY_DECIDED]} newly decided, "
            f"{n[BOTH_UNDECIDED]} both undecided; {rest}")


# ---------------------------------------------------------------- the study as a whole

STUDY_REPRODUCED = "study reproduced"
STUDY_NOT_REPRODUCED = "study not reproduced"


@dataclass(frozen=True)
class RunJudgement:
    """The run-level criterion on one compare: reproduced or not, why, and its counts."""

    reproduced: bool
    why: str
    #: the reference's decided verdicts tested in both runs, those reproduced, those reversed
    decided: int
    same: int
    reversed: int
    #: the criterion that judged: :data:`SAME_CLASS` or :data:`CROSS_CLASS`
    criterion: str = SAME_CLASS

    @property
    def status(self) -> str:
        return STUDY_REPRODUCED if self.reproduced else STUDY_NOT_REPRODUCED

    @property
    def share(self) -> float:
        """The share of :attr:`decided` reproduced (nan when none was decided)."""
        return self.same / self.decided if self.decided else math.nan


def _verdicts(t: pd.DataFrame, column: str) -> pd.Series:
    return t[column] if column in t else pd.Series([""] * len(t), index=t.index)


def _sets(t: pd.DataFrame) -> pd.Series:
    """Each row's comparison set (its own row where the table has no such column)."""
    if "comparison set" in t:
        return t["comparison set"]
    return pd.Series([str(i) for i in t.index], index=t.index)


def _by_set(t: pd.DataFrame) -> pd.DataFrame:
    """Per comparison set of the reference's decided verdicts tested in both runs: whether
    every such verdict of it was reproduced, and whether any was reversed."""
    if not len(t):
        return pd.DataFrame({"reproduced": [], "reversed": []})
    ref, run = _verdicts(t, "reference"), _verdicts(t, "run")
    dec = t["status"].isin(COMPARED) & ref.isin(DECIDED)
    rev = (t["status"] == NOT_REPRODUCED) & ref.isin(DECIDED) & run.isin(DECIDED) & (ref != run)
    f = pd.DataFrame({"set": _sets(t), "reproduced": t["status"].isin(REPRODUCED),
                      "reversed": rev})[dec]
    return f.groupby("set").agg({"reproduced": "all", "reversed": "any"})


def comparison_sets(t: pd.DataFrame) -> int:
    """How many comparison sets the reference's decided verdicts tested in both runs rest on
    (what the criterion counts: :func:`comparison_set`)."""
    return len(_by_set(t))


def decided_of(t: pd.DataFrame) -> tuple[int, int]:
    """(reproduced, decided): of the comparison sets (:func:`comparison_set`) of the
    reference's decided verdicts (holds, refuted) tested in both runs, how many the run
    reproduced (every decided verdict of the set, in verdict and magnitude or in verdict
    only). Verdicts that share their CIs count once."""
    g = _by_set(t)
    return int(g["reproduced"].sum()), len(g)


def reversed_of(t: pd.DataFrame) -> int:
    """Comparison sets with a verdict the two runs decide in opposite directions (holds in
    one, refuted in the other)."""
    return int(_by_set(t)["reversed"].sum())


def run_judgement(t: pd.DataFrame, min_share: int | None = None,
                  criterion: str = SAME_CLASS,
                  judged: Collection[str] | None = None) -> RunJudgement:
    """The run-level criterion on a compare's :func:`table`: reproduced when no decided
    verdict is reversed and at least ``min_share`` % (default: ``criterion``'s in force,
    :data:`IN_FORCE_BY`) of the comparison sets of the reference's decided verdicts tested in
    both runs are reproduced; otherwise not, with the reason, which names the criterion.
    The :data:`CROSS_CLASS` criterion counts only the sets in ``judged`` (default: those
    decision/criterion.json's cross-class criterion judges, :func:`cross_class_judged`)."""
    if criterion not in IN_FORCE_BY:
        raise ValueError(f"criterion {criterion!r}: {SAME_CLASS} or {CROSS_CLASS}")
    share = IN_FORCE_BY[criterion].min_share if min_share is None else min_share
    if criterion == CROSS_CLASS:
        keep = set(cross_class_judged() if judged is None else judged)
        t = t[_sets(t).isin(keep)] if len(t) else t
        which = (f"{CROSS_CLASS} criterion (another CPU class: only the {len(keep)} comparison "
                 "sets the same on every class measured are judged)")
    else:
        which = f"{SAME_CLASS} criterion (one CPU class)"
    j = _judged(t, share)
    return RunJudgement(j.reproduced, f"{which}: {j.why}", j.decided, j.same, j.reversed,
                        criterion)


def _judged(t: pd.DataFrame, min_share: int) -> RunJudgement:
    same, decided = decided_of(t)
    rev = reversed_of(t)
    counted = (f"{same} of the {decided} comparison sets of the reference's decided verdicts "
               f"tested in both runs reproduced")
    if rev:
        return RunJudgement(False, f"{rev} comparison set{'s' if rev > 1 else ''} with a decided verdict reversed "
                            f"(holds in one run, refuted in the other); {counted}",
                            decided, same, rev)
    if not decided:
        return RunJudgement(False, "no verdict the reference decides was tested in both runs: "
                            "nothing of the study was reproduced", decided, same, rev)
    pct = f"{100 * same / decided:.0f} %"
    if 100 * same < min_share * decided:
        return RunJudgement(False, f"{counted} ({pct}), fewer than {min_share} %; none "
                            "reversed", decided, same, rev)
    return RunJudgement(True, f"none reversed; {counted} ({pct}), at least {min_share} %",
                        decided, same, rev)


def criterion_of(ref_class: str, run_class: str) -> str:
    """Which criterion judges a rerun: :data:`SAME_CLASS` when both runs' CPU classes (the
    catalog's wording) are one known class, else :data:`CROSS_CLASS` (a class not known
    is not the reference's)."""
    from rundir.catalog import UNKNOWN_CPU

    return SAME_CLASS if ref_class == run_class != UNKNOWN_CPU else CROSS_CLASS


def classes_of(ref_dir: str | Path, run_dir: str | Path) -> tuple[str, str]:
    """The two runs' CPU classes from the catalog (their manifests); a damaged plan or
    manifest is one BadRun line."""
    from analysis.loading.run import BadRun
    from rundir import catalog as CA

    try:
        return CA.entry(ref_dir).cpu_class, CA.entry(run_dir).cpu_class
    except CA.BadCatalog as exc:
        raise BadRun(str(exc)) from None


def judge_runs(t: pd.DataFrame, ref_dir: str | Path, run_dir: str | Path) -> RunJudgement:
    """The run-level criterion on the compare ``t`` of the run ``run_dir`` against the
    reference ``ref_dir``: the same-class or the cross-class criterion, picked from the two
    runs' catalog classes (:func:`criterion_of`)."""
    return run_judgement(t, criterion=criterion_of(*classes_of(ref_dir, run_dir)))


def criterion_doc() -> dict[str, Any]:
    """decision/criterion.json (``make criterion``) as a JSON object."""
    import json

    doc = json.loads(CRITERION_FILE.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or SAME_CLASS not in doc or CROSS_CLASS not in doc:
        raise ValueError(f"{CRITERION_FILE}: not the criteria make criterion writes "
                         f"(an object with {SAME_CLASS!r} and {CROSS_CLASS!r})")
    return doc


def cross_class_judged() -> tuple[str, ...]:
    """The comparison sets the cross-class criterion in force judges (criterion.json)."""
    return tuple(criterion_doc()[CROSS_CLASS]["judged"])


def cross_class_sets(results: Sequence[ClaimResult], labels: pd.DataFrame) -> list[str]:
    """The reference's decided comparison sets (:func:`comparison_set`) every decided
    verdict of which is labelled "the same on every class measured" in ``labels`` (an
    :func:`analysis.comparison.stability.table` over the committed runs), in order."""
    from analysis.comparison import stability as ST

    same = ST.keys_labelled(labels, ST.SAME)
    ok: dict[str, bool] = {}
    for r in results:
        if r.verdict in DECIDED:
            name = comparison_set(r)
            ok[name] = ok.get(name, True) and ST.key_of(r) in same
    return [n for n, good in ok.items() if good]


__all__ = ["SAME_AND_MAGNITUDE", "SAME_DECIDED", "NOT_IN_SIZE", "NEWLY_DECIDED", "BOTH_UNDECIDED",
           "BOTH_NOT_TESTABLE", "NOT_REPRODUCED", "NOT_COMPARABLE", "CATEGORIES", "REPRODUCED",
           "COMPARED", "Judgement", "Revision", "REVISIONS", "judge", "rule_text", "table",
           "MAGNITUDE_WORDS",
           "counts", "reproduced_of", "total", "INCONCLUSIVE", "MENDED", "tests_the_rule", "reruns",
           "MIN_SHARE", "CRITERION_DECLARED", "CRITERION_PAIRS", "RunJudgement", "reversed_of",
           "decided_of", "run_judgement", "STUDY_REPRODUCED",
           "SAME_CLASS", "CROSS_CLASS", "IN_FORCE_CROSS", "IN_FORCE_BY", "criterion_of",
           "classes_of", "judge_runs", "criterion_doc", "cross_class_judged",
           "cross_class_sets",
           "STUDY_NOT_REPRODUCED"]


#: the profiles whose runs rerun the reference's claims (the reproduction rule's own check)
RERUN_PROFILES = ("claims", "paper")


def reruns(ref_dir: Path) -> list[Path]:
    """The committed runs beside the reference that rerun its claims (packed runs of the
    claims or paper profile, from the catalog: :func:`analysis.comparison.machines.siblings`),
    oldest first: the reproduction rule's own check."""
    from analysis.comparison import machines as MA

    return [e.path for e in MA.siblings(ref_dir)  # a damaged plan: BadRun, one line
            if e.profile in RERUN_PROFILES]


# ------------------------------------------------------- the criterion by simulation

#: the reference run the simulated criterion draws its truths from
SIM_REFERENCE = "20261128T171229Z-paper-5394"
#: the noise model's window the criterion's simulation reads each comparison's sd at (s)
SIM_WINDOW_S = 1.0


def _noise_kind(mode: str) -> str:
    return "file" if mode.startswith("file") else mode


def set_models(results: Sequence[ClaimResult]) -> list:
    """The reference's decided comparison sets (:func:`comparison_set`) as the criterion's
    simulation draws them (:class:`decision.simulation.SetModel`): per size the verdict
    read, the reference's estimate as the truth and the claim's expectation there; the noise
    model's per-round sd for the cells' kind and placement (:data:`SIM_WINDOW_S`); the
    claim's declared family (C14: its sizes). A set of several readings (C9's two) is drawn
    by its first decided reading."""
    from analysis.claims.rules import RULES
    from decision import simulation as SIM

    out, seen = [], set()
    for r in results:
        if r.verdict not in DECIDED:
            continue
        name = comparison_set(r)
        if name in seen:
            continue
        claim, _, reading = (r.rule_id or "").partition(":")
        rule = next((x for x in RULES.get(claim, ()) if x.reading == reading), None)
        if rule is None:
            continue
        pairs = [(float(d["ratio"]), rule.expects(int(d["size"]))) for d in r.details
                 if "size" in d and math.isfinite(float(d.get("ratio", math.nan)))
                 and float(d["ratio"]) > 0]
        pairs = [(t, e) for t, e in pairs if e is not None]
        if not pairs:
            continue
        try:
            mode = claimtable.row(claim, reading).mode
        except KeyError:
            continue
        fam = claimtable.FAMILY.get(claim, 1)
        fam = fam if isinstance(fam, int) else len(pairs)
        sd = SIM.noise_sd(_noise_kind(mode), r.placement or "cross-core", SIM_WINDOW_S)
        seen.add(name)
        out.append(SIM.SetModel(name, tuple(t for t, _ in pairs), tuple(e for _, e in pairs),
                                sd, int(fam)))
    return out

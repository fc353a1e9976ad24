"""Sentences and tables of the book's method, threats and artifact chapters that describe
what the analysis and the run did, generated from the code and the run's plan so that the
text cannot drift from them: the statistics a comparison uses (from :mod:`analysis.statistics.stats`
and the design the run's ``plan.json`` declared), how the rounds were planned, where the
memcpy bound was measured, and which experiments of the plan each claim reads.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from analysis.statistics import stats as S
from analysis.claims.rules import RULES, Rule
from analysis.statistics.fmt import fmt_size
from analysis.loading.run import FILE_METHODS, MESSAGE_METHODS
from decision.band import band

#: the tests each design computes, by the name of the function that computes it; the method
#: chapter names exactly these (tests/analysis/test_prose.py recomputes a comparison from
#: the description and checks it against analysis.claims.base.compare_pair)
DESIGN_TESTS = {
    S.PAIRED: {"estimate": "the geometric mean of the per-round ratios (the exponentiated mean "
                           "of the per-round log ratios)",
               "ci": "a Student t interval on those log ratios",
               "sensitivity": "the Wilcoxon signed-rank test on the same log ratios"},
    S.UNPAIRED: {"estimate": "the ratio of the two cells' medians",
                 "ci": "a percentile-bootstrap interval ({resamples} resamples, the two cells "
                       "resampled independently)",
                 "sensitivity": "the Mann-Whitney U test"},
}
#: statistic names that describe rather than decide (cells, drift, outliers)
DESCRIPTIVE = ("bootstrap", "Spearman", "Tukey", "Shapiro-Wilk")


def design_of(plan: Mapping[str, Any] | None, has_blocks: bool) -> str:
    """The primary design a run used: its plan's ``design.primary`` when it has blocks,
    else unpaired (a run without blocks has no pairs)."""
    if not has_blocks:
        return S.UNPAIRED
    d = (plan or {}).get("design") or {}
    return S.UNPAIRED if d.get("primary") == S.UNPAIRED else S.PAIRED


def ci_level(confidence: float = S.CONFIDENCE) -> str:
    """A CI's level as the prose writes it: "95 %" (by default the level of one comparison's
    CI, :data:`analysis.statistics.stats.CONFIDENCE`, which every cell's bootstrap CI uses)."""
    return f"{round(confidence * 100, 4):g} %"


def family_level(alpha: float = S.ALPHA) -> str:
    """The level of each CI in a family of m comparisons (Bonferroni), as the prose writes
    it: "1 − 0.05/m"."""
    return f"1 − {alpha:g}/m"


def statistics_text(primary: str, alpha: float = S.ALPHA) -> str:
    """The method chapter's paragraph on how two methods are compared and decided."""
    other = S.UNPAIRED if primary == S.PAIRED else S.PAIRED
    t, o = DESIGN_TESTS[primary], DESIGN_TESTS[other]
    rule = MINIMUM_EFFECT_TEXT.format(hi=band()[1], lo=band()[0])
    ci_txt = t["ci"].format(resamples=S.N_RESAMPLES)
    unit = ("two cells of one block, round by round (each round's median of each cell)"
            if primary == S.PAIRED else "two cells, over their trials (this run has no "
            "blocks, so no pairs)")
    txt = (f"Two methods are compared as {unit}. The estimate is {t['estimate']}, with "
           f"{ci_txt} at level {family_level(alpha)}, where m is the number of comparisons in the "
           f"decision's family (Bonferroni); the {'t-test' if primary == S.PAIRED else 'test'}"
           f" on the same {'log ratios' if primary == S.PAIRED else 'samples'}, "
           f"Bonferroni-adjusted, is reported beside it. The interval decides, read with the "
           f"rule fixed before the run: {rule}. Nothing else decides: "
           f"{t['sensitivity']} is printed beside each comparison as a sensitivity check")
    if primary == S.PAIRED:
        txt += (f", and so is the other design, {o['estimate']} with "
                f"{o['ci'].format(resamples=S.N_RESAMPLES)} at the same level and "
                f"{o['sensitivity']}")
    return txt + ". " + ONE_SIDED_TEXT.format(alpha=alpha) + "."


#: the rule of a claim's direction and of the decision map, in words (decision.rule)
MINIMUM_EFFECT_TEXT = (
    "a claim of an effect beyond the band (a minimum-effect test: Lakens 2017; Lakens, "
    "Scheel & Isager 2018) agrees at a size when its CI lies wholly beyond the claim's edge "
    "({hi:g} for 'greater', {lo:g} for 'less') and contradicts it as soon as the CI lies "
    "wholly on the near side of that edge, whatever side of the band's other edge it lies "
    "on; a claim of at most the band (one method not faster than another) the reverse; a "
    "claim about every size "
    "is refuted if any size contradicts it, holds if every size agrees, and is otherwise "
    "inconclusive, naming the edge its CI straddles. A comparison outside the claims is read "
    "with direction and size apart: a CI wholly above or below 1 decides the direction "
    "(faster, slower), by more than the band where it lies beyond an edge, equivalent "
    "where it lies inside [{lo:g}, {hi:g}], its size open otherwise")

#: why every outcome is read from the two-sided 1 - alpha/m interval (in place of
#: one-sided bounds at alpha/m and a TOST)
ONE_SIDED_TEXT = (
    "Each outcome is one-sided: a CI above (or below) a boundary is a one-sided decision, "
    "and 'equivalent' or '~R' (inside a band) is the two one-sided tests (TOST) of the "
    "band's ends; read from the two-sided 1 − {alpha:g}/m interval, each such decision errs "
    "with a chance of at most {alpha:g}/(2m), half the family's share. The two-sided reading "
    "is kept, at that cost in power: one printed interval decides every outcome of a rule "
    "(agrees and contradicts alike) and is the interval a reader sees; the rules were "
    "fixed with it before the runs were made; and the narrower one-sided interval, chosen "
    "after the runs were seen, would decide more verdicts post hoc")


def crossover_text(primary: str) -> str:
    """The method chapter's sentence on the crossover size and its CI."""
    if primary == S.PAIRED:
        return ("A crossover size (where one method starts to beat another) is the first "
                "upward zero of the mean per-round log ratio along size, interpolated in log "
                "size; its CI is the bias-corrected percentile interval of the crossings of "
                f"{S.N_RESAMPLES} curves whose per-size means are drawn from their t "
                "distributions (mean + T sd/√n, n − 1 degrees of freedom; resampling as few "
                "as 6 rounds per size covered a known crossover in 85–91 % of simulated runs "
                "for a nominal 95 %, these draws in at least 93 %), over every round each "
                "size's block reached, and the share of draws without a crossover estimates "
                "the probability of no crossover in the tested range.")
    return ("A crossover size (where one method starts to beat another) is the first upward "
            "zero of the log ratio of medians along size, interpolated in log size; its CI "
            f"comes from resampling the trials of every size ({S.N_RESAMPLES} resamples), and "
            "the share of resamples without a crossover estimates the probability of no "
            "crossover in the tested range.")


def rounds_text(plan: Mapping[str, Any] | None, has_blocks: bool,
                extra: Mapping[str, int] | None = None) -> str:
    """How many repetitions the run made and how they were decided (threats chapter).
    ``extra``: per block, the rounds the sequential top-up ran beyond its planned rounds
    (:func:`analysis.words.design_text.topped_up`); a block that ran longer because of what it measured
    is said to, never denied."""
    d = (plan or {}).get("design") or {}
    blocks = (plan or {}).get("blocks") or {}
    rounds = [b.get("rounds") for b in (blocks.values() if isinstance(blocks, dict) else blocks)
              if isinstance(b, dict) and isinstance(b.get("rounds"), (int, float))]
    if has_blocks and rounds:
        src = d.get("noise_source")
        planned = (f"Every block ran the rounds planned for it before the run, from "
                   f"{int(min(rounds))} to {int(max(rounds))} (planned from "
                   + (f"the noise model of {src}" if src else "the profile's noise model")
                   + f" towards a CI half-width of ±{d.get('target', math.nan):.0%} for claims "
                   f"and ±{d.get('descriptive_target', math.nan):.0%} for descriptive blocks)")
        extra = {k: int(v) for k, v in (extra or {}).items() if int(v) > 0}
        if extra:
            reached = max(int((blocks.get(k) or {}).get("rounds", 0)) + v
                          for k, v in extra.items()) if isinstance(blocks, dict) else 0
            return (planned + f"; then the sequential top-up gave {sum(extra.values())} more "
                    f"rounds to {len(extra)} block{'s' if len(extra) != 1 else ''} whose "
                    "comparisons were still undecided at their looks"
                    + (f" (up to {reached} rounds a block)" if reached else "")
                    + ", so those blocks ran longer because of what they measured; their "
                    "verdicts read repeated CIs, which allow for the looks, and the other "
                    "blocks' CI widths are what their planned rounds gave")
        if d.get("sequential"):
            return (planned + "; the sequential top-up gave no block more rounds, so the CI "
                    "widths below are what the planned rounds gave")
        return (planned + "; no block stopped early or ran longer because of what it "
                "measured, so the CI widths below are what those rounds gave")
    return ("This run has no blocks: each cell ran until its CI was narrow enough or its "
            "maximum of trials was reached (adaptive repetitions)")


def memcpy_text(bounds: Mapping[int, float], dst_offsets: Iterable[int] = ()) -> str:
    """Where the run's memcpy bandwidth was measured: "55.9 Gbit/s, measured with a 64 MiB
    working set only", or the range over the plan's sizes; with ``dst_offsets``
    (analysis.figures.plots.memcpy_dst_offsets: none in runs written before copybench stated them)
    also where the destination sat relative to the source."""
    if not bounds:
        return "not measured"
    offs = sorted(set(dst_offsets))
    where = "" if not offs else (
        f", page-aligned buffers with the destination {offs[0]} bytes past the source modulo "
        "4096" if len(offs) == 1 else
        ", page-aligned buffers with the destination " + ", ".join(map(str, offs))
        + " bytes past the source modulo 4096")
    if len(bounds) == 1:
        (s, v), = bounds.items()
        return f"{v:.1f} Gbit/s, measured with a {fmt_size(s)} working set only{where}"
    lo, hi = min(bounds.items(), key=lambda kv: kv[1]), max(bounds.items(), key=lambda kv: kv[1])
    return (f"measured at each of the plan's {len(bounds)} working-set sizes from "
            f"{fmt_size(min(bounds))} to {fmt_size(max(bounds))}{where}: from {lo[1]:.1f} "
            f"Gbit/s ({fmt_size(lo[0])}) to {hi[1]:.1f} Gbit/s ({fmt_size(hi[0])})")


# ---------------------------------------------------------------- claims -> experiments

def _mode_of(cell: Mapping[str, Any]) -> str:
    if cell.get("command") == "copy":
        return "file→file"
    if cell.get("method") in FILE_METHODS:
        return "file→socket"
    return str(cell.get("mode") or "stream")


def rule_reads(rule: Rule, cell: Mapping[str, Any], methods: Iterable[str] = ()) -> bool:
    """Whether a plan cell is one of those a claim's rule compares (method, mode, transport,
    threads and sizes as the rule names them). A thread-count rule names thread counts, not
    methods: ``methods`` gives its method (that of the experiments keyed with the claim)."""
    if (cell.get("kind") or "copybench") != "copybench":
        return False
    if rule.combine != "threads":
        methods = (rule.numerator, rule.denominator)
    if cell.get("method") not in methods or _mode_of(cell) != rule.mode:
        return False
    if rule.transport and cell.get("transport") != rule.transport:
        return False
    th = int(cell.get("threads") or 1)
    if rule.combine == "threads":  # the thread counts it compares: "8" against "2|4"
        if th not in {int(x) for x in f"{rule.numerator}|{rule.denominator}".split("|")}:
            return False
    elif rule.mode in ("stream", "pingpong") and th != rule.threads:
        return False
    if rule.sizes and int(cell.get("size") or 0) not in rule.sizes:
        return False
    return not (rule.cache and cell.get("cache") not in (None, rule.cache))


def _cells(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plan's cells, each with its id; an experiment's reports' programs and peer tools
    (``S1-code:originals``, ``pingpong:peers``) under the experiment's own name."""
    c = plan.get("cells") or {}
    cells = [dict(v, id=k) for k, v in c.items()] if isinstance(c, dict) else list(c)
    return [dict(x, experiment=str(x.get("experiment")).split(":")[0]) for x in cells]


def experiment_claims(profile: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each experiment of the run's profile copy and the claims (and questions) it names."""
    return {str(e.get("name")): [str(c) for c in (e.get("claims") or [])]
            for e in profile.get("experiment") or [] if isinstance(e, Mapping)}


def claim_experiments(plan: Mapping[str, Any], profile: Mapping[str, Any]
                      ) -> dict[str, list[str]]:
    """Claim (and question, control) -> the experiments of this run's plan that feed it:
    those whose ``claims`` key names it, those whose cells its rule compares (C1-C14), and
    for C15 the profiled experiments (``perf = true``)."""
    keyed = experiment_claims(profile)
    perf = {str(e.get("name")) for e in profile.get("experiment") or []
            if isinstance(e, Mapping) and e.get("perf")}
    cells = _cells(plan)
    present = {str(c.get("experiment")) for c in cells}
    out: dict[str, list[str]] = {}
    for claim in [*RULES, "C15", *sorted({c for cs in keyed.values() for c in cs} - set(RULES))]:
        names = {e for e, cs in keyed.items() if claim in cs}
        keyed_methods = {str(c.get("method")) for c in cells if c.get("experiment") in names}
        for rule in RULES.get(claim, ()):
            names |= {str(c.get("experiment")) for c in cells
                      if rule_reads(rule, c, keyed_methods)}
        if claim == "C15":
            names |= perf
        out[claim] = sorted(n for n in names if n in present)
    return out


def describe_experiment(plan: Mapping[str, Any], name: str) -> str:
    """What an experiment of the plan runs: methods; sizes; transports; placements; mode,
    threads, cache; rounds (from its blocks)."""
    cells = [c for c in _cells(plan) if c.get("experiment") == name
             and (c.get("kind") or "copybench") == "copybench"]
    theirs = sorted({str(c.get("kind")).split(":")[1] for c in _cells(plan)
                     if c.get("experiment") == name
                     and str(c.get("kind")).startswith("original:")})
    if not cells:
        return (f"{', '.join(theirs)}'s own programs, in the blocks of the copybench cells "
                "they replicate") if theirs else ""

    def vals(k: str) -> list[Any]:
        return sorted({c.get(k) for c in cells if c.get(k) is not None}, key=str)

    sizes = sorted({int(c["size"]) for c in cells if c.get("size")})
    parts = [", ".join(m for m in [*MESSAGE_METHODS, *FILE_METHODS] if m in vals("method")),
             ", ".join(fmt_size(s) for s in sizes)]
    mode = sorted({_mode_of(c) for c in cells})
    parts.append(", ".join(x.replace("→", " → ") for x in mode))
    for k in ("transport", "placement"):
        if vals(k):
            parts.append(", ".join(map(str, vals(k))))
    th = sorted({int(c.get("threads") or 1) for c in cells})
    if th != [1]:
        parts.append(f"{'/'.join(map(str, th))} threads")
    if theirs:
        parts.append(f"beside {', '.join(theirs)}'s own programs")
    return "; ".join(p for p in parts if p)


def blocks_of(plan: Mapping[str, Any], names: Sequence[str]) -> list[Mapping[str, Any]]:
    """The plan's blocks that hold a cell of any of the experiments ``names``."""
    ids = {c["id"] for c in _cells(plan) if c.get("experiment") in names and "id" in c}
    blocks = plan.get("blocks") or {}
    return [b for b in (blocks.values() if isinstance(blocks, dict) else blocks)
            if isinstance(b, Mapping) and ids.intersection(b.get("cells") or [])]


def needs(claim: str, profile: Mapping[str, Any]) -> str:
    """What a claim needs of the machine, from its rules."""
    rules: Sequence[Rule] = RULES.get(claim, ())
    if any(r.pmu for r in rules):
        return "a hardware PMU (bare metal, or a VM that exposes its counters)"
    if claim == "C15":
        return "root and perf (perf record -a)"
    th = max((r.threads for r in rules), default=1)
    per_thread = [c for r in rules for c in r.conditions if c.kind == "cpu_per_thread"]
    if per_thread:  # a comparison between thread counts: testable only with a CPU per thread
        n = max(c.threads for c in per_thread)
        return (f"a CPU per thread and side: {2 * n} CPUs for {n} threads cross-core; on fewer "
                f"CPUs it is not testable (the threads profile runs it on a machine with {2 * n} "
                "CPUs or more: make bundle)")
    if th > 1:  # a comparison of methods at one thread count: both share the machine
        return (f"{th} threads on each side; on fewer CPUs the compared methods share the "
                "same oversubscription, so their ratio still compares them")
    if any(r.mode.startswith("file") for r in rules):
        return "disk space for the largest file, twice"
    return "any Linux machine with the profile's transports"


def claim_map(plan: Mapping[str, Any], profile: Mapping[str, Any]) -> pd.DataFrame:
    """The artifact appendix's table: per claim, the experiments of this run's plan that
    feed it, what they run, their planned rounds and time, and what it needs."""
    rows = []
    for claim, names in claim_experiments(plan, profile).items():
        if not names:
            rows.append({"claim": claim, "experiments": "none in this run's plan",
                         "what they run": "—", "rounds": "—", "planned time": "—",
                         "needs": needs(claim, profile)})
            continue
        bl = blocks_of(plan, names)
        r = [int(b.get("rounds") or 0) for b in bl] or [0]
        lo, hi = min(r), max(r)
        secs = sum(float(b.get("rounds") or 0) * float(b.get("seconds_per_round") or 0)
                   for b in bl)
        rows.append({"claim": claim, "experiments": ", ".join(names),
                     "what they run": " | ".join(f"{n}: {describe_experiment(plan, n)}"
                                                 for n in names),
                     "rounds": f"{lo}" if lo == hi else f"{lo}–{hi}",
                     "planned time": f"{secs / 60:.0f} min",
                     "needs": needs(claim, profile)})
    return pd.DataFrame(rows)

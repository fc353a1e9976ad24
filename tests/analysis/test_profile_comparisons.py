"""The profiles' comparisons (each experiment's ``comparisons``, which the sequential top-up
reads) against the claims' rule table (decision.claimtable), from which the analysis's rules
(:data:`analysis.claims.rules.RULES`) take their comparisons, sizes and band: for every rule
whose claim an experiment of a sequential profile serves, the experiments at the rule's
configuration declare the table's comparison at each of its sizes with the table's band; and
every band a claim experiment declares is one a row of its claims reads there."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.claims.originals import SOURCE_OF, their_rule
from analysis.claims.throughput import C11_PAIRS
from analysis.claims.rules import BEST_THREADS, RULES, THREADS, Rule
from decision import claimtable, families
from decision.band import inverse_band
from runner.plan import profile as prof_mod
from runner.plan.profile import Experiment, Profile

SEQUENTIAL = ("claims", "paper")


def thread_counts(rule: Rule) -> set[int]:
    if rule.combine == THREADS:
        return {int(rule.numerator), int(rule.denominator)}
    if rule.combine == BEST_THREADS:
        return {t for p in C11_PAIRS for t in p}
    return {rule.threads}


def at_configuration(e: Experiment, rule: Rule, size: int | None) -> bool:
    """Whether an experiment lists the rule's cells (at ``size``; None: any size)."""
    if rule.claim not in e.claims or (size is not None and size not in e.sizes):
        return False
    if not thread_counts(rule) <= set(e.threads):
        return False
    if rule.mode == "file→file":
        return e.command == "copy"
    if e.command != "send" or (rule.transport or "loopback") not in e.transports:
        return False
    if rule.mode == "file→socket":
        return rule.cache in e.caches and rule.numerator in e.methods
    return rule.mode in e.modes


def served(p: Profile) -> list[tuple[str, Rule]]:
    claims = {c for e in p.experiments for c in e.claims}
    return [(c, r) for c, rs in RULES.items() if c in claims for r in rs]


def problems(p: Profile) -> tuple[list[str], int]:
    """What the profile's declared comparisons lack against the rules, and how many
    (rule, size, comparison) were checked."""
    out, checked = [], 0
    for claim, rule in served(p):
        row = claimtable.row(claim, rule.reading)
        if row.counter:
            out.append(f"{claim} reads hardware counters, which the runner does not read")
            continue
        want = row.boundaries()
        for size in rule.sizes or (None,):
            exps = [e for e in p.experiments if at_configuration(e, rule, size)]
            if not exps:
                out.append(f"no experiment at {claim}'s configuration (size {size})")
            for comp in row.comparisons if exps else ():
                declared = {b for e in exps for n, bs in e.comparisons if n == comp
                            for b in bs}
                out += [f"{claim} [{rule.reading or 'its rule'}] at size {size}: {comp} "
                        f"lacks boundary {b:.6g} (declared: {sorted(declared)}, in "
                        f"{[e.name for e in exps]})"
                        for b in want if not any(abs(d / b - 1) < 1e-4 for d in declared)]
                checked += 1
    return out, checked


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_every_served_rule_is_declared_with_its_boundaries(name: str) -> None:
    found, checked = problems(prof_mod.load(name))
    assert found == []
    assert checked >= 30  # every claim experiment of these profiles is checked


@pytest.mark.parametrize("old,new,what", [
    ('"8t/4t" = "band"', '"8t/4t" = [0.7]', "C6 [its rule] at size 65536: 8t/4t lacks "
     "boundary 0.88"),
    ('"zerocopy/send" = "inverse band"', '"zerocopy/send" = [0.892857]',
     "C10 [S3's code: stream] at size 65536: zerocopy/send lacks boundary 1.13636"),
    ('"sendfile/read-write" = "band"', '"sendfile/read-write" = [1.13331, 1.7708]',
     "C13 [its rule] at size 100000000: sendfile/read-write lacks boundary 0.88"),
])
def test_a_drifted_copy_is_caught(tmp_path: Path, old: str, new: str, what: str) -> None:
    text = prof_mod.load("claims").text
    assert old in text
    path = tmp_path / "claims.toml"
    path.write_text(text.replace(old, new))
    found, _ = problems(prof_mod.load(str(path)))
    assert any(f.startswith(what) for f in found), found


def strays(p: Profile) -> list[str]:
    """The boundaries a claim experiment declares that no row of its claims reads there: each
    declared boundary of a comparison is the band of a row (of one of the experiment's
    claims) that reads that comparison at one of the experiment's sizes."""
    out = []
    for e in p.experiments:
        rows = [r for c in e.claims for r in claimtable.rows(c) if not r.counter]
        for name, bounds in e.comparisons:
            mine = [r for r in rows if name in r.comparisons
                    and (not r.sizes or set(r.sizes) & set(e.sizes))]
            allowed = {b for r in mine for b in r.boundaries()}
            out += [f"{e.name}: {name} declares {b:.6g}, which no rule of "
                    f"{', '.join(e.claims)} reads there (table: {sorted(allowed)})"
                    for b in bounds if not any(abs(b / a - 1) < 1e-4 for a in allowed)]
    return out


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_every_declared_boundary_is_a_band_of_the_table(name: str) -> None:
    assert strays(prof_mod.load(name)) == []


def test_a_stray_boundary_is_caught(tmp_path: Path) -> None:
    text = prof_mod.load("claims").text
    old = 'comparisons = { "8t/4t" = "band" }'
    assert old in text
    path = tmp_path / "claims.toml"
    path.write_text(text.replace(old, 'comparisons = { "8t/4t" = ["band", "inverse band"] }', 1))
    lo, hi = inverse_band()
    assert [s.split(",")[0] for s in strays(prof_mod.load(str(path)))] == [
        f"C6-threads: 8t/4t declares {lo:.6g}", f"C6-threads: 8t/4t declares {hi:.6g}"]


# ------------------------------------------------------------ the reports' own programs

def their_problems(p: Profile) -> tuple[list[str], int]:
    """What the experiments that run the reports' own programs lack against the rules their
    program is judged by (analysis.claims.originals.their_rule): every rule read on
    throughput is declared, in copybench's method names, by an experiment running that
    source's program at the rule's configuration, with every boundary of the rule."""
    out, checked = [], 0
    for claim, rule in served(p):
        theirs = their_rule(rule)
        if theirs is None or theirs.metric != "gbit_per_s":
            continue
        src = SOURCE_OF[claim]
        row = claimtable.row(claim, rule.reading)
        want = row.boundaries()
        for size in rule.sizes or (None,):
            exps = [e for e in p.experiments if src in e.originals
                    and at_configuration(e, rule, size)]
            if not exps:
                out.append(f"no experiment runs {src}'s program at {claim}'s configuration "
                           f"(size {size})")
            for comp in row.comparisons if exps else ():
                declared = {b for e in exps for n, bs in e.comparisons if n == comp
                            for b in bs}
                out += [f"{src}:{claim} at size {size}: {comp} lacks boundary {b:.6g}"
                        for b in want if not any(abs(d / b - 1) < 1e-4 for d in declared)]
                checked += 1
    return out, checked


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_their_programs_rules_are_declared_with_their_boundaries(name: str) -> None:
    found, checked = their_problems(prof_mod.load(name))
    assert found == []
    assert checked >= 12  # C4's four sizes, C5's two, C6, C8's and C9's four, per reading


def test_the_runner_leaves_out_the_claims_read_on_their_printed_latency() -> None:
    """decision.families.THEIR_OWN_METRIC (the runner never reads their programs'
    comparisons for these claims) is exactly the claims whose rule on their programs reads
    the latency their program prints."""
    own = {rule.claim for rules in RULES.values() for rule in rules
           if (t := their_rule(rule)) is not None and t.metric == "their_latency_us"}
    assert own == set(families.THEIR_OWN_METRIC)

"""The run-level criterion (analysis/comparison/reproduce.py: MIN_SHARE, run_judgement): when a
reviewer's run reproduces the study as a whole. Judged on constructed compares; its number
and its basis agree with what the README, data/raw/README.md and the artifact appendix
state, and with the committed pairs it was read from (post hoc: the reference test
recomputes them)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import claims as C
from analysis.comparison import reproduce as RP
from analysis.loading import run as A
from analysis.words import reproduction as RW

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "studies" / "reproduction_criterion.py"


def _r(i: int, verdict: str, value: float = math.nan, lo: float = math.nan,
       hi: float = math.nan) -> C.ClaimResult:
    r = C.ClaimResult(f"C{i}", "S2", "statement", "published", verdict=verdict, value=value,
                      lo=lo, hi=hi)
    r.rule_id, r.placement = f"C{i}:", "cross-core"
    return r


def compare(*pairs: tuple[str, str]) -> "RP.pd.DataFrame":
    """A compare's table from (reference verdict, run verdict) pairs: decided verdicts with
    overlapping CIs where both decide the same."""
    est = {C.HOLDS: (1.3, 1.2, 1.4), C.REFUTED: (1.0, 0.95, 1.05),
           C.INCONCLUSIVE: (1.1, 0.9, 1.3)}
    ref = [_r(i, a, *est.get(a, ())) for i, (a, _) in enumerate(pairs, 1)]
    run = [_r(i, b, *est.get(b, ())) for i, (_, b) in enumerate(pairs, 1)]
    return RP.table(ref, run)


SAME = (C.HOLDS, C.HOLDS)
LEFT = (C.HOLDS, C.INCONCLUSIVE)  # decided in the reference, left undecided
REVERSED = (C.HOLDS, C.REFUTED)


def test_a_reversed_verdict_fails_the_study_whatever_the_share() -> None:
    t = compare(*[SAME] * 30, REVERSED)
    j = RP.run_judgement(t)
    assert 30 / 31 > RP.IN_FORCE.min_share / 100  # the share alone would pass
    assert not j.reproduced and j.status == RP.STUDY_NOT_REPRODUCED
    assert j.reversed == 1 and "1 comparison set with a decided verdict reversed" in j.why
    assert (j.same, j.decided) == (30, 31)


def test_a_share_below_the_criterion_fails_the_study() -> None:
    n = 20
    need = math.ceil(RP.IN_FORCE.min_share * n / 100)
    below = RP.run_judgement(compare(*[SAME] * (need - 1), *[LEFT] * (n - need + 1)))
    assert not below.reproduced and below.reversed == 0
    assert f"fewer than {RP.IN_FORCE.min_share} %" in below.why and "none reversed" in below.why
    at = RP.run_judgement(compare(*[SAME] * need, *[LEFT] * (n - need)))
    assert at.reproduced and at.status == RP.STUDY_REPRODUCED
    assert f"{need} of the {n} comparison sets of the reference's decided verdicts" in at.why


def test_only_the_references_decided_verdicts_tested_in_both_count() -> None:
    """Newly decided, both undecided, both not testable and not comparable count neither
    way; a decided verdict not reproduced in size counts against."""
    why = "needs hardware cache counters (a PMU); this run has none"
    ref = [_r(i, C.HOLDS, 1.3, 1.2, 1.4) for i in range(1, 10)]
    run = [_r(i, C.HOLDS, 1.3, 1.2, 1.4) for i in range(1, 10)]
    ref += [_r(10, C.INCONCLUSIVE, 1.1, 0.9, 1.3), _r(11, C.INCONCLUSIVE, 1.1, 0.9, 1.3),
            _r(12, C.NOT_TESTABLE), _r(13, C.HOLDS, 1.3, 1.2, 1.4),
            _r(14, C.HOLDS, 1.3, 1.2, 1.4)]
    run += [_r(10, C.HOLDS, 1.3, 1.2, 1.4), _r(11, C.INCONCLUSIVE, 1.0, 0.8, 1.2),
            _r(12, C.NOT_TESTABLE), _r(13, C.NOT_TESTABLE), _r(14, C.HOLDS, 2.0, 1.9, 2.1)]
    ref[11].reason = run[11].reason = run[12].reason = why
    t = RP.table(ref, run)
    n = RP.counts(t)
    assert (n[RP.NEWLY_DECIDED], n[RP.BOTH_UNDECIDED], n[RP.BOTH_NOT_TESTABLE],
            n[RP.NOT_COMPARABLE], n[RP.NOT_IN_SIZE]) == (1, 1, 1, 1, 1)
    j = RP.run_judgement(t)
    assert (j.same, j.decided, j.reversed) == (9, 10, 0)
    assert j.reproduced == (90 >= RP.IN_FORCE.min_share)


def test_a_compare_that_tested_no_decided_verdict_does_not_reproduce_the_study() -> None:
    j = RP.run_judgement(compare((C.INCONCLUSIVE, C.INCONCLUSIVE), (C.INCONCLUSIVE, C.HOLDS)))
    assert not j.reproduced and j.decided == 0 and math.isnan(j.share)
    assert "nothing of the study was reproduced" in j.why
    empty = RP.run_judgement(RP.table([], []))
    assert not empty.reproduced and empty.decided == 0


def test_the_number_is_the_smallest_share_of_its_pairs_rounded_down_to_5() -> None:
    shares = [100 * s / d for _, _, s, d, _ in RP.CRITERION_PAIRS]
    assert RP.MIN_SHARE == 5 * math.floor(min(shares) / 5)
    assert all(r == 0 for *_, r in RP.CRITERION_PAIRS)
    # the pairs pass the criterion their own numbers gave (post hoc, as it must be)
    assert all(s * 100 >= RP.MIN_SHARE * d for _, _, s, d, _ in RP.CRITERION_PAIRS)


def _committed_plans() -> list[Path]:
    """The plans of the runs git tracks: a run made here (``make reproduce``'s quick run, a
    run in progress) is not one the criterion was written after."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the committed runs are found through git ls-files")
    out = subprocess.run(["git", "ls-files", "data/raw/*/plan.json"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / p for p in sorted(out)]


def test_the_criterion_is_a_revision_after_every_run_it_was_read_from() -> None:
    """Added as the latest revision of the rule, after every committed rerun and reference
    it was read from: none of those tests it (all were already post hoc under the rule in
    force, so the book's "tests the rule" column does not change for them); a run committed
    after it is its real test."""
    # the revisions that declare the criteria, oldest first: the post hoc number, the
    # same-class simulated one, the cross-class one (the latest)
    at = [r.when for r in RP.REVISIONS].index(RP.CRITERION_DECLARED)
    first, same, cross = RP.REVISIONS[at:at + 3]
    assert same.when == RP.IN_FORCE.declared and cross.when == RP.IN_FORCE_CROSS.declared
    assert RP.REVISIONS[-1] == cross and cross.when == RP.MENDED
    assert f"{RP.MIN_SHARE} %" in first.what and "post hoc" in first.what
    assert f"{RP.IN_FORCE.min_share} %" in same.what
    assert f"{RP.IN_FORCE_CROSS.min_share} %" in cross.what
    assert "mended after the run" in same.what and "mended after the run" in cross.what
    declared = A.instant(RP.CRITERION_DECLARED)
    before = A.instant(RP.REVISIONS[at - 1].when)
    plans = {plan.parent.name: json.loads(plan.read_text(encoding="utf-8"))
             for plan in _committed_plans()}
    read_from = {run for pair in RP.CRITERION_PAIRS for run in pair[:2]}
    assert read_from <= set(plans), read_from - set(plans)
    for name, p in plans.items():
        made = A.instant(str(p["created_at"]))
        if name in read_from:  # the number was read from these: each was made before it
            assert made < declared, name
        # a rerun the book judges, made before the criterion, was already post hoc under
        # the revision before it; one made after the criterion is the criterion's real test
        if made < declared and p.get("profile") in ("claims", "paper"):
            assert made <= before, name


def _joined(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def test_the_readme_states_the_criterion_in_force() -> None:
    """The README's reviewer's path states the criterion with the number in force."""
    readme = _joined(ROOT / "README.md")
    assert f"at least {RP.IN_FORCE.min_share} %" in readme


def test_the_raw_readme_states_the_criterions_basis() -> None:
    """data/raw/README.md, beside the runs it was read from, gives the criterion's number,
    when it was declared and its post hoc basis: the committed pairs' shares, the smallest."""
    raw = _joined(ROOT / "data" / "raw" / "README.md")
    assert (f"reproduces at least {RP.MIN_SHARE} % of the reference's decided verdicts that "
            "both runs tested") in raw
    assert f"{RP.MIN_SHARE} % is the smallest share" in raw
    pairs = [f"{s} of {d}" for _, _, s, d, _ in RP.CRITERION_PAIRS]
    listed = ", ".join(pairs[:-1]) + " and " + pairs[-1]
    assert f"reproduce {listed} of the reference's decided verdicts, none reversed" in raw
    low = min(RP.CRITERION_PAIRS, key=lambda p: p[2] / p[3])
    assert f"smallest share ({100 * low[2] / low[3]:.1f} %)" in raw
    when = A.instant(RP.CRITERION_DECLARED)
    assert f"declared {when.day} {when:%B}, {when:%H:%M} UTC" in raw
    assert "post hoc" in raw.split("run-level criterion", 1)[1][:1200]


def test_the_appendix_glues_the_criterion_from_its_code() -> None:
    """The appendix states the criterion in the words the code writes (no second statement
    of the number): a glue of the claims notebook, which glues :func:`criterion_text`."""
    app = (ROOT / "book" / "artifact.md").read_text(encoding="utf-8")
    section = app.split("## Evaluation and expected results", 1)[1].split("\n## ", 1)[0]
    assert "{glue:text}`_generated/claims.ipynb::reproduce_criterion:s`" in section
    assert f"{RP.MIN_SHARE}" not in section
    nb = (ROOT / "notebooks" / "claims.py").read_text(encoding="utf-8")
    assert 'glue_text("reproduce_criterion", RW.criterion_text())' in nb
    text = RW.criterion_text()
    assert f"at least {RP.IN_FORCE.min_share} %" in text and "simulation" in text
    assert f"{RP.MIN_SHARE} %" in text and "post hoc" in text  # the earlier number, named
    # no date in the words: when it took effect is the appendix's table of revisions
    assert RP.CRITERION_DECLARED[:10] not in text and RP.CRITERION_DECLARED[11:16] not in text


def test_the_compare_report_prints_the_study_judgement() -> None:
    src = (ROOT / "notebooks" / "compare.py").read_text(encoding="utf-8")
    # the rerun judged by its class's criterion (same-class or cross-class, from the catalog)
    assert "RP.judge_runs(reproduced, ref.path, run.path)" in src and "RW.criterion_text()" in src


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.heavy
def test_the_script_refuses_bad_input_with_exit_2(tmp_path: Path) -> None:
    ok = _script("--help")
    assert ok.returncode == 0 and "post hoc" in ok.stdout
    claims = str(ROOT / "data" / "raw" / "20261127T154147Z-claims")
    for args, says in ((("--pair", str(tmp_path / "nope"), claims), "no such run directory"),
                       (("--pair", str(tmp_path), claims), "not a run directory"),
                       (("--pair", claims, claims), "judged against itself"),
                       (("--min-share", "0"), "outside 1..100"),
                       (("--raw", str(tmp_path)), "no claims run")):
        r = _script(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert says in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.reference
def test_the_basis_is_what_the_committed_pairs_give() -> None:
    """The pairs the number was read from, recomputed from the committed runs under the rules
    in force (the script's table): the same pairs, counts and no reversal."""
    sys.path.insert(0, str(ROOT / "studies"))
    try:
        import reproduction_criterion as S
    finally:
        sys.path.remove(str(ROOT / "studies"))
    pairs = S.find_pairs(ROOT / "data" / "raw")
    declared = A.instant(RP.CRITERION_DECLARED)
    rows = [S.row(ref, run, RP.MIN_SHARE) for ref, run in pairs]
    basis = [(r["reference"], r["rerun"], *map(int, re.findall(r"\d+", r["share reproduced"])[:2]),
              r["reversed"]) for r in rows
             if A.load_run(ROOT / "data" / "raw" / r["rerun"]).created_at < declared]
    # the pairs, not their counts: those were judged by the rules in force then (verdicts,
    # not comparison sets), which later revisions changed
    assert [b[:2] for b in basis] == [p[:2] for p in RP.CRITERION_PAIRS]
    assert all(A.load_run(ROOT / "data" / "raw" / r[1]).created_at < declared for r in basis)

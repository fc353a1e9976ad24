"""The run-level criterion by CPU class: a rerun on the reference's class is judged by the
same-class criterion on every decided comparison set, one on another class by the
cross-class criterion on the sets whose verdicts are the same on every class measured
(analysis.comparison.stability over the committed runs); the runs come from the catalog
(rundir.catalog), and decision/criterion.json holds both criteria."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis import claims as C
from analysis.comparison import reproduce as RP
from analysis.comparison import stability as ST
from analysis.loading.run import instant

ROOT = Path(__file__).resolve().parents[2]
INTEL = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
AMD = "AMD EPYC 7763 64-Core Processor"


def _run(raw: Path, name: str, profile: str, made: str, model: str) -> Path:
    d = raw / name
    d.mkdir(parents=True)
    (d / "plan.json").write_text(json.dumps({"profile": profile, "created_at": made}))
    (d / "manifest.json").write_text(json.dumps({"cpu": {"model": model, "count": 2}}))
    with gzip.open(d / "trials.jsonl.gz", "wt") as f:
        f.write("")
    return d


def _raw(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    _run(raw, "a-paper", "paper", "2026-01-01T00:00:00Z", INTEL)
    _run(raw, "b-paper", "paper", "2026-01-02T00:00:00Z", AMD)
    _run(raw, "c-claims", "claims", "2026-01-03T00:00:00Z", INTEL)
    _run(raw, "d-noise", "noise-study", "2026-01-04T00:00:00Z", AMD)
    _run(raw, "e-claims", "claims", "2026-01-05T00:00:00Z", AMD)
    return raw


def test_find_pairs_matches_the_catalogs_machine(tmp_path: Path) -> None:
    import sys
    sys.path.insert(0, str(ROOT / "studies"))
    import reproduction_criterion as S

    raw = _raw(tmp_path)
    pairs = [(a.name, b.name) for a, b in S.find_pairs(raw)]
    assert pairs == [("a-paper", "c-claims"), ("b-paper", "e-claims")]


def test_reruns_are_the_catalogs_paper_and_claims_runs(tmp_path: Path) -> None:
    raw = _raw(tmp_path)
    assert [d.name for d in RP.reruns(raw / "a-paper")] == ["b-paper", "c-claims", "e-claims"]
    assert RP.classes_of(raw / "a-paper", raw / "e-claims") == ("Intel Xeon", "AMD EPYC")


def test_the_criterion_follows_the_two_classes() -> None:
    assert RP.criterion_of("Intel Xeon", "Intel Xeon") == RP.SAME_CLASS
    assert RP.criterion_of("Intel Xeon", "AMD EPYC") == RP.CROSS_CLASS
    assert RP.criterion_of("unknown CPU", "unknown CPU") == RP.CROSS_CLASS


def _r(claim: str, placement: str, verdict: str, lo: float = 1.2,
       hi: float = 1.4) -> C.ClaimResult:
    r = C.ClaimResult(claim, "S", "s", "p", verdict=verdict, placement=placement)
    r.rule_id, r.reading = f"{claim}:", ""
    r.value, r.lo, r.hi = (lo + hi) / 2, lo, hi
    return r


def test_the_cross_class_criterion_judges_only_the_stable_sets() -> None:
    ref = [_r("C4", "same-core", C.HOLDS), _r("C1", "cross-core", C.HOLDS)]
    run = [_r("C4", "same-core", C.HOLDS), _r("C1", "cross-core", C.REFUTED, 0.6, 0.7)]
    t = RP.table(ref, run)
    stable = [RP.comparison_set(ref[0])]
    same = RP.run_judgement(t)
    cross = RP.run_judgement(t, criterion=RP.CROSS_CLASS, judged=stable)
    assert not same.reproduced and same.reversed == 1 and "same-class" in same.why
    assert cross.reproduced and (cross.same, cross.decided) == (1, 1)
    assert cross.criterion == RP.CROSS_CLASS and "cross-class" in cross.why
    with pytest.raises(ValueError, match="same-class or cross-class"):
        RP.run_judgement(t, criterion="any")


def test_the_stable_sets_are_those_every_decided_verdict_of_which_is_the_same() -> None:
    ref = [_r("C4", "same-core", C.HOLDS), _r("C1", "cross-core", C.HOLDS),
           _r("C5", "same-core", C.INCONCLUSIVE)]
    long = pd.DataFrame(
        ST.rows(ST.RunInfo("r1", "Intel Xeon", False), ref)
        + ST.rows(ST.RunInfo("r2", "Intel Xeon", False),
                  [ref[0], _r("C1", "cross-core", C.REFUTED), ref[2]])
        + ST.rows(ST.RunInfo("r3", "AMD EPYC", False), ref), columns=ST.COLUMNS)
    labels = ST.table(long, [ST.RunInfo(r, c, False) for r, c in
                             (("r1", "Intel Xeon"), ("r2", "Intel Xeon"), ("r3", "AMD EPYC"))])
    assert RP.cross_class_sets(ref, labels) == [RP.comparison_set(ref[0])]


def test_criterion_json_holds_both_criteria_in_force() -> None:
    doc = json.loads(RP.CRITERION_FILE.read_text(encoding="utf-8"))
    assert doc["reference"] == RP.SIM_REFERENCE
    for which, c in RP.IN_FORCE_BY.items():
        sim = doc[which]
        assert round(100 * sim["min_share"]) == c.min_share and sim["reversals"] == c.reversals
        assert sim["pass_same_truth"] >= sim["target"] == 0.95
        assert sim["pass_ci"][0] <= sim["pass_same_truth"] <= sim["pass_ci"][1]
        assert [k for k, _ in sim["pass_when_differ"]] == [1, 2, 3, 4, 5]
        assert instant(sim["made"]) <= instant(c.declared)
    same, cross = doc[RP.SAME_CLASS], doc[RP.CROSS_CLASS]
    assert same["judged"] == [] and same["sets"] == len(doc["sets_drawn"])
    assert cross["sets"] == len(cross["judged"]) == same["sets"] - len(cross["excluded"]) > 0
    assert all(ST.SAME not in e["label"] or len(e["label"]) > 1 for e in cross["excluded"])
    assert set(RP.cross_class_judged()) == set(cross["judged"])
    assert RP.REVISIONS[-1].when == RP.IN_FORCE_CROSS.declared
    assert "mended after the run" in RP.REVISIONS[-1].what

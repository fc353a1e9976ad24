"""data/raw/README.md's statement of what the "Results Reproduced" rule gives on the committed
runs is the rule's own result on them (not typed from memory): the reference machine's reruns
and the runs made on another CPU, each judged against the committed reference run; its
paragraphs on the reference run and the newest claims run give their sizes as the runs hold
them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis import claims as C
from analysis.comparison import reproduce as RP
from analysis.loading import run as A
from conftest import committed_reference_run, trials_and_theirs

pytestmark = pytest.mark.reference
ROOT = Path(__file__).resolve().parents[2]
#: the runs' own README: the committed runs, the reference run and how each rerun is judged
RAW_README = ROOT / "data" / "raw" / "README.md"


def _raw_readme() -> str:
    """data/raw/README.md with its lines joined (a phrase may wrap anywhere)."""
    return " ".join(RAW_README.read_text(encoding="utf-8").split())


@pytest.fixture(scope="module")
def tables() -> dict[str, tuple[pd.DataFrame, str]]:
    """Each committed rerun's compare table against the reference, with its CPU model."""
    ref_dir = committed_reference_run()
    if ref_dir is None:
        pytest.skip("no committed reference run (not a git checkout)")
    results = C.evaluate(A.load_run(ref_dir))
    out = {}
    for d in RP.reruns(ref_dir):
        run = A.load_run(d)
        out[d.name] = (RP.table(results, C.evaluate(run)),
                       str(run.manifest.get("cpu", {}).get("model")))
    return out


@pytest.fixture(scope="module")
def totals(tables) -> dict[str, tuple[int, int, str]]:
    return {name: (*RP.reproduced_of(t), cpu) for name, (t, cpu) in tables.items()}


def _listed(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def test_the_raw_readme_states_the_rules_result_on_the_committed_runs(totals) -> None:
    """Every rerun's count, oldest first: those made on the reference's CPU, then the rest."""
    readme = _raw_readme()
    ref_cpu = json.loads((committed_reference_run() / "manifest.json").read_text())["cpu"]["model"]
    same = [f"{a} of {b}" for a, b, cpu in totals.values() if cpu == ref_cpu]
    other = [f"{a} of {b}" for a, b, cpu in totals.values() if cpu != ref_cpu]
    assert same and other, totals
    assert f"the same CPU reproduce {_listed(same)} compared verdicts" in readme, same
    assert f"reproduce {_listed(other)}:" in readme, other


def test_the_raw_readme_states_the_criterions_judgement_of_each_same_cpu_rerun(tables) -> None:
    """The run-level criterion's counts for each rerun on the reference's CPU, oldest first,
    as the criterion gives them: those that do not reproduce the study (each with the
    reversals data/raw/README.md says it has), then those that do (reversing none)."""
    readme = _raw_readme()
    ref_cpu = json.loads((committed_reference_run() / "manifest.json").read_text())["cpu"]["model"]
    said = readme[readme.index("by the criterion"):readme.index(" made on an AMD EPYC (the")]
    judged = [RP.run_judgement(t) for t, cpu in tables.values() if cpu == ref_cpu]
    fail = [j for j in judged if not j.reproduced]
    ok = [j for j in judged if j.reproduced]
    if fail:
        rev = {0: "none", 1: "one"}
        assert all(j.reversed in rev for j in fail), fail
        each = [f"{j.same} of {j.decided} ({rev[j.reversed]} reversed)" for j in fail]
        assert f"reproducing {_listed(each)} of the " in said, (each, said)
    if ok:
        assert all(j.reversed == 0 for j in ok), ok
        assert f"reversing none and reproducing {_listed([f'{j.same} of {j.decided}' for j in ok])}" in said


#: the categories data/raw/README.md gives for a rerun after "which has", in its order ("none" for 0)
_HAS = re.compile(r"(\d+|none) in verdict and magnitude, (\d+|none) in verdict only, "
                  r"(\d+|none)(?: the same verdict)? not reproduced in size, (\d+|none) not "
                  r"reproduced, (\d+|none) newly decided and (\d+|none) both undecided")


def test_the_raw_readme_states_each_reruns_categories_as_the_rule_gives_them(tables) -> None:
    """A rerun data/raw/README.md details ("the ... run of 28 November, 20:50, which has ...") has
    the counts the rule gives it, category by category; at least one is detailed."""
    readme = _raw_readme()
    order = (RP.SAME_AND_MAGNITUDE, RP.SAME_DECIDED, RP.NOT_IN_SIZE, RP.NOT_REPRODUCED,
             RP.NEWLY_DECIDED, RP.BOTH_UNDECIDED)
    detailed = 0
    for name, (t, _) in tables.items():
        made = A.instant(f"{name[:4]}-{name[4:6]}-{name[6:8]}T{name[9:11]}:{name[11:13]}")
        said = f"run of {made.day} {made:%B}, {made:%H:%M}, which has "
        if said not in readme:
            continue
        m = _HAS.match(readme, readme.index(said) + len(said))
        assert m, (name, readme[readme.index(said):][:300])
        n = RP.counts(t)
        assert [0 if g == "none" else int(g) for g in m.groups()] == [n[c] for c in order], name
        detailed += 1
    assert detailed >= 1


def test_the_raw_readme_states_the_claims_runs_size_and_time() -> None:
    runs = sorted((ROOT / "data" / "raw").glob("*-claims"))
    run = runs[-1]
    sessions = json.loads((run / "sessions.json").read_text())
    trials = sum(sum(s["trials"].values()) for s in sessions)
    minutes = round(sum(s["wall_s"] for s in sessions) / 60)
    assert re.search(rf"{trials} trials, {minutes} min on an otherwise idle 2-CPU VM", _raw_readme())


def test_the_raw_readme_states_the_reference_runs_size() -> None:
    """data/raw/README.md's paragraph on the reference run names it and gives its cells, blocks,
    trials and the reports' programs' share as its plan, sessions and records hold them."""
    ref = committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout)")
    readme = _raw_readme()
    plan = json.loads((ref / "plan.json").read_text())
    trials, theirs = trials_and_theirs(ref)
    assert f"[`data/raw/{ref.name}/`]({ref.name}/)" in readme
    assert (f"{len(plan['cells'])} cells in {len(plan['blocks'])} blocks and {trials} trials, "
            f"{theirs} of them the replicated reports' own programs") in readme

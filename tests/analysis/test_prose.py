"""analysis/words/prose.py: the method chapter's statistics sentences describe what the analysis
computes (a comparison recomputed from the description, with scipy directly, equals
analysis.claims.base.compare_pair's), the threats chapter's rounds sentence follows the
plan's design, and the artifact's claim map names only experiments of the run's plan."""

from __future__ import annotations

import json
import math
import subprocess
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.words import prose as PR
from analysis.statistics import stats as S
from analysis.words.prose import MINIMUM_EFFECT_TEXT
from decision import rule as R
from analysis.claims.base import compare_pair

ROOT = Path(__file__).resolve().parents[2]


def block_frame(rounds: int = 12, seed: int = 1) -> pd.DataFrame:
    """Two methods of one block, one trial each per round, with a shared per-round load."""
    rng = np.random.default_rng(seed)
    load = rng.lognormal(0, 0.2, rounds)
    rows = []
    for r in range(rounds):
        for meth, level in (("a", 1.2), ("b", 1.0)):
            rows.append({"method": meth, "size": 4096, "block": "b0", "repetition": r + 1,
                         "twin": 0, "gbit_per_s": level * load[r] * rng.lognormal(0, 0.05)})
    return pd.DataFrame(rows)


def test_the_paired_sentence_is_what_compare_pair_computes() -> None:
    df, family = block_frame(), 4
    c = compare_pair(SimpleNamespace(primary=S.PAIRED, plan=None, has_blocks=True), df, {"method": "a", "size": 4096},
                     {"method": "b", "size": 4096}, "gbit_per_s", family,
                     S.DecisionRule("direction"), 4096)
    text = PR.statistics_text(S.PAIRED)
    # the recipe the sentence gives: geometric mean of per-round ratios, Student t interval
    # on the log ratios at 1 - 0.05/m (Bonferroni)
    assert "geometric mean of the per-round ratios" in text and "Student t interval" in text
    assert "1 − 0.05/m" in text and "Bonferroni" in text and "Holm" not in text
    a = df[df["method"] == "a"].sort_values("repetition")["gbit_per_s"].to_numpy()
    b = df[df["method"] == "b"].sort_values("repetition")["gbit_per_s"].to_numpy()
    d = np.log(a / b)
    lo, hi = stats.t.interval(1 - 0.05 / family, d.size - 1, loc=d.mean(), scale=stats.sem(d))
    assert c is not None and c.primary.kind == S.PAIRED
    assert math.isclose(c.primary.ratio.value, math.exp(d.mean()), rel_tol=1e-12)
    assert math.isclose(c.primary.ratio.lo, math.exp(lo), rel_tol=1e-9)
    assert math.isclose(c.primary.ratio.hi, math.exp(hi), rel_tol=1e-9)
    # "the interval decides, read with the rule": the rule's own words are in the sentence
    assert MINIMUM_EFFECT_TEXT.format(hi=1.12, lo=0.88) in text
    assert c.decision.outcome == R.band_outcome(c.primary.ratio.lo, c.primary.ratio.hi)
    # and what it calls sensitivity is the other design
    assert c.sensitivity is not None and c.sensitivity.kind == S.UNPAIRED
    assert "Wilcoxon signed-rank" in text and "Mann-Whitney U" in text


def test_the_unpaired_sentence_is_what_compare_pair_computes() -> None:
    df = block_frame().assign(block=None)  # a run without blocks: no pairs
    c = compare_pair(SimpleNamespace(primary=S.UNPAIRED, plan=None, has_blocks=False), df, {"method": "a", "size": 4096},
                     {"method": "b", "size": 4096}, "gbit_per_s", 2,
                     S.DecisionRule("direction"), 4096)
    text = PR.statistics_text(S.UNPAIRED)
    assert "ratio of the two cells' medians" in text and "percentile-bootstrap" in text
    a, b = (df.loc[df["method"] == m, "gbit_per_s"] for m in ("a", "b"))
    assert c is not None and c.primary.kind == S.UNPAIRED
    assert math.isclose(c.primary.ratio.value, a.median() / b.median(), rel_tol=1e-12)
    assert c.primary.ratio.confidence == pytest.approx(1 - 0.05 / 2)
    assert "geometric mean" not in text and "Wilcoxon" not in text


def test_the_statistics_paragraph_ends_its_sentence() -> None:
    """The method chapter pastes this paragraph before "Absolute values always stand beside
    ratios": it must end with a full stop (it once read "post hoc Absolute values")."""
    for design in (S.PAIRED, S.UNPAIRED):
        text = PR.statistics_text(design)
        assert text.endswith("."), text[-40:]
        assert not text.endswith(".."), text[-40:]


def test_design_of_follows_the_plan() -> None:
    assert PR.design_of({"design": {"primary": "paired"}}, True) == S.PAIRED
    assert PR.design_of({"design": {"primary": "unpaired"}}, True) == S.UNPAIRED
    assert PR.design_of({"design": {"primary": "paired"}}, False) == S.UNPAIRED
    assert "drawn from their t distributions" in PR.crossover_text(S.PAIRED)
    assert "trials of every size" in PR.crossover_text(S.UNPAIRED)


def test_the_method_states_why_one_sided_decisions_read_the_two_sided_interval() -> None:
    """One-sided decisions and equivalence read from the two-sided 1 - alpha/m
    CI err at alpha/(2m); the chapter says so and why the reading is kept. The number it
    states is checked: with the true ratio on the boundary 1.03, the paired CI of a family of
    4 lies wholly above it in about 0.05/8 of simulated comparisons."""
    text = PR.statistics_text(S.PAIRED)
    assert "0.05/(2m)" in text and "TOST" in text and "two-sided reading is kept" in text
    assert "post hoc" in text
    rng = np.random.default_rng(37)
    d = np.log(1.03) + 0.1 * rng.standard_normal((4000, 15))
    wrong = np.mean([S.paired_ratio(np.exp(x), np.ones(15), 4).ratio.lo > 1.03 for x in d])
    assert wrong == pytest.approx(0.05 / 8, abs=0.004) and wrong < 0.05 / 4


def test_memcpy_text_names_its_sizes() -> None:
    assert PR.memcpy_text({}) == "not measured"
    one = PR.memcpy_text({64 << 20: 55.884})
    assert one == "55.9 Gbit/s, measured with a 64 MiB working set only"
    many = PR.memcpy_text({4096: 200.0, 1 << 20: 120.0, 64 << 20: 55.9})
    assert "3 working-set sizes from 4 KiB to 64 MiB" in many
    assert "55.9 Gbit/s (64 MiB)" in many and "200.0 Gbit/s (4 KiB)" in many
    # a run whose manifest states the buffers' placement says it; an older one says nothing
    assert PR.memcpy_text({64 << 20: 55.884}, [0]) == (
        "55.9 Gbit/s, measured with a 64 MiB working set only, page-aligned buffers with the "
        "destination 0 bytes past the source modulo 4096")
    placed = PR.memcpy_text({4096: 200.0, 64 << 20: 55.9}, [0])
    assert "from 4 KiB to 64 MiB, page-aligned buffers with the destination 0 bytes past" \
        in placed
    assert PR.memcpy_text({64 << 20: 55.884}, []) == one


def reference() -> Path:
    out = subprocess.run(["git", "ls-files", "data/raw/*-paper-*/SHA256SUMS"], cwd=ROOT,
                         capture_output=True, text=True, check=False).stdout.split()
    if not out:
        pytest.skip("no committed reference run")
    return ROOT / Path(sorted(out)[-1]).parent


def test_the_rounds_sentence_follows_the_design() -> None:
    run = reference()
    plan = json.loads((run / "plan.json").read_text())
    t = PR.rounds_text(plan, True)
    assert t.startswith("Every block ran the rounds planned for it before the run")
    assert "adaptive" not in t
    assert "adaptive repetitions" in PR.rounds_text({}, False)


def test_the_claim_map_names_only_the_plans_experiments() -> None:
    run = reference()
    plan = json.loads((run / "plan.json").read_text())
    profile = tomllib.loads(next((run / "profiles").glob("*.toml")).read_text())
    cmap = PR.claim_map(plan, profile)
    # (the reports' programs and peers are cells of "<experiment>:originals" / ":peers")
    present = {c["experiment"].split(":")[0] for c in plan["cells"].values()}
    assert {f"C{i}" for i in range(1, 16)} <= set(cmap["claim"])
    for names in cmap["experiments"]:
        if names != "none in this run's plan":
            assert set(names.split(", ")) <= present, names
    row = cmap.set_index("claim")
    assert row.loc["C13", "experiments"] == "C13-100MB"
    assert "100 MB" in row.loc["C13", "what they run"]
    assert "copies-file-send" in row.loc["C15", "experiments"]
    assert "hardware PMU" in row.loc["C2", "needs"]
    # C14 reads file-to-file splice and splice2 at every size the plan has them
    assert "C14-copy" in row.loc["C14", "experiments"]
    # a thread-count rule reads its thread counts only; the reports' programs are named
    assert row.loc["C6", "experiments"] == "C6-threads, S2-code-threads"
    assert "S1-code" in row.loc["C1", "experiments"]
    assert "S1's own programs" in row.loc["C1", "what they run"]


def test_the_claim_map_says_what_a_thread_count_claim_needs() -> None:
    """C6 and C11 compare thread counts: they need a CPU per thread and side and are not
    testable on fewer (the map once said their 8 threads exceed a small machine "on
    purpose"); C8-C10 compare methods at 4 threads, which a small machine still tests."""
    for claim in ("C6", "C11"):
        text = PR.needs(claim, {})
        assert "on purpose" not in text
        assert "16 CPUs for 8 threads" in text and "not testable" in text, text
        assert "threads profile" in text
    c8 = PR.needs("C8", {})
    assert c8.startswith("4 threads on each side") and "still compares" in c8, c8
    assert "not testable" not in c8

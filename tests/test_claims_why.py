"""analysis.claims.why: the rules that say why the published number, the authors' program
here and copybench here differ (#18)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import run as A
from analysis.claims import originals as O
from analysis.claims import why as W
from conftest import committed_reference_run


def _f(value: float, lo: float, hi: float) -> W.Factor:
    return W.Factor("S2:two-copy", "send", value, lo, hi, 6)


def test_a_factor_differs_only_when_its_ci_clears_the_practical_band() -> None:
    assert _f(1.2, 1.031, 1.4).differs
    assert _f(0.5, 0.3, 0.969).differs
    assert not _f(1.2, 1.02, 1.4).differs      # touches the band
    assert not _f(1.0, 0.98, 1.5).differs
    assert not _f(1.2, math.nan, math.nan).differs


def test_speed_reads_time_metrics_the_other_way_round() -> None:
    fast = _f(2.0, 1.5, 2.5)
    assert W._speed(fast, "gbit_per_s") == W.FASTER
    assert W._speed(fast, "their_latency_us") == W.SLOWER
    assert W._speed(fast, "inv_msg_rate_us") == W.SLOWER


def _blocks(ratio: float, rounds: int = 6, noise: float = 0.05, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for blk in ("b1", "b2"):
        for rep in range(1, rounds + 1):
            base = 10.0 * math.exp(rng.normal(0, 0.3))  # the round's drift, shared
            rows.append({"method": "send", "size": 512, "block": blk, "repetition": rep,
                         "twin": 0, "_m": base})
            rows.append({"method": "S2:two-copy", "size": 512, "block": blk,
                         "repetition": rep, "twin": 0,
                         "_m": base * ratio * math.exp(rng.normal(0, noise))})
    return pd.DataFrame(rows)


def test_factor_pairs_by_block_and_round() -> None:
    # a drift shared by both sides of a round cancels: the paired factor finds the ratio
    f = W.factor(_blocks(0.5), "S2:two-copy", "send", 512, family=1)
    assert f.n == 12
    assert f.lo < 0.5 < f.hi and f.hi < 0.6
    assert f.differs
    same = W.factor(_blocks(1.0, noise=0.001), "S2:two-copy", "send", 512, family=1)
    assert not same.differs


def test_factor_without_pairs_is_nan_not_zero() -> None:
    d = _blocks(0.5)
    d.loc[d["method"] == "send", "block"] = "elsewhere"
    f = W.factor(d, "S2:two-copy", "send", 512, family=1)
    assert f.n == 0 and not math.isfinite(f.value) and not f.differs


@pytest.fixture(scope="module")
def reference() -> tuple[A.Run, pd.DataFrame, pd.DataFrame]:
    ref = committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout)")
    run = A.load_run(ref)
    rows = O.rows(run)
    if rows.empty or not rows["theirs_n"].gt(0).any():
        pytest.skip(f"the reference run {ref.name} did not run the reports' programs")
    return run, rows, W.table(run, rows)


def test_every_row_of_the_reference_run_gets_a_reading(reference) -> None:
    _, rows, expl = reference
    assert len(expl) == len(rows)
    assert set(expl["status"]) <= {"agree", "explained", "not explained", "no data"}
    assert expl["why"].str.len().gt(20).all()
    # reproduced is the published value inside their CI, nothing else
    for (_, r), (_, e) in zip(rows.iterrows(), expl.iterrows()):
        if e["reproduced"] is not None and math.isfinite(r["published"]):
            assert e["reproduced"] == (r["theirs_lo"] <= r["published"] <= r["theirs_hi"])


def test_an_explained_gap_goes_the_way_the_code_predicts(reference) -> None:
    run, rows, expl = reference
    for (_, r), (_, e) in zip(rows.iterrows(), expl.iterrows()):
        if e["status"] != "explained" or not e["carrier"]:
            continue
        src, method = e["carrier"].split(":")
        fact = W.CODE_FACTS.get((src, method, W._metric_kind(r["their_metric"])))
        if fact is None:  # C6: explained by the CSV's first client, checked below
            assert r["claim"] == "C6" and "first client" in e["why"]
            continue
        rule = next(x for x in O.RULES[r["claim"]] if x.reading == r["reading"]
                    and x.mode == "stream")
        df = W._both(run, rule, r["placement"], r["their_metric"])
        threads = [int(rule.numerator), int(rule.denominator)] if rule.combine == O.THREADS \
            else [None]
        facs = [W.factor(df, e["carrier"], W.COPYBENCH_OF[method], int(r["size"]),
                         rule.family, t) for t in threads]
        f = max((x for x in facs if x.differs), key=lambda x: abs(math.log(x.value)))
        assert fact.predicts in (W.OTHER_QUANTITY, W._speed(f, r["their_metric"]))

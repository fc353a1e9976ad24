"""analysis.claims.why: the rules that say why the published number, the authors' program
here and copybench here differ."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.loading import run as A
from analysis.claims import originals as O
from analysis.claims import why as W
from decision.band import SESOI
from conftest import committed_reference_run


def _f(value: float, lo: float, hi: float) -> W.Factor:
    return W.Factor("S2:two-copy", "send", value, lo, hi, 6)


def test_a_factor_differs_only_when_its_ci_clears_the_practical_band() -> None:
    t = SESOI  # the claims' band
    assert _f(1.2 + t, 1.001 + t, 1.4 + t).differs
    assert _f(0.5, 0.3, 0.999 - t).differs
    assert not _f(1.2 + t, 0.99 + t, 1.4 + t).differs      # touches the band
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


def _four(ratio: float, seed: int = 1) -> pd.DataFrame:
    """Their two-copy at ``ratio`` x copybench's send, their one-copy at 1x sendmsg."""
    return pd.concat([_blocks(ratio, seed=seed), _blocks(1.0, noise=0.001, seed=seed + 1)
                      .replace({"method": {"send": "sendmsg", "S2:two-copy": "S2:one-copy"}})])


def test_split_pairs_by_block_and_round() -> None:
    # a drift shared by both sides of a round cancels: the paired factor finds the ratio
    sp = W.split(_four(0.5), ("S2:one-copy", "sendmsg", None), ("S2:two-copy", "send", None),
                 512, 1)
    assert sp.den.n == 12 and sp.den.lo < 0.5 < sp.den.hi and sp.den.hi < 0.6
    assert sp.den.differs and not sp.num.differs


def test_a_split_without_common_rounds_is_no_data_not_zero() -> None:
    d = _four(0.5)
    d.loc[d["method"] == "send", "block"] = "elsewhere"
    sp = W.split(d, ("S2:one-copy", "sendmsg", None), ("S2:two-copy", "send", None), 512, 1)
    assert sp.gap.n == 0 and not math.isfinite(sp.gap.value) and not sp.gap.differs
    assert W.read_gap(sp, {}, "gbit_per_s")[0] == "no data"


def _fac(name: str, cb: str, v: float, half: float = 0.1) -> W.Factor:
    return W.Factor(name, cb, v, v * (1 - half), v * (1 + half), 6)


SLOW_TWO = {"S2:two-copy": W.CODE_FACTS[("S2", "two-copy", "throughput")],
            "S2:one-copy": None}


def test_a_factor_common_to_both_methods_cancels_and_explains_nothing() -> None:
    # both of their methods 1.35x copybench's: their ratio equals copybench's
    sp = W.Split(_fac("their ratio", "copybench's ratio", 1.0, 0.02),
                 _fac("S2:one-copy", "sendmsg", 1.35), _fac("S2:two-copy", "send", 1.35))
    status, carrier, text = W.read_gap(sp, SLOW_TWO, "gbit_per_s")
    assert (status, carrier) == (W.NO_GAP, "") and "cancels" in text


def test_the_carrier_pushes_the_ratio_the_gaps_way() -> None:
    # gap 4x up: their two-copy (denominator) at 0.25x pushes it up -> the 8-send() fact
    sp = W.Split(_fac("their ratio", "copybench's ratio", 4.0),
                 _fac("S2:one-copy", "sendmsg", 1.0, 0.02), _fac("S2:two-copy", "send", 0.25))
    own = {"S2:two-copy": _fac("S2:two-copy", "S2:one-copy", 0.25)}
    status, carrier, text = W.read_gap(sp, SLOW_TWO, "gbit_per_s", own)
    assert (status, carrier) == ("explained", "S2:two-copy") and "8 separate" in text
    # untested against their program's other method, the fact explains nothing
    assert W.read_gap(sp, SLOW_TWO, "gbit_per_s")[0] == "not explained"
    # the same gap with their two-copy *faster* than copybench's send cannot be carried by
    # it (it pushes the ratio down); their one-copy far ahead carries it, unexplained
    sp = W.Split(_fac("their ratio", "copybench's ratio", 4.0),
                 _fac("S2:one-copy", "sendmsg", 6.0), _fac("S2:two-copy", "send", 1.5))
    status, carrier, _ = W.read_gap(sp, SLOW_TWO, "gbit_per_s")
    assert (status, carrier) == ("not explained", "S2:one-copy")
    # a gap neither factor carries alone
    sp = W.Split(_fac("their ratio", "copybench's ratio", 1.2, 0.05),
                 _fac("S2:one-copy", "sendmsg", 1.1, 0.1), _fac("S2:two-copy", "send", 0.92, 0.1))
    assert W.read_gap(sp, SLOW_TWO, "gbit_per_s")[:2] == ("not explained", "")


def test_a_fact_against_the_measured_direction_does_not_explain() -> None:
    # their two-copy at 4x copybench's send (faster), the fact says slower
    sp = W.Split(_fac("their ratio", "copybench's ratio", 0.25),
                 _fac("S2:one-copy", "sendmsg", 1.0, 0.02), _fac("S2:two-copy", "send", 4.0))
    status, carrier, text = W.read_gap(sp, SLOW_TWO, "gbit_per_s")
    assert (status, carrier) == ("not explained", "S2:two-copy") and "predicts slower" in text


def test_a_fact_is_tested_against_the_same_programs_other_method() -> None:
    # their two-copy 1.6x copybench's send (the copy-once fact predicts faster), but their
    # one-copy, the same sendmsg as copybench's, is 1.5x too: the gap is their program's
    fast_two = {"S3:two-copy": W.CODE_FACTS[("S3", "two-copy", "throughput")]}
    sp = W.Split(_fac("their ratio", "copybench's ratio", 0.6),
                 _fac("S3:zero-copy", "zerocopy", 1.0, 0.02), _fac("S3:two-copy", "send", 1.6))
    common = {"S3:two-copy": _fac("S3:two-copy", "S3:one-copy", 1.07, 0.06)}
    status, carrier, text = W.read_gap(sp, fast_two, "gbit_per_s", common)
    assert (status, carrier) == ("not explained", "S3:two-copy")
    assert "common to their program" in text
    own = {"S3:two-copy": _fac("S3:two-copy", "S3:one-copy", 1.3, 0.05)}
    assert W.read_gap(sp, fast_two, "gbit_per_s", own)[0] == "explained"


def test_a_fact_that_fits_either_direction_only_labels() -> None:
    other = {"S3:zero-copy": W.CODE_FACTS[("S3", "zero-copy", "latency")]}
    sp = W.Split(_fac("their ratio", "copybench's ratio", 0.5),
                 _fac("S3:zero-copy", "zerocopy", 0.5), _fac("S3:two-copy", "send", 1.0, 0.02))
    status, carrier, _ = W.read_gap(sp, other, "their_latency_us")
    assert (status, carrier) == (W.LABELLED, "S3:zero-copy")


def test_split_uses_only_rounds_where_all_four_ran() -> None:
    d = pd.concat([_blocks(0.5), _blocks(1.0, seed=2).replace(
        {"method": {"send": "sendmsg", "S2:two-copy": "S2:one-copy"}})])
    d = d[~((d["method"] == "sendmsg") & (d["repetition"] == 1))]  # one side misses round 1
    sp = W.split(d, ("S2:one-copy", "sendmsg", None), ("S2:two-copy", "send", None), 512, 1)
    assert sp.gap.n == sp.num.n == sp.den.n == 10
    # the gap is exactly the quotient of its factors (geometric means over the same rounds)
    assert sp.gap.value == pytest.approx(sp.num.value / sp.den.value, rel=1e-12)
    assert sp.gap.value == pytest.approx(2.0, rel=0.1)


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


@pytest.mark.reference
def test_every_row_of_the_reference_run_gets_a_reading(reference) -> None:
    _, rows, expl = reference
    assert len(expl) == len(rows)
    assert set(expl["status"]) <= {W.NO_GAP, "explained", "not explained", "no data",
                                   W.LABELLED}
    assert set(expl["report"]) <= {"reproduced", "not reproduced", "no data",
                                   "no published number", "partly explained by their CSV",
                                   "not distinguishable"}
    assert expl["why"].str.len().gt(20).all()
    # reproduced is the published value inside a CI narrow enough to tell, nothing else
    for (_, r), (_, e) in zip(rows.iterrows(), expl.iterrows()):
        inside = r["theirs_lo"] <= r["published"] <= r["theirs_hi"]
        narrow = (r["published"] / W.REPRODUCED_TOL <= r["theirs_lo"]
                  and r["theirs_hi"] <= r["published"] * W.REPRODUCED_TOL)
        if e["reproduced"] is not None:
            assert e["reproduced"] == (inside and narrow)
        if e["report"] == "not distinguishable":
            assert inside and not narrow
        if e["status"] == W.NO_GAP:
            assert "no gap shown" in e["why"]
        if e["status"] == "explained":
            assert e["carrier"] and e["carrier"].startswith(r["source"] + ":")

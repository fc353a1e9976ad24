"""The parity reading of a run (analysis/claims/baselines.py ``parity``, ``memcpy_gap``): copybench
sendmsg / iperf3 where the stream-peers blocks hold sendmsg (the declaration in force), send /
iperf3 under the earlier declaration where they hold send only, and send / sendmsg paired by
round (with the sender CPU per GB each side pays) as the cost of send's memcpy.

A constructed run (trials as the loader tidies them: each size a block of its own beside
iperf3) for the rule's arithmetic; the reference run 20261128T171229Z-paper-5394 (send only
beside iperf3) for what the book reads from it."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.claims import baselines as BL
from analysis.loading.cpuprofiles import CpuProfiles
from analysis.loading.run import Run, instant
from decision import parity as PA

ROOT = Path(__file__).resolve().parents[2]
R5394 = ROOT / "data" / "raw" / "20261128T171229Z-paper-5394"
#: the constructed truth: sendmsg at parity with iperf3, send at 0.55 of sendmsg
SEND_OVER_SENDMSG = 0.55
SENDMSG_CPU, SEND_CPU = 0.15, 0.27  # sender CPU-s per GB


def _trials(methods: tuple[str, ...], rounds: int = 8, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for size in PA.SIZES:
        for rnd in range(1, rounds + 1):
            load = float(np.exp(rng.normal(0, 0.1)))  # the round's common factor
            ip3 = 20.0 * load
            for kind, meth, rate, cpu in (
                    ("peer:iperf3", "iperf3", ip3, math.nan),
                    *((("copybench", m, ip3 * float(np.exp(rng.normal(0, 0.02)))
                        * (SEND_OVER_SENDMSG if m == "send" else 1.0),
                        SEND_CPU if m == "send" else SENDMSG_CPU) for m in methods))):
                rows.append({"status": "ok", "repetition": rnd, "kind": kind, "method": meth,
                             "cell": f"{meth}-{size}", "block": f"peers-{size}", "twin": 0,
                             "transport": PA.TRANSPORT, "placement": PA.PLACEMENT,
                             "size": size, "threads": 1, "mode": "stream",
                             "gbit_per_s": rate, "sender_cpu_s_per_gb": cpu,
                             "receiver_cpu_s_per_gb": 0.1})
    return pd.DataFrame(rows)


def _run(methods: tuple[str, ...]) -> Run:
    return Run(path=Path("constructed"), trials=_trials(methods),
               manifest={"created_at": "2026-12-01T00:00:00Z"}, plan=None,
               profiles=CpuProfiles(pd.DataFrame(), pd.DataFrame()))


def test_the_reading_is_sendmsg_where_the_blocks_hold_it() -> None:
    run = _run(("sendmsg", "send"))
    assert BL.parity_declaration(run) is PA.IN_FORCE
    par = BL.parity(run)
    assert list(par["size"]) == list(PA.SIZES)
    assert set(par["method"]) == {"sendmsg"}
    assert ((par["lo"] < 1.0) & (1.0 < par["hi"])).all()
    assert set(par["reading"]) == {PA.AT_PARITY}


def test_send_alone_is_read_under_the_earlier_declaration() -> None:
    run = _run(("send",))
    assert BL.parity_declaration(run) is PA.EARLIER
    par = BL.parity(run)
    assert set(par["method"]) == {"send"} and len(par) == len(PA.SIZES)
    assert par["ratio"].between(0.5, 0.6).all()
    assert set(par["reading"]) == {PA.NOT_AT_PARITY}
    assert BL.memcpy_gap(run).empty  # no sendmsg: nothing to tell send's memcpy apart


def test_sends_gap_to_sendmsg_is_its_memcpys_cost() -> None:
    gap = BL.memcpy_gap(_run(("sendmsg", "send")))
    assert list(gap["size"]) == list(PA.SIZES)
    assert (gap["rounds"] == 8).all()
    for r in gap.to_dict("records"):
        assert r["lo"] < SEND_OVER_SENDMSG < r["hi"] and r["hi"] < 0.6
        assert r["send_sender_s_per_gb"] == pytest.approx(SEND_CPU)
        assert r["sendmsg_sender_s_per_gb"] == pytest.approx(SENDMSG_CPU)
        assert r["extra_sender_s_per_gb"] == pytest.approx(SEND_CPU - SENDMSG_CPU)


def test_copybench_cells_outside_the_peers_blocks_are_not_paired() -> None:
    """A send and a sendmsg at the same configuration in another block (the windows
    experiments at 16 KiB) are no part of the gap: it reads the blocks beside iperf3 only."""
    run = _run(("sendmsg", "send"))
    other = run.trials[(run.trials["kind"] == "copybench") & (run.trials["size"] == PA.SIZES[0])]
    other = other.assign(block="windows", gbit_per_s=other["gbit_per_s"] * 3)
    more = dataclasses.replace(run, trials=pd.concat([run.trials, other], ignore_index=True))
    a = BL.memcpy_gap(run).set_index("size")
    b = BL.memcpy_gap(more).set_index("size")
    assert b.loc[PA.SIZES[0], "rounds"] == a.loc[PA.SIZES[0], "rounds"]
    assert b.loc[PA.SIZES[0], "ratio"] == pytest.approx(a.loc[PA.SIZES[0], "ratio"])


@pytest.mark.reference
def test_the_reference_run_holds_send_only_and_is_read_under_the_earlier_declaration() -> None:
    from analysis.loading.run import load_run
    from analysis.words import revisions as RV
    run = load_run(R5394)
    assert BL.parity_declaration(run) is PA.EARLIER
    par = BL.parity(run).set_index("size")
    assert set(par["method"]) == {"send"}
    assert par.loc[1 << 20, "reading"] == PA.NOT_AT_PARITY
    assert par.loc[1 << 20, "ratio"] == pytest.approx(0.541, abs=0.001)
    assert BL.memcpy_gap(run).empty
    # made after the earlier declaration: read under it, not post hoc
    assert run.created_at > instant(PA.EARLIER.declared)
    assert not RV.parity_post_hoc(PA.EARLIER, run.created_at)

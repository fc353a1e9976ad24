"""One reading per comparison on the reference run 20261128T171229Z-paper-5394: a claim or a
decision-map row that rests on a cell copybench's receiver set the rate of, or on fewer rounds
than the design's minimum, is not read as a decision about the sender."""

from __future__ import annotations

from pathlib import Path

import pytest

from decision import reading as RD

ROOT = Path(__file__).resolve().parents[2]
R5394 = ROOT / "data" / "raw" / "20261128T171229Z-paper-5394"

pytestmark = [pytest.mark.reference,
              pytest.mark.skipif(not (R5394 / "manifest.json").is_file(),
                                 reason=f"the reference run {R5394.name} is not in this checkout")]


@pytest.fixture(scope="module")
def run():
    from analysis.loading.run import load_run
    return load_run(R5394)


def test_c4_same_core_flags_its_receiver_bound_size(run) -> None:
    from analysis import claims as C
    res = {r.placement: r for r in C.c4(run)}
    same = res["same-core"]
    # 16 KiB same-core on veth: copybench's receiver took the larger share of the CPU both
    # share (0.80 beside send's 0.17, 0.57 beside sendmsg's 0.36): not a test of the sender.
    # 512 B (the sender's share the larger) and 64 KiB (neither saturated) contradict C4 on
    # cells the receiver did not bound, so the refutation rests on them and names 16 KiB
    assert same.bound == RD.RECEIVER
    assert f"16 KiB: {RD.RECEIVER_BOUND}" in same.reason
    assert same.verdict == C.REFUTED and "at 512 B" in same.direction
    assert f"({RD.RECEIVER_BOUND} at 16 KiB)" in same.verdict_text
    # cross-core the sender set the rate (or neither side did): decided as before
    cross = res["cross-core"]
    assert cross.verdict in (C.HOLDS, C.REFUTED, C.INCONCLUSIVE)
    assert cross.bound != RD.RECEIVER


def test_the_maps_decided_rows_exclude_the_unread_ones(run) -> None:
    from analysis.words.counts import Tally, map_comparisons
    rows = map_comparisons(run)
    assert len(rows) == 99
    under = rows[rows["under_minimum"]]
    # ten rest on 3 rounds, one on 5; the design's minimum is 6
    assert len(under) == 11 and sorted(set(under["n"])) == [3, 5]
    assert int((under["decision"] != "inconclusive").sum()) == 7  # drawn decided before
    t = Tally.of(rows)
    assert t.not_read == 11 and t.receiver_bound == 21
    # the decided counts are of the rows that are read: none under the minimum, none bound
    read = rows[~rows["under_minimum"] & (rows["bound"] != RD.RECEIVER)]
    assert t.directions == int(read["direction"].isin(["faster", "slower"]).sum())
    assert t.n == t.greater + t.less + t.equivalent + t.undecided + t.faster_open \
        + t.slower_open + t.not_read + t.receiver_bound
    # sendmsg 16 MiB and 64 MiB loopback cross-core rest on 3 rounds: not read
    sm = rows[(rows["method"] == "sendmsg") & (rows["transport"] == "loopback")
              & (rows["placement"] == "cross-core") & (rows["size"] >= 16 << 20)]
    assert len(sm) == 2 and set(sm["read"]) == {RD.NOT_READ}

"""Which side set a stream's rate (analysis.statistics.bottleneck), from the sides' CPU time."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.statistics import bottleneck as BN
from analysis.statistics.fmt import fmt_size
from analysis.words import sides as SI


@pytest.mark.parametrize("snd,rcv,placement,want", [
    (0.99, 0.60, "cross-core", "sender"),      # the method's sender saturated
    (0.50, 0.97, "cross-core", "receiver"),    # copybench's receiver saturated
    (0.95, 0.97, "cross-core", "receiver"),    # both: the busier one
    (0.97, 0.95, "cross-core", "sender"),
    (0.70, 0.80, "cross-core", "neither"),     # both waited: the path or the scheduler
    (0.25, 0.72, "same-core", "receiver"),     # one CPU shared: the larger share
    (0.63, 0.36, "same-core", "sender"),
    (0.30, 0.30, "same-core", "neither"),      # the shared CPU was not saturated
    (math.nan, 0.9, "cross-core", "unknown"),
])
def test_limit(snd: float, rcv: float, placement: str, want: str) -> None:
    assert BN.limit(snd, rcv, placement) == want


def _trials(**over: object) -> pd.DataFrame:
    rows = []
    for i in range(3):
        rows.append({"method": "send", "transport": "loopback", "placement": "cross-core",
                     "threads": 1, "size": 262144, "seconds": 1.0, "n_cpus_sender": 1,
                     "n_cpus_sink": 1, "sender_cpu_s": 0.5 + 0.01 * i,
                     "receiver_cpu_s": 0.98 - 0.01 * i, **over})
    return pd.DataFrame(rows)


def test_cell_limits_reads_medians_per_cell() -> None:
    d = pd.concat([_trials(), _trials(size=4096, sender_cpu_s=0.99, receiver_cpu_s=0.5)])
    lim = BN.cell_limits(d, ["method", "transport", "placement", "threads", "size"])
    got = dict(zip(lim["size"], lim["limit"]))
    assert got == {4096: "sender", 262144: "receiver"}
    assert lim.loc[lim["size"] == 262144, "receiver_busy"].item() == pytest.approx(0.97)


def test_busy_is_per_cpu_of_the_side() -> None:
    # two sender threads pinned to two CPUs, 1.8 CPU-s in a 1 s window: 0.9 per CPU
    d = _trials(threads=2, n_cpus_sender=2, sender_cpu_s=1.8)
    assert BN.busy(d)["sender_busy"].iloc[0] == pytest.approx(0.9)


def test_receiver_limit_text_names_sizes_and_count() -> None:
    d = pd.concat([_trials(), _trials(size=4096, sender_cpu_s=0.99, receiver_cpu_s=0.5)])
    t = SI.receiver_limit_text(d, fmt_size)
    assert "in 1 of 2 TCP stream cells" in t and "loopback cross-core: 256 KiB" in t
    assert "4 KiB" not in t
    none = SI.receiver_limit_text(_trials(size=4096, sender_cpu_s=0.99, receiver_cpu_s=0.5),
                                  fmt_size)
    assert "in 0 of 1" in none and "measures its sender" in none
    unknown = SI.receiver_limit_text(_trials(receiver_cpu_s=None), fmt_size)
    assert "cannot be read" in unknown

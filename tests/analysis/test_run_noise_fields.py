"""The tidy trial rows carry the noise study's record fields: each side's slice
throughput CV, socket buffers at the window's edges (summed over threads), retransmissions
in the window, the congestion window at its end, threads that changed CPU, and the
NET_RX/NET_TX softirqs over the window; None, never 0, for records without them (made before
them) or where a value is null."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from analysis.loading import run as A


def _side(slices_bytes: list[int] | None, threads: int = 1) -> dict[str, Any]:
    ti = {"snd_cwnd": 10, "rtt_us": 20, "rttvar_us": 5, "rcv_space": 65483, "total_retrans": 2,
          "snd_mss": 65483, "rcv_mss": 536, "unacked": 0}
    return {
        "threads": threads, "bytes": sum(slices_bytes or [0]), "utime_s": 0.1, "stime_s": 0.2,
        "counters": {}, "counters_unavailable": {},
        "slice_s": 0.1, "slices_bytes": slices_bytes,
        "slices_s": [0.1] * 10 if slices_bytes else None,
        "slices_unavailable": None if slices_bytes else "stopped early",
        "cpu_start": [0] * threads, "cpu_end": [0] * (threads - 1) + [1],
        "sndbuf_start": [4096] * threads, "sndbuf_end": [8192] * threads,
        "rcvbuf_start": [131072] * threads, "rcvbuf_end": [262144] * threads,
        "tcp_info_start": [ti] * threads,
        "tcp_info_end": [dict(ti, total_retrans=5)] * threads,
        "sockets_unavailable": None,
    }


def _record(sender: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
    res: dict[str, Any] = {"bytes": sender["bytes"], "seconds": 1.0, "gbit_per_s": 1.0,
                           "sender": sender, "receiver": receiver,
                           "softirqs": {"source": "/proc/softirqs", "window_s": 1.0,
                                        "net_rx": 700, "net_tx": 3,
                                        "cpus": [{"cpu": 0, "net_rx": 300, "net_tx": 3},
                                                 {"cpu": 1, "net_rx": 400, "net_tx": 0}]},
                           "softirqs_unavailable": None}
    if receiver is not None:
        receiver["softirqs"] = {"source": "/proc/softirqs", "window_s": 1.0, "net_rx": 700,
                                "net_tx": 3, "cpus": [{"cpu": 1, "net_rx": 400, "net_tx": 0}]}
    return {"trial_id": "t", "status": "ok", "config": {"kind": "copybench", "command": "send",
                                                         "method": "send", "mode": "stream",
                                                         "duration_s": 1.0},
            "result": res}


def test_slice_cv_is_the_sample_cv_of_the_slices_throughput() -> None:
    b = [100, 110, 90, 100, 100, 120, 80, 100, 100, 100]
    rates = np.array(b) / 0.1
    want = rates.std(ddof=1) / rates.mean()
    assert A.slice_cv(b, [0.1] * 10) == pytest.approx(want)
    # a longer slice (a late edge) moves more bytes at the same rate: no spread
    assert A.slice_cv([100, 200] + [100] * 8, [0.1, 0.2] + [0.1] * 8) == pytest.approx(0)
    # slices without time are left out; fewer than two, or nothing moved: None
    assert A.slice_cv([100, 5, 100], [0.1, 0.0, 0.1]) == pytest.approx(0)
    assert A.slice_cv([100], [0.1]) is None
    assert A.slice_cv([0] * 10, [0.1] * 10) is None
    assert A.slice_cv(None, None) is None


def test_tidy_rows_carry_each_sides_noise_fields() -> None:
    rec = _record(_side([100, 110, 90, 100, 100, 120, 80, 100, 100, 100], threads=2),
                  _side([100] * 10))
    row = A.tidy_record(rec)
    assert row["sender_slice_cv"] == pytest.approx(
        A.slice_cv(rec["result"]["sender"]["slices_bytes"], [0.1] * 10))
    assert row["receiver_slice_cv"] == pytest.approx(0)
    # buffers summed over the side's threads
    assert (row["sender_sndbuf_start"], row["sender_sndbuf_end"]) == (8192, 16384)
    assert (row["sender_rcvbuf_start"], row["sender_rcvbuf_end"]) == (262144, 524288)
    assert (row["receiver_rcvbuf_start"], row["receiver_rcvbuf_end"]) == (131072, 262144)
    # 3 retransmissions per connection in the window; one thread of each side moved CPU
    assert row["sender_retrans"] == 6 and row["receiver_retrans"] == 3
    # the congestion window at the window's end, summed over the side's connections
    assert row["sender_snd_cwnd_end"] == 20 and row["receiver_snd_cwnd_end"] == 10
    assert row["sender_cpus_changed"] == 1 and row["receiver_cpus_changed"] == 1
    # softirqs: the host's over the window, and the sink's CPUs' own
    assert (row["softirq_net_rx"], row["softirq_net_tx"]) == (700, 3)
    assert row["receiver_softirq_net_rx"] == 400


def test_missing_values_are_none_never_zero() -> None:
    sender = _side(None)
    sender["sndbuf_end"] = [None]                       # no socket for that thread
    sender["tcp_info_end"] = [None]                     # e.g. UDP
    rec = _record(sender, None)
    rec["result"]["softirqs"] = None
    rec["result"]["softirqs_unavailable"] = "/proc/softirqs: empty"
    row = A.tidy_record(rec)
    assert row["sender_slice_cv"] is None
    assert row["sender_sndbuf_start"] == 4096 and row["sender_sndbuf_end"] is None
    assert row["sender_retrans"] is None and row["sender_snd_cwnd_end"] is None
    assert row["softirq_net_rx"] is None and row["receiver_softirq_net_rx"] is None
    assert row["receiver_slice_cv"] is None and row["receiver_sndbuf_start"] is None


def test_records_made_before_the_fields_tidy_to_none() -> None:
    rec = _record(_side([100] * 10), _side([100] * 10))
    old = copy.deepcopy(rec)
    for side in (old["result"]["sender"], old["result"]["receiver"]):
        for k in list(side):
            if k not in ("threads", "bytes", "utime_s", "stime_s", "counters",
                         "counters_unavailable"):
                del side[k]
    del old["result"]["softirqs"], old["result"]["softirqs_unavailable"]
    row = A.tidy_record(old)
    new_cols = [k for k in A.tidy_record(rec) if k.endswith(("slice_cv", "_start", "_end",
                                                             "retrans", "cpus_changed"))
                or "softirq" in k]
    assert len(new_cols) == 2 * 8 + 3, new_cols
    assert all(row[k] is None for k in new_cols), {k: row[k] for k in new_cols}
    # and an empty record (the tidy table's column list) has them too
    assert set(new_cols) <= set(A.tidy_record({}))
    assert not any(isinstance(row[k], float) and math.isnan(row[k]) for k in new_cols)

"""A shared-time trial's record (``copybench send --share-time``) as both sides read it
(rundir.sharetime) and what ``ok`` means for it (rundir.okrule): each of its two connections
delivered what it sent; a method's throughput is its rate at the sink, or None where the sink
had none (never a 0)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rundir import okrule, sharetime


def _record(received: tuple[int, int] = (300, 500),
            rates: tuple[Any, Any] = (2.5, 3.0)) -> dict[str, Any]:
    pm = [{"method": m, "connection": c, "sent": s, "received": r, "gbit_per_s": g,
           "bytes": s - 100, "sender": {"utime_s": 0.1, "stime_s": 0.3, "bytes": 2 * 10**9},
           "receiver": {"utime_s": 0.2, "stime_s": 0.2, "bytes": 2 * 10**9}}
          for c, (m, s, r, g) in enumerate(zip(("sendmsg", "send"), (300, 500), received,
                                               rates))]
    return {"status": "ok", "config": {"kind": "copybench", "method": "sendmsg",
                                       "share_time": "send"},
            "result": {"bytes": 600, "seconds": 1.0, "window": {"missed": False},
                       "verify": {"mismatches": 0}, "share_time": {"per_method": pm}}}


def test_each_method_is_read_from_its_own_connection() -> None:
    rec = _record()
    assert sharetime.procedure(rec) == sharetime.SHARED
    pm = sharetime.methods(rec)
    assert [m["method"] for m in pm] == ["sendmsg", "send"]
    assert [sharetime.rate(m) for m in pm] == [2.5, 3.0]
    assert sharetime.cpu_per_gb(pm[0], "sender") == pytest.approx(0.2)
    today = {"config": {"method": "send"}, "result": {"bytes": 1}}
    assert sharetime.procedure(today) == sharetime.SEPARATE and sharetime.methods(today) == []


@pytest.mark.parametrize("value", [None, float("nan"), 0.0, -1.0, True])
def test_a_rate_the_sink_did_not_have_is_none_never_a_number(value: Any) -> None:
    assert sharetime.rate(sharetime.methods(_record(rates=(value, 1.0)))[0]) is None


def test_ok_means_each_connection_delivered_what_it_sent() -> None:
    assert okrule.record_problem(_record()) is None
    bad = _record(received=(300, 499))
    why = okrule.record_problem(bad)
    assert why is not None and "share_time.per_method[1].received = 499, sent 500" in why
    broken = copy.deepcopy(_record())
    broken["result"]["share_time"]["per_method"][0] = "garbage"
    assert "per_method[0]" in (okrule.record_problem(broken) or "")
    # a failed record is not held to it
    assert okrule.record_problem({**bad, "status": "failed"}) is None

"""What a trial record's ``status: ok`` means, as one rule both sides apply.

The runner marks a trial ``ok`` only when its program said so *and* the result it printed
passes :func:`problem` (``runner.sweep.trials``); :mod:`rundir.verify` applies the same rule to
every ``ok`` record of a run, so an ``ok`` edited into a record (or a result edited under
one) fails verification. What the rule asks, by kind of trial:

* copybench (``src/README.md``, "The record"): bytes moved (> 0) over a measured window
  (seconds > 0) that was not missed (``window.missed`` is not true), and the receiver's
  verification, when it ran, found no mismatch (``verify.mismatches`` = 0); a shared-time
  trial's each connection delivered what it sent (``share_time.per_method[].received`` =
  ``sent``);
* a report's own program (``original:S<n>``): bytes counted (> 0) over seconds > 0;
* a peer tool (iperf3, sockperf): a throughput above 0 or a round-trip time.

Whatever the kind, a throughput an ok record gives (``result.gbit_per_s``) is above 0 and
at most :data:`MAX_GBIT_PER_S`; a shared-time method's (``per_method[].gbit_per_s``, null
where the sink had none) is at most that too.
"""

from __future__ import annotations

from typing import Any

#: the highest throughput an ok record may give (Gbit/s): 100 Tbit/s, 12.5 TB/s, beyond the
#: memory bandwidth of any machine this measures on (a DDR5 server socket moves about
#: 0.5 TB/s, an accelerator's HBM3e 4.8 TB/s), so no copy or transfer through memory reaches
#: it; a record above it moved no bytes (a copy that only shared extents, a clock that
#: jumped) or was edited. The committed runs' highest is about 320 Gbit/s.
MAX_GBIT_PER_S = 100_000.0


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _moved(result: dict[str, Any]) -> str | None:
    """bytes > 0 and seconds > 0 (both required)."""
    b, s = result.get("bytes"), result.get("seconds")
    if not _number(b) or b <= 0:
        return f"result.bytes = {b!r} (an ok trial moved bytes: > 0)"
    if not _number(s) or s <= 0:
        return f"result.seconds = {s!r} (an ok trial measured a window: > 0)"
    return None


def _copybench(result: dict[str, Any]) -> str | None:
    moved = _moved(result)
    if moved:
        return moved
    window = result.get("window")
    if isinstance(window, dict) and window.get("missed") is not False:
        return (f"result.window.missed = {window.get('missed')!r} (an ok trial met its "
                "window: false)")
    check = result.get("verify")
    if isinstance(check, dict) and check.get("mismatches") != 0:
        return (f"result.verify.mismatches = {check.get('mismatches')!r} (an ok trial's "
                "verification found none: 0)")
    share = result.get("share_time")
    for i, m in enumerate((share.get("per_method") or []) if isinstance(share, dict) else []):
        if not isinstance(m, dict) or m.get("received") != m.get("sent"):
            got = m.get("received") if isinstance(m, dict) else None
            want = m.get("sent") if isinstance(m, dict) else None
            return (f"result.share_time.per_method[{i}].received = {got!r}, sent {want!r} (an "
                    "ok shared-time trial's connections each delivered what they sent)")
    return None


def _peer(result: dict[str, Any]) -> str | None:
    rate, rtt = result.get("gbit_per_s"), result.get("rtt_ns")
    if (_number(rate) and rate > 0) or isinstance(rtt, dict):
        return None
    return (f"result.gbit_per_s = {rate!r} and no rtt_ns (an ok peer trial measured a "
            "throughput above 0 or a round-trip time)")


def _rates(result: dict[str, Any]) -> str | None:
    """The throughputs an ok record gives are possible: ``gbit_per_s`` above 0 and at most
    :data:`MAX_GBIT_PER_S`; a shared-time method's at most that (null: not measured)."""
    rate = result.get("gbit_per_s")
    if _number(rate) and not 0 < rate <= MAX_GBIT_PER_S:
        return (f"result.gbit_per_s = {rate!r} (an ok trial moved bytes at a rate above 0 "
                f"and at most {MAX_GBIT_PER_S:g} Gbit/s, beyond any memory's bandwidth)")
    share = result.get("share_time")
    for i, m in enumerate((share.get("per_method") or []) if isinstance(share, dict) else []):
        v = m.get("gbit_per_s") if isinstance(m, dict) else None
        if _number(v) and not 0 <= v <= MAX_GBIT_PER_S:
            return (f"result.share_time.per_method[{i}].gbit_per_s = {v!r} (at least 0 and "
                    f"at most {MAX_GBIT_PER_S:g} Gbit/s, beyond any memory's bandwidth)")
    return None


def problem(kind: str | None, result: Any) -> str | None:
    """Why a record of this kind with this ``result`` cannot be ``ok``; None when it can."""
    if not isinstance(result, dict):
        return f"result is {type(result).__name__} (an ok trial has a result object)"
    if kind == "copybench":
        why = _copybench(result)
    elif isinstance(kind, str) and kind.startswith("original:"):
        why = _moved(result)
    else:
        why = _peer(result)
    return why or _rates(result)


def record_problem(record: dict[str, Any]) -> str | None:
    """:func:`problem` of a record whose status is ``ok`` (None for any other status)."""
    if record.get("status") != "ok":
        return None
    config = record.get("config")
    return problem(config.get("kind") if isinstance(config, dict) else None,
                   record.get("result"))

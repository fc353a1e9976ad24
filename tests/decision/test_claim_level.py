"""A claim's verdict is read at the level its claim declares (decision.claimtable.FAMILY),
whatever else the profile measures: the same comparison in a profile that also runs the
file findings at five sizes and in one that runs only the claim's size is read at one level."""

from __future__ import annotations

from decision import families as F


def _cell(method: str, size: int) -> dict:
    return {"kind": "copybench", "method": method, "command": "sendfile", "mode": "stream",
            "transport": "loopback", "placement": "cross-core", "threads": 1, "size": size,
            "cache": "warm", "twin": 0}


def _plan(sizes: tuple[int, ...]) -> dict:
    cells = {}
    for s in sizes:
        for m in ("sendfile", "read-write"):
            cells[f"{m}-{s}"] = _cell(m, s)
    return {"cells": cells, "blocks": {}}


def test_c13_level_does_not_depend_on_what_else_the_profile_holds() -> None:
    claim = 100_000_000
    alone = _plan((claim,))
    beside_findings = _plan((4096, 65536, 1 << 20, 16 << 20, claim))
    a = F.plan_family(alone, [f"sendfile-{claim}"], [f"read-write-{claim}"], F.fixed("C13"))
    b = F.plan_family(beside_findings, [f"sendfile-{claim}"], [f"read-write-{claim}"],
                      F.fixed("C13"))
    assert a[0] == b[0] == F.fixed("C13") == 1


def test_a_declared_stop_keeps_its_boundaries_but_not_its_family() -> None:
    plan = _plan((100_000_000,))
    plan["blocks"] = {"b1": {"sequential": {"comparisons": [
        {"a": "sendfile-100000000", "b": "read-write-100000000", "family": 5,
         "boundaries": [0.89, 1.12]}]}}}
    fam, stop = F.plan_family(plan, ["sendfile-100000000"], ["read-write-100000000"], 1)
    assert fam == 1
    assert stop == (0.89, 1.12)

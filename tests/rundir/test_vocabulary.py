"""``rundir.vocabulary`` is the one list of the words a trial's configuration uses, and it
says what the trial and plan schemas and copybench's own method table say: a method, a
transport or a placement added to one and not to the others fails here."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from conftest import copybench_or_fail
from rundir import vocabulary as V
from rundir.schemas import load_schema
from rundir.verify import TRIAL_SCHEMA
from rundir import planfile


def _enum(schema: dict[str, Any], *path: str) -> list[Any]:
    node: Any = schema
    for key in path:
        node = node[key]
    return list(node["enum"])


def _config_method_enum(schema: dict[str, Any]) -> list[str]:
    """The copybench methods the trial schema allows (its ``if kind is copybench`` branch)."""
    for rule in schema["$defs"]["config"]["allOf"]:
        then = rule.get("then", {}).get("properties", {})
        if "method" in then:
            return list(then["method"]["enum"])
    raise AssertionError("the trial schema lists no copybench methods")


def test_the_trial_schema_uses_the_vocabulary() -> None:
    s = load_schema(TRIAL_SCHEMA)
    cfg = ("$defs", "config", "properties")
    assert _config_method_enum(s) == list(V.METHODS)
    assert _enum(s, *cfg, "command") == list(V.COMMANDS)
    assert _enum(s, *cfg, "transport") == [*V.TRANSPORTS, "remote", None]
    assert _enum(s, *cfg, "placement") == [*V.PLACEMENTS, None]
    assert _enum(s, *cfg, "mode") == [*V.MODES, None]
    assert _enum(s, *cfg, "cache") == [*V.CACHES, None]
    assert _enum(s, *cfg, "verify") == list(V.VERIFY)


def test_the_plan_schema_uses_the_vocabulary() -> None:
    s = load_schema(planfile.SCHEMA)
    cell = ("$defs", "cell", "properties")
    assert _enum(s, *cell, "command") == list(V.COMMANDS)
    assert _enum(s, *cell, "transport") == [*V.TRANSPORTS, "remote", None]
    assert _enum(s, *cell, "placement") == list(V.PLACEMENTS)
    assert _enum(s, "$defs", "block", "properties", "placement") == list(V.PLACEMENTS)
    assert _enum(s, *cell, "mode") == [*V.MODES, None]
    assert _enum(s, *cell, "cache") == [*V.CACHES, None]
    assert _enum(s, *cell, "verify") == list(V.VERIFY)


def test_copybench_has_the_vocabulary_s_methods() -> None:
    """``copybench methods --json``: the same methods in the same order, each of the kinds
    and with the UDP support the vocabulary gives it (whether this machine can run it does
    not matter)."""
    binary = copybench_or_fail()
    out = subprocess.run([str(binary), "methods", "--json"], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    table = {m["name"]: m for m in json.loads(out)}
    assert list(table) == list(V.METHODS)
    kinds = {"message-socket": V.MESSAGE_METHODS, "file-socket": V.FILE_SEND_METHODS,
             "file-file": V.COPY_METHODS}
    for kind, methods in kinds.items():
        assert [n for n, m in table.items() if kind in m["kinds"]] == list(methods), kind
    assert [n for n, m in table.items() if m["udp"]] == list(V.UDP_METHODS)


def test_the_words_are_consistent() -> None:
    assert set(V.PINNED_PLACEMENTS) < set(V.PLACEMENTS)
    assert set(V.REPORT_NAMES) <= set(V.MESSAGE_METHODS)
    assert V.FILE_METHODS == tuple(dict.fromkeys(V.FILE_SEND_METHODS + V.COPY_METHODS))
    assert len(set(V.METHODS)) == len(V.METHODS)


def test_the_restricted_lists_are_subsets() -> None:
    """Where a part of the runner allows only some of the words (the reports' programs),
    it allows words of the vocabulary."""
    from runner.plan import original_limits as limits  # noqa: PLC0415 (tests may import runner)
    assert set(limits.TRANSPORTS) <= set(V.TRANSPORTS)
    assert set(limits.PLACEMENTS) <= set(V.PLACEMENTS)

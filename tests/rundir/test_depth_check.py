"""The depth check every reader of a run's JSON and a profile's TOML applies after parsing
(:func:`rundir.utf8._too_deep`): containers nested exactly :data:`MAX_DEPTH` deep pass, one
level more is refused, whatever the scalars and the width around them."""

from __future__ import annotations

import json

import pytest

from rundir import utf8


def _nested(levels: int, inner: object = 1) -> object:
    doc = inner
    for i in range(levels):
        doc = [doc, "x", 2.5] if i % 2 else {"k": doc, "s": None}
    return doc


@pytest.mark.parametrize("levels, deep", [(0, False), (1, False), (utf8.MAX_DEPTH, False),
                                          (utf8.MAX_DEPTH + 1, True), (200, True)])
def test_the_depth_is_counted_in_containers(levels: int, deep: bool) -> None:
    assert utf8._too_deep(_nested(levels)) is deep
    wide = {"a": list(range(1000)), "b": [_nested(levels)], "c": {"d": "e"}}
    assert utf8._too_deep(wide) is (levels + 2 > utf8.MAX_DEPTH)


def test_json_loads_refuses_one_level_too_deep() -> None:
    """Documents with more opening brackets than MAX_DEPTH (so the walk runs), at the limit
    and one level past it."""
    many = [[] for _ in range(utf8.MAX_DEPTH)]
    ok = json.dumps([_nested(utf8.MAX_DEPTH - 1), many])
    assert utf8.json_loads(ok) == json.loads(ok)
    with pytest.raises(json.JSONDecodeError, match="nested more than"):
        utf8.json_loads(json.dumps([_nested(utf8.MAX_DEPTH), many]))

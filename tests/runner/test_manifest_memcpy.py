"""runner/host/manifest.py: the memcpy bound is measured at every working-set size of the plan
(the real copybench memcpy), keeps the 64 MiB figure every manifest has, lists sizes too
small to time one copy at a time with the reason, and analysis.figures.plots reads it back by size."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.figures.plots import memcpy_bounds
from runner.host import manifest as M


def test_memcpy_at_each_size_of_the_plan(runner_copybench: Path, tmp_path: Path) -> None:
    plan = {"cells": {"a": {"size": 64}, "b": {"size": 65536}, "c": {"size": 1 << 20},
                      "d": {"size": 65536}, "e": {"size": 64 << 20}, "f": {"size": 4096}}}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    sizes = M.plan_sizes(tmp_path)
    assert sizes == [64, 4096, 65536, 1 << 20, 64 << 20]
    m = M.memcpy_bandwidth(runner_copybench, sizes=sizes)
    assert m["size"] == M.MEMCPY_DEFAULT_SIZE and m["memcpy_gbit_per_s"] > 0
    at = {x["size"]: x for x in m["at_sizes"]}
    assert set(at) == set(sizes)
    for small in (64, 4096):  # the clock read per copy would dominate: no bound there
        assert at[small]["memcpy_gbit_per_s"] is None and "clock" in at[small]["unavailable"]
    for s in (65536, 1 << 20, 64 << 20):
        assert at[s]["memcpy_gbit_per_s"] > 0, at[s]
    assert "--size" in at[65536]["argv"] and "65536" in at[65536]["argv"]
    bounds = memcpy_bounds({"memcpy": m})
    assert set(bounds) == {65536, 1 << 20, 64 << 20}  # a bound only where measured


def test_old_manifests_keep_their_one_bound(tmp_path: Path) -> None:
    old = {"memcpy": {"memcpy_gbit_per_s": 55.884, "size": 67108864, "seconds": 1.0}}
    assert memcpy_bounds(old) == {67108864: 55.884}
    assert M.plan_sizes(tmp_path) == []  # no plan: the 64 MiB figure only
    assert "at_sizes" not in M.memcpy_bandwidth(None)

"""Run.measured works its rows out once per records table, receive size and plan, and
returns them afresh on every call: the same rows as worked out anew, never a copy another
caller changed, and worked out again when the table, the receive size or the plan is
another."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_synthetic_run  # noqa: E402

from analysis.loading.run import load_run  # noqa: E402


def test_measured_is_the_rows_worked_out_anew(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert make_synthetic_run.main([str(run_dir), "--small", "--seed", "3"]) == 0
    run = load_run(run_dir)
    first = run.measured
    assert first.equals(run._measured()) and len(first) > 0
    first["gbit_per_s"] = -1.0  # a caller's change to its copy
    again = run.measured
    assert again.equals(run._measured()) and not (again["gbit_per_s"] == -1.0).any()
    # another table: its own rows (one ok trial marked failed)
    t = run.trials.copy()
    t.loc[again.index[0], "status"] = "failed"
    run.trials = t
    assert len(run.measured) == len(again) - 1 and run.measured.equals(run._measured())
    # another receive size or plan: worked out for it
    other = dataclasses.replace(run, recv_size=262144)
    assert other.measured.equals(other._measured())
    run.plan = {**(run.plan or {}), "design": {"exclude_steal_above": 0.0}}
    assert run.measured.equals(run._measured())

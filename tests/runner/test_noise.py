"""The noise model: the runner's (python -m runner noise, from raw records) and the
analysis's (analysis.statistics.noise, from the tidy table) compute the same numbers on a real
block-design run; runner noise writes a model the planner reads back."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from analysis.statistics import noise as AN
from analysis.loading import run as A
from conftest import run_runner, sweep_profile
from runner.plan import blocks as D
from runner.plan import noisemodel as RN

PROFILE = sweep_profile(
    "n", seed=4, repetitions=None,
    design={"rounds_min": 4, "rounds_max": 4, "descriptive_target": 1.0},
    experiments=[{"name": "s", "command": "send", "methods": ["send", "sendmsg"],
                  "sizes": ["16K"], "placements": ["cross-core", "same-core"], "twin": True}])


@pytest.mark.sweep
@pytest.mark.slow  # 15 s, a real sweep; both sides import one computation (decision.quantities)
def test_runner_and_analysis_agree_and_the_model_round_trips(runner_copybench: Path,
                                                             tmp_path: Path) -> None:
    prof = tmp_path / "n.toml"
    prof.write_text(PROFILE)
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    runner_rows = {(x.kind, x.placement, x.window_s, x.metric): x for x in RN.from_run(run)}
    names = {"primary": "primary", "sender_cpu": "sender CPU s/GB",
             "receiver_cpu": "receiver CPU s/GB"}
    table = AN.by_window(A.load_run(run).measured)
    assert len(table) == len(runner_rows) == 6
    for _, row in table.iterrows():
        key = next(k for k in runner_rows if k[:3] == (row["kind"], row["placement"],
                                                        row["window_s"])
                   and names[k[3]] == row["metric"])
        x = runner_rows[key]
        assert x.log_ratio_sd is not None and math.isfinite(row["log_ratio_sd"])
        assert math.isclose(x.log_ratio_sd, row["log_ratio_sd"], rel_tol=1e-9), key
        assert x.rounds == row["rounds"] == 4
    out = tmp_path / "noise.toml"
    r = run_runner("noise", str(run), "--out", str(out), timeout=60)
    assert r.returncode == 0, r.stderr
    model = D.Noise.load(out)
    sd, why = model.sd("stream", "cross-core", 0.2)
    # the file writes an sd to 4 decimals: equal to within half the last one (a relative
    # tolerance failed when a quiet machine's sd was 0.0132)
    assert math.isclose(sd, runner_rows[("stream", "cross-core", 0.2, "primary")].log_ratio_sd,
                        abs_tol=5e-5) and "pilot" in why


def test_noise_refuses_a_run_without_blocks(tmp_path: Path) -> None:
    r = run_runner("noise", str(tmp_path), timeout=60)
    assert r.returncode == 2 and "not a run directory" in r.stderr


def test_a_model_pooled_over_runs_keeps_each_runs_blocks_apart(tmp_path: Path) -> None:
    """The claims run and the reference run share block ids (same configurations): pooled,
    each run's rounds stay its own, and an entry measured by both is their dof-weighted
    root mean square."""
    root = Path(__file__).resolve().parents[2] / "data" / "raw"
    a, b = root / "20261123T062509Z-paper", root / "20261123T081603Z-claims"
    if not (a.is_dir() and b.is_dir()):
        pytest.skip("needs the committed runs 20261123T062509Z-paper and -claims")
    key = ("stream", "cross-core", 1.0, "primary")

    def entry(rows: list[RN.Row]) -> RN.Row:
        return next(r for r in rows if (r.kind, r.placement, r.window_s, r.metric) == key)

    ra, rb, both = entry(RN.from_run(a)), entry(RN.from_run(b)), entry(RN.from_runs([a, b]))
    assert both.blocks == ra.blocks + rb.blocks  # shared block ids, counted per run
    lo, hi = sorted((ra.log_ratio_sd, rb.log_ratio_sd))
    assert lo < both.log_ratio_sd < hi
    toml = RN.to_toml(RN.from_runs([a, b]), [a, b],
                      {a.name: RN.from_run(a), b.name: RN.from_run(b)})
    assert f'run = "{a.name} + {b.name}"' in toml and "blocks = " in toml
    assert "windows are compared\n# only within one run" in toml
    (tmp_path / "noise.toml").write_text(toml)
    model = D.Noise.load(tmp_path / "noise.toml")  # what a profile's plan reads
    assert model.sd("stream", "cross-core", 1.0)[0] == pytest.approx(both.log_ratio_sd,
                                                                     abs=1e-4)


def test_fixed_buffer_controls_stay_out_of_the_model() -> None:
    """The noise study's cells with fixed socket buffers (a control) are not the procedure
    the profiles plan with: the model reads only the autotuned blocks."""
    def rec(cell: str, block: str, rnd: int, sockbuf: int | None) -> dict:
        return {"status": "ok", "repetition": rnd, "cell": cell, "run_id": "r",
                "config": {"kind": "copybench", "block": block, "sockbuf": sockbuf,
                           "mode": "stream", "command": "send", "placement": "cross-core",
                           "duration_s": 1.0}}
    recs = [rec(c, b, n, sb) for n in (1, 2, 3)
            for c, b, sb in (("a", "tuned", None), ("b", "tuned", None),
                             ("c", "fixed", 4 << 20), ("d", "fixed", 4 << 20))]
    blocks = RN._blocks(recs)
    assert sorted(k.split("/")[1] for k in blocks) == ["tuned"]
    assert sorted(blocks["r/tuned"]) == ["a", "b"]


def test_kept_sink_and_alternating_controls_stay_out_of_the_model() -> None:
    """The noise study's other two controls (a sink kept across trials, two methods
    alternating in one trial) are not the procedure the profiles plan with either."""
    def rec(cell: str, block: str, rnd: int, extra: dict) -> dict:
        return {"status": "ok", "repetition": rnd, "cell": cell, "run_id": "r",
                "config": {"kind": "copybench", "block": block, "mode": "stream",
                           "command": "send", "placement": "cross-core", "duration_s": 1.0,
                           **extra}}
    recs = [rec(c, b, n, x) for n in (1, 2, 3)
            for c, b, x in (("a", "today", {"sink": "fresh"}), ("b", "today", {}),
                            ("c", "kept", {"sink": "kept"}), ("d", "kept", {"sink": "kept"}),
                            ("e", "alt", {"alternate": "sendmsg"}))]
    blocks = RN._blocks(recs)
    assert sorted(k.split("/")[1] for k in blocks) == ["today"]

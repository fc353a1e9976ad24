"""analysis.comparison.compare on synthetic runs with a planted truth, and the `make compare` command's
handling of bad input. The report on a real pair (reference run, smoke run) is checked by
tests/test_compare_report.py, which `make test-book` runs after `make compare`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import make_synthetic_run  # noqa: E402

from analysis.loading import run as A  # noqa: E402
from analysis import claims as C  # noqa: E402
from analysis.comparison import compare as K  # noqa: E402

SPEEDUP = 2.0
#: the one configuration whose shape changes in the "reviewer's" run: half the reference
PLANTED = dict(method="zerocopy", size=4096, transport="loopback", placement="cross-core",
               threads=1, mode="stream")


def _planted(cfg: dict) -> bool:
    return cfg.get("kind") == "copybench" and all(cfg.get(k) == v for k, v in PLANTED.items())


def _reviewer_run(src: Path, dst: Path, window: float | None = None) -> None:
    """A copy of src as if measured on a machine twice as fast (cell ids differ), and one
    configuration (PLANTED) at half the reference's throughput; ``window`` changes every
    cell's window length (then nothing may match)."""
    dst.mkdir(parents=True)
    for name in ("manifest.json", "plan.json"):
        (dst / name).write_text((src / name).read_text())
    out = []
    for line in (src / "trials.jsonl").read_text().splitlines():
        rec = json.loads(line)
        cfg = rec["config"]
        if window is not None:
            cfg["duration_s"] = window
        res = rec["result"]
        factor = 0.5 if _planted(cfg) else SPEEDUP
        if res.get("rtt_ns"):
            res["rtt_ns"]["p50"] /= factor
        else:
            res["gbit_per_s"] *= factor
        rec["cell"] = "x" + rec["cell"][1:]
        out.append(json.dumps(rec))
    (dst / "trials.jsonl").write_text("\n".join(out) + "\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[A.Run, A.Run, A.Run]:
    base = tmp_path_factory.mktemp("cmp")
    assert make_synthetic_run.main([str(base / "ref"), "--small", "--seed", "1"]) == 0
    assert make_synthetic_run.main([str(base / "other"), "--small", "--seed", "2"]) == 0
    _reviewer_run(base / "other", base / "run")
    return A.load_run(base / "ref"), A.load_run(base / "other"), A.load_run(base / "run")


def test_cells_match_on_factors_not_ids(runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, _, run = runs
    cells = K.compare_cells(run, ref, threshold=0.10)
    n_configs = len(ref.measured.groupby(list(K.KEY), dropna=False))
    assert len(cells) == n_configs  # every configuration matched despite other cell ids
    assert (cells["n_run"] == 3).all() and (cells["n_ref"] == 3).all()
    assert set(cells["metric"]) == {"gbit_per_s", "rtt_p50_us"}


def test_cells_with_another_window_are_not_matched(
        runs: tuple[A.Run, A.Run, A.Run], tmp_path: Path) -> None:
    ref, other, _ = runs
    _reviewer_run(other.path, tmp_path / "long", window=5.0)
    long = A.load_run(tmp_path / "long")
    assert K.compare_cells(long, ref).empty
    tab = K.unmatched(long, ref)
    assert (tab["in both"] == 0).all()
    assert (tab["other window only"] == tab["only in run"] + tab["only in reference"]).all()


def test_a_faster_machine_and_one_changed_shape(runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, _, run = runs
    cells = K.compare_cells(run, ref, threshold=0.10)
    factors = K.machine_factors(cells)
    assert factors["gbit_per_s"] == pytest.approx(SPEEDUP, rel=0.05)
    assert factors["rtt_p50_us"] == pytest.approx(SPEEDUP, rel=0.05)  # oriented: > 1 faster
    planted = cells[(cells["method"] == "zerocopy") & (cells["size"] == 4096)
                    & (cells["transport"] == "loopback") & (cells["placement"] == "cross-core")
                    & (cells["threads"] == 1) & (cells["mode"] == "stream")]
    assert len(planted) == 1
    row = planted.iloc[0]
    assert row["speed_ratio"] == pytest.approx(0.5, rel=0.15)
    assert row["verdict"] == K.SLOWER and row["shape_verdict"] == K.SLOWER
    others = cells.drop(planted.index)
    assert (others["verdict"] == K.FASTER).all(), others["verdict"].value_counts()
    assert not others["shape_differs"].any(), others[others["shape_differs"]]
    counts = K.verdict_counts(cells)
    assert counts["differ after machine factor"].sum() == 1


def test_a_run_against_itself_differs_nowhere(runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, _, _ = runs
    cells = K.compare_cells(ref, ref)
    assert (cells["speed_ratio"] == 1.0).all()
    # the two sides are resampled independently: with 3 trials a side and 3 % noise most
    # CIs are wider than ±3 % (inconclusive), but none may lie beyond the threshold
    assert set(cells["verdict"]) <= {K.SAME, K.INCONCLUSIVE}
    assert not cells["differs"].any()
    claims = K.compare_claims(C.evaluate(ref), C.evaluate(ref))
    assert claims["claim"].nunique() == 15
    assert len(claims) == len(C.evaluate(ref))
    assert K.DISAGREE not in set(claims["agreement"])


def test_independent_noise_on_the_same_machine_is_mostly_same(
        runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, other, _ = runs
    cells = K.compare_cells(other, ref, threshold=0.10)
    assert not cells["differs"].any(), cells[cells["differs"]][["configuration", "speed_ratio",
                                                                 "lo", "hi"]]


def test_unmatched_counts(runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, _, run = runs
    tab = K.unmatched(run, ref)
    assert (tab["only in run"] == 0).all() and (tab["only in reference"] == 0).all()
    partial = A.Run(run.path, run.trials[run.trials["scenario"] == "message"], run.manifest,
                    run.plan, run.profiles)
    tab = K.unmatched(partial, ref).set_index("scenario")
    assert tab.loc["file→file", "only in reference"] > 0
    assert tab.loc["file→file", "in both"] == 0
    assert tab.loc["message", "only in run"] == 0


@pytest.mark.parametrize("run_v,ref_v,expected", [
    (C.HOLDS, C.HOLDS, K.BOTH_HOLD), (C.REFUTED, C.REFUTED, K.BOTH_REFUTED),
    (C.INCONCLUSIVE, C.INCONCLUSIVE, K.BOTH_UNDECIDED), (C.HOLDS, C.REFUTED, K.DISAGREE),
    (C.NOT_TESTABLE, C.HOLDS, K.ONE_SIDE), (C.NOT_TESTABLE, C.NOT_TESTABLE, K.NEITHER)])
def test_claim_agreement(run_v: str, ref_v: str, expected: str) -> None:
    assert K.agreement(run_v, ref_v) == expected


def test_machine_facts_mark_differences(runs: tuple[A.Run, A.Run, A.Run]) -> None:
    ref, _, run = runs
    facts = K.machines(run, ref).set_index("fact")
    assert facts.loc["run id", "differs"] == "yes"
    assert facts.loc["memcpy bound (Gbit/s)", "differs"] == ""


def _main(args: list[str]) -> int:
    """The command's main() in this process (a bad input is refused before any work)."""
    from analysis.comparison import compare_report
    try:
        return compare_report.main(args)
    except SystemExit as exc:  # argparse's refusal
        return int(exc.code or 0)


@pytest.mark.parametrize("args,needle", [
    (["/nonexistent/run", "/nonexistent/ref"], "RUN=/nonexistent/run: no such run directory"),
    (["tests", "tests"], "RUN=tests: not a run directory"),
    (["{ref}", "{ref}", "--threshold", "2"], "outside 0 < T < 1"),
    (["{ref}", "{ref}", "--threshold", "abc"], "'abc' is not a number"),
    (["{ref}"], "the following arguments are required: REF"),
])
def test_bad_input_is_one_line_exit_2(runs: tuple[A.Run, A.Run, A.Run], tmp_path: Path,
                                      args: list[str], needle: str,
                                      capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # "tests" is a path relative to the checkout
    ref = str(runs[0].path)
    out = tmp_path / "report"
    rc = _main([*[a.format(ref=ref) for a in args], "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 2, captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], captured.err
    assert captured.out == ""
    assert not out.exists()


def test_make_compare_requires_run() -> None:
    p = subprocess.run(["make", "--no-print-directory", "compare"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "make compare: RUN is required" in p.stderr

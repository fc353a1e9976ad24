"""The loader reads a record it can compute from, or names why not: a record without its
cell (or trial, round or status), with a throughput that is not a number, or a run with no
records file is a ``BadRun`` naming the file (and line) and what is wrong, never a table
with a hole in it or a ``FileNotFoundError``. The same check (``rundir.records.read`` with
``fields``) is what the noise model reads with. Real copies of a small committed run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from analysis.loading.run import BadRun, load_run
from rundir import records

ROOT = Path(__file__).resolve().parents[2]
#: a small committed run (192 records)
SOURCE = ROOT / "data" / "raw" / "20261126T035624Z-threads"


def _copy(tmp_path: Path, change: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A plain copy of the run's records (and its manifest and plan), the 3rd record changed."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("manifest.json", "plan.json"):
        if (SOURCE / name).exists():
            shutil.copyfile(SOURCE / name, run / name)
    recs = list(records.read(records.trials_file(SOURCE)))[:6]
    if change is not None:
        change(recs[2])
    (run / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return run


@pytest.mark.parametrize("change,said", [
    (lambda r: r.pop("cell"), "no 'cell'"),
    (lambda r: r.pop("repetition"), "no 'repetition'"),
    (lambda r: r.__setitem__("cell", 7), "cell = 7, not a JSON string"),
    (lambda r: r["result"].__setitem__("gbit_per_s", "fast"),
     "result.gbit_per_s = 'fast', not a number"),
    (lambda r: r["result"].__setitem__("gbit_per_s", True), "result.gbit_per_s = True"),
    (lambda r: r.__setitem__("result", [1]), "result = [1], not an object"),
], ids=["no-cell", "no-repetition", "cell-a-number", "text-throughput", "bool-throughput",
        "result-a-list"])
def test_a_record_the_analysis_cannot_compute_from_is_a_bad_run(
        tmp_path: Path, change: Callable[[dict[str, Any]], None], said: str) -> None:
    run = _copy(tmp_path, change)
    with pytest.raises(BadRun) as exc:
        load_run(run)
    text = str(exc.value)
    assert text.startswith(f"{run / 'trials.jsonl'}:3: "), text
    assert said in text, text
    assert "\n" not in text


def test_the_noise_models_reader_refuses_it_too(tmp_path: Path) -> None:
    run = _copy(tmp_path, lambda r: r.pop("cell"))
    with pytest.raises(records.RecordError, match=r"trials\.jsonl:3: .*no 'cell'"):
        list(records.read(run / "trials.jsonl", fields=True))
    assert len(list(records.read(run / "trials.jsonl"))) == 6  # the format's own read: lines


def test_a_good_copy_loads(tmp_path: Path) -> None:
    assert len(load_run(_copy(tmp_path)).trials) == 6


def test_a_run_without_records_is_a_bad_run(tmp_path: Path) -> None:
    run = _copy(tmp_path)
    (run / "trials.jsonl").unlink()
    with pytest.raises(BadRun, match=rf"^no trials\.jsonl or trials\.jsonl\.gz in {run}"):
        load_run(run)

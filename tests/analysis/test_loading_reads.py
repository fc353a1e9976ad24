"""The loader's own files besides a run's records are read as any input is
(:func:`rundir.utf8.read`): a regular file of bounded size, a FIFO or a device refused before a
byte is read, never waited on. A CPU profile of the run (``perf/<trial>.json``), the runs'
notes (``data/raw/run-notes.toml``) and the harness-fidelity bench's results, each a real
FIFO or a link to /dev/zero: one line naming the file, within the alarm (a reader that
blocks fails the test instead of hanging it)."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from analysis.loading import peers as PEERS
from analysis.loading import runnotes as RN
from analysis.loading.run import BadRun, load_run

ROOT = Path(__file__).resolve().parents[2]
#: a small committed run (192 records)
SOURCE = ROOT / "data" / "raw" / "20261126T035624Z-threads"


@pytest.fixture(autouse=True)
def alarm() -> Iterator[None]:
    def hung(*_: Any) -> None:
        raise TimeoutError("a reader blocked")
    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _plant(path: Path, planted: str) -> None:
    if os.path.lexists(path):
        path.unlink()
    if planted == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def _raises_one_line(call: Callable[[], Any], kind: type[Exception], path: Path,
                     planted: str) -> str:
    with pytest.raises(kind) as info:
        call()
    text = str(info.value)
    assert "\n" not in text and str(path) in text, text
    assert ("FIFO" if planted == "fifo" else "device") in text or "link" in text, text
    return text


PLANTED = ["fifo", "link to /dev/zero"]


@pytest.mark.parametrize("planted", PLANTED)
def test_a_cpu_profile_that_is_not_a_file_is_a_bad_run(tmp_path: Path, planted: str) -> None:
    """A FIFO at perf/<trial>.json was taken for no profile (is_file is false for it) and
    skipped unseen; now the run does not load, naming it."""
    run = tmp_path / "run"
    shutil.copytree(SOURCE, run)
    (run / "perf").mkdir()
    _plant(run / "perf" / "t-1.json", planted)
    _raises_one_line(lambda: load_run(run), BadRun, Path("t-1.json"), planted)


@pytest.mark.parametrize("planted", PLANTED)
def test_the_runs_notes_are_read_bounded(tmp_path: Path, planted: str) -> None:
    """run-notes.toml a FIFO blocked the noise chapter; a link to /dev/zero ran out of
    memory. Now a BadRun line; a missing notes file is still no note."""
    notes = tmp_path / "run-notes.toml"
    assert RN.overlap("x", notes) is None
    _plant(notes, planted)
    _raises_one_line(lambda: RN.overlap("x", notes), BadRun, notes, planted)


@pytest.mark.parametrize("planted", PLANTED)
def test_a_bench_result_is_read_bounded(tmp_path: Path, planted: str) -> None:
    result = tmp_path / "fidelity-20260101-x.json"
    _plant(result, planted)
    _raises_one_line(lambda: PEERS.bench_fidelity([result]), ValueError, result, planted)


def test_a_packed_run_loads_as_before() -> None:
    """The bounded readers read a good run whole (records, manifest, plan)."""
    run = load_run(SOURCE)
    with gzip.open(SOURCE / "trials.jsonl.gz", "rt") as fh:
        assert len(run.trials) == sum(1 for _ in fh)
    assert run.manifest and run.plan

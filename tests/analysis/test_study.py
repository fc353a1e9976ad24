"""analysis.study: a run is loaded and judged once; its Study is served from the cache only
for the same sealed content and code, only from a directory of the user's own."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_synthetic_run  # noqa: E402

import analysis.claims as C  # noqa: E402
from analysis import study as S  # noqa: E402
from analysis.claims import as_dict  # noqa: E402
from rundir.verify import write_seal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COPYBENCH_STUDY_DIR", str(tmp_path / "study"))
    run = tmp_path / "run"
    assert make_synthetic_run.main([str(run), "--small", "--seed", "1"]) == 0
    # the synthetic run's manifest is a stand-in that verify does not pass: the sweep's own
    # unchecked seal names its content
    write_seal(run)
    return run


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the run is loaded and its claims evaluated."""
    calls = {"load_run": 0, "evaluate": 0}
    real_load, real_evaluate = S.load_run, C.evaluate

    def load(d: object) -> object:
        calls["load_run"] += 1
        return real_load(d)

    def evaluate(run: object) -> object:
        calls["evaluate"] += 1
        return real_evaluate(run)
    monkeypatch.setattr(S, "load_run", load)
    monkeypatch.setattr(C, "evaluate", evaluate)
    return calls


def _verdicts(study: S.Study) -> list[str]:
    return [repr(as_dict(r)) for r in study.results]  # repr: nan == nan


def test_open_twice_loads_and_evaluates_once(sealed: Path, counted: dict[str, int]) -> None:
    first = S.open(sealed)
    again = S.open(sealed)
    assert counted == {"load_run": 1, "evaluate": 1}
    assert _verdicts(again) == _verdicts(first)
    assert again.facts == first.facts and again.facts["trials"] == len(first.run.trials)
    assert again.readings.equals(first.readings)
    # the comparisons against sendmsg are read once too, with the same reading
    assert again.readings_sendmsg.equals(first.readings_sendmsg)
    if len(first.readings_sendmsg):
        assert {"bound", "under_minimum", "read"} <= set(first.readings_sendmsg.columns)
        assert "send" not in set(first.readings_sendmsg["method"])
    where = sealed.parent / "study" / sealed.name
    assert json.loads((where / S.FACTS).read_text()) == first.facts
    assert "read" in (where / S.READINGS).read_text().splitlines()[0].split(",")


def test_a_run_read_beside_is_studied_without_its_tables(sealed: Path,
                                                        counted: dict[str, int]) -> None:
    """A run read beside the book's (tables=False) is loaded and judged, its comparison
    tables left out; a later request for its whole Study studies it again, whole, and kept
    whole it answers both requests from the cache."""
    light = S.open(sealed, tables=False)
    assert counted == {"load_run": 1, "evaluate": 1}
    assert not light.tables and light.readings.empty and light.file_readings.empty
    assert light.results and light.facts["trials"] == len(light.run.trials)
    assert S.open(sealed, tables=False).key == light.key and counted["load_run"] == 1
    whole = S.open(sealed)  # kept without its tables: studied again, whole
    assert counted == {"load_run": 2, "evaluate": 2}
    assert whole.tables and not whole.readings.empty
    assert _verdicts(whole) == _verdicts(light)
    for tables in (False, True):  # the whole one answers both, from the cache
        assert S.open(sealed, tables=tables).tables
    assert counted["load_run"] == 2


def test_a_changed_run_is_not_served_from_the_cache(sealed: Path, counted: dict[str, int]) -> None:
    first = S.open(sealed)
    records = sealed / "trials.jsonl"
    lines = records.read_text().splitlines(keepends=True)
    records.write_text("".join(lines[:-1]))  # one trial fewer: other content
    changed = S.open(sealed)  # no longer matches its seal: studied now, never kept
    assert counted == {"load_run": 2, "evaluate": 2}
    assert changed.key is None and changed.facts["trials"] == first.facts["trials"] - 1
    write_seal(sealed)  # sealed again as it now is: another key
    resealed = S.open(sealed)
    assert counted == {"load_run": 3, "evaluate": 3}
    assert resealed.key not in (None, first.key)
    assert resealed.facts["trials"] == first.facts["trials"] - 1
    S.open(sealed)
    assert counted["load_run"] == 3


def test_the_key_names_the_code(sealed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = S.open(sealed)
    code = sealed.parent / "code"
    (code / "analysis").mkdir(parents=True)
    (code / "analysis" / "x.py").write_text("RULE = 1\n")
    monkeypatch.setattr(S, "ROOT", code)
    monkeypatch.setattr(S, "_CODE_DIRS", (code / "analysis",))
    k1 = S.key(sealed.resolve(), S.sealed_sums(sealed))
    (code / "analysis" / "x.py").write_text("RULE = 2\n")
    assert S.key(sealed.resolve(), S.sealed_sums(sealed)) not in (first.key, k1)


class _Planted:
    """What a planted pickle runs when it is loaded: makes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.mkdir, (str(self.marker),))


@pytest.mark.heavy  # over 2 s: make test runs it, make check does not
@pytest.mark.parametrize("how", ["others may write the directory", "a link", "a FIFO"])
def test_a_foreign_entry_is_never_loaded(sealed: Path, tmp_path: Path, counted: dict[str, int],
                                         how: str) -> None:
    """A pickle runs code when loaded: one in a directory others may write, a link or a FIFO
    in the entry's place, is no entry (the run is studied again, without a hang)."""
    S.open(sealed)
    where = sealed.parent / "study" / sealed.name
    marker = tmp_path / "ran"
    planted = pickle.dumps(_Planted(marker))
    entry = where / S.PICKLE
    entry.unlink()
    if how == "a link":
        (tmp_path / "elsewhere").write_bytes(planted)
        entry.symlink_to(tmp_path / "elsewhere")
    elif how == "a FIFO":
        os.mkfifo(entry)
    else:
        entry.write_bytes(planted)
        where.chmod(0o777)
    again = S.open(sealed)
    assert not marker.exists(), "a planted pickle's code ran"
    assert counted["load_run"] == 2 and again.results


@pytest.mark.heavy  # over 2 s: make test runs it, make check does not
def test_the_command_builds_and_refuses_a_bad_run(sealed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "COPYBENCH_STUDY_DIR": str(tmp_path / "study")}
    ok = subprocess.run([sys.executable, "-m", "analysis.study", "build", str(sealed)],
                        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"study {sealed.name}: ")
    assert (tmp_path / "study" / sealed.name / S.PICKLE).is_file()
    (sealed / "trials.jsonl").write_text("{not json\n")
    bad = subprocess.run([sys.executable, "-m", "analysis.study", "build", str(sealed)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert len(bad.stderr.splitlines()) == 1 and "trials.jsonl:1" in bad.stderr, bad.stderr
    assert "Traceback" not in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "analysis.study", "build",
                              str(tmp_path / "none")], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "not a run directory" in missing.stderr


@pytest.mark.heavy  # over 2 s: make test runs it, make check does not
def test_a_damaged_run_beside_is_left_to_the_notebook_that_reads_it(sealed: Path,
                                                                    tmp_path: Path) -> None:
    """``build --siblings`` studies the runs beside ahead of the notebooks; one that cannot be
    read fails no book by itself (a notebook that reads it raises its BadRun)."""
    import gzip
    beside = tmp_path / "damaged"
    beside.mkdir()
    (beside / "trials.jsonl.gz").write_bytes(gzip.compress(b'{"cell": "not json\n'))
    env = {**os.environ, "COPYBENCH_STUDY_DIR": str(tmp_path / "study")}
    r = subprocess.run([sys.executable, "-m", "analysis.study", "build", "--siblings",
                        str(sealed)], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"study {sealed.name}: " + r.stdout.split(": ", 1)[1].strip()]


@pytest.mark.heavy  # over 2 s: make test runs it, make check does not
def test_build_siblings_studies_the_runs_beside_for_their_verdicts_only(
        sealed: Path, counted: dict[str, int]) -> None:
    """``build --siblings``: the run given is studied whole, a committed run beside it for its
    records and verdicts only (what the notebooks read of it), each kept for them."""
    import gzip
    from analysis.study.__main__ import main
    beside = sealed.parent / "beside"
    assert make_synthetic_run.main([str(beside), "--small", "--seed", "2"]) == 0
    plain = beside / "trials.jsonl"
    (beside / "trials.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()  # committed runs are packed
    write_seal(beside)
    assert main(["build", "--siblings", "--jobs", "1", str(sealed)]) == 0
    assert counted == {"load_run": 0, "evaluate": 0}  # made in the pool's process
    got = S.open(beside, tables=False), S.open(sealed)
    assert counted == {"load_run": 0, "evaluate": 0}  # both from the cache
    assert [s.tables for s in got] == [False, True]

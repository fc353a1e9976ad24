"""analysis.comparison.evalcache: a sealed run's verdicts are computed once and reused only while the
run's files match its SHA256SUMS and the analysis code is the same."""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_synthetic_run  # noqa: E402

from analysis.comparison import evalcache as EC  # noqa: E402
from analysis.claims import as_dict  # noqa: E402
from analysis.loading.run import load_run  # noqa: E402
from rundir.verify import write_seal  # noqa: E402

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COPYBENCH_ANALYSIS_CACHE", str(tmp_path / "cache"))
    run = tmp_path / "run"
    assert make_synthetic_run.main([str(run), "--small", "--seed", "1"]) == 0
    # the synthetic run's manifest is not schema-valid (a stand-in), so ``seal``, which signs
    # only what verify passes, refuses it: the sweep's own unchecked seal names its content
    write_seal(run)
    return run


def test_the_verdicts_are_kept_and_reused(sealed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = EC.evaluate(load_run(sealed))
    kept = list((sealed.parent / "cache").glob("*.json"))
    assert len(kept) == 1
    import analysis.claims as C
    monkeypatch.setattr(C, "evaluate", lambda run: pytest.fail("evaluated again"))
    again = EC.evaluate(load_run(sealed))
    assert [repr(as_dict(r)) for r in again] == [repr(as_dict(r)) for r in first]  # (nan != nan)


def test_a_changed_run_is_evaluated_again_and_never_kept(sealed: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    EC.evaluate(load_run(sealed))
    manifest = sealed / "manifest.json"
    manifest.write_text(manifest.read_text() + " ")  # still valid JSON; another hash
    assert EC.key(load_run(sealed)) is None  # its files no longer match SHA256SUMS
    import analysis.claims as C
    calls = []
    real = C.evaluate
    monkeypatch.setattr(C, "evaluate", lambda run: calls.append(1) or real(run))
    EC.evaluate(load_run(sealed))
    assert calls == [1]
    assert len(list((sealed.parent / "cache").glob("*.json"))) == 1


def test_the_key_names_the_code(sealed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    k = EC.key(load_run(sealed))
    assert k is not None and k == EC.key(load_run(sealed))
    code = sealed.parent / "code"
    (code / "analysis").mkdir(parents=True)
    (code / "analysis" / "x.py").write_text("RULE = 1\n")
    monkeypatch.setattr(EC, "ROOT", code)
    monkeypatch.setattr(EC, "_CODE_DIRS", (code / "analysis",))
    k1 = EC.key(load_run(sealed))
    (code / "analysis" / "x.py").write_text("RULE = 2\n")
    assert EC.key(load_run(sealed)) not in (k, k1)


class _Planted:
    """What a planted pickle runs when it is loaded: makes ``marker`` (any call would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.mkdir, (str(self.marker),))


def test_a_file_planted_under_the_key_runs_nothing(sealed: Path, tmp_path: Path) -> None:
    """A pickle planted in the cache directory under the key (computable by anyone who can
    read the run and the checkout) ran its code when the cache was read. The cache holds data
    only: whatever is planted there, under any name the key gives, is never executed."""
    k = EC.key(load_run(sealed))
    assert k is not None
    cache = sealed.parent / "cache"
    cache.mkdir()
    marker = tmp_path / "ran"
    payload = pickle.dumps([_Planted(marker)])
    for name in (f"{k}.pickle", f"{k}.json"):
        (cache / name).write_bytes(payload)
    results = EC.evaluate(load_run(sealed))
    assert not marker.exists(), "a planted pickle's code ran"
    assert results and all(r.claim for r in results)


def test_what_is_kept_is_json_and_read_back_equal(sealed: Path) -> None:
    first = EC.evaluate(load_run(sealed))
    (kept,) = (sealed.parent / "cache").glob("*")
    assert kept.suffix == ".json"
    doc = json.loads(kept.read_text())  # data only: JSON
    assert len(doc["results"]) == len(first)
    again = EC.evaluate(load_run(sealed))
    assert [repr(as_dict(r)) for r in again] == [repr(as_dict(r)) for r in first]
    assert all(type(r.band) is tuple for r in again)


@pytest.mark.parametrize("planted", ["fifo", "link", "not the results", "other's directory"])
def test_a_damaged_or_foreign_entry_is_evaluated_again(sealed: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       planted: str) -> None:
    """An entry that is not this cache's (a FIFO, which blocked the reader; a link; JSON that
    is not the results; a directory others may write to) is no entry: the run is evaluated
    again, without a hang."""
    first = EC.evaluate(load_run(sealed))
    cache = sealed.parent / "cache"
    (entry,) = cache.glob("*.json")
    if planted == "fifo":
        entry.unlink()
        os.mkfifo(entry)
    elif planted == "link":
        real = tmp_path / "elsewhere.json"
        entry.rename(real)
        entry.symlink_to(real)
    elif planted == "not the results":
        entry.write_text('{"results": [{"claim": 1}]}\n')
    else:
        cache.chmod(0o777)
    import analysis.claims as C
    calls = []
    real_evaluate = C.evaluate
    monkeypatch.setattr(C, "evaluate", lambda run: calls.append(1) or real_evaluate(run))

    def hung(*_: object) -> None:
        raise TimeoutError("the cache's reader blocked")
    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)  # a reader blocked on the FIFO fails the test instead of hanging it
    try:
        again = EC.evaluate(load_run(sealed))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert calls == [1]
    assert [repr(as_dict(r)) for r in again] == [repr(as_dict(r)) for r in first]

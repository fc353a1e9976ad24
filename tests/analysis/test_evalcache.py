"""analysis.comparison.evalcache: a sealed run's verdicts are computed once and reused only while the
run's files match its SHA256SUMS and the analysis code is the same."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_synthetic_run  # noqa: E402

from analysis.comparison import evalcache as EC  # noqa: E402
from analysis.claims import as_dict  # noqa: E402
from analysis.loading.run import load_run  # noqa: E402
from rundir.verify import write_seal  # noqa: E402


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
    kept = list((sealed.parent / "cache").glob("*.pickle"))
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
    assert len(list((sealed.parent / "cache").glob("*.pickle"))) == 1


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

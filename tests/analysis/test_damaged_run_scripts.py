"""The scripts that read a run (``studies/noise_sources.py``, ``studies/run_targets.py``,
``scripts/findings_text.py``) name a damaged run's file and what is wrong with it in one line,
exit 2 (a key given twice or a cut record is no traceback; a key given twice in the
manifest is not read silently). They load runs through
:func:`analysis.loading.run.load_run`, whose one error for a damaged run is ``BadRun``.
Subprocesses, on copies of the session's small run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_run, runner_env

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy


def _damage(run: Path, how: str) -> str:
    """Damage the run; the file (and line) the message must name."""
    trials = run / "trials.jsonl"
    lines = trials.read_text().splitlines(keepends=True)
    if how == "duplicate-key":
        lines[3] = lines[3].replace("{", '{"status": "ok", ', 1)
    elif how == "cut-record":
        lines[3] = lines[3][:200] + "\n"
    elif how == "not-a-record":
        rec = json.loads(lines[3])
        rec["config"] = "send"
        lines[3] = json.dumps(rec) + "\n"
    else:  # a key twice in the manifest
        m = run / "manifest.json"
        m.write_text(m.read_text().replace("{", '{"run_id": "other", ', 1))
        return f"{m}"
    trials.write_text("".join(lines))
    return f"{trials}:4"


SCRIPTS = {
    "noise_sources": lambda run, ok, out: ["studies/noise_sources.py", str(run)],
    "run_targets": lambda run, ok, out: ["studies/run_targets.py", str(ok), str(run)],
    "findings_text": lambda run, ok, out: ["scripts/findings_text.py", str(run), str(out)],
}


# each script through the loader's two readers (a record, the manifest) in make test; the
# record damages the loader refuses alike in make test-slow (make test stays under 15 min)
@pytest.mark.parametrize("how", [pytest.param("duplicate-key", marks=pytest.mark.slow),
                                 "cut-record",
                                 pytest.param("not-a-record", marks=pytest.mark.slow),
                                 "manifest-duplicate-key"])
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_damaged_run_is_one_line_naming_the_file(script: str, how: str,
                                                   runner_small_run: Path,
                                                   tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run")
    where = _damage(run, how)
    out = tmp_path / "text"
    r = subprocess.run([sys.executable, *SCRIPTS[script](run, runner_small_run, out)],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                       env=runner_env(), check=False)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, (r.returncode, r.stderr[-3000:])
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert lines[0].startswith(f"{script}: {where}"), lines[0]
    assert not out.exists(), "findings_text left a partial folder"

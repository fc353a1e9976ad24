"""``seal`` and ``pack`` name a damaged run as damaged: a record with NaN
is damage, not "not finished: 24 of 25 planned trials recorded; resume it" (a resume would
refuse the same line). A torn last line is what an interrupted write leaves: that
run is unfinished, and is still said so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_run, runner_env, tree_digest

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy


def _cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rundir", *args], capture_output=True,
                          text=True, timeout=120, cwd=str(ROOT), env=runner_env(), check=False)


@pytest.mark.parametrize("command", ["seal", "pack"])
def test_a_damaged_record_is_named_not_called_unfinished(runner_small_run: Path,
                                                         tmp_path: Path, command: str) -> None:
    run = copy_run(runner_small_run, tmp_path / "run")
    (run / "SHA256SUMS").unlink()
    trials = run / "trials.jsonl"
    lines = trials.read_text().splitlines(keepends=True)
    lines[4] = re.sub(r'"gbit_per_s":\s*[0-9.eE+-]+', '"gbit_per_s": NaN', lines[4], count=1)
    assert "NaN" in lines[4]
    trials.write_text("".join(lines))
    before = tree_digest(run)
    r = _cmd(command, str(run))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and f"{trials}:5" in r.stderr, r.stderr
    assert "NaN" in r.stderr and "resume" not in r.stderr and "not finished" not in r.stderr
    assert tree_digest(run) == before


def test_a_torn_last_line_is_still_an_unfinished_run(runner_small_run: Path,
                                                     tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=1)
    with open(run / "trials.jsonl", "a") as f:
        f.write('{"schema_version": 1, "run_id"')  # a write cut short
    r = _cmd("seal", str(run))
    assert r.returncode == 2 and "is not finished" in r.stderr and "resume" in r.stderr, r.stderr

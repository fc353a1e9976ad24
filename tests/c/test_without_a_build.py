"""Without the program the C tests check, they fail, saying it is not built: a missing build
is never a suite of skips that reads as green (``make test`` builds it first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_build_fails_the_c_tests(tmp_path: Path) -> None:
    env = {**os.environ, "COPYBENCH_BIN": str(tmp_path / "no-such-copybench")}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfs", "-p", "no:cacheprovider",
                        "tests/c/test_sink_bind.py"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300, check=False)
    assert r.returncode == 1, r.stdout[-2000:]
    assert "copybench is not built" in r.stdout, r.stdout[-2000:]
    summary = r.stdout.strip().splitlines()[-1]  # "4 errors in 2.1s": each test fails at set-up
    assert " error" in summary and "skipped" not in summary and "passed" not in summary, \
        r.stdout[-2000:]

"""What a make recipe's processes inherit: the run paths go out as RUN_PATH, REF_PATH, ...,
never as RUN or REF, so a make started under a recipe (the test suite's `make seal`, run by
`make test`) never mistakes its parent's default run for a RUN given by its user."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env=env)


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("RUN", "REF", "REFERENCE_RUN", "THRESHOLD", "CLAIMS_RUN", "RESEAL")}


def test_a_recipe_inherits_no_run_variable_a_make_reads() -> None:
    r = _make("--eval", "_show-env: ; @env", "_show-env", "SETUP_DONE=1", env=_clean_env())
    assert r.returncode == 0, r.stderr
    names = {line.split("=", 1)[0] for line in r.stdout.splitlines() if "=" in line}
    assert not names & {"RUN", "REF", "REFERENCE_RUN", "THRESHOLD", "CLAIMS_RUN", "RESEAL"}, names
    assert "RUN_PATH" in names


@pytest.mark.parametrize("target", ["seal", "pack"])
def test_a_make_under_a_recipe_still_needs_its_own_run(target: str) -> None:
    """As under `make test`: the parent's exported paths are in the environment."""
    env = _clean_env()
    parent = _make("--eval", "_show-env: ; @env", "_show-env", "SETUP_DONE=1", env=env)
    exported = dict(line.split("=", 1) for line in parent.stdout.splitlines() if "=" in line)
    env.update({k: v for k, v in exported.items() if k not in env and not k.startswith("MAKE")
                and k not in ("MFLAGS", "SHLVL", "_")})
    r = _make(target, env=env)
    assert r.returncode == 2 and "RUN is required" in r.stderr, (r.stdout, r.stderr)

"""The sweep profiles are read by path outside the runner in one place
(:mod:`decision.profiles`): the analysis' reference design, the top-up simulation's noise
model and design, and the testbed page's budgets all go through it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from decision.profiles import PROFILES, profile_path, read_profile

ROOT = Path(__file__).resolve().parents[2]
#: code that builds the path of runner/profiles itself
PROFILES_PATH = re.compile(r"""['"]runner['"]\s*/\s*['"]profiles['"]""")


def test_one_reader_builds_the_profiles_path() -> None:
    code = [f for pkg in ("analysis", "rundir", "decision") for f in (ROOT / pkg).rglob("*.py")]
    code += sorted((ROOT / "notebooks").glob("*.py"))
    found = sorted(str(f.relative_to(ROOT)) for f in code if PROFILES_PATH.search(f.read_text()))
    assert found == ["decision/profiles.py"], found


def test_the_reader_reads_the_profiles_own_file() -> None:
    assert PROFILES == ROOT / "runner" / "profiles"
    assert profile_path("paper") == ROOT / "runner" / "profiles" / "paper.toml"
    assert read_profile("paper") == tomllib.loads((PROFILES / "paper.toml").read_text())
    assert read_profile("paper")["design"]["sequential"]["spending"]

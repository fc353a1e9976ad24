"""data/raw/README.md's table of committed runs, and the README's count of them, agree with the
runs git tracks: one row per committed run and no other, the number of runs in words, and each
row's trials ("(N theirs)" for the reports' own programs) and length read from the run itself."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import trials_and_theirs

ROOT = Path(__file__).resolve().parents[2]
RAW_README = ROOT / "data" / "raw" / "README.md"
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty", "twenty-one", "twenty-two", "twenty-three",
         "twenty-four", "twenty-five"]
ROW = re.compile(r"^\| \**`(?P<run>[^`]+)`\** \| [^|]+ \| [^|]+ \| (?P<length>[^|]+) \| "
                 r"(?P<trials>[^|]+) \|", re.M)


def _committed() -> list[str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the committed runs are found through git ls-files")
    out = subprocess.run(["git", "ls-files", "data/raw/*/SHA256SUMS"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    return sorted(p.split("/")[2] for p in out)


def _rows() -> dict[str, re.Match[str]]:
    return {m["run"]: m for m in ROW.finditer(RAW_README.read_text())}


def _seconds(length: str) -> tuple[float, float]:
    """'1 h 28 min' -> (5280, 60): the value and the unit it was rounded to."""
    parts = re.findall(r"(\d+) (h|min|s)\b", length)
    assert parts, f"no length in {length!r}"
    scale = {"h": 3600, "min": 60, "s": 1}
    return sum(int(n) * scale[u] for n, u in parts), min(scale[u] for _, u in parts)


def test_the_table_lists_every_committed_run_and_no_other() -> None:
    assert sorted(_rows()) == _committed()


def test_the_number_of_committed_runs_is_stated_in_both_readmes() -> None:
    n = len(_committed())
    word = WORDS[n]
    assert f"{word.capitalize()} runs are committed." in RAW_README.read_text()
    assert f"{word} committed runs" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("run", _committed() if (ROOT / ".git").exists() else [])
def test_a_rows_trials_and_length_are_the_runs(run: str) -> None:
    row = _rows()[run]
    d = ROOT / "data" / "raw" / run
    trials, theirs = trials_and_theirs(d)
    want = f"{trials} ({theirs} theirs)" if theirs else f"{trials}"
    assert row["trials"].strip() == want
    wall = sum(s["wall_s"] for s in json.loads((d / "sessions.json").read_text()))
    value, unit = _seconds(row["length"])
    assert abs(value - wall) <= unit / 2 + 1, f"{run}: {row['length']} for {wall:.0f} s"

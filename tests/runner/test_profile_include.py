"""``include`` in a profile: the claims and paper profiles take their claim blocks from one
file (runner/profiles/parts/claim-blocks.toml) instead of repeating them; the loader expands
the include before the profile's own experiments, refuses a missing, cyclic or non-experiment
include in one line (exit 2), and the expanded text a run keeps reads the same alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_runner
from runner.host.errors import ProfileError
from runner.plan import profile as prof

PROFILES = Path(__file__).resolve().parents[2] / "runner" / "profiles"
EXP = """
[[experiment]]
name = "{name}"
command = "send"
methods = ["send"]
sizes = [64]
"""
HEAD = '[profile]\nname = "t"\nduration_s = 0.2\n'


def test_paper_runs_the_claims_blocks_first() -> None:
    claims, paper = prof.load("claims"), prof.load("paper")
    n = len(claims.experiments)
    assert n == 14 and paper.experiments[:n] == claims.experiments
    assert paper.experiments[n].name == "Q1-message-crossover"
    for text in ((PROFILES / "claims.toml").read_text(), (PROFILES / "paper.toml").read_text()):
        assert 'include = "parts/claim-blocks.toml"' in text
        assert 'name = "aa-control"' not in text  # the blocks are written once, in the part


def test_the_expanded_text_reads_the_same_alone(tmp_path: Path) -> None:
    """A run keeps Profile.text: with the include expanded, it is the same profile without
    the included file beside it (a resumed run loads that copy)."""
    paper = prof.load("paper")
    assert "# include = " in paper.text and "\ninclude = " not in paper.text
    copy = tmp_path / "paper.toml"
    copy.write_text(paper.text)
    again = prof.load(str(copy))
    assert again.experiments == paper.experiments and again.design == paper.design
    assert again.text == paper.text


def test_an_include_goes_before_the_profiles_own_experiments(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "a.toml").write_text(EXP.format(name="a1") + EXP.format(name="a2"))
    (tmp_path / "p.toml").write_text('include = "parts/a.toml"\n' + HEAD
                                     + "# the own one\n" + EXP.format(name="own"))
    p = prof.load(str(tmp_path / "p.toml"))
    assert [e.name for e in p.experiments] == ["a1", "a2", "own"]


@pytest.mark.parametrize("files,match", [
    ({"p.toml": 'include = "parts/none.toml"\n' + HEAD + EXP.format(name="x")},
     "include: 'parts/none.toml': no such file"),
    ({"p.toml": 'include = "a.toml"\n' + HEAD, "a.toml": 'include = "b.toml"\n'
      + EXP.format(name="a"), "b.toml": 'include = "a.toml"\n' + EXP.format(name="b")},
     "include: 'a.toml' is a cyclic include"),
    ({"p.toml": 'include = "p.toml"\n' + HEAD + EXP.format(name="x")},
     "include: 'p.toml' is a cyclic include"),
    ({"p.toml": 'include = "a.toml"\n' + HEAD, "a.toml": HEAD + EXP.format(name="a")},
     "include: 'a.toml' holds profile (allowed in an included file: [[experiment]] tables"),
    ({"p.toml": 'include = 3\n' + HEAD + EXP.format(name="x")}, "include: 3 (allowed: a path"),
])
def test_a_bad_include_is_refused_in_one_line(tmp_path: Path, files: dict[str, str],
                                             match: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "p.toml"
    with pytest.raises(ProfileError) as e:
        prof.load(str(path))
    assert match in str(e.value) and str(path) in str(e.value)
    r = run_runner("plan", "--profile", str(path), timeout=60)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and match in r.stderr

"""The claims' band is declared once (decision.claimtable) and the profiles name it: no profile
holds one of its boundary numbers, and a named band loads as the numbers it stands for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from decision import band
from runner.host.errors import ProfileError
from runner.plan import profile as prof_mod

PROFILES = Path(__file__).resolve().parents[2] / "runner" / "profiles"
NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def boundary_numbers(text: str) -> list[int]:
    """Lines of a profile whose TOML (comments left out) holds a number of the band."""
    bounds = (*band.band(), *band.inverse_band())
    return [i for i, line in enumerate(text.splitlines(), 1)
            if any(abs(float(x) - b) < 1e-6 for x in NUMBER.findall(line.split("#", 1)[0])
                   for b in bounds)]


@pytest.mark.parametrize("path", sorted(PROFILES.rglob("*.toml")),
                         ids=lambda p: str(p.relative_to(PROFILES)))
def test_no_profile_holds_a_boundary_number(path: Path) -> None:
    assert boundary_numbers(path.read_text()) == []


def test_the_check_sees_a_typed_boundary() -> None:
    text = ('comparisons = { "a/b" = "band" }  # 0.88 in a comment is words\n'
            'comparisons = { "a/b" = [0.88, 1.12] }\nmargin = 0.25\n'
            'comparisons = { "a/b" = [0.892857, 1.2] }\n')
    assert boundary_numbers(text) == [2, 4]


def test_a_named_band_loads_as_its_numbers() -> None:
    assert band.band() == (0.88, 1.12) and band.inverse_band() == (0.892857, 1.136364)
    comps = {(e.name, n): bs for e in prof_mod.load("claims").experiments
             for n, bs in e.comparisons}
    assert comps[("S1-S2-sizes", "sendmsg/send")] == band.band()
    assert comps[("S1-S2-sizes", "zerocopy/send")] == tuple(sorted(
        (*band.band(), *band.inverse_band())))
    assert comps[("C10-stream", "zerocopy/send")] == band.inverse_band()


def test_an_unknown_band_name_is_refused(tmp_path: Path) -> None:
    text = prof_mod.load("claims").text
    path = tmp_path / "claims.toml"
    path.write_text(text.replace('"8t/4t" = "band"', '"8t/4t" = "bnad"'))
    with pytest.raises(ProfileError, match="band by name"):
        prof_mod.load(str(path))

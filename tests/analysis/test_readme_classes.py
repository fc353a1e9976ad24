"""The README's reviewer's path says, per CPU class, what a rerun is expected to show: each
number read from decision/criterion.json (make criterion), each set left out of the
cross-class criterion named."""

from __future__ import annotations

import re
from pathlib import Path

from analysis.comparison import reproduce as RP

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    at = text.index("What a rerun is expected to show depends on its CPU class")
    return " ".join(text[at:text.index("\n## ", at)].split())


def _bullet(which: str) -> str:
    s = _section()
    at = s.index(f"the {which} criterion**")
    end = s.find("- **", at)
    return s[at:end if end > 0 else len(s)]


def test_each_classs_expectation_is_the_criterion_files() -> None:
    doc = RP.criterion_doc()
    for which in (RP.SAME_CLASS, RP.CROSS_CLASS):
        sim, said = doc[which], _bullet(which)
        assert f"at least {round(100 * sim['min_share'])} %" in said or \
            f"{round(100 * sim['min_share'])} % of them" in said, which
        assert f"the {sim['sets']} " in said, which
        assert f"probability {sim['pass_same_truth']:.3f} (95 % CI {sim['pass_ci'][0]:.3f} " \
            f"to {sim['pass_ci'][1]:.3f})" in said, which
        power = dict(sim["pass_when_differ"])
        assert f"{power[1]:.3f}" in said and f"{power[2]:.3f}" in said, which
        numbers = set(re.findall(r"\d+\.\d+|\d+", said))
        allowed = {str(round(100 * sim["min_share"])), str(sim["sets"]), "95",
                   f"{sim['pass_same_truth']:.3f}", *(f"{x:.3f}" for x in sim["pass_ci"]),
                   f"{power[1]:.3f}", f"{power[2]:.3f}", "1", "10", "13", "0"}
        assert numbers <= allowed, (which, numbers - allowed)


def test_the_sets_left_out_across_classes_are_named() -> None:
    said = _bullet(RP.CROSS_CLASS)
    for e in RP.criterion_doc()[RP.CROSS_CLASS]["excluded"]:
        claim, what, placement, _ = e["name"].split(" | ")
        assert re.search(rf"{claim} \({re.escape(what)}, [^)]*{placement}", said), e["name"]
        assert e["label"] == ["unstable"] and "unstable" in said

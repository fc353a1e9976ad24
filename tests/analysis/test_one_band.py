"""One band of "equivalent": every direction reading (the claims, P1, the decision map and the
findings, the comparison of two runs, the gaps of the why-they-differ table, the A/A control)
reads a ratio against the claims' band, the one constant of the claims' rule table
(decision.band.SESOI, its one name), and the words that name it are generated from it: no source
types a band of its own ("±3 %", a 0.03 threshold)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pandas as pd

from analysis.comparison import compare as K
from analysis.words import findings as F
from analysis.words import revisions as RV
from analysis.statistics import stats as S
from analysis.claims import baselines as BL
from analysis.claims import placement as PL
from analysis.statistics import fmt as FM
from decision.band import SESOI
from decision import rule as R

ROOT = Path(__file__).resolve().parents[2]

#: a band typed as a literal: "±3 %", "+-3 %", "3 % threshold", a 0.03 default threshold, and
#: the old constant's name
TYPED = re.compile(r"(±|\+-|\+/-)\s*3\s*%|(?<![\d.])3\s*%\s*(band|threshold|rule)|"
                   r"PRACTICAL_THRESHOLD|threshold\s*(:\s*float\s*)?(=|\?=)\s*0\.03\b|"
                   r"THRESHOLD=0\.03|default=0\.03|\[0\.97, 1\.03\]|above 1\.03|below 0\.97",
                   re.I)


def _sources() -> list[Path]:
    out = [*(ROOT / "analysis").rglob("*.py"), *(ROOT / "decision").rglob("*.py"),
           *(ROOT / "runner").rglob("*.py"), *(ROOT / "notebooks").glob("*.py"),
           *(ROOT / "mk").glob("*.mk"), ROOT / "Makefile", ROOT / "README.md",
           ROOT / "runner" / "README.md"]
    out += [p for p in (ROOT / "book").rglob("*.md")
            if "_build" not in p.parts and "_generated" not in p.parts]
    return out


def _history_lines(path: Path, text: str) -> set[int]:
    """The lines of the revisions' own "what changed" texts (the appendix's record of what
    the rules were), the one place an old band may be named."""
    if path.suffix != ".py":
        return set()
    whats = {w for _, _, w in RV.versions()}
    return {i for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and n.value in whats
            for i in range(n.lineno, (n.end_lineno or n.lineno) + 1)}


def test_no_source_types_a_band() -> None:
    bad = []
    for p in _sources():
        text = p.read_text(encoding="utf-8")
        skip = _history_lines(p, text)
        for i, line in enumerate(text.splitlines(), 1):
            if i not in skip and TYPED.search(line):
                bad.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


def _band_aliases(path: Path) -> list[str]:
    """Where ``path`` reaches the band other than as ``decision.band.SESOI``: an import of
    SESOI from another module, an attribute ``X.SESOI`` of another module, an assignment of
    SESOI to a new name or of a new SESOI."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    band_modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and n.module == "decision" for a in n.names if a.name == "band"}
    band_modules |= {a.asname for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names if a.name == "decision.band" and a.asname}
    bad = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module != "decision.band" \
                and any(a.name == "SESOI" for a in n.names):
            bad.append(f"{n.lineno}: SESOI imported from {n.module}")
        elif isinstance(n, ast.Attribute) and n.attr == "SESOI" and not (
                isinstance(n.value, ast.Name) and n.value.id in band_modules) and not (
                isinstance(n.value, ast.Attribute) and n.value.attr == "band"):
            bad.append(f"{n.lineno}: {ast.unparse(n)}")
    # a module-level name of a product module bound to the band is a second name of it (a
    # function's local alias, a test's or a notebook's parameter is not)
    if path.parent.name != "notebooks" and not path.name.startswith(("test_", "conftest")):
        for n in tree.body:
            if isinstance(n, ast.Assign) and (
                    (isinstance(n.value, (ast.Name, ast.Attribute))
                     and ast.unparse(n.value).endswith("SESOI"))
                    or any(isinstance(t, ast.Name) and t.id == "SESOI" for t in n.targets)) \
                    and path != ROOT / "decision" / "band.py":
                bad.append(f"{n.lineno}: {ast.unparse(n)}")
    return bad


def test_the_band_has_one_name() -> None:
    """Every source that reads the band reads decision.band.SESOI: no re-export, no second
    name (a DEFAULT_THRESHOLD, a DECIDE_BAND), no module of analysis that owns it too."""
    paths = [p for d in ("analysis", "decision", "runner", "rundir", "notebooks", "scripts",
                         "studies", "tests")
             for p in (ROOT / d).rglob("*.py") if ".ipynb_checkpoints" not in p.parts]
    bad = [f"{p.relative_to(ROOT)}:{b}" for p in paths for b in _band_aliases(p)]
    assert not bad, "\n".join(bad)


def test_the_alias_check_finds_a_second_name(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("from decision import claimtable as T\nfrom analysis.statistics.stats import SESOI\n"
                   "DEFAULT = T.SESOI\nfrom decision import band as B\nok = B.SESOI\n")
    # the import from stats, the attribute of claimtable and the two module-level names
    assert sorted(b.split(":")[0] for b in _band_aliases(src)) == ["2", "3", "3", "5"]


def test_every_direction_reading_uses_the_claims_band() -> None:
    t = SESOI
    assert PL.DIRECTION.threshold == t
    assert inspect.signature(K.compare_cells).parameters["threshold"].default == t
    assert S.DecisionRule("direction").threshold == t
    for f in (R.band_outcome, R.direction_and_size, S.compare_family, BL.send_comparisons,
              BL.file_comparisons,
              BL.baseline_comparisons, BL.pairwise, BL.twin_pairs):
        params = inspect.signature(f).parameters
        assert params["threshold" if "threshold" in params else "t"].default == t, f.__name__
    # a CI inside the band but wider than a few percent is equivalent, as the claims read it
    assert R.band_outcome(1 - 0.8 * t, 1 + 0.8 * t) == "equivalent"
    assert R.band_outcome(1 - 1.2 * t, 1 + 0.5 * t) == "inconclusive"


def test_the_words_come_from_the_constant() -> None:
    t = SESOI
    assert FM.fmt_band() == f"±{round(t * 100)} %" and FM.fmt_band(0.055) == "±5.5 %"
    rows = pd.DataFrame([{"method": "sendmsg", "size": s, "ratio": 1.0, "lo": 0.99,
                          "hi": 1.01, "decision": "equivalent"} for s in (4096, 16384)])
    text, _ = F.method_clause(rows, "send")
    assert f"(within {FM.fmt_band()})" in text


def test_the_aa_control_is_read_against_the_claims_band() -> None:
    t = SESOI
    row = {"method": "send", "configuration": "veth, cross-core, stream, size 16384",
           "rounds": 10, "ratio": 1.0, "lo": 1 - 0.8 * t, "hi": 1 + 0.8 * t,
           "contains 1": True, "decision": "equivalent", "band": t}
    text = F.control_finding(pd.DataFrame([row])).text
    assert "contains 1" in text and f"inside the claims' band {FM.fmt_band()} (equivalent)" in text
    wide = {**row, "lo": 1 - 1.5 * t, "decision": "inconclusive"}
    assert f"reaching past the claims' band {FM.fmt_band()}" in F.aa_band_text(wide)


def test_the_revisions_record_both_rule_changes() -> None:
    rules = {rule for rule, _, _ in RV.versions()}
    assert {RV.BAND_RULE, RV.AA_CONTROL} <= rules
    t = RV.table([])
    assert set(t["rule"]) >= {RV.BAND_RULE, RV.AA_CONTROL}


def test_a_run_made_before_the_band_reads_it_post_hoc() -> None:
    from datetime import timedelta
    when = max(w for rule, w, _ in RV.versions() if rule == RV.BAND_RULE)
    before, after = when - timedelta(days=1), when + timedelta(minutes=1)
    assert RV.post_hoc(RV.BAND_RULE, before) and not RV.post_hoc(RV.BAND_RULE, after)
    assert RV.band_label(before) == f"{FM.fmt_band()} (post hoc)"
    assert RV.band_label(after) == FM.fmt_band()

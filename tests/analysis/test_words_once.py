"""analysis/words/phrases.py: the phrases the book's sentences share are written once. The
findings, headlines and the front page's advice named a configuration three ways, wrote a
span of sizes three ways, a ratio with its CI twice and "never beats `send`" three ways;
a scan of the words modules and the notebooks fails if a second way comes back, and the
one way's outputs are pinned here."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.words import phrases as W

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "analysis" / "words" / "phrases.py"
#: the modules that write the book's sentences and the notebooks that glue them
SOURCES = sorted([*(ROOT / "analysis" / "words").glob("*.py"),
                  *(ROOT / "notebooks").glob("*.py")])
#: the former implementations (headlines.where/ci/spans, advice._config,
#: findings._config_text/_ci/_sizes)
OLD_NAMES = {"where", "ci", "spans", "_config", "_config_text", "_ci", "_sizes"}
#: kept, with why: the claims chapter's table cell "0.812 [0.7, 0.9]" (no ×, three
#: significant digits, "—" where not measured) is a table's format, not a sentence's
KEPT = {("notebooks/claims.py", "def _ci")}
KiB, MiB = 1 << 10, 1 << 20


def _strings(tree: ast.AST) -> list[str]:
    """The string literals of a module that are not docstrings (f-string parts included)."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


def duplicates(path: Path) -> list[str]:
    """What ``path`` writes that only :mod:`analysis.words.phrases` may write."""
    src = path.read_text()
    tree = ast.parse(src)
    out = [f"def {n.name}" for n in tree.body
           if isinstance(n, ast.FunctionDef) and n.name in OLD_NAMES]
    code = _strings(tree)
    if any("(UDP)" in s for s in code):
        out.append("names a configuration's protocol ((UDP))")
    if re.search(r"fmt_size\([^()]*\)\}–\{fmt_size\(", src):
        out.append("writes a span of sizes (fmt_size(..)–fmt_size(..))")
    if "fmt_ratio_ci(" in src:
        out.append("writes a ratio with its CI (fmt_ratio_ci)")
    if any(re.search(r"(?i)never (beats?|faster)", s) for s in code):
        out.append("writes \"never beats\"")
    return out


def test_the_shared_phrases_are_written_once() -> None:
    found = {rel: d for p in SOURCES if p != OWNER
             for rel in [str(p.relative_to(ROOT))]
             for d in [[x for x in duplicates(p) if (rel, x) not in KEPT]] if d}
    assert found == {}


def test_the_scan_finds_a_second_implementation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('from analysis.statistics.fmt import fmt_ratio_ci, fmt_size\n\n\n'
                   'def where(r):\n    """A configuration."""\n'
                   '    return f"{r[\'transport\']} (UDP)"\n\n\n'
                   'def span(a, b):\n    return f"{fmt_size(a)}–{fmt_size(b)}"\n\n\n'
                   'def c(r):\n    return fmt_ratio_ci(r["ratio"], r["lo"], r["hi"])\n\n\n'
                   'NEVER = "Never faster than `send`"\n')
    assert len(duplicates(bad)) == 5
    assert duplicates(OWNER)  # the owner itself is what the scan looks for


@pytest.mark.parametrize("conf, fields, name", [
    (dict(scenario="file→socket", transport="loopback", placement="same-core",
          cache="warm"), W.CONFIG_FIELDS, "file → socket, loopback, same-core"),
    (dict(scenario="message", transport="udp-forward", protocol="udp", placement="same-core",
          duration_s=1.0, threads=1), W.CONFIG_FIELDS,
     "udp-forward (UDP), same-core, 1 s windows, 1 thread"),
    (dict(transport="loopback", protocol="tcp", placement="cross-core", cache="cold",
          duration_s=2.0, threads=4), ("transport", "placement", "cache"),
     "loopback, cross-core, cold cache"),
    (dict(transport="udp-forward", protocol="udp", placement="same-core"),
     ("transport", "placement"), "udp-forward, same-core"),
    (dict(scenario="file→file", transport=math.nan, placement="same-core", cache="n/a",
          threads=math.nan), W.CONFIG_FIELDS, "file → file, same-core"),
])
def test_a_configuration_is_named_one_way(conf: dict, fields: tuple, name: str) -> None:
    assert W.configuration(conf, fields) == name
    assert W.configuration(pd.Series(conf), fields) == name  # a table's row the same


def test_a_configuration_factor_without_words_is_refused() -> None:
    with pytest.raises(ValueError, match="mode"):
        W.configuration({"mode": "pingpong"}, ("transport", "mode"))


def test_a_span_of_sizes() -> None:
    assert W.size_span(64 * KiB, MiB) == "64 KiB–1 MiB"
    assert W.size_span(4096, 4096.0) == "4 KiB"
    measured = [64, 4096, MiB, 16 * MiB, 64 * MiB]
    assert W.size_runs([MiB, 16 * MiB, 64 * MiB], measured) == "1 MiB–64 MiB"
    assert W.size_runs([64, MiB], measured) == "64 B, 1 MiB"
    assert W.size_runs([64, 4096, 16 * MiB], measured) == "64 B–4 KiB, 16 MiB"
    assert W.size_runs([], measured) == ""


def test_a_ratio_with_its_ci() -> None:
    r = dict(ratio=1.71, lo=1.11, hi=2.64, n=3)
    assert W.ratio_ci(r) == "1.71× [1.11, 2.64]"
    assert W.ratio_ci(r, rounds=True) == "1.71× [1.11, 2.64], 3 rounds"
    assert W.ratio_ci({**r, "n": math.nan}, rounds=True) == "1.71× [1.11, 2.64]"


def test_never_beats_only_of_a_method_decided_everywhere_and_slower_somewhere() -> None:
    assert W.never_faster(["less", "less", "equivalent"])
    assert not W.never_faster(["less", "inconclusive"])  # undecided somewhere
    assert not W.never_faster(["less", "greater"])
    assert not W.never_faster(["equivalent", "equivalent"])  # equivalent: it is not slower
    assert not W.never_faster([])
    assert W.never_beats(["zerocopy"], "send") == "`zerocopy` never beats `send`"
    assert (W.never_beats(["zerocopy", "uring-zc", "vmsplice"], "send")
            == "`zerocopy`, `uring-zc` and `vmsplice` never beat `send`")

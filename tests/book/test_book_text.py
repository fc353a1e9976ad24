"""The book's own Markdown (book/*.md) against the analysis and the run, without building
the book (in `make test`):

* no bare number: every number a reader sees in prose (book/*.md and the markdown cells of
  every notebook the book includes) comes from glue (``{glue:text}``), so
  it is computed from the run; allowed are years, identifiers that contain digits (C15, S1,
  L1, x86-64), software versions after the software's name, and a cited source's table
  quoted as published (the background chapter's textbook table);
* every experiment, profile, method, transport or placement named in a code span exists in
  the committed reference run's plan or the profiles;
* the method chapter describes the statistics the analysis uses: its comparison and
  crossover sentences are glued from :mod:`analysis.words.prose` (generated from
  :mod:`analysis.statistics.stats` and the plan's declared design), and no test that decides nothing
  here (Holm, a rank test as "primary", adaptive repetitions, copies priced by one memcpy)
  is named outside glue.

``COPYBENCH_BOOK_SOURCES`` points the checks at another copy of book/ (e.g. an older
commit's, to show what they catch)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from analysis.loading.run import FILE_METHODS, MESSAGE_METHODS

ROOT = Path(__file__).resolve().parents[2]
BOOK = Path(os.environ.get("COPYBENCH_BOOK_SOURCES") or ROOT / "book")
PAGES = sorted(p.name for p in BOOK.glob("*.md") if p.name != "README.md")
#: chapters written as notebooks: their markdown cells are the chapter's prose
NOTEBOOK_CHAPTERS = ["replication"]
#: the notebooks the book includes as chapters or sections (their markdown cells are prose)
BOOK_NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.py")
                        if (ROOT / "notebooks" / p.with_suffix(".ipynb").name).is_file()
                        and p.stem not in ("sweep", "compare"))


def page_text(page: str) -> str:
    """A page's Markdown: a book/*.md file, or the markdown cells of a notebook chapter."""
    if page.endswith(".md"):
        return (BOOK / page).read_text(encoding="utf-8")
    import jupytext
    nb = jupytext.read(ROOT / "notebooks" / page)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


# --------------------------------------------------------------------------- stripping

_FENCE = re.compile(r"^(```+|~~~+)\s*(\{?[\w-]*\}?)?(.*?)$", re.M)
_KEEP_FENCES = ("{list-table}", "{table}", "")  # fences whose body is prose a reader reads
_DROP_FENCES = ("{include}", "{bibliography}", "{raw}", "console", "text", "python", "bash",
                "toml", "sh")


def _fences(text: str) -> str:
    """Drop code and directive fences a reader does not read as prose (commands, includes,
    raw LaTeX); keep list-tables (their cells are prose) without their option lines."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})\s*(\S*)", lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        fence, kind = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        body = lines[i + 1:j]
        if kind in ("{list-table}", "{table}"):
            out.append("")
            out += [ln for ln in body if not re.match(r"^\s*:[\w-]+:", ln)]
        elif kind not in _DROP_FENCES and not kind.startswith("{"):
            out += [""] * len(body)
        else:
            out += [""] * len(body)
        out.append("")
        i = j + 1
    return "\n".join(out)


def prose(text: str, keep_code: bool = False) -> str:
    """The text a reader reads, with everything generated or not prose blanked out: glue
    and other roles, labels, comments, math, URLs, code spans (unless ``keep_code``)."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = _fences(text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", text)  # {glue:text}`...`, {cite}`...`, {doc}...
    text = re.sub(r"^\([\w-]+\)=\s*$", " ", text, flags=re.M)  # (label)=
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", " ", text)
    text = re.sub(r"https?://\S+", " ", text)
    if not keep_code:
        text = re.sub(r"`[^`\n]+`", " ", text)
    return text


#: what a digit may be part of without being a bare number
ALLOWED = [
    (re.compile(r"\b(19|20)\d\d\b"), "a year"),
    (re.compile(r"\b[A-Za-z][\w'.]*\d[\w'.-]*|\b\d+[A-Za-z]\w*|\b\w+-\d+\b"),
     "an identifier (C15, S1, L1, x86-64, arm64, ISMM'13)"),
    (re.compile(r"\b(Debian|Nix|Sphinx|Python|gcc|pandas|Book|Jupyter Book|Debian's Nix)"
                r" \d+(\.\d+|\.x)*( or (later|newer))?"), "a software version"),
    (re.compile(r"\btable \d+(\.\d+)*"), "a cited source's table number"),
    (re.compile(r"^\s*\d+\.(?=\s)"), "a numbered list's marker"),
    # a ratio or CI read against 1, the ratio of no difference: a definition, not data ("a
    # ratio near 1", "its CI excludes 1", "holds 1", "must contain 1.0", "around 1.0", "its
    # true ratio is 1"); never 1 with a unit or decimals ("holds 1 KiB", "ratio is 1.5")
    (re.compile(r"\b(?:ratio (?:near|is)|excludes|holds|contains?|misses|around) 1(?:\.0)?\b"
                r"(?!\.\d|\s*(?:%|×|[KMG]i?B\b|B\b|s\b|ms\b|µs\b))"),
     "the ratio of no difference"),
]
#: a cited source's table quoted as published: (page, regex of the line)
QUOTED = [("background.md", re.compile(r"^\| `[^|]+` [^|]*\|( \d+ \|){3}\s*$"))]


def bare_numbers(page: str, text: str) -> list[str]:
    """Every number of a page's prose that is not glue and not allowed, with its line."""
    bad = []
    for n, line in enumerate(prose(text).split("\n"), 1):
        if any(p == page and rx.match(text.split("\n")[n - 1]) for p, rx in QUOTED):
            continue
        masked = line
        for rx, _ in ALLOWED:
            masked = rx.sub(lambda m: " " * len(m.group(0)), masked)
        for m in re.finditer(r"\d[\d,.]*", masked):
            bad.append(f"{page}:{n}: {m.group(0)!r} in {line.strip()[:100]!r}")
    return bad


@pytest.mark.parametrize("page", PAGES + BOOK_NOTEBOOKS)
def test_no_bare_number(page: str) -> None:
    bad = bare_numbers(page, page_text(page))
    assert not bad, f"{len(bad)} number(s) typed in the prose (glue them from the run):\n" \
        + "\n".join(bad)


def test_the_scanner_sees_what_it_must() -> None:
    sample = ("The gain is 1.71× at 64 MiB, C13 holds (SIGCOMM 2021), x86-64, "
              "{glue:text}`a.ipynb::k:s` and `-F 1999`; Debian 12 or later.\n")
    bad = bare_numbers("x.md", sample)
    assert [b.split(": ", 1)[1].split(" in ")[0] for b in bad] == ["'1.71'", "'64'"], bad
    # the ratio of no difference is a definition; 1 with a unit or other decimals is not it
    sample = ("Its CI excludes 1 but holds 1 KiB; a ratio near 1.0, a true ratio is 1.5, "
              "around 1 %.\n")
    bad = bare_numbers("x.py", sample)
    assert [b.split(": ", 1)[1].split(" in ")[0] for b in bad] == ["'1'", "'1.5,'", "'1'"], bad


# --------------------------------------------------------------------------- names

def _reference_run() -> Path:
    env = os.environ.get("COPYBENCH_BOOK_RUN")
    if env:
        return ROOT / env
    out = subprocess.run(["git", "ls-files", "data/raw/*-paper/SHA256SUMS",
                          "data/raw/*-paper-*/SHA256SUMS"], cwd=ROOT, capture_output=True,
                         text=True, check=False).stdout.split()
    if not out:
        pytest.skip("no committed reference run under data/raw/")
    return ROOT / Path(sorted(out)[-1]).parent


def vocabulary() -> set[str]:
    """The names the book may use in code spans: the copybench methods, the factor levels,
    the committed profiles, the reference run's experiments."""
    run = _reference_run()
    plan = json.loads((run / "plan.json").read_text(encoding="utf-8"))
    cells = plan.get("cells") or {}
    cells = list(cells.values()) if isinstance(cells, dict) else cells
    names = {str(c.get(k)) for c in cells for k in ("experiment", "transport", "placement",
                                                    "mode", "cache", "method")}
    profiles = {p.stem for p in (ROOT / "runner" / "profiles").glob("*.toml")}
    for p in (run / "profiles").glob("*.toml"):
        names |= {str(e.get("name")) for e in tomllib.loads(p.read_text()).get("experiment", [])}
    return names | profiles | set(MESSAGE_METHODS) | set(FILE_METHODS)


#: code spans that are not experiments, methods or factor levels: a perf event, a Python
#: package, the nixpkgs branch, copybench's thread names
OTHER_NAMES = {"cpu-clock", "sphinx-mathjax-offline", "nixos-25.11", "cb-send.N", "cb-sink.N",
               "cb-copy.N"}


def named(text: str) -> set[str]:
    """Single-token hyphenated code spans: how the book names experiments, profiles, methods
    and factor levels (`udp-forward`, `Q1-message-crossover`)."""
    spans = re.findall(r"`([^`\n]+)`", prose(text, keep_code=True))
    return {s for s in spans if re.fullmatch(r"[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)+", s)}


def test_every_name_exists() -> None:
    vocab = vocabulary() | OTHER_NAMES
    bad = [f"{p}: `{n}`" for p in PAGES for n in sorted(named((BOOK / p).read_text()))
           if n not in vocab]
    assert not bad, ("names that are no experiment, profile, method or factor level of the "
                     "reference run:\n" + "\n".join(bad))


# --------------------------------------------------------------------------- statistics

#: statistic and design words that may stand in the book only where generated (glue):
#: the decision's test and its correction, what is "primary", how rounds were decided, and
#: a copy priced by one memcpy
DECIDING = [r"Mann-Whitney", r"\bHolm\b", r"Bonferroni", r"Wilcoxon", r"\bt[- ]test",
            r"\bt CI", r"Welch", r"rank-based", r"\bprimary\b", r"[Aa]daptive repetitions",
            r"adaptive stopping", r"one memcpy", r"memcpy of the same bytes"]


def test_the_method_chapter_glues_its_statistics() -> None:
    text = (BOOK / "method.md").read_text(encoding="utf-8")
    for key in ("stat_decision", "stat_crossover", "stat_primary"):
        assert f"testbed.ipynb::{key}" in text, f"method.md does not glue {key}"


@pytest.mark.parametrize("page", PAGES + [f"{n}.py" for n in NOTEBOOK_CHAPTERS])
def test_no_statistic_named_outside_glue(page: str) -> None:
    text = prose(page_text(page))
    bad = [f"{page}: {m.group(0)!r} in {text[max(0, m.start() - 60):m.end() + 60]!r}"
           for rx in DECIDING for m in re.finditer(rx, text)]
    assert not bad, "statistics or designs named by hand (glue them from analysis.words.prose):\n" \
        + "\n".join(bad)


def _words(text: str) -> str:
    """Prose without its markup (Markdown code spans, LaTeX commands), as a reader reads it."""
    text = re.sub(r"\\texttt\{([^}]*)\}", r"\1", text)
    text = text.replace("\\_", "_").replace("\\noindent", "")
    text = re.sub(r"\\input\{[^}]*\}|\\(begin|end)\{abstract\}|\\sphinxmaketitle", "", text)
    text = text.replace("`", "").replace("**Abstract.**", "")
    return re.sub(r"\s+", " ", text).strip()


def test_the_html_abstract_is_the_pdfs() -> None:
    """The abstract is written twice (the introduction's HTML block, the PDF's title page in
    _config.yml); a reader of either reads the same sentences."""
    from ruamel.yaml import YAML

    cfg = YAML(typ="safe").load((BOOK / "_config.yml").read_text(encoding="utf-8"))
    pdf = _words(cfg["sphinx"]["config"]["latex_elements"]["maketitle"])
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    block = re.search(r"````\{only\} html\n(.*?)```\{include\}", intro, re.S)
    assert block, "no HTML abstract block in intro.md"
    assert _words(block.group(1)) == pdf


#: a module or a source file of the artifact named in prose ("analysis/words/prose.py",
#: "analysis.statistics.copycount.KNOWN", "rundir/perf.py", "analysis/claims/rules"); a data directory
#: ("bench/results/") is no module
MODULE_NAME = re.compile(r"\b(?:analysis|rundir|runner|decision)(?:[./]\w+)+"
                         r"|\b\w+\.py\b")


@pytest.mark.parametrize("page", [p for p in PAGES if p != "artifact.md"] + BOOK_NOTEBOOKS)
def test_no_module_names_in_the_prose(page: str) -> None:
    """The paper speaks of the study and its data, not of how its code is laid out: no
    module or source file is named in a chapter's prose (the artifact appendix, which tells
    a reviewer where things are, is the one page that may)."""
    text = page_text(page)
    bad = [f"{page}: {m.group(0)!r} in {text[max(0, m.start() - 60):m.end() + 40]!r}"
           for m in MODULE_NAME.finditer(text)]
    assert not bad, "module names in the prose:\n" + "\n".join(bad)


def test_no_module_names_in_the_glued_statistics() -> None:
    """The method chapter's glued paragraph on the statistics names no function either."""
    from analysis.words import prose as PR
    from analysis.statistics import stats as S
    for design in (S.PAIRED, S.UNPAIRED):
        assert not MODULE_NAME.search(PR.statistics_text(design))


def test_the_readme_names_runs_by_date_and_profile() -> None:
    """A reader cannot tell which run "`f0ed`" or "`062509Z`" is: the README names a run by
    its directory (its date, time and profile) or in words, never by a hex suffix or a time
    stamp alone."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bad = re.findall(r"`(?:[0-9a-f]{4}|\d{6}Z)`", readme)
    assert not bad, f"runs named by a suffix in the README: {bad}"


def test_the_checklist_names_the_reviewers_profile() -> None:
    """The artifact check-list's experiments include the profile the reviewer is told to run
    (`claims`, `make claims`) and the many-CPU one (`threads`), and its time entry gives every
    profile it names a budget glued from the profile file."""
    text = (BOOK / "artifact.md").read_text(encoding="utf-8")
    check = text.split("## Artifact check-list", 1)[1].split("\n## ", 1)[0]
    exp = re.search(r"^Experiments\n: (.*?)(?=^\S)", check, re.S | re.M)
    time = re.search(r"^Time needed\n: (.*?)(?=^\S)", check, re.S | re.M)
    assert exp and time, "no Experiments or Time needed entry in the check-list"
    named = set(re.findall(r"`(\w+)`", exp.group(1)))
    assert {"claims", "paper", "threads"} <= named, named
    for p in named & {f.stem for f in (ROOT / "runner" / "profiles").glob("*.toml")}:
        assert f"budget_{p}:s" in time.group(1), f"no budget for `{p}` in Time needed"


def test_the_abstract_promises_copy_counts_only_where_they_validate() -> None:
    """The copy count is reported only in a group whose calibration validates (few do, and
    C15 can be undetermined): the abstract and the contributions do not promise "where the
    copies happen" without that condition, and the contributions glue how many validate."""
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    cfg = (BOOK / "_config.yml").read_text(encoding="utf-8")
    abstract = (ROOT / "analysis" / "words" / "abstract.py").read_text(encoding="utf-8")
    for name, text in (("intro.md", intro), ("_config.yml", cfg), ("abstract.py", abstract)):
        flat = " ".join(text.split())
        assert "where the copies happen" not in flat, name
        # a count of copies is promised only with its condition
        if "copies per byte" in flat:
            assert re.search(r"copies per byte, (used|reported) only where its calibration",
                             flat), name
    assert "copies.ipynb::copies_validation:s" in intro

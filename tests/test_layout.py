"""The pipeline's layout, checked from the code: src/ measures -> runner/ sweeps -> rundir/
(the run-directory format) keeps -> analysis/ + notebooks/ analyse -> book/ tells; decision/
holds the statistics both sides compute.

* The sweep (``runner``) never imports the analysis, the analysis never imports the sweep,
  and the run-directory format (``rundir``) imports neither; a run's format (``rundir``'s
  records, plan, layout, verify, ...) is imported only by the two sides (and tests), every
  other reader of a run going through one of them; ``decision`` imports no package of this
  project. What any command may import from ``rundir`` is its file rules
  (:data:`FILE_RULES`: where an output may be written and how, how an input file is read), the
  one owner every command's output and input go through (scripts, ``bench/*``, the book's
  build step ``notebooks/finalize.py``).
* A notebook belongs to one side: the sweep notebook drives ``runner``; the analysis
  notebooks use ``analysis``; none uses both.
* Every ``notebooks/*.ipynb`` is what jupytext makes of its percent-format ``.py`` source.
* The Study (:mod:`analysis.study`) is the notebooks' only source of runs and evaluations: no
  notebook loads a run (``analysis.loading.run.load_run``), evaluates the claims
  (``analysis.claims.evaluate``) or uses the verdicts' old cache (``evalcache``) itself, so a
  run is loaded and judged once per build.
* Inside ``runner/`` no import cycle (imports inside functions count), and every module sits
  in a layer folder (:data:`RUNNER_LAYERS` orders the folders, lowest first; they are the
  folders of ``runner/``, no more and no fewer): none imports a module of a higher folder.
* The same inside ``analysis/``: every module sits in a layer folder (:data:`ANALYSIS_LAYERS`,
  lowest first, the folders of ``analysis/``, no more and no fewer; the one module outside them
  is the command line ``analysis/compare_report.py``, above them all), none imports a module
  of a higher folder, and no import cycle joins two modules (a package's ``__init__`` that
  gathers its own submodules is the package's face, not a cycle with them).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Sequence

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("runner", "rundir", "decision", "analysis")
#: package -> packages of this project it must never import
FORBIDDEN = {"runner": {"analysis"}, "analysis": {"runner"}, "rundir": {"runner", "analysis"},
             "decision": {"runner", "rundir", "analysis"}}


#: the modules of ``rundir`` that are file rules, not the run's format: any command may
#: import them (an output checked and written by :mod:`rundir.outpath` and
#: :mod:`rundir.atomic`; an input file read bounded and regular by :mod:`rundir.utf8` and
#: :mod:`rundir.inside`)
FILE_RULES = {"rundir.outpath", "rundir.atomic", "rundir.utf8", "rundir.inside"}


def rundir_modules(source: str) -> set[str]:
    """The modules of ``rundir`` that ``source`` imports (``rundir`` itself when it imports the
    package as a whole): ``from rundir import utf8`` and ``from rundir.utf8 import read`` both
    import ``rundir.utf8``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(".".join(a.name.split(".")[:2]) for a in node.names
                         if a.name.split(".")[0] == "rundir")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == "rundir":
            if node.module == "rundir":
                found.update(f"rundir.{a.name}" for a in node.names)
            else:
                found.add(".".join(node.module.split(".")[:2]))
    return found


def imported_packages(source: str) -> set[str]:
    """Top-level names of every import in ``source`` (module level or inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def violations(root: Path) -> list[str]:
    """Every import across the layout's boundaries under ``root``, as readable lines."""
    bad: list[str] = []
    for pkg, forbidden in FORBIDDEN.items():
        for f in sorted((root / pkg).rglob("*.py")):
            hit = imported_packages(f.read_text()) & forbidden
            if hit:
                bad.append(f"{f.relative_to(root)} imports {', '.join(sorted(hit))}")
    for f in sorted((root / "notebooks").glob("*.py")):
        used = imported_packages(f.read_text())
        if {"runner", "analysis"} <= used:
            bad.append(f"{f.relative_to(root)} imports both runner and analysis")
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root)
        if rel.parts[0] in ("runner", "analysis", "rundir", "tests", "build", ".venv") \
                or rel.parts[0].startswith("."):
            continue
        fmt = sorted(rundir_modules(f.read_text()) - FILE_RULES)
        if fmt:
            bad.append(f"{rel} imports {', '.join(fmt)} (only runner and analysis may)")
    return bad


def test_no_import_crosses_the_pipeline() -> None:
    assert violations(ROOT) == []


#: the product's code, where an import's short name must say one module
PRODUCT = ("analysis", "decision", "rundir", "runner", "notebooks", "studies", "scripts")


def alias_clashes(root: Path) -> list[str]:
    """Each upper-case import alias (``from analysis.words import advice as ADV``) that binds
    more than one module across the product's sources: a reader of ``V.every`` must know which
    ``V`` it is without opening the file's imports."""
    bound: dict[str, set[str]] = {}
    for d in PRODUCT:
        for f in sorted((root / d).rglob("*.py")):
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    pairs = [(a.asname, f"{node.module}.{a.name}") for a in node.names]
                elif isinstance(node, ast.Import):
                    pairs = [(a.asname, a.name) for a in node.names]
                else:
                    continue
                for alias, module in pairs:
                    if alias and alias.isupper():
                        bound.setdefault(alias, set()).add(module)
    return sorted(f"{a} binds {', '.join(sorted(m))}" for a, m in bound.items() if len(m) > 1)


def test_an_import_alias_binds_one_module() -> None:
    assert alias_clashes(ROOT) == []


def test_the_alias_check_sees_a_clash(tmp_path: Path) -> None:
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "a.py").write_text("from decision import verdict as V\n")
    (tmp_path / "analysis" / "b.py").write_text("from analysis.words import advice as V\n"
                                                "import numpy as np\n")
    assert alias_clashes(tmp_path) == [
        "V binds analysis.words.advice, decision.verdict"]


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The checker itself can fail: a planted import in each direction is reported."""
    for pkg in (*PACKAGES, "notebooks"):
        (tmp_path / pkg).mkdir()
    (tmp_path / "analysis" / "load.py").write_text("def f():\n    from runner import sweep\n")
    (tmp_path / "runner" / "sweep.py").write_text("import analysis.stats as S\n")
    (tmp_path / "rundir" / "records.py").write_text("from runner.plan import Cell\n")
    (tmp_path / "notebooks" / "mixed.py").write_text("import runner\nfrom analysis import run\n")
    (tmp_path / "notebooks" / "reader.py").write_text("from rundir import records, utf8\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "tool.py").write_text(
        "import rundir.inside\nfrom rundir import utf8\nfrom rundir.atomic import write_output\n"
        "from rundir.outpath import output_file_problem\n")
    (tmp_path / "scripts" / "plan.py").write_text("def f():\n    import rundir.planfile.x\n")
    found = violations(tmp_path)
    assert found == ["runner/sweep.py imports analysis", "analysis/load.py imports runner",
                     "rundir/records.py imports runner", "notebooks/mixed.py imports both "
                     "runner and analysis", "notebooks/reader.py imports rundir.records (only "
                     "runner and analysis may)", "scripts/plan.py imports rundir.planfile (only "
                     "runner and analysis may)"], found


# --- inside runner/: no import cycle, and the layers hold --------------------------------

#: the runner's layer folders, lowest first: a module imports modules of its own folder or of
#: lower ones, never of a higher one. ``runner/__init__.py`` (the package's face, which imports
#: nothing) is below every folder and ``runner/__main__.py`` (the entry point) above them; no
#: other module stands outside the folders.
RUNNER_LAYERS = ("host", "plan", "trial", "originals", "sweep")


def _module_name(pkg_root: Path, f: Path) -> str:
    parts = f.relative_to(pkg_root.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def module_graph(root: Path, pkg: str = "runner") -> dict[str, set[str]]:
    """Module -> the modules of ``pkg`` it imports (anywhere in it: at module level or inside
    a function), the packages a submodule import runs included; names relative to ``pkg``."""
    mods = {_module_name(root / pkg, f): f for f in sorted((root / pkg).rglob("*.py"))}

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, f in mods.items():
        targets: set[str] = set()
        is_pkg = f.name == "__init__.py"
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.split(".")[0] == pkg)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".")
                    up = here if is_pkg else here[:-1]
                    up = up[:len(up) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                if base.split(".")[0] != pkg:
                    continue
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                               for a in node.names)
        deps: set[str] = set()
        for t in targets:
            m = known(t)
            while m:  # importing a.b.c runs the packages a and a.b first
                deps.add(m)
                m = known(m.rpartition(".")[0]) if "." in m else None
        deps.discard(name)
        graph[name] = deps
    return {_short(k, pkg): {_short(d, pkg) for d in v} for k, v in graph.items()}


def _short(name: str, pkg: str) -> str:
    return name if name == pkg else name.removeprefix(pkg + ".")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of two or more
    modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def layer_folders(root: Path, pkg: str = "runner") -> set[str]:
    """The sub-packages of ``pkg`` (folders with an ``__init__.py``; data folders are none)."""
    return {d.name for d in (root / pkg).iterdir() if (d / "__init__.py").is_file()}


def layer_violations(graph: dict[str, set[str]], layers: Sequence[str],
                     folders: set[str], pkg: str = "runner",
                     entry_points: Sequence[str] = ("__main__",)) -> list[str]:
    """Every folder that is no layer (and layer with no folder), every module outside the
    layer folders, every import of a module of a higher folder, as readable lines.
    ``pkg/__init__.py`` stands below every folder, the ``entry_points`` (modules directly in
    ``pkg/``) above them all."""
    table = f"{pkg.upper()}_LAYERS"

    def level(m: str) -> int | None:
        if m == pkg:
            return -1
        if m in entry_points:
            return len(layers)
        top = m.split(".")[0]
        return layers.index(top) if top in layers else None

    def where(m: str, i: int) -> str:
        return f"{pkg}/__init__.py" if i < 0 else f"{pkg}/{m}.py" if i == len(layers) \
            else f"{layers[i]}/"

    bad = [f"{f}/: a folder of {pkg}/ that is not in {table}"
           for f in sorted(folders - set(layers))]
    bad += [f"{f}: in {table} but no folder of {pkg}/" for f in layers if f not in folders]
    loose = " and ".join(["__init__.py", *(f"{e}.py" for e in entry_points)])
    for m in sorted(graph):
        lm = level(m)
        if lm is None:
            if m.split(".")[0] in folders:  # a folder that is no layer: said above
                continue
            bad.append(f"{m}: outside the layer folders ({pkg}/ holds only {loose})")
            continue
        for d in sorted(graph[m]):
            ld = level(d)
            if ld is not None and ld > lm:
                bad.append(f"{m} ({where(m, lm)}) imports {d} ({where(d, ld)}, higher)")
    return bad


def test_runner_has_no_import_cycle() -> None:
    assert cycles(module_graph(ROOT)) == []


def test_runner_layers_hold() -> None:
    assert layer_violations(module_graph(ROOT), RUNNER_LAYERS, layer_folders(ROOT)) == []


# --- inside analysis/: the same order, its own layers ------------------------------------

#: the analysis' layer folders, lowest first: statistics (pure functions, and how numbers are
#: written) -> loading (a run directory as tables) -> claims (the claim tests and their rules)
#: -> designsim (the claim blocks' designs simulated) -> comparison (a run beside another) ->
#: figures -> words (the book's sentences, and what a notebook shows) -> study (a run loaded,
#: judged and read once, what every notebook takes its runs from). ``analysis/__init__.py``
#: is below every folder; :data:`ANALYSIS_ENTRY_POINTS` are the modules directly in
#: ``analysis/``, above every folder.
ANALYSIS_LAYERS = ("statistics", "loading", "claims", "designsim", "comparison", "figures",
                   "words", "study")
#: ``python -m analysis.compare_report`` (what ``make compare`` runs), kept at its name
ANALYSIS_ENTRY_POINTS = ("compare_report",)


def without_own_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` less each module's edges to the packages that hold it: importing
    ``claims.base`` runs ``claims/__init__.py``, which gathers its own submodules (the package's
    face); a cycle through that face alone is no cycle of the code's order."""
    return {m: {d for d in ds if not m.startswith(d + ".")} for m, ds in graph.items()}


def test_analysis_has_no_import_cycle() -> None:
    assert cycles(without_own_packages(module_graph(ROOT, "analysis"))) == []


def test_analysis_layers_hold() -> None:
    """Fails on a flat ``analysis/`` (modules outside the folders; layers with no folder)."""
    assert layer_violations(module_graph(ROOT, "analysis"), ANALYSIS_LAYERS,
                            layer_folders(ROOT, "analysis"), "analysis",
                            ANALYSIS_ENTRY_POINTS) == []


def test_the_analysis_check_sees_a_flat_folder_and_an_upward_import(tmp_path: Path) -> None:
    """The analysis' checker can fail: a module left outside the folders, a word module
    imported by a statistic, and a cycle through a package's face next to a real one."""
    pkg = tmp_path / "analysis"
    for d in ("low", "high"):
        (pkg / d).mkdir(parents=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "cli.py").write_text("from analysis.high import w\n")
    (pkg / "flat.py").write_text("import analysis.low.s\n")
    (pkg / "low" / "__init__.py").write_text("from analysis.low import s, t\n")  # the face
    (pkg / "low" / "s.py").write_text("from analysis.low import t\n")
    (pkg / "low" / "t.py").write_text("def f():\n    from analysis.high.w import g\n")
    (pkg / "high" / "w.py").write_text("from analysis.high import v\n")
    (pkg / "high" / "v.py").write_text("def f():\n    from analysis.high.w import g\n")
    graph = module_graph(tmp_path, "analysis")
    found = layer_violations(graph, ("low", "high"), layer_folders(tmp_path, "analysis"),
                             "analysis", ("cli",))
    assert found == ["flat: outside the layer folders (analysis/ holds only __init__.py and "
                     "cli.py)",
                     "low.t (low/) imports high (high/, higher)",
                     "low.t (low/) imports high.w (high/, higher)"], found
    # s and the face import each other (the package's face: no cycle of the order); v and w
    # do (one)
    assert cycles(graph) == [["high.v", "high.w"], ["low", "low.s"]]
    assert cycles(without_own_packages(graph)) == [["high.v", "high.w"]]


def test_the_checks_see_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    """The checkers themselves can fail: a planted cycle (one side inside a function, one
    through ``from runner import``), a planted upward import, a module outside the folders and
    a folder that is no layer are reported."""
    pkg = tmp_path / "runner"
    for d in ("low", "high", "stray"):
        (pkg / d).mkdir(parents=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "data").mkdir()  # a data folder (no __init__.py) is no layer
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("from runner.high import top\n")
    (pkg / "low" / "a.py").write_text("def f():\n    from runner.high import b\n")
    (pkg / "high" / "b.py").write_text("from runner.low import c\n")
    (pkg / "low" / "c.py").write_text("import runner.low.a as A\n")
    (pkg / "high" / "top.py").write_text("from . import b\nimport runner\n")
    (pkg / "loose.py").write_text("")
    (pkg / "stray" / "s.py").write_text("")
    graph = module_graph(tmp_path)
    assert graph["low.a"] == {"runner", "high", "high.b"}  # a submodule runs its packages
    assert graph["high.top"] == {"runner", "high", "high.b"}  # a relative import
    assert cycles(graph) == [["high.b", "low.a", "low.c"]]
    assert layer_folders(tmp_path) == {"low", "high", "stray"}
    found = layer_violations(graph, ("low", "high", "gone"), layer_folders(tmp_path))
    assert found == ["stray/: a folder of runner/ that is not in RUNNER_LAYERS",
                     "gone: in RUNNER_LAYERS but no folder of runner/",
                     "loose: outside the layer folders (runner/ holds only __init__.py and "
                     "__main__.py)",
                     "low.a (low/) imports high (high/, higher)",
                     "low.a (low/) imports high.b (high/, higher)"], found


def notebook_sources() -> list[Path]:
    """The percent-format sources: every notebooks/*.py with a jupytext header."""
    return sorted(f for f in (ROOT / "notebooks").glob("*.py")
                  if f.read_text().startswith("# ---\n# jupyter:"))


def _cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[str]]]:
    return [(c.cell_type, c.source, list(c.metadata.get("tags", []))) for c in nb.cells]


def test_every_notebook_has_a_source_and_the_other_way_round() -> None:
    sources = {f.stem for f in notebook_sources()}
    notebooks = {f.stem for f in (ROOT / "notebooks").glob("*.ipynb")}
    assert sources, "no percent-format notebook sources found under notebooks/"
    assert sources == notebooks, (f"without a .ipynb: {sorted(sources - notebooks)}; "
                                  f"without a .py source: {sorted(notebooks - sources)}")


@pytest.mark.parametrize("src", notebook_sources(), ids=lambda p: p.stem)
def test_notebook_matches_its_source(src: Path) -> None:
    want = jupytext.read(src)
    have = nbformat.read(src.with_suffix(".ipynb"), as_version=4)
    assert _cells(have) == _cells(want), (
        f"notebooks/{src.stem}.ipynb differs from notebooks/{src.name}: run make notebooks-sync")
    assert not any(c.get("outputs") for c in have.cells if c.cell_type == "code"), \
        f"notebooks/{src.stem}.ipynb is stored with outputs"
    assert have.metadata.get("kernelspec", {}).get("name") == "python3"


# --- the notebooks read their runs through the Study ----------------------------------------

#: what only :mod:`analysis.study` may call for a notebook: module -> the names it must not take
STUDY_OWNS = {"analysis.loading.run": {"load_run"},
              "analysis.claims": {"evaluate", "twin_pairs"},
              "analysis.claims.robustness": {"readings"},
              "analysis.claims.baselines": {"crossovers", "twin_pairs"},
              "analysis.words.counts": {"book_counts", "message_table", "file_table",
                                        "message_comparisons"}}
#: a module no notebook imports (the Study keeps what it kept)
STUDY_REPLACES = "analysis.comparison.evalcache"


def study_violations(notebooks: Path) -> list[str]:
    """Each notebook source's own run loads, claim evaluations and uses of ``evalcache``:
    ``from M import NAME``, ``import M as X`` then ``X.NAME``, and ``from P import M as X``
    then ``X.NAME``, for each module ``M`` and name of :data:`STUDY_OWNS`."""
    found = []
    for f in sorted(notebooks.glob("*.py")):
        tree = ast.parse(f.read_text())
        alias: dict[str, str] = {}  # local name -> module
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                    if a.name == STUDY_REPLACES:
                        found.append(f"{f.name} imports {STUDY_REPLACES}")
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    alias[a.asname or a.name] = full
                    if full == STUDY_REPLACES or node.module == STUDY_REPLACES:
                        found.append(f"{f.name} imports {STUDY_REPLACES}")
                    elif a.name in STUDY_OWNS.get(node.module, ()):
                        found.append(f"{f.name} imports {full}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                module = alias.get(node.value.id)
                if module is not None and node.attr in STUDY_OWNS.get(module, ()):
                    found.append(f"{f.name} calls {module}.{node.attr}")
    return found


def test_the_study_is_the_notebooks_only_source_of_runs_and_verdicts() -> None:
    assert study_violations(ROOT / "notebooks") == []


def test_the_study_check_sees_each_way_round_it(tmp_path: Path) -> None:
    forms = {
        "a": "from analysis.loading import run as A\nrun = A.load_run(run_dir)\n",
        "b": "from analysis.loading.run import load_run\n",
        "c": "from analysis import claims as C\nresults = C.evaluate(run)\n",
        "d": "import analysis.claims as K\nK.evaluate(run)\n",
        "e": "from analysis.claims import evaluate as ev\n",
        "f": "from analysis.comparison import evalcache as EC\n",
        "g": "from analysis import study as SD\nrun = SD.open(run_dir).run\nC = 1\n",
        "h": "from analysis.words import counts as CN\nn = CN.book_counts(run, results)\n",
    }
    for name, text in forms.items():
        (tmp_path / f"{name}.py").write_text(text)
    assert study_violations(tmp_path) == [
        "a.py calls analysis.loading.run.load_run", "b.py imports analysis.loading.run.load_run",
        "c.py calls analysis.claims.evaluate", "d.py calls analysis.claims.evaluate",
        "e.py imports analysis.claims.evaluate",
        "f.py imports analysis.comparison.evalcache",
        "h.py calls analysis.words.counts.book_counts"]


# --- the tests mirror the packages and are selected by markers, not file lists ------------

#: where tests live: one folder per package or area of the pipeline
TEST_AREAS = {"runner", "rundir", "decision", "analysis", "book", "c", "packaging"}


def test_tests_mirror_the_packages() -> None:
    """Every test file sits in the folder of the package or area it tests (test_layout.py,
    about the whole tree, is the one file at the top)."""
    stray = [str(f.relative_to(ROOT)) for f in (ROOT / "tests").rglob("test_*.py")
             if f.parent.name not in TEST_AREAS and f != Path(__file__).resolve()]
    assert stray == [], f"test files outside tests/{{{','.join(sorted(TEST_AREAS))}}}/: {stray}"
    names = [f.name for f in (ROOT / "tests").rglob("test_*.py")]
    dup = sorted({n for n in names if names.count(n) > 1})
    assert dup == [], f"test file names must be unique across folders (pytest imports them by name): {dup}"


def test_make_selects_tests_by_marker_not_by_file() -> None:
    """No make target runs a hand-written list of test files (a file on no list never ran):
    targets select by marker or folder; only the Nix book check names the one file it runs
    with a second toolchain, and test-nix-offline its one file."""
    allowed = {"tests/book/test_book.py", "tests/packaging/test_nix_offline.py",
               "tests/test_layout.py"}
    named = []
    for mk in [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]:
        for i, line in enumerate(mk.read_text().splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in re.findall(r"tests/[\w/]*test_\w+\.py", line):
                if m not in allowed:
                    named.append(f"{mk.relative_to(ROOT)}:{i}: {m}")
    assert named == [], named


def test_make_test_leaves_out_only_the_markers_other_targets_run() -> None:
    """`make test` runs every test without one of conftest.ELSEWHERE's markers, and each of
    those markers is selected by a target of `make test` or `make test-slow`."""
    import conftest
    book = (ROOT / "mk" / "book.mk").read_text()
    elsewhere = re.search(r"^PYTEST_ELSEWHERE\s*:?=\s*(.+)$", book, re.M)
    assert elsewhere, "mk/book.mk defines PYTEST_ELSEWHERE"
    assert [w for w in elsewhere.group(1).split() if w != "or"] == list(conftest.ELSEWHERE)
    makefiles = book + (ROOT / "mk" / "runner.mk").read_text()
    selected = " ".join(a or b for a, b in re.findall(r'-m (?:"([^"]+)"|(\w+))', makefiles))
    for marker in conftest.ELSEWHERE:
        assert re.search(rf"(^|[ (]){marker}\b", selected.replace(f"not ($(PYTEST_ELSEWHERE))", "")), \
            f"no make target selects the tests marked {marker}"


def test_the_runner_of_the_reports_programs_needs_only_the_standard_library() -> None:
    """``python -m runner.originals`` runs as an unprivileged user with whatever Python 3.11
    that user has (no project environment): its whole import chain is stdlib and the project.
    ``-S`` leaves site-packages out, so a third-party import anywhere in the chain fails."""
    import subprocess
    import sys
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import runner.originals.commands"
    r = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                       text=True, timeout=60, check=False)
    assert r.returncode == 0, r.stderr[-2000:]


# --- a notebook renders; it never writes a file of the book ----------------------------------

#: what writes a file from a notebook's own code (a figure's data goes through
#: analysis.figures.plots, a page include through analysis.words.output.include)
NOTEBOOK_WRITES = re.compile(r"\.write_text\(|\.write_bytes\(|\.savefig\(|\bopen\([^)]*['\"][wa]"
                             r"|\.replace\(\w*\.with_name|COPYBENCH_FIGDATA")


def notebook_writes(notebooks: Path) -> list[str]:
    """Each line of a notebook source (not the build step finalize.py) that writes a file or
    reaches the figure folder's side: ``file:line: text``."""
    out = []
    for src in sorted(notebooks.glob("*.py")):
        if src.name == "finalize.py":
            continue
        for i, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
            if NOTEBOOK_WRITES.search(line.split("#")[0]):
                out.append(f"{src.name}:{i}: {line.strip()}")
    return out


def test_no_notebook_writes_a_file_of_the_book() -> None:
    assert notebook_writes(ROOT / "notebooks") == []


def test_the_write_check_sees_a_side_channel(tmp_path: Path) -> None:
    (tmp_path / "nb.py").write_text(
        'out = os.environ.get("COPYBENCH_FIGDATA")\n(gen / "a.inc").write_text(t)\n'
        'fig.savefig(tmp)  \nx = 1  # fig.savefig(tmp) in a comment\n')
    assert [w.split(":")[1] for w in notebook_writes(tmp_path)] == ["1", "2", "3"]

"""The scripts' own inputs and outputs: an output path is checked before any work by the
project's one rule (:func:`rundir.outpath.output_file_problem`) and written whole through a
temporary file beside it (:func:`rundir.atomic.write_output`); an input file is read only
when it is a regular file of bounded size (never waiting on a FIFO, never reading a device);
every refusal is one line, exit 2. Real files, links, FIFOs and processes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

PY = sys.executable
PRECIOUS = "a user's own file\n"
REFERENCE = ROOT / "data" / "raw" / "20261124T133652Z-paper-e8c3"


def _start(argv: list[str], timeout: float = 60,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", **(env or {})}
    return subprocess.run(argv, capture_output=True, text=True, cwd=str(ROOT), env=full,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def _refused(r: subprocess.CompletedProcess[str]) -> str:
    said = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 2, (r.returncode, r.stdout[-1500:], r.stderr[-1500:])
    assert len(said) == 1, said[:12]
    return said[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("runs") / "synthetic"
    subprocess.run([PY, str(ROOT / "tests" / "fixtures" / "make_synthetic_run.py"), str(d),
                    "--small", "--blocks"], check=True, capture_output=True, timeout=120)
    return d


# ---------------------------------------------------------------- simulate_designs.py --out

def _simulate(run: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return _start([PY, "studies/simulate_designs.py", "--run", str(run), "--effects",
                   str(run), "--runs", "2", "--out", str(out)])


# the one output check (rundir.outpath) takes every kind in-process in tests/rundir; here a
# link and a FIFO in make test, the rest in make test-slow (make test stays under 15 min)
@pytest.mark.parametrize("what", [w if w in ("link", "fifo") else
                                  pytest.param(w, marks=pytest.mark.slow)
                                  for w in ("user-file", "read-only", "link",
                                            "missing-directory", "fifo")])
def test_simulate_designs_out_is_checked_before_any_work(what: str, run: Path,
                                                         tmp_path: Path) -> None:
    target = tmp_path / "mine.csv"
    target.write_text(PRECIOUS)
    out = tmp_path / "table.csv"
    if what == "user-file":
        out = target
    elif what == "read-only":
        out = tmp_path / "ro.csv"  # begins as the script's own CSV would, but read-only
        out.write_text("design,effects\n")
        out.chmod(0o444)
    elif what == "link":
        out.symlink_to(target)
    elif what == "missing-directory":
        out = tmp_path / "no" / "such" / "dir" / "table.csv"
    else:
        os.mkfifo(out)
    before = sorted(p.name for p in tmp_path.iterdir())
    line = _refused(_simulate(run, out))
    assert line.startswith(f"simulate_designs: --out {out}"), line
    assert target.read_text() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "something was written"
    if what == "link":
        assert out.is_symlink()
    if what == "read-only":
        assert out.read_text() == "design,effects\n"


@pytest.mark.slow
@pytest.mark.reference
def test_simulate_designs_replaces_its_own_csv_whole(tmp_path: Path) -> None:
    """Written through a temporary file beside it and renamed: a second run replaces the
    first's CSV, keeps its mode, and leaves no temporary file."""
    out = tmp_path / "table.csv"
    for _ in range(2):
        r = _start([PY, "studies/simulate_designs.py", "--runs", "2", "--out", str(out)],
                   timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        out.chmod(0o640)
    assert out.read_text().splitlines()[0].startswith("design,effects,runs,")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


# ---------------------------------------------------------------- notebooks/finalize.py

def _finalize(path: Path | str) -> subprocess.CompletedProcess[str]:
    return _start([PY, "notebooks/finalize.py", str(path)], timeout=30)


def _notebook(tmp_path: Path) -> Path:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "code", "id": "a", "metadata": {"tags": ["parameters"]},
                     "source": "run_dir = 'x'", "outputs": [], "execution_count": None},
                    {"cell_type": "markdown", "id": "b", "metadata": {}, "source": "text"}]}
    p = tmp_path / "executed.ipynb"
    p.write_text(json.dumps(nb))
    return p


def test_finalize_tags_the_parameter_cells(tmp_path: Path) -> None:
    p = _notebook(tmp_path)
    p.chmod(0o640)
    r = _finalize(p)
    assert r.returncode == 0 and not r.stderr, r.stderr
    cells = json.loads(p.read_text())["cells"]
    assert cells[0]["metadata"]["tags"] == ["parameters", "remove-cell"]
    assert "tags" not in cells[1]["metadata"]
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert [x.name for x in tmp_path.iterdir()] == ["executed.ipynb"]


@pytest.mark.parametrize("what", ["not-json", "not-a-notebook", "bad-cell", "fifo", "device",
                                  "link", "missing", "directory", "not-utf8"])
def test_finalize_refuses_what_is_not_a_notebook(what: str, tmp_path: Path) -> None:
    good = _notebook(tmp_path)
    original = good.read_bytes()
    path: Path | str = tmp_path / "input.ipynb"
    content = {"not-json": b"{ this is not json", "not-a-notebook": b'{"cells": 3}',
               "bad-cell": b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, '
                           b'"cells": [{"cell_type": "code", "metadata": []}]}',
               "not-utf8": b'{"nbformat": 4, "x": "\xff"}'}.get(what)
    if content is not None:
        Path(path).write_bytes(content)
    elif what == "fifo":
        os.mkfifo(path)
    elif what == "device":
        path = "/dev/zero"
    elif what == "link":
        Path(path).symlink_to(good)
    elif what == "directory":
        Path(path).mkdir()
    line = _refused(_finalize(path))
    assert line.startswith(f"finalize: {path}"), line
    assert good.read_bytes() == original
    if content is not None:
        assert Path(path).read_bytes() == content


def _executed_with_includes(tmp_path: Path, *calls: str) -> Path:
    """A notebook that glues page includes (analysis.words.output.include), executed by a
    real kernel (nbclient, as papermill does)."""
    import nbformat
    from nbclient import NotebookClient

    src = ("import sys; sys.path.insert(0, %r)\n"
           "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
           "from analysis.words.output import include, include_figure\n" % str(ROOT)
           + "\n".join(calls))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src),
                                         nbformat.v4.new_markdown_cell("text")])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    p = tmp_path / "executed.ipynb"
    p.write_text(nbformat.writes(nb))
    return p


def test_finalize_writes_the_glued_includes_and_drops_them(tmp_path: Path) -> None:
    """A notebook never writes a page include itself: it glues it, and finalize --includes
    writes each (Markdown as text, a figure as its PNG) and takes it out of the notebook."""
    p = _executed_with_includes(
        tmp_path, "include('abstract.inc', 'Of the *37* verdicts.\\n')",
        "fig = plt.figure(figsize=(2, 1)); include_figure('map.png', fig)")
    out = tmp_path / "gen"
    out.mkdir()
    r = _start([PY, "notebooks/finalize.py", str(p), "--includes", str(out)], timeout=60)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert (out / "abstract.inc").read_text() == "Of the *37* verdicts.\n"
    assert (out / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(x.name for x in out.iterdir()) == ["abstract.inc", "map.png"]
    outputs = json.loads(p.read_text())["cells"][0]["outputs"]
    assert not any("include:" in json.dumps(o) for o in outputs), outputs


def test_finalize_without_includes_keeps_them_in_the_notebook(tmp_path: Path) -> None:
    p = _executed_with_includes(tmp_path, "include('abstract.inc', 'text')")
    r = _finalize(p)
    assert r.returncode == 0 and not r.stderr, r.stderr
    outputs = json.loads(p.read_text())["cells"][0]["outputs"]
    assert any("include:abstract.inc" in json.dumps(o) for o in outputs), outputs
    assert sorted(x.name for x in tmp_path.iterdir()) == ["executed.ipynb"]


def test_finalize_writes_the_glued_texts_as_the_notebooks_facts(tmp_path: Path) -> None:
    """--facts FILE: every text the notebook glued for the prose, as the page pastes it (a
    string that reads as a number stays the string), and no include or figure."""
    import importlib.util
    p = _executed_with_includes(
        tmp_path, "from analysis.words.output import glue_text",
        "glue_text('trials', '5,705'); glue_text('rule', 'CI `within` 5 %')",
        "include('abstract.inc', 'Of the *37* verdicts.\\n')")
    out = tmp_path / "facts"
    out.mkdir()
    r = _start([PY, "notebooks/finalize.py", str(p), "--facts", str(out / "executed.json")],
               timeout=60)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert json.loads((out / "executed.json").read_text()) == {
        "trials": "5,705", "rule": "CI within 5 %"}
    spec = importlib.util.spec_from_file_location("finalize", ROOT / "notebooks" / "finalize.py")
    fin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fin)
    assert fin.read_facts(out) == {"executed": {"trials": "5,705", "rule": "CI within 5 %"}}
    # a folder that does not exist is refused before anything is written
    original = p.read_bytes()
    line = _refused(_start([PY, "notebooks/finalize.py", str(p), "--facts",
                            str(tmp_path / "none" / "x.json")], timeout=60))
    assert "--facts" in line and "does not exist" in line, line
    assert p.read_bytes() == original


def test_finalize_refuses_an_include_that_is_not_a_plain_name(tmp_path: Path) -> None:
    p = _executed_with_includes(tmp_path, "include('../escape.inc', 'x')")
    original = p.read_bytes()
    out = tmp_path / "gen"
    out.mkdir()
    line = _refused(_start([PY, "notebooks/finalize.py", str(p), "--includes", str(out)],
                           timeout=60))
    assert "'../escape.inc'" in line and "plain file name" in line, line
    assert p.read_bytes() == original and not any(out.iterdir())
    assert not (tmp_path / "escape.inc").exists()


# ---------------------------------------------------------------- bundle, bundle_wheels.py

@pytest.mark.parametrize("lock", ["missing", "fifo", "/dev/zero", "directory"])
def test_bundle_wheels_reads_its_lock_only_as_a_file(lock: str, tmp_path: Path) -> None:
    path = {"missing": tmp_path / "requirements.lock", "fifo": tmp_path / "fifo",
            "/dev/zero": Path("/dev/zero"), "directory": tmp_path}[lock]
    if lock == "fifo":
        os.mkfifo(path)
    line = _refused(_start([PY, "scripts/bundle_wheels.py", str(path),
                            str(tmp_path / "wheels"), "rich"]))
    assert line.startswith(f"bundle_wheels: LOCK {path}"), line
    assert not (tmp_path / "wheels").exists()


def test_bundle_wheels_refuses_an_outdir_that_is_a_link(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "wheels").symlink_to(tmp_path / "elsewhere")
    line = _refused(_start([PY, "scripts/bundle_wheels.py", str(ROOT / "requirements.lock"),
                            str(tmp_path / "wheels"), "rich"]))
    assert "symbolic link" in line and not any((tmp_path / "elsewhere").iterdir())


@pytest.mark.parametrize("archives", ["missing", "empty"])
def test_bundle_checks_its_archives_before_building(archives: str, tmp_path: Path) -> None:
    d = tmp_path / "archives"
    if archives == "empty":
        d.mkdir()
    r = _start([str(ROOT / "scripts" / "bundle"), str(tmp_path / "b.tar.gz")], timeout=30,
               env={"ORIGINALS_ARCHIVES": str(d)})
    line = _refused(r)
    assert line.startswith(f"bundle: ORIGINALS_ARCHIVES={d}"), line
    assert not (tmp_path / "b.tar.gz").exists()


# ---------------------------------------------------------------- criteria files

@pytest.mark.parametrize("criteria", ["fifo", "/dev/zero"])
@pytest.mark.parametrize("script", ["shared_time", "shared_time_criteria"])
def test_a_criteria_file_is_read_only_as_a_file(script: str, criteria: str, run: Path,
                                                tmp_path: Path) -> None:
    """A FIFO hung shared_time; /dev/zero was a MemoryError."""
    path = tmp_path / "fifo" if criteria == "fifo" else Path(criteria)
    if criteria == "fifo":
        os.mkfifo(path)
    argv = [str(run)] if script == "shared_time" else []
    line = _refused(_start([PY, f"studies/{script}.py", *argv, "--criteria", str(path)],
                           timeout=30))
    assert line.startswith(f"{script}: {path}"), line

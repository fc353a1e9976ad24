"""A run's path reaches make's recipes as data: no shell ever runs a run's name, and a path with
a space stays one path.

Make pastes ``$(RUN)`` into the recipe's text before the shell reads it, so a committed run
directory named ``z$(touch${IFS}/tmp/X)-paper`` (picked as the default ``RUN`` by
``git ls-files``) ran ``touch`` in ``make verify`` and ``make book``; and make's word
functions split ``RUN=".../sp run"`` in two, so the notebooks were given half a path. Each test
here runs the real make, the real ``python -m rundir`` and real papermill, in a scratch git
repository holding the checkout's Makefile, ``mk/*.mk``, ``notebooks/finalize.py``, a
one-cell probe notebook and a copy of a committed run under such a name; the marker file the
name would create is a fresh path of the test's own, and must never appear.

The book's last step (jupyter-book over ``book/``) is ``JB=true`` and its notebooks are the
probe alone (``BOOK_NOTEBOOKS=probe``): the step that reads the run is the notebook's, which
runs for real. Also here: the book's one-line summary names a notebook's ``BadRun`` cause,
and ``ORIGINALS_ARCHIVES`` that is not a directory is refused before anything is built.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

#: too slow for make test (real make, rundir and papermill in a scratch repository per case):
#: make test-slow runs it
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PILOT = ROOT / "data" / "raw" / "20261123T060913Z-pilot"
#: make's own closing line of a failed target: not one of ours
MAKE_TRAILER = re.compile(r"^make(\[\d+\])?: (\*\*\*|Leaving|Entering)")

#: names whose shell reading runs ``touch MARKER`` (``{m}``: the marker's path)
HOSTILE = {
    "dollar-paren": "z$(touch${{IFS}}{m})-paper",
    "backticks": "z`touch${{IFS}}{m}`-paper",
    "quote-semicolon": 'z";touch${{IFS}}{m};"-paper',
    "spaces-semicolon": "z ;touch {m}; -paper",
}

PROBE_SOURCE = """\
import os
from pathlib import Path

Path(os.environ["PROBE_OUT"]).write_text(run_dir, encoding="utf-8")
if os.environ.get("PROBE_LOAD"):
    from analysis.loading.run import load_run
    load_run(run_dir if os.environ["PROBE_LOAD"] == "RUN" else os.environ["PROBE_LOAD"])
"""


def _probe_notebook(path: Path) -> None:
    """A notebook with papermill's parameters cell (``run_dir``) that writes the ``run_dir``
    it was given to ``$PROBE_OUT``, and with ``PROBE_LOAD`` set loads a run as every chapter
    does (``RUN``: the one given; else that path): the loader raises ``BadRun`` on a damaged
    record."""
    params = nbformat.v4.new_code_cell('run_dir = ""')
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(PROBE_SOURCE)])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, path)


def _tree(top: Path) -> Path:
    """A scratch git repository with the checkout's make files and the probe notebook."""
    tree = top / "tree"
    (tree / "mk").mkdir(parents=True)
    (tree / "notebooks").mkdir()
    shutil.copy2(ROOT / "Makefile", tree / "Makefile")
    for mk in (ROOT / "mk").glob("*.mk"):
        shutil.copy2(mk, tree / "mk" / mk.name)
    shutil.copy2(ROOT / "notebooks" / "finalize.py", tree / "notebooks" / "finalize.py")
    _probe_notebook(tree / "notebooks" / "probe.ipynb")
    (tree / "book" / "_build").mkdir(parents=True)  # jupyter-book's (JB=true makes none)
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    return tree


def _committed_run(tree: Path, name: str) -> Path:
    """A copy of the committed pilot run at data/raw/NAME, its SHA256SUMS tracked by git (so
    that it is the default RUN: the newest tracked data/raw/*-paper)."""
    run = tree / "data" / "raw" / name
    shutil.copytree(PILOT, run)
    subprocess.run(["git", "-C", str(tree), "add", "--", str(run / "SHA256SUMS")], check=True)
    return run


def _make(tree: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items()
         if k not in ("RUN", "REF", "RUN_CHECKED", "MAKEFLAGS", "MFLAGS", "ORIGINALS_ARCHIVES")}
    e.update(env)
    return subprocess.run(
        ["make", "--no-print-directory", "-s", *args, "SETUP_DONE=1", f"PY={sys.executable}",
         "JB=true", "BOOK_NOTEBOOKS=probe", "BOOK_SOURCES="],
        cwd=tree, env=e, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def _ours(r: subprocess.CompletedProcess[str]) -> list[str]:
    return [ln for ln in r.stderr.splitlines() if ln.strip() and not MAKE_TRAILER.match(ln)]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_make_verify_never_runs_the_default_runs_name(tmp_path: Path, kind: str) -> None:
    marker = tmp_path / "RAN"
    tree = _tree(tmp_path)
    run = _committed_run(tree, HOSTILE[kind].format(m=marker))
    r = _make(tree, "verify")
    assert not marker.exists(), f"a shell ran the run's name ({run.name}): {r.stderr[-2000:]}"
    # handled as data: the run itself is verified, under its own name
    assert r.returncode == 0, r.stderr[-2000:]
    assert str(run.relative_to(tree)) in r.stdout + r.stderr, r.stdout + r.stderr


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_make_book_never_runs_the_default_runs_name(tmp_path: Path, kind: str) -> None:
    marker = tmp_path / "RAN"
    got = tmp_path / "run_dir"
    tree = _tree(tmp_path)
    run = _committed_run(tree, HOSTILE[kind].format(m=marker))
    r = _make(tree, "book", PROBE_OUT=str(got))
    assert not marker.exists(), f"a shell ran the run's name ({run.name}): {r.stderr[-2000:]}"
    assert r.returncode == 0, r.stderr[-2000:]
    # the notebook was given the run itself, whole
    assert got.read_text(encoding="utf-8") == str(run)
    assert (tree / "book" / "_generated" / ".run").read_text(encoding="utf-8").strip() == str(run)


@pytest.mark.parametrize("kind", ["dollar-paren", "spaces-semicolon"])
def test_book_reference_hands_the_name_to_its_sub_make_whole(tmp_path: Path, kind: str) -> None:
    """make test-slow's book of the reference run: a sub-make given RUN on its command line
    (where make expands '$'), the name as it is."""
    marker = tmp_path / "RAN"
    got = tmp_path / "run_dir"
    tree = _tree(tmp_path)
    run = _committed_run(tree, HOSTILE[kind].format(m=marker))
    r = _make(tree, "book-reference", PROBE_OUT=str(got))
    assert not marker.exists(), r.stderr[-2000:]
    assert r.returncode == 0, r.stderr[-2000:]
    assert got.read_text(encoding="utf-8") == str(run)


def test_make_book_run_path_with_a_space_reaches_the_notebook_whole(tmp_path: Path) -> None:
    got = tmp_path / "run_dir"
    tree = _tree(tmp_path)
    run = tmp_path / "sp run"
    shutil.copytree(PILOT, run)
    r = _make(tree, "book", f"RUN={run}", PROBE_OUT=str(got), PROBE_LOAD="RUN")
    assert r.returncode == 0, r.stderr[-2000:]
    assert got.read_text(encoding="utf-8") == str(run)
    assert f"book (run {run})" in r.stdout, r.stdout
    # a rerun with nothing changed rebuilds nothing; a changed record rebuilds the notebook
    got.unlink()
    assert _make(tree, "book", f"RUN={run}", PROBE_OUT=str(got)).returncode == 0
    assert not got.exists(), "the notebook ran again with nothing changed"
    (run / "manifest.json").touch()
    assert _make(tree, "book", f"RUN={run}", PROBE_OUT=str(got)).returncode == 0
    assert got.read_text(encoding="utf-8") == str(run), "a changed run file did not rebuild"


def test_make_compare_and_seal_take_paths_as_data(tmp_path: Path) -> None:
    """compare (RUN given, REF the hostile default), seal (RUN, RESEAL a reason with a
    command in it): nothing runs; each reaches its Python program whole."""
    marker = tmp_path / "RAN"
    tree = _tree(tmp_path)
    _committed_run(tree, HOSTILE["dollar-paren"].format(m=marker))
    run = tmp_path / "sp run"
    shutil.copytree(PILOT, run)
    # make reads $$ on its command line as one $: the value is $(touch ...)
    r = _make(tree, "compare", f"RUN={run}", f"THRESHOLD=$$(touch {marker})")
    assert not marker.exists(), r.stderr[-2000:]
    ours = _ours(r)  # the threshold reached compare whole, as text, and is refused there
    assert r.returncode == 2 and len(ours) == 1 and f"'$(touch {marker})'" in ours[0], ours
    r = _make(tree, "seal", f"RUN={run}", f"RESEAL=`touch {marker}`")
    assert not marker.exists(), r.stderr[-2000:]
    assert r.returncode == 0 and f"sealed {run}:" in r.stdout, r.stdout + r.stderr


def test_book_summary_names_the_notebooks_badrun_cause(tmp_path: Path) -> None:
    """The loader raises BadRun in the notebook (on a record that is not JSON, in a run the
    probe loads beside the book's, which passes make book's check); the book's one line says
    so (it said ``PapermillExecutionError:`` and no cause)."""
    got = tmp_path / "run_dir"
    tree = _tree(tmp_path)
    run = tmp_path / "run"
    shutil.copytree(PILOT, run)
    damaged = tmp_path / "damaged"
    shutil.copytree(PILOT, damaged)
    lines = gzip.decompress((damaged / "trials.jsonl.gz").read_bytes()).decode().splitlines(keepends=True)
    lines[2] = '{"cell": "not json\n'
    (damaged / "trials.jsonl.gz").write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    r = _make(tree, "book", f"RUN={run}", PROBE_OUT=str(got), PROBE_LOAD=str(damaged))
    assert r.returncode != 0
    said = [ln for ln in _ours(r) if ln.startswith("make book: notebook probe failed")]
    assert len(said) == 1, r.stderr[-3000:]
    assert "BadRun: " in said[0] and "trials.jsonl" in said[0], said[0]
    assert "PapermillExecutionError" not in said[0], said[0]


@pytest.mark.parametrize("target", ["bundle", "claims", "originals"])
@pytest.mark.parametrize("archives", ["missing", "a-file"])
def test_originals_archives_not_a_directory_is_refused_first(tmp_path: Path, target: str,
                                                            archives: str) -> None:
    tree = _tree(tmp_path)
    path = tmp_path / archives
    if archives == "a-file":
        path.write_text("not a directory\n")
    built = tmp_path / "built"
    # any build or sweep would need one of these; none may start
    r = _make(tree, target, f"ORIGINALS_ARCHIVES={path}", f"CLAIMS_RUN={tmp_path / 'claims-run'}",
              f"BIN={built}")
    ours = _ours(r)
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(ours) == 1 and ours[0].startswith(f"make {target}: ORIGINALS_ARCHIVES={path}"), ours
    assert "not a directory" in ours[0] and "nothing was" in ours[0], ours[0]
    assert not (tmp_path / "claims-run").exists() and not (tree / "build").exists()


def test_bundle_with_archives_dir_without_archives_is_refused_first(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = _make(tree, "bundle", f"ORIGINALS_ARCHIVES={empty}")
    ours = _ours(r)
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(ours) == 1 and ours[0].startswith(f"make bundle: ORIGINALS_ARCHIVES={empty}"), ours
    assert ".tar.gz" in ours[0], ours[0]
    assert not (tree / "build").exists()

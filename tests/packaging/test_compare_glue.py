"""nix/compare_glue.py (make compare-nix-book's comparison of two books' glued values) reads
its notebooks as bounded regular files: a damaged notebook or a FIFO is one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "nix" / "compare_glue.py"


def _glued(value: str) -> dict:
    return {"cells": [{"cell_type": "code", "outputs": [{
        "output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
        "data": {"application/papermill.record/text/plain": value}}]}]}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          timeout=30, cwd=ROOT)


@pytest.fixture
def books(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "x.ipynb").write_text(json.dumps(_glued("1.0")))
    (b / "x.ipynb").write_text(json.dumps(_glued("1.0")))
    return a, b


def test_equal_books_compare_equal(books: tuple[Path, Path]) -> None:
    r = _run(*map(str, books))
    assert r.returncode == 0 and "1 glued values in both, 0 differ" in r.stdout, r


def test_a_difference_is_printed_exit_1(books: tuple[Path, Path]) -> None:
    (books[1] / "x.ipynb").write_text(json.dumps(_glued("2.0")))
    r = _run(*map(str, books))
    assert r.returncode == 1 and "x:n [text/plain]" in r.stdout, r


@pytest.mark.parametrize("damage", ["not-json", "fifo", "link-to-dev-zero", "not-a-notebook",
                                    "missing-dir"])
def test_damaged_input_is_one_line_exit_2(books: tuple[Path, Path], damage: str) -> None:
    a, b = books
    nb = a / "x.ipynb"
    nb.unlink()
    if damage == "not-json":
        nb.write_text('{"not": "a notebook"')
    elif damage == "fifo":
        os.mkfifo(nb)
    elif damage == "link-to-dev-zero":
        nb.symlink_to("/dev/zero")
    elif damage == "not-a-notebook":
        nb.write_text(json.dumps({"cells": ["x"]}))
    else:
        a = a.parent / "nowhere"
    r = _run(str(a), str(b))
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("compare_glue: ")


def test_help_and_bad_arguments() -> None:
    assert _run("--help").returncode == 0
    r = _run("only-one")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr

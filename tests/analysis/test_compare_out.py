"""``python -m analysis.compare_report --out DIR`` writes its report only where nothing is or
where an earlier report of its own is (its marker file): a run, a directory of other files,
a symbolic link or a file is refused in one line, exit 2, before anything runs, and is left
as it was. In this process: no notebook runs when the output is refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from analysis.comparison import compare_report
from conftest import another_run_like, copy_run, tree_digest
from rundir.verify import verify

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

#: the marker every report holds (rundir.outpath.REPORT_MARKER)
MARKER = ".copybench-report"


class _Result:
    def __init__(self, returncode: int, stderr: str) -> None:
        self.returncode, self.stderr = returncode, stderr


@pytest.fixture
def compare(capsys: pytest.CaptureFixture[str]) -> Callable[..., _Result]:
    """The command in this process: its exit code and stderr."""
    def call(*args: str) -> _Result:
        try:
            code = compare_report.main(list(args))
        except SystemExit as e:
            code = int(e.code or 0)
        return _Result(code, capsys.readouterr().err)
    return call


def _fake_run(d: Path) -> Path:
    """A directory the command takes as a run (it has records), not one that verifies."""
    d.mkdir()
    (d / "trials.jsonl").write_text('{"trial_id": "t1"}\n')
    return d


def test_out_is_the_run_itself(runner_small_run: Path, tmp_path: Path,
                               compare: Callable[..., _Result]) -> None:
    """A sealed run compared with itself, the report asked into the run: refused, and the
    run still verifies."""
    run = copy_run(runner_small_run, tmp_path / "run")
    ref = copy_run(runner_small_run, tmp_path / "ref")
    before = tree_digest(run)
    r = compare(str(ref), str(run), "--out", str(run))
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "is a run directory" in r.stderr and "no report written" in r.stderr
    assert tree_digest(run) == before and verify(run).ok


def test_out_is_a_directory_of_other_files(tmp_path: Path,
                                           compare: Callable[..., _Result]) -> None:
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("three years of work\n")
    r = compare(str(run), str(ref), "--out", str(mine), "--unverified")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "is not a report this command wrote" in r.stderr
    assert (mine / "thesis.tex").read_text() == "three years of work\n"


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_out_is_a_link_or_a_file(tmp_path: Path, kind: str,
                                 compare: Callable[..., _Result]) -> None:
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / MARKER).write_text(compare_report.MARKER_TEXT if hasattr(compare_report, "MARKER_TEXT")
                                 else "report\n")  # a link to a report is still a link
    out = tmp_path / "out"
    if kind == "symlink":
        out.symlink_to(target)
    else:
        out.write_text("notes\n")
    r = compare(str(run), str(ref), "--out", str(out), "--unverified")
    assert r.returncode == 2, r.stderr[-2000:]
    assert ("symbolic link" if kind == "symlink" else "is a file") in r.stderr
    assert os.path.islink(out) if kind == "symlink" else out.read_text() == "notes\n"
    assert (target / MARKER).is_file()


def test_an_earlier_report_may_be_replaced(tmp_path: Path,
                                           compare: Callable[..., _Result]) -> None:
    """Its marker lets the command go on, here to the check of the runs (this one does not
    verify: exit 1, and the earlier report is kept, as no new one was made)."""
    from rundir.outpath import write_marker
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    out = tmp_path / "report"
    out.mkdir()
    (out / "compare.html").write_text("<html>earlier</html>\n")
    write_marker(out, compare_report.MARKER_TEXT)  # lists compare.html: its own output
    r = compare(str(run), str(ref), "--out", str(out))
    assert r.returncode == 1, r.stderr[-2000:]
    assert "does not verify" in r.stderr
    assert (out / "compare.html").read_text() == "<html>earlier</html>\n"


def test_a_report_under_a_long_path(runner_small_run: Path, tmp_path: Path,
                                    compare: Callable[..., _Result]) -> None:
    """A checkout at a long path: the notebook kernel's Unix sockets (named after its
    connection file) would pass the 107 bytes a socket's path holds ("File name too long");
    the kernel talks over TCP instead and the report is written all the same."""
    deep = tmp_path / ("a-checkout-at-a-long-path-" * 3) / "build" / "compare"
    deep.mkdir(parents=True)
    out = deep / f"{runner_small_run.name}-vs-{runner_small_run.name}"
    assert len(os.fsencode(out / ".kernel.json")) > 107
    ref = another_run_like(runner_small_run, tmp_path / "ref")
    r = compare(str(runner_small_run), str(ref), "--out", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    assert (out / "compare.html").is_file() and not (out / ".kernel.json").exists()


def test_a_report_dir_holding_a_run_is_never_emptied(runner_small_run: Path, tmp_path: Path,
                                                     compare: Callable[..., _Result]) -> None:
    """A report directory with a run copied into it (the RUN being compared,
    here) and a file of the user's is refused in one line, exit 2, everything kept; the
    report's own marker lists what it wrote, so only that may be replaced."""
    from rundir.outpath import report_dir_problem
    ref = another_run_like(runner_small_run, tmp_path / "ref")
    first = copy_run(runner_small_run, tmp_path / "run")
    out = tmp_path / "R"
    r = compare(str(first), str(ref), "--out", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    assert report_dir_problem(out, compare_report.MARKER_TEXT) is None  # its own: replaceable
    mine = copy_run(runner_small_run, out / "myrun")
    (out / "notes.txt").write_text("mine\n")
    before = tree_digest(out)
    r = compare(str(mine), str(ref), "--out", str(out))
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and "no report written" in r.stderr, r.stderr
    assert tree_digest(out) == before and verify(mine).ok


def test_an_edited_report_file_is_not_replaced(tmp_path: Path,
                                               compare: Callable[..., _Result]) -> None:
    from rundir.outpath import write_marker
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    out = tmp_path / "report"
    out.mkdir()
    (out / "compare.html").write_text("<html>earlier</html>\n")
    write_marker(out, compare_report.MARKER_TEXT)
    (out / "compare.html").write_text("<html>my annotations</html>\n")
    r = compare(str(run), str(ref), "--out", str(out), "--unverified")
    assert r.returncode == 2 and "changed since" in r.stderr, r.stderr[-2000:]
    assert (out / "compare.html").read_text() == "<html>my annotations</html>\n"


@pytest.mark.parametrize("where", ["ref", "run"])
def test_out_inside_a_run_is_refused(where: str, tmp_path: Path,
                                     compare: Callable[..., _Result]) -> None:
    """A report inside a run (even the reference) would make it fail verify."""
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    target = {"ref": ref, "run": run}[where]
    before = tree_digest(target)
    r = compare(str(run), str(ref), "--out", str(target / "x" / "report"), "--unverified")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "inside the run directory" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert tree_digest(target) == before and sorted(p.name for p in target.iterdir()) == [
        "trials.jsonl"]


def test_run_and_ref_the_same_is_refused(tmp_path: Path,
                                         compare: Callable[..., _Result]) -> None:
    """``make compare RUN=X REF=X`` says so, exit 2, writes nothing."""
    run = _fake_run(tmp_path / "run")
    out = tmp_path / "out"
    r = compare(str(run), str(tmp_path / "." / "run"), "--out", str(out), "--unverified")
    assert r.returncode == 2 and "same run" in r.stderr, r.stderr[-2000:]
    assert not out.exists()


def test_empty_out_is_refused(tmp_path: Path, compare: Callable[..., _Result]) -> None:
    """``--out ""`` is no silent default path."""
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    r = compare(str(run), str(ref), "--out", "", "--unverified")
    assert r.returncode == 2 and "--out is empty" in r.stderr, r.stderr[-2000:]


def test_a_dead_compares_temporary_directory_is_removed(tmp_path: Path,
                                                        compare: Callable[..., _Result]) -> None:
    """A compare killed with its watchdog leaves ``.<name>.<pid>.<rand>/``
    with the kernel's key in ``.kernel.json``; the next compare there removes it once that
    process is dead, and leaves a live one's and anything else alone."""
    import subprocess
    import sys
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run, ref = _fake_run(tmp_path / "run"), _fake_run(tmp_path / "ref")
    reports = tmp_path / "reports"
    left = reports / f".report.{dead.pid}.abcd1234"
    live = reports / f".report.{os.getpid()}.efgh5678"
    other = reports / ".mine.12.notes"
    for d in (left, live, other):
        d.mkdir(parents=True)
        (d / ".kernel.json").write_text('{"key": "secret"}\n')
    r = compare(str(run), str(ref), "--out", str(reports / "report"))
    assert r.returncode == 1, r.stderr[-2000:]  # the runs do not verify: no report
    assert not left.exists() and live.exists() and other.exists()


def test_a_report_of_the_old_marker_is_replaced_only_when_it_holds_its_own_files(
        tmp_path: Path) -> None:
    """A report made before markers listed their files (the marker's first line only): its
    known files may be replaced, anything more in it makes it refused."""
    from rundir.outpath import REPORT_MARKER, report_dir_problem
    out = tmp_path / "report"
    out.mkdir()
    (out / REPORT_MARKER).write_text(compare_report.MARKER_TEXT)
    for name in ("compare.html", "cells.csv"):
        (out / name).write_text("earlier\n")
    legacy = compare_report.LEGACY_FILES
    assert report_dir_problem(out, compare_report.MARKER_TEXT, legacy=legacy) is None
    (out / "myrun").mkdir()
    why = report_dir_problem(out, compare_report.MARKER_TEXT, legacy=legacy)
    assert why is not None and "myrun" in why


@pytest.mark.parametrize("packed", [False, True], ids=["copy", "packed-copy"])
def test_a_run_and_its_own_copy_is_refused(runner_small_run: Path, tmp_path: Path,
                                           compare: Callable[..., _Result],
                                           packed: bool) -> None:
    """``compare S Sc`` (Sc a copy of S, or S packed) writes no report comparing the run with
    itself without a word. The same plan.json is the same run: exit 2, one line,
    no report."""
    from rundir.verify import pack
    run = copy_run(runner_small_run, tmp_path / "run")
    copy = copy_run(runner_small_run, tmp_path / "copy")
    if packed:
        pack(copy)
    out = tmp_path / "out"
    r = compare(str(run), str(copy), "--out", str(out))
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and "same run" in r.stderr, r.stderr
    assert not out.exists()

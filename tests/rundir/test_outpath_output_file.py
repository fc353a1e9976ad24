"""A command's one output file (a bench's ``--json``, a script's ``--out``): checked before any
work by ``rundir.outpath.output_file_problem`` (its directory too), written whole by
``rundir.atomic.write_output`` from a ``mkstemp`` file beside it. Nothing of the user's (a file,
a read-only file, a link or what it points at, a FIFO, a run) is ever written, replaced or
written through, and a failed write leaves nothing behind."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

from rundir import atomic, layout
from rundir.outpath import json_with_keys, output_file_problem

MINE = b"the user's own bytes\n"
OWN = json_with_keys(("argv", "measures"))


def _listing(d: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for p in sorted(d.iterdir()):
        st = os.lstat(p)
        out[p.name] = (os.readlink(p) if stat.S_ISLNK(st.st_mode) else
                       (stat.S_IMODE(st.st_mode), p.read_bytes()) if stat.S_ISREG(st.st_mode)
                       else stat.S_IFMT(st.st_mode))
    return out


def test_nothing_there_or_the_commands_own_output_may_be_written(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert output_file_problem(out, "--json", own=OWN) is None
    out.write_text(json.dumps({"argv": ["x"], "measures": []}))
    assert output_file_problem(out, "--json", own=OWN) is None
    hdr = tmp_path / "noise.txt"
    hdr.write_text("# noise model\n1 2\n")
    assert output_file_problem(hdr, "--out", header="# noise model") is None


@pytest.mark.parametrize("kind,words", [
    ("missing-dir", "does not exist"), ("parent-is-file", "not a directory"),
    ("user-file", "not a file this command wrote"), ("user-json", "not a file this command wrote"),
    ("read-only", "read-only"), ("link", "symbolic link"), ("dangling-link", "symbolic link"),
    ("fifo", "FIFO"), ("directory", "a directory"), ("inside-a-run", "inside the run"),
])
def test_anything_else_is_refused_in_one_line(kind: str, words: str, tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_bytes(MINE)
    out = tmp_path / "out.json"
    if kind == "missing-dir":
        out = tmp_path / "nowhere" / "out.json"
    elif kind == "parent-is-file":
        out = mine / "out.json"
    elif kind == "user-file":
        out.write_bytes(MINE)
    elif kind == "user-json":
        out.write_text(json.dumps({"argv": ["x"]}))  # a JSON, but not with the command's keys
    elif kind == "read-only":
        out.write_text(json.dumps({"argv": ["x"], "measures": []}))
        out.chmod(0o444)
    elif kind == "link":
        out.symlink_to(mine)
    elif kind == "dangling-link":
        out.symlink_to(tmp_path / "nowhere.json")
    elif kind == "fifo":
        os.mkfifo(out)  # never opened: the check would wait for a writer for ever
    elif kind == "directory":
        out.mkdir()
    elif kind == "inside-a-run":
        (tmp_path / layout.PLAN).write_text("{}")
    before = _listing(tmp_path)
    problem = output_file_problem(out, "--json", own=OWN)
    assert problem is not None and "\n" not in problem, problem
    assert problem.startswith(f"--json {out}") and words in problem, problem
    assert _listing(tmp_path) == before


def test_an_empty_path_is_refused() -> None:
    assert output_file_problem("", "--out", header="x") == "--out: is empty; give a file's path"


def test_the_own_test_reads_a_bounded_regular_file(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"argv": [], "measures": ["x" * 100]}))
    assert json_with_keys(("argv", "measures"))(big)
    assert not json_with_keys(("argv", "measures"), limit=50)(big)
    assert not json_with_keys(("argv",), also=lambda o: bool(o["argv"]))(big)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff{not json")
    assert not OWN(bad)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not OWN(fifo)  # at once: O_NONBLOCK, and not a regular file
    link = tmp_path / "link"
    link.symlink_to(big)
    assert not OWN(link)


def test_a_new_output_is_whole_with_the_umask_mode(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    old = os.umask(0o027)
    try:
        atomic.write_output(out, "{}\n")
    finally:
        os.umask(old)
    assert out.read_text() == "{}\n"
    assert stat.S_IMODE(os.lstat(out).st_mode) == 0o640
    out.chmod(0o604)
    atomic.write_output(out, b"[]\n")  # a replaced file keeps its mode
    assert out.read_bytes() == b"[]\n" and stat.S_IMODE(os.lstat(out).st_mode) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_links_planted_beside_the_output_are_never_opened(tmp_path: Path) -> None:
    """The temporary file is mkstemp's (a random name, O_EXCL): a link at any name a reader
    could predict (``F.tmp``, ``.F.tmp``, ``.F.<pid>.tmp``) is left as it was, and so is what
    it points at."""
    victim = tmp_path / "victim"
    victim.write_bytes(MINE)
    area = tmp_path / "area"
    area.mkdir()
    out = area / "out.json"
    for name in ("out.json.tmp", ".out.json.tmp", f".out.json.{os.getpid()}.tmp"):
        (area / name).symlink_to(victim)
    before = _listing(area)
    atomic.write_output(out, "{}\n")
    assert victim.read_bytes() == MINE
    after = _listing(area)
    assert after.pop("out.json") == (0o666 & ~_umask(), b"{}\n")
    assert after == before


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("kind,err", [("link", errno.EEXIST), ("fifo", errno.EEXIST),
                                      ("directory", errno.EEXIST), ("read-only", errno.EACCES)])
def test_the_writer_refuses_what_it_must_not_replace(kind: str, err: int, tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_bytes(MINE)
    out = tmp_path / "out.json"
    if kind == "link":
        out.symlink_to(mine)
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "directory":
        out.mkdir()
    else:
        out.write_bytes(MINE)
        out.chmod(0o444)
    before = _listing(tmp_path)
    with pytest.raises(OSError) as exc:
        atomic.write_output(out, "new\n")
    assert exc.value.errno == err and exc.value.filename == str(out)
    assert _listing(tmp_path) == before


def test_a_link_put_at_the_target_during_the_work_is_not_replaced(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_bytes(MINE)
    out = tmp_path / "out.json"
    with pytest.raises(OSError) as exc:
        with atomic.output(out) as f:
            f.write(b"new\n")
            out.symlink_to(mine)
    assert exc.value.errno == errno.EEXIST and exc.value.filename == str(out)
    assert os.readlink(out) == str(mine) and mine.read_bytes() == MINE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt", "out.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"old\n")
    with pytest.raises(RuntimeError):
        with atomic.output(out) as f:
            f.write(b"half")
            raise RuntimeError("the work failed")
    assert out.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    missing = tmp_path / "gone" / "out.json"
    with pytest.raises(OSError) as exc:
        atomic.write_output(missing, "x")
    assert exc.value.errno == errno.ENOENT and exc.value.filename == str(missing)


def test_the_shell_check_answers_help_on_stdout() -> None:
    """``python -m rundir.outpath --help``: its usage, exit 0 (not a refusal)."""
    import subprocess
    import sys

    from conftest import ROOT, runner_env

    r = subprocess.run([sys.executable, "-m", "rundir.outpath", "--help"], capture_output=True,
                       text=True, timeout=60, cwd=str(ROOT), env=runner_env(), check=False)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m rundir.outpath"), r
    assert r.stderr == ""

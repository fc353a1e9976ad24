"""Every output path of every command, over everything of the user's: nothing of the
user's is ever removed, replaced, written through or added to.

The whole class: each command that writes where it is told (``runner sweep|notebook
--run-dir``, ``runner noise|planning --out``, ``runner originals run --out``, ``compare_report
--out``, ``copybench copy --dst``, ``scripts/findings_text.py OUTDIR``, ``scripts/plan_dump.py
OUTDIR``, ``scripts/bundle OUT`` (``make bundle``), ``scripts/fresh-root``'s
``FRESH_ROOT_DIR``), pointed at a file of the user's, a read-only file, a symbolic link to a
file, to an empty directory and to nothing yet (where a command following the link would
write happily), a directory that is not empty, and a path inside a run directory. Each is refused in one line,
exit 2, before it does any work, and everything in the user's area (bytes, modes, link
targets, directories; the run copy included, so it still verifies) is as it was.

Real commands in subprocesses. fresh-root never builds a root here: a stand-in mmdebstrap
first on PATH records whether it was called (it must not be)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT, copy_run, copybench_or_fail, runner_env

PY = sys.executable
PILOT = ROOT / "data" / "raw" / "20261123T060913Z-pilot"
MINE = b"the user's own bytes\n"

#: command -> (kind of output, argv for the output path X and a run RUN to read)
COMMANDS: dict[str, tuple[str, Callable[[str, str], list[str]]]] = {
    "runner sweep --run-dir": ("dir", lambda x, run: [
        PY, "-m", "runner", "sweep", "--profile", "smoke", "--run-dir", x, "--no-progress"]),
    "runner notebook --run-dir": ("dir", lambda x, run: [
        PY, "-m", "runner", "notebook", "--profile", "smoke", "--run-dir", x]),
    "runner noise --out": ("file", lambda x, run: [PY, "-m", "runner", "noise", run, "--out", x]),
    "runner planning --out": ("file", lambda x, run: [
        PY, "-m", "runner", "planning", run, "--profile", "claims", "--out", x]),
    "runner originals run --out": ("file", lambda x, run: [
        PY, "-m", "runner", "originals", "run", "--method", "S2:two-copy", "--out", x]),
    "compare_report --out": ("dir", lambda x, run: [
        PY, "-m", "analysis.compare_report", run, str(PILOT), "--out", x]),
    "copybench copy --dst": ("file", lambda x, run: [
        str(copybench_or_fail()), "copy", "--method", "read-write", "--size", "64K", "--dst", x,
        "--duration", "0.05", "--warmup", "0.01"]),
    "findings_text OUTDIR": ("dir", lambda x, run: [
        PY, str(ROOT / "scripts" / "findings_text.py"), run, x]),
    "plan_dump OUTDIR": ("dir", lambda x, run: [PY, str(ROOT / "scripts" / "plan_dump.py"), x]),
    "bundle OUT": ("file", lambda x, run: [str(ROOT / "scripts" / "bundle"), x]),
    "fresh-root FRESH_ROOT_DIR": ("dir", lambda x, run: [str(ROOT / "scripts" / "fresh-root")]),
}
KINDS = ["user-file", "read-only", "link-to-file", "link-to-empty-dir", "dangling-link",
         "non-empty-dir", "inside-a-run"]
#: the kinds make test points every command at: a link to the user's file (what a command
#: following it would write through) and a run's inside. The others, refused by the same
#: check (rundir.outpath, whose own tests take every kind in-process), run in make test-slow
#: (make test stays under 15 min)
FAST_KINDS = ("link-to-file", "inside-a-run")


def _area(d: Path) -> dict[str, object]:
    """Everything under ``d`` as lstat sees it: each entry's type and mode, a file's bytes, a
    link's target (never followed)."""
    out: dict[str, object] = {}
    for base, dirs, files in os.walk(d):
        for name in sorted(dirs + files):
            p = Path(base) / name
            st = os.lstat(p)
            rel = p.relative_to(d).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes())
            else:
                out[rel] = ("other", st.st_mode)
    return out


def _target(area: Path, kind: str, run: Path) -> Path:
    """What is at the output path: something of the user's of the given kind."""
    mine = area / "mine.txt"
    mine.write_bytes(MINE)
    empty = area / "empty-dir"
    empty.mkdir()
    if kind == "user-file":
        return mine
    if kind == "read-only":
        ro = area / "read-only.txt"
        ro.write_bytes(MINE)
        ro.chmod(0o444)
        return ro
    if kind == "link-to-file":
        (area / "link").symlink_to(mine)
        return area / "link"
    if kind == "link-to-empty-dir":
        (area / "link").symlink_to(empty, target_is_directory=True)
        return area / "link"
    if kind == "dangling-link":  # ln -s /tmp/nowhere L: a command following it makes nowhere
        (area / "link").symlink_to(area / "nowhere")
        return area / "link"
    if kind == "non-empty-dir":
        d = area / "notes"
        d.mkdir()
        (d / "findings.inc").write_bytes(MINE)
        return d
    return copy_run(run, area / "a-run") / "new-output"


@pytest.mark.parametrize("kind", [k if k in FAST_KINDS else pytest.param(k, marks=pytest.mark.slow)
                                  for k in KINDS])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_nothing_of_the_users_changes(command: str, kind: str, runner_small_run: Path,
                                      tmp_path: Path) -> None:
    area = tmp_path / "user"
    area.mkdir()
    x = _target(area, kind, runner_small_run)
    before = _area(area)
    calls = tmp_path / "mmdebstrap.calls"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "mmdebstrap").write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\nexit 1\n")
    (fake / "mmdebstrap").chmod(0o755)
    env = runner_env(PY=PY, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
                     FRESH_ROOT_DIR=str(x))
    _, argv = COMMANDS[command]
    r = subprocess.run(argv(str(x), str(runner_small_run)), capture_output=True, text=True,
                       timeout=300, cwd=str(ROOT), env=env, check=False)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert str(x) in lines[0] or x.name in lines[0], lines[0]
    assert _area(area) == before, f"{command} changed the user's area ({kind})"
    assert not calls.exists(), "fresh-root started building a root"


def test_plan_dump_help_is_help(tmp_path: Path) -> None:
    """``scripts/plan_dump.py --help`` is help: it makes no directory ``./--help/``."""
    r = subprocess.run([PY, str(ROOT / "scripts" / "plan_dump.py"), "--help"],
                       capture_output=True, text=True, timeout=120, cwd=str(tmp_path),
                       env=runner_env(), check=False)
    assert r.returncode == 0 and "OUTDIR" in r.stdout, r.stderr
    assert list(tmp_path.iterdir()) == []

"""The bench tools (bench/fidelity, bench/hardened, bench/sink-profile) as a user runs them:
their --json output goes only where nothing is, or over the tool's own earlier output, checked
before anything is measured (a link, at the path or at any name beside it, is never written
through; a read-only file is never replaced; a missing directory is refused, not found after
minutes of measuring); the file appears whole, from a temporary file of an unpredictable name
renamed over it. A bad argument is one line naming what was wrong and what is allowed, exit 2,
before anything runs.

Real tools in subprocesses: copybench (built), iperf3 where the measurement itself is the
point (skipped, saying so, only when iperf3 is not installed)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copybench_or_fail

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

PY = sys.executable
FIDELITY, HARDENED, SINK_PROFILE = (ROOT / "bench" / n for n in ("fidelity", "hardened",
                                                                 "sink-profile"))
MINE = b"the user's own bytes\n"
#: a refusal comes before the first measurement (each measurement prints a "round" line on
#: stderr as it ends); this only stops a tool that hangs, with room for a busy machine
QUICK_S = 90.0


def _tiny_fidelity(out: Path, binary: Path) -> list[str]:
    """The smallest fidelity run: one configuration, three rounds of 0.5 s windows."""
    return [PY, str(FIDELITY), "--bin", str(binary), "--sizes", "64K", "--transports",
            "loopback", "--placements", "same-core", "--rounds", "3", "--duration", "0.5",
            "--warmup", "0", "--json", str(out)]


def _tiny_hardened(out: Path, binary: Path) -> list[str]:
    """hardened with both builds the plain one (the hardened build is not needed to see where
    its output goes)."""
    return [PY, str(HARDENED), "--plain", str(binary), "--hardened", str(binary), "--rounds",
            "5", "--duration", "1", "--methods", "send", "--json", str(out)]


#: both builds of bench/hardened given as the plain one (whether built or not: the arguments
#: are checked first)
BUILDS = ("--plain", str(ROOT / "src" / "build" / "copybench"),
          "--hardened", str(ROOT / "src" / "build" / "copybench"))
TOOLS = {"fidelity": _tiny_fidelity, "hardened": _tiny_hardened}


def _run(argv: list[str], timeout: float = QUICK_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                          check=False)


def _one_line_refusal(r: subprocess.CompletedProcess[str], *names: str) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


def _area(d: Path) -> dict[str, object]:
    """Everything in ``d`` as lstat sees it (a link's target never followed)."""
    out: dict[str, object] = {}
    for p in sorted(d.iterdir()):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            out[p.name] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            out[p.name] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes())
        else:
            out[p.name] = ("other", stat.S_IFMT(st.st_mode))
    return out


def _planted(area: Path, kind: str) -> Path:
    """The output path, with something of the user's of ``kind`` at it."""
    mine = area / "mine.txt"
    mine.write_bytes(MINE)
    out = area / "out.json"
    if kind == "link-to-file":
        out.symlink_to(mine)
    elif kind == "dangling-link":
        out.symlink_to(area / "nowhere.json")
    elif kind == "read-only":
        out.write_bytes(MINE)
        out.chmod(0o444)
    elif kind == "user-file":
        out.write_bytes(MINE)
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "directory":
        out.mkdir()
    return out


# every kind is refused by the one check (rundir.outpath.output_file_problem, which
# tests/rundir/test_outpath_output_file.py takes through each in-process); each bench gets a
# link and a FIFO in make test, the rest in make test-slow (make test stays under 15 min)
@pytest.mark.parametrize("kind", [k if k in ("link-to-file", "fifo") else
                                  pytest.param(k, marks=pytest.mark.slow)
                                  for k in ("link-to-file", "dangling-link", "read-only",
                                            "user-file", "fifo", "directory")])
@pytest.mark.parametrize("tool", list(TOOLS))
def test_a_bad_output_is_refused_before_measuring(tool: str, kind: str, tmp_path: Path) -> None:
    binary = copybench_or_fail()
    out = _planted(tmp_path, kind)
    before = _area(tmp_path)
    r = _run(TOOLS[tool](out, binary))
    _one_line_refusal(r, "--json", str(out))
    assert "round" not in r.stderr and not r.stdout.strip()
    assert _area(tmp_path) == before, f"{tool} changed the user's area ({kind})"


@pytest.mark.parametrize("tool", list(TOOLS))
def test_a_missing_directory_is_refused_before_measuring(tool: str, tmp_path: Path) -> None:
    """Found after the measurements, a missing directory lost all of them (a traceback)."""
    out = tmp_path / "no-such-dir" / "out.json"
    r = _run(TOOLS[tool](out, copybench_or_fail()))
    _one_line_refusal(r, "--json", str(out), "does not exist")
    assert "round" not in r.stderr and not r.stdout.strip()
    assert list(tmp_path.iterdir()) == []


COMMITTED = {"fidelity": "fidelity-20261128-loopback-cross-core.json",
             "hardened": "hardened-20261123.json"}


@pytest.mark.parametrize("tool", list(TOOLS))
def test_the_tools_own_earlier_output_may_be_replaced(tool: str, tmp_path: Path) -> None:
    """An earlier --json of the same tool passes the output check: the run goes on to its
    next check (here: the binary, which is missing) instead of refusing the path. The other
    tool's output is not its own, and is refused."""
    missing = tmp_path / "no-copybench"
    own = tmp_path / "earlier.json"
    shutil.copyfile(ROOT / "bench" / "results" / COMMITTED[tool], own)
    r = _run(TOOLS[tool](own, missing))
    assert "--json" not in _one_line_refusal(r, str(missing))
    other = tmp_path / "other.json"
    (other_tool,) = set(TOOLS) - {tool}
    shutil.copyfile(ROOT / "bench" / "results" / COMMITTED[other_tool], other)
    before = other.read_bytes()
    r = _run(TOOLS[tool](other, missing))
    _one_line_refusal(r, "--json", str(other))
    assert other.read_bytes() == before


def test_fidelity_never_writes_through_a_link_beside_its_output(tmp_path: Path) -> None:
    """The output was written to the predictable ``F.tmp`` first, following a link planted
    there: as root, over whatever the link pointed at. Any name beside F is the user's."""
    if not shutil.which("iperf3"):
        pytest.skip("iperf3 is not installed: fidelity measures beside it")
    binary = copybench_or_fail()
    victim = tmp_path / "victim"
    victim.write_bytes(MINE)
    area = tmp_path / "area"
    area.mkdir()
    out = area / "out.json"
    for name in ("out.json.tmp", ".out.json.tmp", f".out.json.{os.getpid()}.tmp"):
        (area / name).symlink_to(victim)
    before = _area(area)
    r = _run(_tiny_fidelity(out, binary), timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    assert victim.read_bytes() == MINE
    st = os.lstat(out)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o444 == 0o444
    data = json.loads(out.read_text())
    assert data["measures"] and data["summary"]
    after = _area(area)
    del after["out.json"]
    assert after == before, "fidelity left or changed something beside its output"


@pytest.mark.parametrize("argv,names", [
    ([PY, str(SINK_PROFILE), "--size", "abc"], ["--size", "abc", "1G"]),
    ([PY, str(SINK_PROFILE), "--size", "2G"], ["--size", "2G"]),
    ([PY, str(SINK_PROFILE), "--top", "-1"], ["--top"]),
    ([PY, str(HARDENED), *BUILDS, "--methods", "bogus"], ["--methods", "bogus", "zerocopy"]),
    ([PY, str(HARDENED), *BUILDS, "--methods", ","], ["--methods"]),
    ([PY, str(HARDENED), *BUILDS, "--size", "abc"], ["--size", "abc"]),
    ([PY, str(HARDENED), "--rounds", "x"], ["--rounds"]),
    ([PY, str(HARDENED), "--rounds", "2"], ["--rounds", "5"]),
    ([PY, str(FIDELITY), "--sizes", "3K"], ["--sizes", "3K"]),
    ([PY, str(FIDELITY), "--rounds", "x"], ["--rounds"]),
], ids=lambda v: " ".join([Path(v[1]).name, *v[-2:]]) if v and v[0] == PY else "words")
def test_a_bad_argument_is_one_line_before_anything_runs(argv: list[str], names: list[str]) -> None:
    r = _run(argv)
    _one_line_refusal(r, *names)
    assert not r.stdout.strip()

"""The replication chapter reads the runs beside the book's run (the machine classes'
columns, the reruns of the claims, the noise study's machine): only their ``plan.json`` and
``manifest.json`` (and the claims run's ``sessions.json``), each as a run's own file. A FIFO there blocked ``make book`` for ever and
a link to /dev/zero was followed out of the run until memory ran out; now each ends in one
:class:`analysis.loading.run.BadRun` line naming the file.

Real FIFOs and links, read in a subprocess with a timeout (a hang fails the test instead of
blocking it) and an address-space limit (an unbounded read fails instead of taking the
machine's memory)."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, runner_env

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

RAW = ROOT / "data" / "raw"
#: the book's run and a claims run beside it, both committed and packed
REF = RAW / "20261126T035624Z-threads"
CLAIMS = RAW / "20261128T205025Z-claims"
MEMORY_LIMIT = 1 << 30

#: what the chapter calls, each in its own process: the machine classes' columns, the
#: reruns of the claims, the band's machines (the noise study's name is the sibling's)
READERS = {
    "machines": "from analysis.comparison import machines as M; "
                "print([d.name for _, d in M._chosen(load_run(ref))])",
    "reruns": "from analysis.comparison import reproduce as RP; "
              "print([d.name for d in RP.reruns(ref)])",
    "noise study": "from analysis.words import noise_verdicts as NV; "
                   "print(NV._cpu(sibling.name, ref.parent))",
    # the claims run's time (notebooks/replication.py): its sessions' wall time
    "claims run's sessions": "from analysis.loading.run import sibling_json; "
                             "print(sibling.name, len(sibling_json(sibling, 'sessions.json')))",
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _read(reader: str, ref: Path, sibling: Path) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from analysis.loading.run import BadRun, load_run
        ref, sibling = Path(sys.argv[1]), Path(sys.argv[2])
        try:
            {READERS[reader]}
        except BadRun as exc:
            print(f"BadRun: {{exc}}", file=sys.stderr)
            sys.exit(2)
        """)
    return subprocess.run([sys.executable, "-c", code, str(ref), str(sibling)],
                          capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                          env=runner_env(), preexec_fn=_limit_memory, check=False)


@pytest.fixture
def raw(tmp_path: Path) -> Path:
    """A data/raw of two committed runs: the book's and a claims run on another machine."""
    d = tmp_path / "raw"
    d.mkdir()
    shutil.copytree(REF, d / REF.name)
    shutil.copytree(CLAIMS, d / CLAIMS.name)
    return d


def test_the_readers_see_the_sibling(raw: Path) -> None:
    """The fixture is what the chapter reads: each reader finds the claims run."""
    for reader in READERS:
        r = _read(reader, raw / REF.name, raw / CLAIMS.name)
        assert r.returncode == 0, r.stderr[-3000:]
        assert (CLAIMS.name in r.stdout) or reader == "noise study", r.stdout
    assert "2-CPU" in _read("noise study", raw / REF.name, raw / CLAIMS.name).stdout


@pytest.mark.parametrize("planted", ["fifo", "link to /dev/zero"])
@pytest.mark.parametrize("reader,member", [
    ("machines", "plan.json"), ("machines", "manifest.json"), ("reruns", "plan.json"),
    ("noise study", "manifest.json"), ("claims run's sessions", "sessions.json")])
def test_a_sibling_member_is_read_bounded_never_through_a_link(
        raw: Path, tmp_path: Path, reader: str, member: str, planted: str) -> None:
    sibling = raw / CLAIMS.name
    target = sibling / member
    outside = tmp_path / member
    shutil.move(target, outside)
    if planted == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    r = _read(reader, raw / REF.name, sibling)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, \
        r.stderr[-3000:]
    assert lines[0].startswith(f"BadRun: {target}:"), lines[0]
    assert ("FIFO" if planted == "fifo" else "symbolic link") in lines[0], lines[0]

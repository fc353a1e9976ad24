"""studies/run_targets.py on the reference run ebfc: the decision map's rows and their
decided directions, the inconclusive verdicts against their own rule's edges, the A/A at
95 %, and copybench sendmsg / iperf3 per size of the parity rule (its peers' blocks held
sendmsg at 16-256 KiB: read under the declaration in force, post hoc) with send / sendmsg
beside it; and its refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
EBFC = ROOT / "data" / "raw" / "20261127T121419Z-paper-ebfc"
SCRIPT = ROOT / "studies" / "run_targets.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.mark.reference
def test_counts_on_the_reference_run() -> None:
    from analysis.claims import baselines as PEERS
    from analysis.loading.run import load_run
    from analysis.words.counts import Tally, map_comparisons

    run = load_run(EBFC)
    rows = Tally.of(map_comparisons(run))
    r = _run(str(EBFC))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert f"decision map rows: {rows.n}: " in out
    assert f"rows with a decided direction: {rows.directions} of {rows.n}" in out
    assert rows.n < 105  # the map's rows, not the window-level keys
    assert "(95 % CI, holds 1)" in out or "(95 % CI, excludes 1)" in out
    inc = [ln for ln in out.splitlines() if ln.strip().startswith("inconclusive:")]
    assert inc and all("its rule's edge" in ln for ln in inc)
    par = PEERS.parity(run)
    # sendmsg stood beside iperf3 at 16, 64 and 256 KiB (send alone at 1 MiB)
    assert list(par["size"]) == [16384, 65536, 262144] and set(par["method"]) == {"sendmsg"}
    for p in par.to_dict("records"):
        line = next(ln for ln in out.splitlines()
                    if ln.startswith("copybench sendmsg / iperf3 at ") and f"over {p['rounds']} "
                    in ln and f"±{p['half_width']:.1%}" in ln)
        assert ("point estimate >= 0.95" in line) == (p["ratio"] >= 0.95)
        assert "post hoc" in line and "earlier declaration" not in line
    gap = [ln for ln in out.splitlines() if ln.startswith("copybench send / sendmsg at ")]
    assert len(gap) == len(PEERS.memcpy_gap(run)) == 3
    assert all("send's memcpy" in ln and "CPU-s/GB" in ln for ln in gap)
    assert "median per-round sd of the log ratio" in out


def test_refusals(tmp_path: Path) -> None:
    r = _run(str(tmp_path))
    assert r.returncode == 2 and "not a run directory" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = _run(str(tmp_path), str(tmp_path), str(tmp_path))
    assert r.returncode == 2 and "give one run" in r.stderr
    h = _run("--help")
    assert h.returncode == 0 and "RUN" in h.stdout

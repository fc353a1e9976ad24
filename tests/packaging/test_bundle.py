"""The bundle (``make bundle``) runs a sweep on a machine that has nothing of ours: unpacked in
a fresh directory, started with ``env -i PATH=/usr/bin:/bin`` and Debian's ``python3`` (numpy
and scipy from apt, no ``.venv``), it makes, verifies, seals and packs the smoke profile's run
and writes it as one ``.tar.gz`` that the project's own ``rundir verify`` accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

#: tarfile's extraction filter where the Python has one (3.11.4 on; Debian 12's 3.11.2 has none)
TAR = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
MAX_BYTES = 60 * 2**20

pytestmark = [pytest.mark.slow, pytest.mark.root]


def _system_python_problem() -> str | None:
    if not os.path.exists(SYSTEM_PYTHON):
        return f"{SYSTEM_PYTHON} is absent"
    r = subprocess.run([SYSTEM_PYTHON, "-c", "import numpy, scipy"], capture_output=True,
                       text=True, check=False)
    if r.returncode:
        return (f"{SYSTEM_PYTHON} lacks numpy/scipy (apt-get install python3-numpy "
                "python3-scipy; scripts/setup installs them as root)")
    return None


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "copybench-bundle.tar.gz"
    r = subprocess.run(["scripts/bundle", str(out)], cwd=ROOT, capture_output=True, text=True,
                       check=False, env={**os.environ, "PY": sys.executable})
    assert r.returncode == 0, r.stderr
    return out


def test_bundle_is_small_and_self_contained(bundle: Path):
    assert bundle.stat().st_size <= MAX_BYTES
    with tarfile.open(bundle) as t:
        names = set(t.getnames())
    for need in ("bin/copybench", "bin/ip", "bin/git", "lib/ld-linux-x86-64.so.2",
                 "py/runner/__main__.py", "py/rundir/schema", "run-threads", "README.md"):
        assert f"copybench-bundle/{need}" in names, need
    assert any(n.startswith("copybench-bundle/wheels/jsonschema-") for n in names)
    # every wheel runs on any CPython >= 3.11: no compiled ones
    assert all(n.endswith(("-none-any.whl")) for n in names if n.endswith(".whl"))


def _program_header_types(path: Path) -> list[int]:
    """The p_type of every program header of a little-endian ELF64 file (the ELF spec's
    layout: e_phoff at byte 32, e_phentsize and e_phnum at 54 and 56)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a little-endian ELF64"
    phoff = int.from_bytes(data[32:40], "little")
    phentsize = int.from_bytes(data[54:56], "little")
    phnum = int.from_bytes(data[56:58], "little")
    return [int.from_bytes(data[phoff + i * phentsize:phoff + i * phentsize + 4], "little")
            for i in range(phnum)]


PT_DYNAMIC, PT_INTERP = 2, 3


def test_copybench_in_it_is_static(bundle: Path, tmp_path: Path):
    # a statically linked program has no interpreter (PT_INTERP names ld.so) and no dynamic
    # section (PT_DYNAMIC lists the shared libraries it needs)
    with tarfile.open(bundle) as t:
        t.extract("copybench-bundle/bin/copybench", tmp_path, **TAR)
    types = _program_header_types(tmp_path / "copybench-bundle/bin/copybench")
    assert types, "no program headers"
    assert PT_INTERP not in types and PT_DYNAMIC not in types, types


def test_refuses_bad_use_in_one_line(bundle: Path, tmp_path: Path):
    with tarfile.open(bundle) as t:
        t.extractall(tmp_path, **TAR)
    r = subprocess.run([str(tmp_path / "copybench-bundle/run-threads"),
                        str(tmp_path / "no-such-dir")], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin"}, check=False)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not a directory" in r.stderr


def test_smoke_sweep_from_the_bundle_on_a_bare_environment(bundle: Path, tmp_path: Path):
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    why = _system_python_problem()
    if why:
        pytest.skip(why)
    with tarfile.open(bundle) as t:
        t.extractall(tmp_path, **TAR)
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([str(tmp_path / "copybench-bundle/run-threads"), str(out), "smoke"],
                       capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                       check=False, timeout=600)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-2000:])
    packed = sorted(out.glob("*-smoke.tar.gz"))
    assert len(packed) == 1, list(out.iterdir())
    dest = tmp_path / "unpacked"
    with tarfile.open(packed[0]) as t:
        t.extractall(dest, **TAR)
    run = next(dest.iterdir())
    assert (run / "trials.jsonl.gz").is_file()  # packed
    # the manifest names the commit the bundle was made from (it has no .git of its own)
    named = (tmp_path / "copybench-bundle/COMMIT").read_text().strip()
    git = json.loads((run / "manifest.json").read_text())["git"]
    assert git["commit"] == named.removesuffix("+dirty") and len(git["commit"]) == 40
    assert git["dirty"] == named.endswith("+dirty")
    v = subprocess.run([sys.executable, "-m", "rundir", "verify", str(run)], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "verify" in v.stdout and "ok" in v.stdout

"""The committed reference run (the book's default): it verifies, and `make verify` fails on
a copy with one edited byte or one record removed. It is the `paper` profile, complete,
packed and lean (no perf.data)."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import committed_reference_run
from rundir import verify as v

pytestmark = pytest.mark.reference

ROOT = Path(__file__).resolve().parents[2]
#: keep the repository lean: the packed reference run must stay well under this
MAX_BYTES = 8 << 20


def _reference() -> Path:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the reference run is found through git ls-files")
    ref = committed_reference_run()
    assert ref is not None, "no committed reference run under data/raw/ (the book's default)"
    return ref


@pytest.fixture(scope="module")
def reference() -> Path:
    return _reference()


@pytest.fixture
def copy(reference: Path, tmp_path: Path) -> Path:
    dst = tmp_path / reference.name
    shutil.copytree(reference, dst)
    return dst


def _make_verify(run: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", "verify", f"RUN={run}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_reference_run_verifies(reference: Path) -> None:
    p = _make_verify(reference)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "verify" in p.stdout and ": ok;" in p.stdout


def test_reference_run_is_a_complete_lean_paper_run(reference: Path) -> None:
    plan = json.loads((reference / "plan.json").read_text())
    assert plan["profile"] == "paper"
    sessions = json.loads((reference / "sessions.json").read_text())
    assert sessions[-1]["complete"] is True
    assert (reference / "trials.jsonl.gz").is_file() and not (reference / "trials.jsonl").exists()
    files = [p for p in reference.rglob("*") if p.is_file()]
    assert not [p for p in files if "perf.data" in p.name]
    assert sum(p.stat().st_size for p in files) < MAX_BYTES
    assert list((reference / "perf").glob("*.json")), "the CPU profile reductions"


def test_one_edited_byte_fails(copy: Path) -> None:
    path = copy / "trials.jsonl.gz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))
    p = _make_verify(copy)
    assert p.returncode != 0
    assert "trials.jsonl.gz: SHA-256 differs" in p.stdout


def test_one_edited_byte_in_a_record_fails(copy: Path) -> None:
    """An edit that keeps the records valid JSON: only the hash can tell."""
    path = copy / "trials.jsonl.gz"
    text = gzip.decompress(path.read_bytes())
    at = text.index(b'"gbit_per_s":') + len(b'"gbit_per_s":')
    digit = text[at:at + 1]
    assert digit.isdigit()
    edited = text[:at] + (b"1" if digit != b"1" else b"2") + text[at + 1:]
    path.write_bytes(gzip.compress(edited, mtime=0))
    p = _make_verify(copy)
    assert p.returncode != 0
    assert "trials.jsonl.gz: SHA-256 differs" in p.stdout


def test_one_record_removed_fails(copy: Path) -> None:
    path = copy / "trials.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(lines[:10] + lines[11:]), mtime=0))
    report = v.verify(copy)
    assert not report.ok
    assert report.records_checked == len(lines) - 1
    assert any("trials.jsonl.gz: SHA-256 differs" in p for p in report.problems)
    assert _make_verify(copy).returncode != 0


def test_sha256sum_checks_it_without_python(reference: Path) -> None:
    if shutil.which("sha256sum") is None:
        pytest.skip("sha256sum (coreutils) not installed")
    p = subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=reference,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr

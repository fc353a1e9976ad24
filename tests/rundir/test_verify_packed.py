"""Packed runs (`make pack`): trials.jsonl gzip-compressed to trials.jsonl.gz and re-sealed.
They must verify, analyse to the same table, catch an edited byte or a removed record, and
refuse to be resumed."""

from __future__ import annotations

import gzip
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rundir import records
from rundir import layout
from rundir import verify as v
from test_verify import make_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def packed(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    v.seal(run)
    v.pack(run)
    return run


def test_pack_keeps_every_record_and_verifies(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    v.seal(run)
    original = (run / "trials.jsonl").read_bytes()
    gz = v.pack(run)
    assert gz.name == "trials.jsonl.gz" and not (run / "trials.jsonl").exists()
    assert gzip.decompress(gz.read_bytes()) == original
    report = v.verify(run)
    assert report.ok, report.problems
    assert report.records_checked == original.count(b"\n")
    sums = (run / layout.SUMS).read_text()
    assert "trials.jsonl.gz" in sums and "  trials.jsonl\n" not in sums


def test_pack_is_reproducible(tmp_path: Path) -> None:
    digests = []
    for name in ("a", "b"):
        run = make_run(tmp_path / name)
        v.seal(run)
        digests.append(hashlib.sha256(v.pack(run).read_bytes()).hexdigest())
    assert digests[0] == digests[1]  # no file name or time in the gzip header


def test_pack_refuses_a_run_that_does_not_verify(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    v.seal(run)
    (run / "plan.json").write_text("{}")
    with pytest.raises(v.RunDirUsageError, match="does not verify"):
        v.pack(run)
    assert (run / "trials.jsonl").is_file() and not (run / "trials.jsonl.gz").exists()


def test_pack_twice_is_a_usage_error(packed: Path) -> None:
    with pytest.raises(v.RunDirUsageError, match="already packed"):
        v.pack(packed)
    p = subprocess.run([sys.executable, "-m", "rundir", "pack", str(packed)], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_edited_byte_in_packed_records_fails(packed: Path) -> None:
    path = packed / "trials.jsonl.gz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    problems = v.verify(packed).problems
    assert any("trials.jsonl.gz: SHA-256 differs" in p for p in problems), problems


def test_removed_record_in_packed_records_fails(packed: Path) -> None:
    path = packed / "trials.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(lines[1:]), mtime=0))
    report = v.verify(packed)
    assert not report.ok
    assert report.records_checked == len(lines) - 1
    assert any("trials.jsonl.gz: SHA-256 differs" in p for p in report.problems)


def test_truncated_gzip_is_reported_not_raised(packed: Path) -> None:
    path = packed / "trials.jsonl.gz"
    path.write_bytes(path.read_bytes()[:-20])
    problems = v.verify(packed).problems
    assert any("cannot be read to the end" in p for p in problems), problems


def test_both_plain_and_packed_records_is_a_problem(packed: Path) -> None:
    (packed / "trials.jsonl").write_bytes(gzip.decompress((packed / "trials.jsonl.gz").read_bytes()))
    assert any("both trials.jsonl and trials.jsonl.gz" in p for p in v.verify(packed).problems)


def test_packed_run_analyses_like_the_plain_one(tmp_path: Path) -> None:
    from analysis.loading import run as A
    plain = make_run(tmp_path / "plain")
    v.seal(plain)
    packed = tmp_path / "packed"
    shutil.copytree(plain, packed)
    v.pack(packed)
    a, b = A.load_run(plain).trials, A.load_run(packed).trials
    assert len(a) == len(b) and a.equals(b)
    assert records.is_packed(packed) and not records.is_packed(plain)


def test_packed_run_cannot_be_resumed(packed: Path) -> None:
    (packed / "plan.json").write_text('{"run_id": "x"}')  # resume reads the plan first
    p = subprocess.run([sys.executable, "-m", "runner", "sweep", "--resume", "--run-dir",
                        str(packed)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "is packed" in p.stderr

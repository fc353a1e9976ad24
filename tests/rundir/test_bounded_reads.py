"""A run's members are read bounded and as regular files only: ``seal``, ``pack``, ``verify``
and ``check`` never block on a FIFO, never follow a link out of the run, never read a line
without a bound; ``verify`` reads every JSON member it does not otherwise check (``perf/``),
refuses an ok record with an impossible throughput and says when the run was re-sealed.

Real commands in subprocesses with a timeout (a hang fails the test instead of blocking it)
and an address-space limit (an unbounded read fails as a MemoryError instead of taking the
machine's memory), on a copy of a small committed run (its records unpacked, sealed again:
no sweep needed)."""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, runner_env

from rundir import okrule, records
from rundir.verify import seal, write_seal

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

#: a small committed run (192 records, 16 CPUs' thread counts), finished and sealed
SOURCE = ROOT / "data" / "raw" / "20261126T035624Z-threads"

#: the address space a command under test may use: far more than reading a run takes, far
#: less than reading a 4 GiB line or /dev/zero would
MEMORY_LIMIT = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _rundir(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rundir", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=str(ROOT), env=runner_env(),
                          check=False, preexec_fn=_limit_memory)


def _one_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    return lines[0]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A copy of :data:`SOURCE` as a sweep leaves a run: ``trials.jsonl`` unpacked, sealed."""
    d = tmp_path / "run"
    shutil.copytree(SOURCE, d)
    packed = d / "trials.jsonl.gz"
    (d / "trials.jsonl").write_bytes(gzip.decompress(packed.read_bytes()))
    packed.unlink()
    (d / "SHA256SUMS").unlink()
    seal(d)
    return d


@pytest.mark.parametrize("planted", ["fifo", "link to /dev/zero"])
@pytest.mark.parametrize("command", ["seal", "pack"])
def test_seal_and_pack_read_sessions_json_bounded(run: Path, planted: str,
                                                  command: str) -> None:
    """sessions.json a FIFO blocked seal and pack for ever; a link to /dev/zero was followed
    out of the run and read until memory ran out. Now: refused in one line, exit 2, the run
    as it was."""
    if command == "seal":
        (run / "SHA256SUMS").unlink()  # never sealed: seal checks its content
    sessions = run / "sessions.json"
    sessions.unlink()
    if planted == "fifo":
        os.mkfifo(sessions)
    else:
        sessions.symlink_to("/dev/zero")
    r = _rundir(command, str(run))
    assert r.returncode == 2, r.stderr[-3000:]
    assert "sessions.json" in _one_line(r)
    assert not (run / "trials.jsonl.gz").exists() and (run / "trials.jsonl").is_file()
    assert (command == "pack") == (run / "SHA256SUMS").exists()


def _gzip_bomb(path: Path, gib: int = 4) -> None:
    """A gzip file that inflates to ``gib`` GiB of one byte with no newline: 64 copies of one
    64 MiB member per 4 GiB (a gzip reader reads concatenated members as one stream), about
    64 KiB each on disk."""
    member = gzip.compress(b"x" * (64 << 20), compresslevel=9, mtime=0)
    with path.open("wb") as fh:
        for _ in range(gib * 16):
            fh.write(member)


@pytest.mark.parametrize("command", ["verify", "check", "seal"])
def test_a_line_without_end_is_refused_at_the_cap(run: Path, command: str) -> None:
    """trials.jsonl.gz inflating to 4 GiB with no newline: the unbounded line read ended in
    a MemoryError traceback. Now the reader stops at the record line cap and says so."""
    (run / "trials.jsonl").unlink()
    _gzip_bomb(run / "trials.jsonl.gz")
    if command == "seal":
        (run / "SHA256SUMS").unlink()
    r = _rundir(command, str(run))
    out = r.stdout + r.stderr
    assert "Traceback" not in out and "MemoryError" not in out, out[-3000:]
    assert r.returncode in (1, 2), out[-3000:]
    cap = f"longer than {records.MAX_LINE_BYTES} bytes"
    if command == "verify":
        problems = [ln for ln in r.stdout.splitlines() if ln.startswith("trials.jsonl.gz:1:")]
        assert len(problems) == 1 and cap in problems[0], r.stdout[-3000:]
    else:
        line = _one_line(r)
        assert "trials.jsonl.gz:1:" in line and cap in line


def test_the_records_reader_never_holds_more_than_a_line(run: Path) -> None:
    """The one reader (:func:`rundir.records.read`) raises RecordError at the cap; a line
    just under it is read as a line (an error of its own: not JSON)."""
    (run / "trials.jsonl").unlink()
    _gzip_bomb(run / "trials.jsonl.gz", gib=1)
    with pytest.raises(records.RecordError, match=f"longer than {records.MAX_LINE_BYTES}"):
        list(records.read(run / "trials.jsonl.gz"))
    (run / "trials.jsonl.gz").unlink()
    (run / "trials.jsonl").write_bytes(b"x" * (records.MAX_LINE_BYTES - 1) + b"\n")
    got = list(records.lines(run / "trials.jsonl"))
    assert len(got) == 1 and got[0].problem is not None and "not a JSON record" in got[0].problem


def test_a_resealed_perf_file_that_is_not_json_fails_verify(run: Path) -> None:
    """A perf/<trial>.json that is not JSON, re-sealed, verified ok (and every notebook then
    failed on it). Now verify fails, naming the file."""
    perf = run / "perf"
    perf.mkdir(exist_ok=True)
    trial = json.loads((run / "trials.jsonl").read_text().splitlines()[0])["trial_id"]
    (perf / f"{trial}.json").write_text("{not json\n")
    write_seal(run)
    r = _rundir("verify", str(run))
    assert r.returncode == 1, r.stdout[-3000:]
    problems = [ln for ln in r.stdout.splitlines() if ln.startswith("perf/")]
    assert problems and problems[0].startswith(f"perf/{trial}.json: not JSON"), r.stdout


@pytest.mark.parametrize("rate", [0, 1e300])
def test_an_ok_record_with_an_impossible_rate_fails_verify(run: Path, rate: float) -> None:
    """ok records with gbit_per_s 0 or 1e300 verified ok and were shown as measured."""
    path = run / "trials.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    rec = json.loads(lines[0])
    assert rec["status"] == "ok" and rec["result"]["gbit_per_s"] > 0
    rec["result"]["gbit_per_s"] = rate
    lines[0] = json.dumps(rec) + "\n"
    path.write_text("".join(lines))
    write_seal(run)
    r = _rundir("verify", str(run))
    assert r.returncode == 1, r.stdout[-3000:]
    assert any("trials.jsonl:1: status ok but result.gbit_per_s" in ln
               for ln in r.stdout.splitlines()), r.stdout


def test_the_ok_rule_bounds_every_rate() -> None:
    """Every kind of ok record: above 0 and at most the stated physical bound."""
    top = okrule.MAX_GBIT_PER_S
    copy = {"bytes": 1, "seconds": 1.0, "window": {"missed": False}}
    assert okrule.problem("copybench", {**copy, "gbit_per_s": 12.5}) is None
    assert okrule.problem("copybench", {**copy, "gbit_per_s": None}) is None  # not measured
    for bad in (0, -1.0, top * 1.001, 1e300):
        assert "gbit_per_s" in (okrule.problem("copybench", {**copy, "gbit_per_s": bad}) or "")
        assert "gbit_per_s" in (okrule.problem("peer:iperf3", {"gbit_per_s": bad}) or "")
        assert "gbit_per_s" in (okrule.problem("original:S1", {**copy, "gbit_per_s": bad})
                                or "")
    shared = {**copy, "gbit_per_s": 9.0, "share_time": {"per_method": [
        {"sent": 1, "received": 1, "gbit_per_s": 4.0},
        {"sent": 1, "received": 1, "gbit_per_s": 1e300}]}}
    assert "per_method[1].gbit_per_s" in (okrule.problem("copybench", shared) or "")


def test_verify_says_the_run_was_resealed(run: Path) -> None:
    """reseals.json (each deliberate re-seal: when, why, what changed) never surfaced."""
    r = _rundir("verify", str(run))
    assert r.returncode == 0 and "re-sealed" not in r.stdout, r.stdout
    (run / "plan.json").write_text((run / "plan.json").read_text() + " ")
    r = _rundir("seal", str(run), "--reseal", "plan reformatted by hand")
    assert r.returncode == 0, r.stderr
    r = _rundir("verify", str(run))
    assert r.returncode == 0, r.stdout
    said = [ln for ln in r.stdout.splitlines() if "re-sealed" in ln]
    assert len(said) == 1 and "plan reformatted by hand" in said[0], r.stdout
    assert "reseals.json" in said[0] and "plan.json (changed)" in said[0]


def test_a_damaged_reseals_file_fails_verify(run: Path) -> None:
    (run / "reseals.json").write_text("[{]\n")
    write_seal(run)
    r = _rundir("verify", str(run))
    assert r.returncode == 1, r.stdout
    assert any(ln.startswith("reseals.json: not JSON") for ln in r.stdout.splitlines()), r.stdout


@pytest.mark.parametrize("planted", ["fifo", "link to /dev/zero"])
def test_check_reads_its_cache_bounded(run: Path, tmp_path: Path, planted: str) -> None:
    """check (what make book runs first) reads the verify cache's entry for the run: a FIFO
    or a link to /dev/zero there is no entry, never a hang."""
    cache = tmp_path / "verify-cache"
    env = {**runner_env(), "COPYBENCH_VERIFY_CACHE": str(cache)}
    first = subprocess.run([sys.executable, "-m", "rundir", "check", str(run)], env=env,
                           capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert first.returncode == 0, first.stderr
    (entry,) = cache.glob("*.json")
    entry.unlink()
    if planted == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    r = subprocess.run([sys.executable, "-m", "rundir", "check", str(run)], env=env,
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                       preexec_fn=_limit_memory)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]


@pytest.mark.parametrize("data,kept", [
    (b"", b""), (b"a\n", b"a\n"), (b"a\nbc", b"a\n"), (b"abc", b""),
    (b"a\n" + b"x" * 200_000, b"a\n"), (b"y" * 70_000 + b"\n" + b"x" * 70_000, b"y" * 70_000 + b"\n")])
def test_repair_cuts_a_torn_line_reading_only_the_tail(tmp_path: Path, data: bytes,
                                                        kept: bytes) -> None:
    """repair (a resume's first step) cuts a torn last line; it reads back from the end to
    the last newline, not the whole file into memory."""
    path = tmp_path / "trials.jsonl"
    path.write_bytes(data)
    assert records.repair(path) == len(data) - len(kept)
    assert path.read_bytes() == kept

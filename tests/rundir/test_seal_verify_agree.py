"""``seal`` and ``verify`` agree on what a valid run is: one reader
(:func:`rundir.verify.content_problems`) decides, and both call it. A run seal refuses is one
verify fails (here sealed with the sweep's own unchecked ``write_seal`` to show it), and a run
seal signs verifies right after. Strict JSON throughout: NaN, a number read as infinity and a
key given twice are refused; a symbolic link among a run's files is never valid; a run keeps
its records in exactly one file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT
from rundir import verify as v
from test_verify import copybench_record, make_run


def _manifest(text: str) -> Callable[[Path], None]:
    return lambda run: (run / "manifest.json").write_text(text, encoding="utf-8")


def _deep_manifest(run: Path) -> None:
    (run / "manifest.json").write_text('{"schema_version": 1, "x": ' + "[" * 200 + "]" * 200
                                       + "}", encoding="utf-8")


def _bad_record(run: Path) -> None:
    bad = copybench_record(0)
    bad["status"] = 7  # not a status
    (run / "trials.jsonl").write_text(json.dumps(bad) + "\n", encoding="utf-8")


def _packed_beside(run: Path) -> None:
    data = (run / "trials.jsonl").read_bytes()
    (run / "trials.jsonl.gz").write_bytes(gzip.compress(data))


def _raw_record(text: str) -> Callable[[Path], None]:
    """The first record's line replaced by ``text`` (a JSON text Python's json accepts)."""
    def change(run: Path) -> None:
        path = run / "trials.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        lines[0] = text
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return change


def _record_text(**raw: str) -> str:
    """The first record as JSON text with some values spelled literally (NaN, 1e999)."""
    rec = copybench_record(0)
    text = json.dumps(rec)
    for key, literal in raw.items():
        text = text.replace(f'"{key}": {json.dumps(rec[key])}', f'"{key}": {literal}', 1)
    return text


def _duplicate_status() -> str:
    rec = copybench_record(0)
    rec["status"] = "failed"
    text = json.dumps(rec)
    ok = copybench_record(0)
    assert ok["status"] == "ok"
    return text[:-1] + ', "status": "ok"}'  # reads as ok to a lenient reader


def _symlinked_trials(run: Path) -> None:
    real = run.parent / "elsewhere.jsonl"
    (run / "trials.jsonl").rename(real)
    (run / "trials.jsonl").symlink_to(real)


CASES = {
    "manifest-outside-schema": _manifest('{"schema_version": "one"}'),
    "manifest-not-json": _manifest("{not json"),
    "manifest-too-deep": _deep_manifest,
    "record-outside-schema": _bad_record,
    "packed-beside-plain": _packed_beside,
    "record-nan": _raw_record(_record_text(order_index="NaN")),
    "record-1e999": _raw_record(_record_text(order_index="1e999")),
    "record-duplicate-key": _raw_record(_duplicate_status()),
    "trials-symlinked": _symlinked_trials,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_seal_refuses_what_verify_fails(case: str, tmp_path: Path) -> None:
    run = make_run(tmp_path)
    CASES[case](run)
    with pytest.raises(v.RunDirUsageError):
        v.seal(run)
    assert not (run / "SHA256SUMS").exists()  # nothing signed
    if case == "trials-symlinked":  # sealed as regular files, then the link put in place
        (run / "trials.jsonl").unlink()
        (tmp_path / "elsewhere.jsonl").rename(run / "trials.jsonl")
        v.write_seal(run)
        CASES[case](run)
    else:
        v.write_seal(run)  # the sweep's own seal (no check): verify must still fail the run
    report = v.verify(run)
    assert not report.ok, f"{case}: verify passed a run seal refuses"


def test_a_run_seal_signs_verifies(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    v.seal(run)
    assert v.verify(run).ok and v.content_problems(run) == []


def test_cli_seal_refuses_in_one_line(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _manifest("{not json")(run)
    r = subprocess.run([sys.executable, "-m", "rundir", "seal", str(run), "--final"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "manifest.json" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (run / "SHA256SUMS").exists()

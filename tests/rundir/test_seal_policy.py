"""``rundir seal`` seals only a run never sealed, or one that still verifies against its seal
apart from the files added after sealing (the sweep notebook, the packed records); a run
edited since is refused with the files named (a deliberate re-seal takes a reason, recorded
in the run), and a run whose records break the ok rule is never sealed. In this process, on
the synthetic run of test_verify."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Callable

import pytest

from rundir import cli
from rundir import verify as v
from test_verify import copybench_record, make_run


@pytest.fixture
def rundir(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str]]:
    def call(*args: str) -> tuple[int, str]:
        code = cli.main(list(args))
        out = capsys.readouterr()
        return code, out.out + out.err
    return call


def _edit_record(run: Path, line: int, **result: float) -> None:
    lines = (run / "trials.jsonl").read_text().splitlines(keepends=True)
    rec = json.loads(lines[line])
    rec["result"].update(result)
    lines[line] = json.dumps(rec, sort_keys=True) + "\n"
    (run / "trials.jsonl").write_text("".join(lines))


def test_a_tampered_run_is_not_sealed_again(tmp_path: Path,
                                            rundir: Callable[..., tuple[int, str]]) -> None:
    run = make_run(tmp_path)
    assert rundir("seal", str(run), "--final")[0] == 0
    sums = (run / "SHA256SUMS").read_text()
    _edit_record(run, 1, gbit_per_s=40.0)  # a tenfold speed-up, by hand
    code, out = rundir("seal", str(run), "--final")
    assert code == 2, out
    assert "changed since it was sealed: trials.jsonl (changed)" in out and "--reseal" in out
    assert (run / "SHA256SUMS").read_text() == sums
    code, out = rundir("verify", str(run))
    assert code == 1 and "trials.jsonl: SHA-256 differs" in out, out


def test_a_deliberate_reseal_is_recorded(tmp_path: Path,
                                         rundir: Callable[..., tuple[int, str]]) -> None:
    run = make_run(tmp_path)
    assert rundir("seal", str(run), "--final")[0] == 0
    (run / "profiles" / "notes.toml").write_text("# a note\n")
    code, out = rundir("seal", str(run), "--final", "--reseal", "a note kept with the run")
    assert code == 0, out
    reseals = json.loads((run / "reseals.json").read_text())
    assert [r["reason"] for r in reseals] == ["a note kept with the run"]
    assert reseals[0]["changed"] == ["profiles/notes.toml (added)"]
    assert rundir("verify", str(run))[0] == 0
    assert rundir("seal", str(run), "--reseal")[0] == 2  # a reason is required


def test_a_run_that_breaks_the_ok_rule_is_never_sealed(
        tmp_path: Path, rundir: Callable[..., tuple[int, str]]) -> None:
    bad = copybench_record(1)
    bad["result"]["verify"]["mismatches"] = 3  # status ok, yet the receiver saw corruption
    run = make_run(tmp_path, [copybench_record(0), bad])
    code, out = rundir("seal", str(run), "--final")
    assert code == 2, out
    assert "trials.jsonl:2: status ok but result.verify.mismatches = 3" in out
    assert not (run / "SHA256SUMS").exists()
    code, out = rundir("seal", str(run), "--final", "--reseal", "anyway")
    assert code == 2 and not (run / "SHA256SUMS").exists(), out


def test_files_added_after_sealing_are_accepted(tmp_path: Path,
                                                rundir: Callable[..., tuple[int, str]]) -> None:
    """The sweep notebook copied in after the sweep sealed, and records packed in place of
    the sealed trials.jsonl (only when they decompress to it)."""
    run = make_run(tmp_path)
    v.seal(run)
    (run / "sweep.ipynb").write_text("{}\n")
    assert rundir("seal", str(run), "--final")[0] == 0
    assert "sweep.ipynb" in (run / "SHA256SUMS").read_text()
    raw = (run / "trials.jsonl").read_bytes()
    (run / "trials.jsonl.gz").write_bytes(gzip.compress(raw))
    (run / "trials.jsonl").unlink()
    assert v.changed_since_sealed(run) == []
    (run / "trials.jsonl.gz").write_bytes(gzip.compress(raw + raw[:10]))
    assert v.changed_since_sealed(run) == ["trials.jsonl (removed)"]

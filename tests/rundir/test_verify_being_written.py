"""``rundir verify`` on a run a writer holds says it is being written (exit 1), not that its
SHA256SUMS is missing: a run being written is not sealed yet, which is no damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from rundir import cli, lock
from test_verify import make_run


def test_verify_of_a_run_being_written_says_so(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(tmp_path)
    held = lock.acquire(run, "python -m runner sweep")
    try:
        code = cli.main(["verify", str(run)])
    finally:
        held.release()
    out = capsys.readouterr()
    assert code == 1
    lines = (out.out + out.err).strip().splitlines()
    assert len(lines) == 1 and "is being written" in lines[0], lines
    assert "SHA256SUMS missing" not in lines[0]
    assert cli.main(["verify", str(run)]) == 1  # released: now it is the missing seal
    assert "SHA256SUMS missing" in capsys.readouterr().out

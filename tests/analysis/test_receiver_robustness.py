"""Each claim's verdict under each receive size a run measured (analysis/claims/robustness.py):
a run whose C13 cells ran at the sink's default (64 KiB per recv()) and at 256 KiB, in blocks
of their own, reads "robust to the receiver" where both sizes give one verdict and "depends on
the receiver", with both readings, where they differ; the run's own readers read the default
size only."""

from __future__ import annotations

from pathlib import Path

import pytest

import claim_runs as R
from analysis import claims as C
from analysis.claims import robustness as RB
from analysis.loading import run as A

BIG = 256 << 10


def _c13(placement: str, center: float, hi: float, **kw) -> list[dict]:
    return R.pair({**R.file_send("sendfile", 100_000_000, placement), **kw},
                  {**R.file_send("read-write", 100_000_000, placement), **kw},
                  center, hi, n=10)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> A.Run:
    """same-core: sendfile/read-write 1.9 at 64 KiB, 0.86 at 256 KiB; cross-core: 1.9 at
    both sizes."""
    cells = (_c13("same-core", 1.9, 2.0) + _c13("same-core", 0.86, 0.9, recv_size=BIG)
             + _c13("cross-core", 1.9, 2.0) + _c13("cross-core", 1.9, 2.0, recv_size=BIG))
    return A.load_run(R.write(tmp_path_factory.mktemp("rx") / "run", cells, ["C13"]))


def _by_placement(rows: list[RB.Reading]) -> dict[str, RB.Reading]:
    return {r.key.split("(", 1)[1].split(")")[0]: r for r in rows if r.claim == "C13"}


def test_the_run_reads_the_default_size_and_the_view_the_other(run: A.Run) -> None:
    assert RB.receive_sizes(run) == [65536, BIG]
    assert set(run.measured["recv_size"].dropna()) <= {65536}
    assert len(run.measured) == 40  # 4 cells x 10 rounds, the 256 KiB ones read apart
    view = RB.at_receive_size(run, BIG).measured
    assert len(view) == 40 and set(view["recv_size"]) == {BIG}
    main = {r.placement: r.verdict for r in C.c13(run)}
    assert main == {"same-core": C.HOLDS, "cross-core": C.HOLDS}


def test_labels(run: A.Run) -> None:
    rows = _by_placement(RB.readings(run, evaluate=C.c13))
    same, cross = rows["same-core"], rows["cross-core"]
    assert same.verdicts == {65536: C.HOLDS, BIG: C.REFUTED}
    assert same.label == RB.DEPENDS
    # both readings given, each with its estimate
    assert "64 KiB per recv(): holds (1.90 " in same.text, same.text
    assert "256 KiB per recv(): refuted" in same.text and "0.860 [" in same.text, same.text
    assert same.text.count("0.86") == 1, same.text  # the estimate once (the direction has it)
    assert cross.verdicts == {65536: C.HOLDS, BIG: C.HOLDS}
    assert cross.label == RB.ROBUST and cross.text == RB.ROBUST
    assert RB.records_receive_size(run)
    t = RB.table(list(rows.values()))
    assert list(t.columns) == ["claim", "basis", "verdict at 64 KiB", "verdict at 256 KiB",
                               "receiver"]
    assert set(t["receiver"]) == {RB.DEPENDS, RB.ROBUST}


def test_a_claim_measured_at_one_size_says_so(tmp_path: Path) -> None:
    # the 256 KiB cells only at same-core: cross-core was measured under one receive size
    cells = (_c13("same-core", 1.9, 2.0) + _c13("same-core", 1.9, 2.0, recv_size=BIG)
             + _c13("cross-core", 1.9, 2.0))
    run = A.load_run(R.write(tmp_path / "run", cells, ["C13"]))
    rows = _by_placement(RB.readings(run, evaluate=C.c13))
    assert rows["same-core"].label == RB.ROBUST
    assert rows["cross-core"].label == RB.ONE_SIZE and rows["cross-core"].verdicts == {
        65536: C.HOLDS}


def test_a_run_without_the_factor_is_one_size_throughout(tmp_path: Path) -> None:
    run = A.load_run(R.write(tmp_path / "run", _c13("same-core", 1.9, 2.0), ["C13"]))
    assert RB.receive_sizes(run) == [65536]
    rows = _by_placement(RB.readings(run, evaluate=C.c13))
    assert rows["same-core"].label == RB.ONE_SIZE
    assert rows["cross-core"].label == RB.NO_VERDICT  # not run in this profile
    rows = list(rows.values())
    # its records do not say the size the sink read: the table names none
    assert not RB.records_receive_size(run)
    t = RB.table(rows, RB.records_receive_size(run))
    assert "verdict (receive size not recorded)" in t.columns
    assert not any("KiB" in c for c in t.columns)


def test_a_claim_without_a_verdict_is_neither_robust_nor_dependent(tmp_path: Path) -> None:
    # 16 MB files at both sizes: C13's rule reads 100 MB only, so neither size has a verdict
    def small(pl: str, **kw) -> list[dict]:
        return R.pair({**R.file_send("sendfile", 16 << 20, pl), **kw},
                      {**R.file_send("read-write", 16 << 20, pl), **kw}, 1.9, 2.0, n=10)
    run = A.load_run(R.write(tmp_path / "run", small("same-core")
                             + small("same-core", recv_size=BIG), ["C13"]))
    (row,) = RB.readings(run, evaluate=C.c13)
    assert row.verdicts == {65536: C.NOT_RUN, BIG: C.NOT_RUN}
    assert row.label == RB.NO_VERDICT and row.text == RB.NO_VERDICT

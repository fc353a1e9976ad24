"""One CI per comparison and family (decision.families.plan_family): every place that prints a
comparison's CI (the verdict table and its per-size rows, their programs' verdicts, P1's table,
the findings' tables against send, sendmsg and read-write, the pairwise superlatives, and the
abstract's findings drawn from them) reads it at its own family's level, and two readers at
the same family print the same CI. A claim's level is the family its claim declares
(decision.claimtable.FAMILY), whatever else the profile measures: C13 cross-core is read at
family 1 in the verdict table beside the file findings' family of 5."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pandas as pd
import pytest

import analysis.claims as C
from analysis.statistics import stats as S
from analysis.words import counts as CN
from analysis.loading import run as A
from analysis.claims import baselines as BL
from analysis.claims import engine, originals, placement, throughput
from analysis.claims.base import stream_cells
from analysis.loading.run import select
from conftest import committed_reference_run

pytestmark = pytest.mark.reference

MODULES = (engine, BL, originals, throughput)
#: the metrics whose ratio is the inverse of the same cells' Gbit/s ratio
INVERSE = ("inv_msg_rate_us",)


def _ids(df: pd.DataFrame, f: dict[str, Any]) -> tuple[str, ...]:
    d = select(df, **f)
    if "twin" in d:
        d = d[d["twin"].fillna(0).astype(int) == 0]
    return tuple(sorted({str(c) for c in d["cell"].dropna()}))


@pytest.fixture(scope="module")
def printed() -> tuple[A.Run, dict, list]:
    """Every CI the analysis computes for a comparison while it makes what the book prints,
    keyed by the comparison's cells (a's, b's), and the claims' results."""
    ref = committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout)")
    run = A.load_run(ref)
    seen: dict[tuple, list] = defaultdict(list)
    mp = pytest.MonkeyPatch()

    def record(key: tuple, where: str, e: Any, family: int) -> None:
        if not (math.isfinite(e.lo) and math.isfinite(e.hi)):
            return
        a, b = key
        if (b, a) in seen:  # one orientation: b/a's CI is a/b's inverted
            seen[(b, a)].append((where, 1 / e.value, 1 / e.hi, 1 / e.lo, family))
        else:
            seen[key].append((where, e.value, e.lo, e.hi, family))

    for mod in MODULES:
        orig = mod.compare_pair

        def wrapped(run_, df, a, b, metric, *args, _orig=orig, _mod=mod.__name__, **kw):
            c = _orig(run_, df, a, b, metric, *args, **kw)
            if c is not None:
                e = c.primary.ratio
                if metric in INVERSE:  # time per message: the inverse of the Gbit/s ratio
                    e = S.Estimate(1 / e.value, 1 / e.hi, 1 / e.lo, e.n, e.confidence)
                record((_ids(df, a), _ids(df, b)), _mod, e, c.primary.family)
            return c
        mp.setattr(mod, "compare_pair", wrapped)
    orig_ordering = placement._ordering

    def ordering(run_, dt, a, b, f, pl, family, seed):
        out = orig_ordering(run_, dt, a, b, f, pl, family, seed)
        sa, sb = dict(placement=pl, method=a, **f), dict(placement=pl, method=b, **f)
        record((_ids(dt, sa), _ids(dt, sb)), "placement", out[0].ratio, out[0].family)
        return out
    mp.setattr(placement, "_ordering", ordering)
    try:
        results = C.evaluate(run)
        placement.placement_hypothesis(run)
        files = BL.file_comparisons(run)
        msg = CN.message_table(run)
        cells = stream_cells(run, udp=True)
        one = cells[cells["threads"] == int(cells["threads"].min())]
        BL.baseline_comparisons(run, one, "sendmsg",
                                [m for m in A.MESSAGE_METHODS if m != "send"], CN.MSG_FACTORS)
        BL.send_comparisons(run)
        BL.pairwise(run, one, list(A.MESSAGE_METHODS), CN.MSG_FACTORS)
    finally:
        mp.undo()
    return run, dict(seen), [results, files, msg]


def test_every_printed_ci_of_a_comparison_is_one_ci_per_family(printed) -> None:
    _, seen, _ = printed
    shared = {k: v for k, v in seen.items() if len({w for w, *_ in v}) > 1}
    assert len(shared) >= 20, "the claims, P1 and the findings share comparisons"
    bad = []
    for k, v in shared.items():
        first: dict[int, tuple] = {}
        for w, v2, lo2, hi2, fam2 in v:
            _, value, lo, hi, _ = first.setdefault(fam2, (w, v2, lo2, hi2, fam2))
            if not all(math.isclose(x, y, rel_tol=1e-6)
                       for x, y in ((value, v2), (lo, lo2), (hi, hi2))):
                bad.append((k, first[fam2], (w, v2, lo2, hi2, fam2)))
    assert not bad, f"{len(bad)} comparisons with two CIs at one family, e.g. {bad[:6]}"


def test_each_claim_is_read_at_its_declared_family(printed) -> None:
    from decision.claimtable import FAMILY

    _, _, (results, _, _) = printed
    fixed = {c: m for c, m in FAMILY.items() if isinstance(m, int)}
    seen = 0
    for r in results:
        # C3's crossover reads its sizes above the band as a family of its own
        if r.claim in fixed and r.claim != "C3" and r.basis == C.COPYBENCH and r.details:
            level = S.family_confidence(fixed[r.claim])
            if fixed[r.claim] > 1:
                assert f"CI level {level:.2%}" in r.statistic, (r.claim, r.statistic)
            else:
                assert "CI level" not in r.statistic, (r.claim, r.statistic)
            seen += 1
    assert seen >= 10


def test_c13_cross_core_is_read_at_its_own_level_beside_the_findings(printed) -> None:
    """The verdict table's C13 cross-core at its claim's family (1: 95 %) and the file
    findings' row of the same comparison at theirs (5 sizes: 99 %): one estimate, two levels,
    each labelled."""
    _, _, (results, files, _) = printed
    (r,) = [x for x in results if x.claim == "C13" and x.placement == "cross-core"
            and x.basis == C.COPYBENCH]
    row = files[(files["method"] == "sendfile") & (files["size"] == 100_000_000)
                & (files["placement"] == "cross-core") & (files["scenario"] == "file→socket")]
    assert len(row) == 1
    row = row.iloc[0]
    assert "CI level" not in r.statistic  # family 1: 95 %
    assert row["family"] == 5
    assert row["CI level"] >= 0.99  # its family of 5: at least 1 - 0.05/5
    assert r.rounds and r.lo < r.value < r.hi

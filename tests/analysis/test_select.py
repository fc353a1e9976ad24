"""Row selection by factors (:func:`analysis.loading.run.select`, ``select_columns``) reads
as pandas' own ``df[(df[k] == v) & df[j].isin(vs)]`` would, for every column type a records
table has or could have: strings with missing values, objects, integers, floats with NaN,
nullable integers and booleans, categories; a value of another type than its column matches
nothing."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from analysis.loading import run as A


def _pandas(df: pd.DataFrame, **factors: object) -> pd.DataFrame:
    mask = pd.Series(True, index=df.index)
    for k, v in factors.items():
        if v is None:
            continue
        mask &= df[k].isin(list(v)) if isinstance(v, (list, tuple, set)) else df[k] == v
    return df[mask]


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 60
    pick = lambda vals: [vals[i] for i in rng.integers(0, len(vals), n)]  # noqa: E731
    df = pd.DataFrame({
        "method": pd.array(pick(["send", "sendmsg", None, "zerocopy"]), dtype="str"),
        "placement": pick(["same-core", "cross-core", None, np.nan]),  # object
        "size": pick([1024, 65536, 1048576]),
        "duration_s": pick([1.0, 0.5, np.nan]),
        "threads": pd.array(pick([1, 2, None]), dtype="Int64"),
        "zc": pd.array(pick([True, False, None]), dtype="boolean"),
        "cache": pd.Categorical(pick(["warm", "cold", "n/a"])),
        "gbit_per_s": rng.lognormal(size=n),
    })
    return df.set_index(pd.Index(rng.permutation(1000)[:n]))


CASES = {
    "method": ["send", "nope", ("send", "zerocopy"), 3, pd.NA],
    "placement": ["same-core", ["cross-core"], 1.0, pd.NA],
    "size": [65536, 65536.0, [1024, 1048576], "65536"],
    "duration_s": [1.0, 1, [0.5, np.nan]],
    "threads": [1, 2.0, [1, 2], "1"],
    "zc": [True, False, [True]],
    "cache": ["warm", ["cold", "n/a"], 0],
}


@pytest.mark.parametrize("column", sorted(CASES))
def test_one_factor_selects_as_pandas_does(column: str) -> None:
    df = _frame()
    for v in CASES[column]:
        want = _pandas(df, **{column: v})
        got = A.select(df, **{column: v})
        pd.testing.assert_frame_equal(got, want, obj=f"{column}={v!r}")
        cols = A.select_columns(df, ("gbit_per_s", column, "absent"), **{column: v})
        pd.testing.assert_frame_equal(cols, want[["gbit_per_s", column]], obj=f"{column}={v!r}")


def test_factors_together_select_as_pandas_does() -> None:
    df = _frame()
    for (a, va), (b, vb) in itertools.combinations(
            [(c, v) for c in sorted(CASES) for v in CASES[c]], 2):
        if a == b:
            continue
        pd.testing.assert_frame_equal(A.select(df, **{a: va, b: vb}),
                                      _pandas(df, **{a: va, b: vb}), obj=f"{a}, {b}")


def test_no_factor_and_an_empty_frame() -> None:
    df = _frame()
    pd.testing.assert_frame_equal(A.select(df, method=None), df)
    empty = df.iloc[:0]
    pd.testing.assert_frame_equal(A.select(empty, method="send"), _pandas(empty, method="send"))

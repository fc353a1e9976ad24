"""analysis/statistics/copycount.py, what the book prints of the calibration: a leave-one-out prediction
outside [0, BOUND] is never printed as a count (the book once printed 4.36 [3.81, 4.89] and
quoted 3.87 in C15's reason); its price ratio, which any positive value can be, is."""

from __future__ import annotations

import pandas as pd

from analysis.statistics import copycount as CP
from analysis.words import copies as CO


def test_a_prediction_outside_the_bound_is_no_count() -> None:
    val = pd.DataFrame([
        dict(group="g", method="send", side="total", known=3, estimate=3.85, lo=3.4, hi=4.3),
        dict(group="g", method="sendmsg", side="sender", known=1, estimate=4.36, lo=3.81,
             hi=4.89),
        dict(group="g", method="read-write", side="sender", known=2, estimate=1.61, lo=1.45,
             hi=1.77)])
    v = CP.validation_view(val)
    assert list(v["prediction"]) == [f"not a count (outside [0, {CP.BOUND:g}])"] * 2 + [
        "1.61 [1.45, 1.77]"]
    assert v["price ratio"].round(2).tolist() == [1.28, 4.36, 0.8]
    printed = " ".join(v["prediction"])
    assert "4.36" not in printed and "3.85" not in printed
    assert CP.prediction_text(3.87, 2) == (f"vs 2: not a count, outside [0, {CP.BOUND:g}]: a "
                                           "copied byte costs it 1.94× the others' price")
    assert CP.prediction_text(1.84, 2) == "1.84 vs 2"


def test_an_empty_validation_still_has_its_columns() -> None:
    v = CP.validation_view(pd.DataFrame(columns=CP.VALIDATION_COLUMNS))
    assert {"prediction", "price ratio", "price CI"} <= set(v.columns) and v.empty
    assert CO.price_spread_text(pd.DataFrame(columns=CP.VALIDATION_COLUMNS)).startswith("no ")

"""A cell's two speeds in words, where its trials screen as bimodal
(:func:`analysis.statistics.noise_sources.modes`).
"""

from __future__ import annotations

import numpy as np

from analysis.statistics.noise_sources import modes


def modes_text(values: np.ndarray) -> str:
    """A cell's two speeds in words where its trials screen as bimodal ("0.71× (7 of 20
    trials) and 1.02× (13 of 20) the median"; a single trial on one side of the gap is named
    as one outlier: "1 of 20 trials at 0.42×, the rest at 1.00× the median"), "" where they
    do not (or too few trials to tell)."""
    x = modes(values)
    if not x.bimodal:
        return ""
    k = round(x.share_low * x.n)
    if k == 1:  # one trial on a side of the gap is an outlier, not a second speed: say so
        return f"1 of {x.n} trials at {x.low:.2f}×, the rest at {x.high:.2f}× the median"
    if x.n - k == 1:
        return f"1 of {x.n} trials at {x.high:.2f}×, the rest at {x.low:.2f}× the median"
    return (f"{x.low:.2f}× ({k} of {x.n} trials) and {x.high:.2f}× ({x.n - k} of {x.n}) "
            "the median")

"""The copies chapter's sentences: how far the known configurations disagree about the price
of a copied byte (:mod:`analysis.statistics.copycount`) and the profiles' window
(:mod:`analysis.loading.cpuprofiles`).
"""

from __future__ import annotations

import pandas as pd

from rundir.perf import WINDOW_S


def price_spread_text(val: pd.DataFrame) -> str:
    """How far apart the known configurations of one group put the price of a copied byte
    (prediction / known count), at the group and side where they disagree most."""
    v = val[(val["side"] != "total") & (val["known"].astype(float) > 0)] if len(val) else val
    if v.empty:
        return "no group has two known configurations to compare"
    v = v.assign(price=v["estimate"] / v["known"].astype(float))
    worst = None
    for (grp, side), g in v.groupby(["group", "side"]):
        if len(g) >= 2 and g["price"].min() > 0:
            f = g["price"].max() / g["price"].min()
            if worst is None or f > worst[0]:
                worst = (f, grp, side, g.sort_values("price"))
    if worst is None:
        return "no group has two known configurations on one side"
    f, grp, side, g = worst
    each = ", ".join(f"`{r['method']}` {r['price']:.2f}×" for _, r in g.iterrows())
    return (f"the known configurations of a group disagree about the price of a copied byte by "
            f"up to a factor of {f:.1f} ({grp}, {side}: {each} the price the others of the "
            "group imply)")


def window_text() -> str:
    """The length of the windows a profile is cut into (its bootstrap resamples them)."""
    return f"{WINDOW_S:g} s"

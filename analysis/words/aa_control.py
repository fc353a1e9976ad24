"""The A/A control in words: each pair judged by its one rule (:data:`decision.sesoi.AA_RULE`:
the 95 % CI contains 1, so it passes or fails, never "equivalent"), and the design's
false-positive rate pooled over the committed runs' pairs, per CPU class and over all
(:func:`analysis.claims.baselines.aa_rate_by_class`)."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from analysis.claims.baselines import ALL_CLASSES
from analysis.words import phrases as PH
from decision import sesoi


def pair_text(r: Mapping[str, object]) -> str:
    """One A/A pair judged by the rule: "send against itself (veth, cross-core, stream, size
    16384, run R): 0.973× [0.956, 0.991], fails the A/A rule (its 95 % CI misses 1)"."""
    where = f", run {r['run']}" if r.get("run") else ""
    ok = bool(r["passes"])
    return (f"{r['method']} against itself ({r['configuration']}{where}): "
            f"{PH.ratio_ci({k: float(r[k]) for k in ('ratio', 'lo', 'hi')})}, "
            + ("passes the A/A rule (its 95 % CI contains 1)" if ok else
               "fails the A/A rule (its 95 % CI misses 1)"))


def rate_text(rates: Mapping[str, sesoi.FalsePositives], runs: int) -> str:
    """The pooled false-positive rate: over all the committed runs' pairs first, then per
    CPU class."""
    whole = rates[ALL_CLASSES]
    if not whole.pairs:
        return (f"No committed run of the {runs} read has an A/A pair: the design's "
                "false-positive rate is not estimated.")
    per = [f"on the {c}, {f.text()}" for c, f in rates.items() if c != ALL_CLASSES]
    return (f"The A/A rule ({sesoi.AA_RULE}) over every A/A pair of the committed runs "
            f"({runs} runs read): {whole.text()}"
            + (f"; per CPU class: {'; '.join(per)}" if per else "") + ".")


def failed_text(pairs: pd.DataFrame) -> str:
    """The pairs that fail the rule, each with its run, or that none does."""
    bad = pairs[~pairs["passes"].astype(bool)] if not pairs.empty else pairs
    if bad.empty:
        return "Every A/A pair passes the rule."
    return ("Failing the rule: " + "; ".join(pair_text(r) for _, r in bad.iterrows()) + ".")

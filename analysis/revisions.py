"""The one table of the rules' revisions (the artifact appendix): for each version of the
claims' decision rules (:data:`analysis.claims.rules.REVISIONS`) and of the rule by which a
reviewer's run reproduces the reference (:data:`analysis.reproduce.REVISIONS`), when it took
effect, what changed, and which committed runs were made while it was in force. Every
chapter states the rules in force; only this table says how they came to be. Pure: the
runs' names and times are given.
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

import pandas as pd

from analysis import reproduce as RP
from analysis.claims import rules as RU
from analysis.run import instant

#: the two rules that have revisions, as the book names them
CLAIM_RULES = "claim decision rules"
REPRODUCED_RULE = "Results Reproduced rule"
COLUMNS = ["in force from (UTC)", "rule", "what changed", "runs made under it"]


def versions() -> list[tuple[str, datetime, str]]:
    """Every version of both rules, oldest first: (rule, when it took effect, what changed)."""
    out = [(CLAIM_RULES, instant(w), what) for w, what in RU.REVISIONS]
    out += [(REPRODUCED_RULE, instant(r.when), r.what) for r in RP.REVISIONS]
    return sorted(out, key=lambda v: v[1])


def table(runs: Sequence[tuple[str, datetime | None]]) -> pd.DataFrame:
    """One row per version of each rule; ``runs``: (run id, when it was made) of the
    committed runs the book judges. A run made before a rule's first listed version is
    named in that version's row as "(before it: ...)"."""
    vs = versions()
    rows = []
    for rule in (CLAIM_RULES, REPRODUCED_RULE):
        mine = [v for v in vs if v[0] == rule]
        for i, (_, when, what) in enumerate(mine):
            end = mine[i + 1][1] if i + 1 < len(mine) else None
            made = [rid for rid, t in runs if t is not None and t >= when
                    and (end is None or t < end)]
            before = [rid for rid, t in runs if t is not None and t < when] if i == 0 else []
            names = ", ".join(made) or "none"
            if before:
                names += f" (made before it: {', '.join(before)})"
            rows.append({"in force from (UTC)": when.strftime("%Y-%m-%d %H:%M"), "rule": rule,
                         "what changed": what, "runs made under it": names})
    return pd.DataFrame(rows, columns=COLUMNS)


def in_force_text(run_made: datetime | None) -> str:
    """The sentence under the table: which version judges the book's runs, and which of its
    verdicts are post hoc."""
    latest = max(v[1] for v in versions() if v[0] == CLAIM_RULES)
    when = "" if run_made is None else (
        " This book's run was made before the claim decision rules in force: its verdicts "
        "carry the label post hoc." if run_made < latest else
        " This book's run was made under the claim decision rules in force.")
    return ("Every run in this book is judged by the last version of each rule; a verdict "
            "of a run made before that version is labelled post hoc beside it." + when)

"""The run-level criterion of each rerun's CPU class in words (the replication appendix):
which criterion judged it (:func:`analysis.comparison.reproduce.judge_runs`: same-class or
cross-class), its judgement, and "post hoc" where the rerun was made before that criterion
was declared (its basis or an application after the fact, not its test)."""

from __future__ import annotations

from datetime import datetime

from analysis.comparison import reproduce as RP
from analysis.loading.run import instant


def post_hoc(made: datetime | None, criterion: str) -> bool:
    """Whether a run made at ``made`` precedes the declaration of ``criterion`` in force."""
    return made is None or made < instant(RP.IN_FORCE_BY[criterion].declared)


def judgement_text(run_id: str, machine: str, j: RP.RunJudgement, late: bool) -> str:
    """One rerun's judgement: "run R (2-CPU AMD EPYC), post hoc: study not reproduced by the
    cross-class criterion: ..."."""
    mark = ", post hoc" if late else ""
    return f"run {run_id} ({machine}{mark}): {j.status} by the {j.why}"


def judgements_text(parts: list[str]) -> str:
    if not parts:
        return "No rerun is committed beside this run."
    return ("Each rerun judged by the criterion of its CPU class (post hoc where the rerun was "
            "made before that criterion was declared): " + "; ".join(parts) + ".")

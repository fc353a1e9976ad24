"""A run's design in words, read from its ``plan.json`` (for the method chapter): the
sequential top-up in :func:`decision.sequential.design_text`'s words and what it gave the run,
or the fixed design."""

from __future__ import annotations

from analysis.loading.run import Run
from rundir import planfile
from decision import sequential as sq


def topped_up(run: Run) -> dict[str, int]:
    """Per block of the top-up, the rounds it ran beyond its first look (blocks it gave
    none left out)."""
    blocks = {b: v for b, v in ((run.plan or {}).get("blocks") or {}).items()
              if v.get("sequential")}
    t = run.trials
    ran = t[t["block"].isin(list(blocks))].groupby("block")["repetition"].max()
    return {str(b): int(n) - int(blocks[b]["rounds"]) for b, n in ran.items()
            if int(n) > int(blocks[b]["rounds"])}


def sequential_text(run: Run) -> str:
    """The design of the verdicts' CIs, from the run's plan.json."""
    seq = planfile.sequential_design(run.plan)
    if seq is None:
        return ("This run used the fixed design: every block ran its planned rounds, and each "
                "verdict reads the ordinary t CI of its paired ratios at those rounds.")
    extra = topped_up(run)
    return (f"This run used the sequential top-up: {seq['blocks']} blocks with "
            f"{seq['comparisons']} declared comparisons ran to their first look, and the "
            f"rest of the budget ({seq['topup_budget_s'] / 60:.1f} min of estimated trial "
            f"time) went to the blocks whose comparisons were undecided; it gave "
            f"{sum(extra.values())} more rounds to {len(extra)} of them. "
            + sq.design_text(seq) + " Each verdict reads its comparisons' repeated CIs at "
            "their stopping looks (the first look that decided, else the last look reached).")

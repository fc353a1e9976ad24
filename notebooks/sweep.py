# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Sweep
#
# This notebook runs a sweep of copybench and is kept, executed, in the run directory it made
# (`sweep.ipynb`): the plan and its estimated time, the progress of the run, and the summary
# of trials, failures and exclusions. Execute it with `python -m runner notebook --profile
# NAME` (what `make reproduce` does), which runs it with papermill and seals the run with it;
# `python -m runner sweep` runs the same code without a notebook.

# %% tags=["parameters"]
profile = "quick"  # a profile name (runner/profiles/) or the path of a .toml file
run_dir = ""  # the run directory; empty: data/raw/<run-id>
seed = None  # the plan's seed (any integer, -1 too); None: the profile's own
resume = False  # continue the interrupted run in run_dir
rehearsal = False  # a tenth of the planned rounds: checks the pipeline and book on this plan
remote = ""  # two hosts: the --remote options as JSON (runner/host/inventory.py); empty: one host

# %% [markdown]
# ## The plan

# %%
from pathlib import Path

from rich.console import Console
from rich.table import Table

from runner.plan import estimate as estimate_mod
from runner.host import inventory
from runner.sweep import session
from runner.sweep.progress import fmt_duration, summary_table

run = session.open_run(profile or None, Path(run_dir) if run_dir else None,
                       seed, resume, rehearsal=rehearsal,
                       remote=inventory.spec_from_json(remote))
print(run.headline())
plan_table = Table(title=f"profile {run.profile.name}: cells per experiment")
for col in ("experiment [kind]", "cells", "s per repetition"):
    plan_table.add_column(col, justify="left" if col.startswith("exp") else "right")
for name, ncells, secs in estimate_mod.summary_rows(run.plan):
    plan_table.add_row(name, str(ncells), f"{secs:.0f}")
Console(width=100, color_system=None, force_jupyter=False).print(plan_table)  # plain text: the output also goes to logs
print(f"seed {run.plan.seed}; repetitions {run.plan.rep_min}..{run.plan.rep_max}; "
      f"estimated time {fmt_duration(run.estimate.seconds_expected)}")

# %% [markdown]
# ## Running
#
# One line about every 5 % of the trials, and one for each trial that did not end `ok`.

# %%
result = session.run(run)
print(f"{'complete' if result.complete else 'interrupted (' + str(result.outcome.interrupted) + ')'}"
      f" after {fmt_duration(result.outcome.wall_s)}: {result.status_text()}")

# %% [markdown]
# ## Summary
#
# Trials by status; the profiled trials (run under `perf record`) are kept in the records but
# excluded from the statistics; no other trial is excluded.

# %%
counts = result.status_counts()
print(f"trials recorded: {len(result.records)} ({result.status_text()}); failed or timed out: "
      f"{counts['failed'] + counts['timeout']}; excluded from the statistics: "
      f"{result.profiled()} profiled")
for rec in result.records:
    if rec.get("status") != "ok":
        print(f"  {rec.get('trial_id')}: {rec.get('status')}: {str(rec.get('error'))[:200]}")
if result.complete:
    Console(width=140, color_system=None, force_jupyter=False).print(
        summary_table(run.plan.cells, result.records))
else:
    print(f"resume with: {result.resume_command()}")
print(f"sweep-exit: {result.exit_code()}")

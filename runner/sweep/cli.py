"""``python -m runner {sweep,plan,env,originals}``.

Exit codes: 0 ok (a completed sweep, even with trials that failed on their own, which are
recorded); 1 a runtime failure of the runner; 2 bad usage (one line naming the
file/key/argument and what is allowed; nothing else printed, nothing created); 3 a completed
sweep some of whose trials failed for a cause outside the method they measure (a full disk,
copybench's --dir gone, a topology or the reports' programs not set up: named once);
130/143 interrupted by SIGINT/SIGTERM (the run directory can be resumed with ``--resume``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rundir import atomic, outpath, records
from runner.plan import estimate as estimate_mod
from runner.host import inventory
from runner.plan import noisemodel
from runner.plan import rounds as plan_mod
from runner.plan import profile as profile_mod
from runner.sweep import session
from runner.plan import topup
from runner.host.binary import binary_methods, binary_problem, find_binary, repo_root
from runner.host.errors import OneLineParser, RunnerError, UsageError
from runner.plan.expand import ONE_HOST, TWO_HOSTS
from runner.host.inventory import RemoteSpec
from runner.host.capabilities import Capabilities
from runner.host.manifest import collect
from runner.plan.cells import Plan
from runner.originals.commands import main as originals_main
from runner.originals.fetch import ARCHIVES_ENV
from runner.plan.rounds import make
from runner.sweep.loop import Interrupted
from runner.sweep.progress import fmt_duration, summary_table


def _remote_options(p: argparse.ArgumentParser, plan_only: bool = False) -> None:
    """The ``--remote*`` and ``--inventory`` options of ``sweep`` (and ``plan``, where only
    the adaptation of the profile matters: nothing connects)."""
    g = p.add_argument_group("two hosts (the remote transport)")
    g.add_argument("--remote", metavar="USER@HOST", help="run the sink on this host over "
                   "ssh (an alias of ~/.ssh/config works); socket experiments run over it")
    g.add_argument("--inventory", metavar="FILE", help="TOML with a [remote] table (host, "
                   "data_addr, copybench, cpus, ssh_config, sender_addr)")
    if plan_only:
        return
    g.add_argument("--remote-data-addr", metavar="ADDR",
                   help="the remote address the sender sends to (default: the ssh host's)")
    g.add_argument("--remote-copybench", metavar="PATH",
                   help="copybench on the remote host (default: copybench on its PATH)")
    g.add_argument("--remote-cpus", metavar="LIST",
                   help="the sink's CPUs on the remote host (default: its first online CPU)")
    g.add_argument("--remote-ssh-config", metavar="FILE", help="ssh -F FILE")
    g.add_argument("--remote-sender-addr", metavar="ADDR", help="the only address the "
                   "remote sink serves (default: this host's source address to the data "
                   "address)")


def remote_spec(args: argparse.Namespace) -> RemoteSpec | None:
    """The remote host the command line names (--remote*, --inventory), or None. ``plan``
    takes only --remote and --inventory: the other options are then absent."""
    opts = ("inventory", "remote", "remote_data_addr", "remote_copybench", "remote_cpus",
            "remote_ssh_config", "remote_sender_addr")
    return inventory.from_args(*(getattr(args, k, None) for k in opts))


#: the seeds a plan may have (a profile's [profile] seed, plan.schema.json: 0 or more)
SEED_MAX = 2**63 - 1


def _seed(text: str) -> int:
    """``--seed``: an integer 0..2**63-1, as a profile's seed (a negative one made a plan
    that fails its schema; ``notebook`` used to read -1 as "the profile's own")."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (allowed: 0 to "
                                         f"{SEED_MAX})") from None
    if not 0 <= n <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{text} is outside 0 to {SEED_MAX} (a profile's "
                                         "seed; leave --seed out for the profile's own)")
    return n


def _seed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=_seed, metavar="N", help="override the profile's seed "
                   f"(0 to {SEED_MAX})")
    p.add_argument("--rehearsal", action="store_true",
                   help="the block design at a tenth of its rounds (the A/A block 2, every "
                   "other block 1): checks the pipeline and the book on this plan; not a result")


def _run_options(p: argparse.ArgumentParser, names: str) -> None:
    """What a run takes, for both `sweep` and `notebook` (they run the same code)."""
    p.add_argument("--profile", metavar="NAME|PATH",
                   help=f"profile name ({names}) or path to a .toml file")
    p.add_argument("--run-dir", type=Path, metavar="DIR",
                   help="run directory (default: data/raw/<run-id>)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run in --run-dir (default: the latest run)")
    _seed_options(p)
    g = p.add_argument_group("the reports' own programs (a profile's originals)")
    g.add_argument("--archives", type=Path, metavar="DIR",
                   help="their pinned archives (<owner>+<repo>-<commit>.tar.gz, as "
                   f"../shared/seed-repos) instead of GitHub (make: ORIGINALS_ARCHIVES=DIR; "
                   f"default: ${ARCHIVES_ENV}); checked before anything runs")
    g.add_argument("--without-originals", action="store_true",
                   help="go on where their sources cannot be had: their cells are not run "
                   "(the plan counts them as skipped, with the reason)")


def _use_archives(args: argparse.Namespace) -> None:
    """``--archives DIR``: where the fetch of their sources (and the notebook's kernel,
    which inherits it) looks, through ``$COPYBENCH_ORIGINALS_ARCHIVES``."""
    d = getattr(args, "archives", None)
    if d is None:
        return
    if not d.is_dir():
        raise UsageError(f"--archives {d}: not a directory (allowed: a directory of the "
                         "reports' archives, <owner>+<repo>-<commit>.tar.gz, as "
                         "../shared/seed-repos)")
    os.environ[ARCHIVES_ENV] = str(d.resolve())


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m runner",
                description="Sweep copybench over a profile's design into data/raw/<run-id>/.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=OneLineParser)
    names = ", ".join(profile_mod.available())

    s = sub.add_parser("sweep", help="run a profile's plan (or resume a run)",
                       description="Run every planned trial of a profile and append the "
                       "records to <run-dir>/trials.jsonl.")
    _run_options(s, names)
    s.add_argument("--no-progress", action="store_true", help="no progress output")
    _remote_options(s)

    pl = sub.add_parser("plan", help="print the plan and its estimated time; run nothing",
                        description="Expand a profile into its valid cells and rounds and "
                        "print them with the estimated wall time.")
    pl.add_argument("--profile", required=True, metavar="NAME|PATH",
                    help=f"profile name ({names}) or path to a .toml file")
    _seed_options(pl)
    pl.add_argument("--json", action="store_true", help="print plan.json as it would be written")
    pl.add_argument("--cells", action="store_true", help="list every cell")
    _remote_options(pl, plan_only=True)

    nb = sub.add_parser("notebook", help="run a sweep through the sweep notebook (papermill)",
                        description="Execute notebooks/sweep.ipynb with papermill: the plan "
                        "and its time, progress, and the summary are kept in the run "
                        "directory as sweep.ipynb (sealed with the run).")
    _run_options(nb, names)
    _remote_options(nb)

    no = sub.add_parser("noise", help="the noise model of a block-design run (pilot)",
                        description="Per kind of cell, placement and window: the sd of the "
                        "per-round log ratio of two methods and the per-trial CV, from a "
                        "run's records (the pilot profile's: python -m runner notebook "
                        "--profile pilot). Prints a table; --out writes the TOML a profile's "
                        "[design] noise key names.")
    no.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN",
                    help="run directories (several: pooled, each run's blocks apart)")
    no.add_argument("--out", type=Path, metavar="FILE", help="write the noise model (TOML)")

    pn = sub.add_parser("planning", help="the expected effects of a profile's comparisons, "
                        "from a run (for the plan's expected undecided count)",
                        description="Each comparison the profile declares for the sequential "
                        "top-up, measured in a run that has the same cells (the last "
                        "reference run): its geometric-mean ratio, the sd of its per-round "
                        "log ratios and its rounds. --out writes the TOML a profile's "
                        "[design] sequential.planning names.")
    pn.add_argument("run_dir", type=Path, metavar="RUN", help="a block-design run directory")
    pn.add_argument("--profile", required=True, metavar="NAME|PATH",
                    help=f"profile name ({names}) or path to a .toml file")
    pn.add_argument("--out", type=Path, metavar="FILE", help="write the planning file (TOML)")

    e = sub.add_parser("env", help="print the environment manifest (JSON)",
                       description="Print the manifest.json a sweep would write.")
    e.add_argument("--no-memcpy", action="store_true", help="skip the memcpy bandwidth test")

    sub.add_parser("originals", add_help=False,
                   help="the reports' own programs (S1-S3): fetch pinned, build, run "
                   "(python -m runner originals --help)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["originals"]:  # its own parser: runner/originals/commands.py
        return originals_main(argv[1:], prog="python -m runner originals")
    args = build_parser().parse_args(argv)
    try:
        if args.cmd == "sweep":
            return cmd_sweep(args)
        if args.cmd == "plan":
            return cmd_plan(args)
        if args.cmd == "notebook":
            return cmd_notebook(args)
        if args.cmd == "noise":
            return cmd_noise(args)
        if args.cmd == "planning":
            return cmd_planning(args)
        return cmd_env(args)
    except UsageError as e:
        print(f"runner: {e}", file=sys.stderr)
        return 2
    except records.RecordError as e:  # a run's records that cannot be read: file:line: why
        print(f"runner: {args.cmd}: {e}", file=sys.stderr)
        return 2
    except RunnerError as e:
        print(f"runner: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # one line, never a traceback (run-dir errors are RunnerErrors)
        print(f"runner: {e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before or after the sweep's own handling (e.g. connecting)
        print("runner: interrupted (SIGINT)", file=sys.stderr)
        return 130
    except Interrupted as e:  # a SIGTERM/SIGHUP that came as the sweep ended its loop
        print(f"runner: interrupted ({e})", file=sys.stderr)
        return 128 + e.signum


def _caps() -> Capabilities:
    return Capabilities.detect(binary_methods(find_binary()))


def cmd_plan(args: argparse.Namespace) -> int:
    prof = profile_mod.load(args.profile)
    # over two hosts the plan says (in its notes and its hosts) what that changes
    hosts = TWO_HOSTS if remote_spec(args) is not None else ONE_HOST
    plan = make(prof, _caps(), args.seed, args.rehearsal, hosts)
    if args.json:
        print(json.dumps(plan.to_json(), indent=1))
        return 0
    est = estimate_mod.estimate(plan)
    out = Console(soft_wrap=True, width=max(150, Console().width))
    out.print(f"profile {prof.name} ({prof.path}): {prof.description}", markup=False,
              highlight=False)
    if plan.blocks is None:
        out.print(f"seed {plan.seed}; repetitions {plan.rep_min}..{plan.rep_max}, stop at "
                  f"±{prof.repetitions.target_rel_ci:.1%} ({prof.repetitions.confidence:.0%} "
                  f"bootstrap CI of the median)", markup=False, highlight=False)
    else:
        out.print(blocks_table(plan))
    for n in plan.notes:
        out.print(f"  {n}", markup=False, highlight=False)
    for line in topup_lines(prof, plan):
        out.print(line, markup=False, highlight=False)
    t = Table(title="cells per experiment")
    for col in ("experiment [kind]", "cells", "s per repetition"):
        t.add_column(col, justify="left" if col.startswith("exp") else "right")
    for name, ncells, secs in estimate_mod.summary_rows(plan):
        t.add_row(escape(name), str(ncells), f"{secs:.0f}")
    out.print(t)
    if args.cells:
        for cid, c in sorted(plan.cells.items(), key=lambda kv: kv[1].label()):
            out.print(f"  {cid}  {c.label()}{'  [perf]' if c.perf else ''}", markup=False,
                      highlight=False)
    n_perf = sum(1 for c in plan.cells.values() if c.perf)
    out.print(f"{len(plan.cells)} cells ({n_perf} with a CPU profile); {est.trials_min} to "
              f"{est.trials_max} trials; "
              f"estimated time {fmt_duration(est.seconds_expected)} "
              f"(min {fmt_duration(est.seconds_min)}, max {fmt_duration(est.seconds_max)})",
              markup=False, highlight=False)
    if prof.budget_s and est.seconds_expected > prof.budget_s + 1:
        out.print(f"warning: the estimate exceeds the profile's budget_s = {prof.budget_s:g}",
                  markup=False, highlight=False)
    return 0


def blocks_table(plan: Plan) -> Table:
    """The block design's plan: rounds per block from the noise model, against the target."""
    d = plan.design or {}
    t = Table(title=f"block design: seed {plan.seed}; rounds {d.get('rounds_min')}.."
              f"{d.get('rounds_max')}; target ±{d.get('target', 0):.0%} for claims, control "
              f"and questions, ±{d.get('descriptive_target', 0):.0%} descriptive; primary "
              f"statistic: {d.get('primary')}; noise model: {d.get('noise_source')}")
    cols = ("block", "purpose", "claims", "cells", "rounds", "sd", "expected ±", "target ±",
            "minutes")
    for col in cols:
        t.add_column(col, justify="left" if col in ("block", "purpose", "claims") else "right")
    for r in estimate_mod.block_rows(plan):
        t.add_row(escape(r["block"]), r["purpose"], r["claims"], str(r["cells"]),
                  f"{r['rounds']}..{r['rounds_max']}" if r["rounds_max"] else str(r["rounds"]),
                  f"{r['sd']:.3f}", f"{r['expected ±']:.1%}"
                  + ("" if not r["note"] else " !"), f"{r['target ±']:.0%}",
                  f"{r['minutes']:.1f}")
    return t


def topup_lines(prof: profile_mod.Profile, plan: Plan) -> list[str]:
    """The top-up stage of a sequential plan, in words: looks, maxima, budget, the order
    rule, and the expected number of undecided comparisons (runner.plan.topup.expectations)."""
    seq = (plan.design or {}).get("sequential")
    if not isinstance(seq, dict):
        return []
    lines = [f"top-up stage (sequential design): {seq['blocks']} blocks with "
             f"{seq['comparisons']} declared comparisons run to their first look "
             f"({seq['first_look_text']}), then one look at a time (every "
             f"{seq['look_every']} rounds) up to {seq['max_text']} a block; "
             f"{seq['spending_function']}, alpha {seq['alpha']:g} per family (Bonferroni).",
             f"  budget: {seq['topup_budget_s'] / 60:.1f} min ({seq['budget_rule']})",
             f"  order: {seq['order_rule']}"]
    path = plan_mod.profile_file(prof, seq.get("planning"))
    if path is None:
        lines.append(f"  expected undecided: no planning file ({seq.get('planning')!r} not "
                     "found; python -m runner planning RUN --profile "
                     f"{prof.name} --out FILE writes one)")
        return lines
    effects, run = topup.load_effects(path)
    ex = topup.expectations(plan, effects)
    n = len(ex)
    first = sum(1 - e.p_first for e in ex)
    most = sum(1 - e.p_max for e in ex)
    none = sum(1 for e in ex if e.ratio is None)
    lines.append(
        f"  expected undecided comparisons (each comparison's chance to be decided, by a "
        f"seeded simulation of its repeated CIs with the per-round sd of its block from the "
        f"noise model and the true ratio taken as the same comparison's estimate in "
        f"{path.name}, from run {run}; comparisons without one count as undecided: {none}): "
        f"{first:.1f} of {n} at the first looks alone, {most:.1f} of {n} if every block "
        f"could run to its maximum (the budget decides between the two)")
    worst = sorted(ex, key=lambda e: e.p_max)[:8]
    lines.append("  least likely to be decided by the maximum: " + "; ".join(
        f"{e.label}, {e.comparison}"
        + (f" (planning ratio {e.ratio:.3g}, P {e.p_max:.2f})" if e.ratio else " (no estimate)")
        for e in worst))
    return lines


def out_dir_problem(path: Path, option: str) -> str | None:
    """Why a folder of the runner's output (``scripts/plan_dump.py OUTDIR``) must not be
    ``path`` (:func:`rundir.outpath.new_dir_problem`: a directory that holds anything, a
    link, a path inside a run), or None."""
    return outpath.new_dir_problem(path, option, "the output")


def _out_file(command: str, out: Path | None, header: str) -> None:
    """``--out`` names nothing, or an earlier output of this command (before any work)."""
    problem = None if out is None else outpath.file_problem(out, header)
    if problem:
        raise UsageError(f"{command}: {problem}; nothing written")


def _says_less(command: str, out: Path | None, text: str, table: str, what: str) -> None:
    """An output that would say less than the file it replaces (fewer ``[[table]]`` entries,
    or none at all) is refused before it is written: the earlier file is kept."""
    if out is None:
        return
    mark = f"[[{table}]]"
    new = sum(1 for line in text.splitlines() if line.strip() == mark)
    if new == 0:
        raise UsageError(f"{command}: no {what} to write (0 {what}); {out} is not written "
                         "(an empty file would replace what it holds)")
    try:
        old_text = out.read_text(encoding="utf-8", errors="replace") if out.is_file() else ""
    except OSError:
        old_text = ""
    old = sum(1 for line in old_text.splitlines() if line.strip() == mark)
    if new < old:
        raise UsageError(f"{command}: --out {out} holds {old} {what}, this output only {new}; "
                         "an output that says less is not written over it: choose another "
                         "--out (nothing written)")


def _run_plan(command: str, run_dir: Path) -> None:
    """The run's plan.json is there, strict JSON and valid under its schema (before any
    work: one line, exit 2, never a traceback; :func:`rundir.planfile.checked`)."""
    from rundir import planfile
    try:
        planfile.checked(run_dir)
    except planfile.BadPlan as exc:
        raise UsageError(f"{command}: {exc}; a run's plan.json as the sweep wrote it is "
                         "needed") from None


def cmd_planning(args: argparse.Namespace) -> int:
    if not args.run_dir.is_dir() or records.trials_file(args.run_dir) is None:
        raise UsageError(f"planning: {args.run_dir}: not a run directory (no trials.jsonl)")
    _out_file("planning", args.out, topup.EFFECTS_HEADER)
    _run_plan("planning", args.run_dir)
    prof = profile_mod.load(args.profile)
    plan = make(prof, _caps(), None)
    if not (plan.design or {}).get("sequential"):
        raise UsageError(f"planning: profile {prof.name} has no [design] sequential (nothing "
                         "to plan for)")
    rows = topup.effects_from_run(plan, args.run_dir)
    text = topup.effects_toml(rows, args.run_dir, prof.name)
    _says_less("planning", args.out, text, "effect",
               f"comparisons of profile {prof.name} measured in {args.run_dir}")
    if args.out:
        atomic.write_text(args.out, text)
        print(f"runner: wrote {args.out} ({len(rows)} comparisons)", file=sys.stderr)
    else:
        print(text)
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    binary = find_binary()
    # the sweep's check of its copybench (a process group ended when it answered or timed
    # out): a program that hangs or is not copybench is refused before the manifest runs it
    # again, and leaves nothing running (it ran every question without that, timed out only
    # the direct child, and left its children)
    problem = binary_problem(binary) if binary is not None else None
    if problem:
        raise UsageError(f"env: {problem}")
    print(json.dumps(collect(repo_root(), binary, measure=not args.no_memcpy), indent=1))
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    _use_archives(args)
    o = session.open_run(args.profile, args.run_dir, args.seed, args.resume,
                         progress=not args.no_progress, remote=remote_spec(args),
                         rehearsal=args.rehearsal, without_originals=args.without_originals)
    print(f"runner: {o.headline()}", file=sys.stderr, flush=True)
    res = session.run(o)
    if res.complete:
        con = Console(stderr=True)  # the summary is printed even with --no-progress
        if not con.is_terminal:
            con = Console(stderr=True, width=140)
        con.print(summary_table(o.plan.cells, res.records))
    _print_end(res)
    return res.exit_code()


def _print_end(res: session.Result) -> None:
    out = res.outcome
    print(f"runner: {'done' if out.complete else 'interrupted (' + str(out.interrupted) + ')'}"
          f" in {fmt_duration(out.wall_s)}: {res.status_text()}; {res.run_dir}",
          file=sys.stderr)
    if not out.complete:
        print(f"runner: resume with: {res.resume_command()}", file=sys.stderr)
    elif res.outside_text():
        print(f"runner: {res.outside_text()}", file=sys.stderr)


def cmd_noise(args: argparse.Namespace) -> int:
    for d in args.run_dirs:
        if not d.is_dir() or records.trials_file(d) is None:
            raise UsageError(f"noise: {d}: not a run directory (no trials.jsonl)")
    _out_file("noise", args.out, noisemodel.HEADER)
    rows = noisemodel.from_runs(args.run_dirs)
    if not any(r.log_ratio_sd is not None for r in rows):
        raise UsageError(f"noise: {' '.join(map(str, args.run_dirs))}: no block with two "
                         "methods and three or more rounds (a block-design run, e.g. the "
                         "pilot profile's, is needed)")
    print(noisemodel.table(rows))
    if args.out:
        per_run = ({str(d): noisemodel.from_run(d) for d in args.run_dirs}
                   if len(args.run_dirs) > 1 else None)
        text = noisemodel.to_toml(rows, list(args.run_dirs), per_run)
        _says_less("noise", args.out, text, "sd", "kinds of cell with an sd")
        atomic.write_text(args.out, text)
        print(f"runner: wrote {args.out}", file=sys.stderr)
    return 0


def cmd_notebook(args: argparse.Namespace) -> int:
    # papermill and the Jupyter stack are an optional dependency: only this command needs
    # them (a sweep, a plan or a second machine's bundle run without), and importing them
    # costs every other command about 0.4 s at start
    from runner.sweep import notebook
    _use_archives(args)
    return notebook.execute(args.profile, args.run_dir, args.seed, args.resume, args.rehearsal,
                            remote=remote_spec(args),
                            without_originals=args.without_originals)

"""``python -m runner.originals {fetch,build,run,published,methods}``.

Exit codes: 0 ok; 1 a runtime failure (download, pin mismatch, failed build, a failed or
timed-out trial: the record is still written); 2 bad usage (one line naming the argument
and the allowed values).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rundir import outpath
from runner.host.errors import OneLineParser
from runner.originals import OriginalsError, adapters, sources
from runner.originals import build as build_mod
from runner.originals import fetch, published
from runner.originals.original_trial import run_original
from runner.originals.program_run import check_args
from runner.host.pinning import cpus_for
from runner.host.proc import Janitor
from runner.plan.cells import Cell, Trial
from runner.trial.trialrecord import finish, intended_config, new_record, now, trial_config

PROG = "python -m runner originals"
#: how every line ``run --out`` appends begins (a trial record: ``TrialRecord.to_json``'s
#: first key): a file that begins otherwise is not this command's
RECORD_HEADER = '{"schema_version": '



def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--archives", type=Path, metavar="DIR",
                   help=f"a directory of GitHub's archives (<owner>+<repo>-<commit>.tar.gz) "
                   f"instead of GitHub (default: ${fetch.ARCHIVES_ENV}, else GitHub)")
    p.add_argument("--cache", type=Path, metavar="DIR",
                   help=f"where to keep fetched trees and builds (default: "
                   f"${fetch.CACHE_ENV}, else build/originals)")
    p.add_argument("--pins", type=Path, metavar="FILE", default=sources.SOURCES_TSV,
                   help="pin table (id, repository, commit, tree; default: "
                   "runner/originals/sources.tsv)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = OneLineParser(prog=prog, description="The replicated reports' own programs (S1-S3): "
                "fetch pinned, build as published, run here unprivileged.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=OneLineParser)
    f = sub.add_parser("fetch", help="fetch and verify the pinned repositories")
    f.add_argument("ids", nargs="*", metavar="ID", help="S1 S2 S3 (default: all)")
    _common(f)
    b = sub.add_parser("build", help="fetch, then build with their own Makefile")
    b.add_argument("ids", nargs="*", metavar="ID", help="S1 S2 S3 (default: all)")
    b.add_argument("--json", action="store_true", help="print the build records as JSON")
    _common(b)
    r = sub.add_parser("run", help="run one of their programs (fetching and building first)")
    r.add_argument("--method", required=True, metavar="NAME",
                   help=f"one of {', '.join(adapters.PROGRAMS)}")
    r.add_argument("--transport", default="loopback", help="loopback | veth")
    r.add_argument("--placement", default="same-core", help="same-core | cross-core | unpinned")
    r.add_argument("--threads", type=int, default=1, metavar="N")
    r.add_argument("--size", type=int, default=512, metavar="BYTES",
                   help="message size in bytes, all 8 fields (S1 is given size/8 per field)")
    r.add_argument("--duration", type=int, default=2, metavar="S", help="window, whole seconds")
    r.add_argument("--repeat", type=int, default=1, metavar="N")
    r.add_argument("--server-args", default="explicit", choices=("explicit", "script"),
                   help="S3: pass size and duration to the server (explicit) or start it "
                   "without arguments as their script does (8192 B, 10 s)")
    r.add_argument("--out", type=Path, metavar="FILE",
                   help="append the trial records (JSON lines, a sweep's record shape)")
    _common(r)
    pub = sub.add_parser("published", help="the numbers their committed CSVs hold, per claim")
    pub.add_argument("ids", nargs="*", metavar="ID", help="S1 S2 S3 (default: all)")
    pub.add_argument("--json", action="store_true")
    _common(pub)
    sub.add_parser("methods", help="list the method names")
    return p


def _fetch(ids: list[str], args: argparse.Namespace) -> list[fetch.Fetched]:
    return [fetch.fetch(s, archives=args.archives, cache=args.cache)
            for s in sources.select(ids, sources.load(args.pins))]


def cmd_fetch(args: argparse.Namespace) -> int:
    for f in _fetch(args.ids, args):
        print(f"{f.source.id} {f.source.repository}@{f.source.commit[:12]} tree "
              f"{f.tree[:12]} ok ({f.origin}) -> {f.dir}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    rc = 0
    recs = []
    for f in _fetch(args.ids, args):
        b = build_mod.build(f)
        recs.append(b)
        if b["ok"]:
            print(f"{f.source.id} built in {b['seconds']} s as {b['user']}: {b['compiler']}; "
                  f"flags {' '.join(b['flags'])}; {b['warning_count']} warnings")
        else:
            rc = 1
            print(f"{f.source.id} build failed: {b['reason']}", file=sys.stderr)
    if args.json:
        print(json.dumps(recs, indent=1))
    return rc


def cmd_run(args: argparse.Namespace) -> int:
    prog = adapters.program(args.method)
    check_args(args.transport, args.placement, args.threads, args.size, args.duration)
    prog.size_arg(args.size)
    if not 1 <= args.repeat <= 1000:
        print(f"{PROG}: --repeat {args.repeat} (allowed: 1-1000)", file=sys.stderr)
        return 2
    # --out is appended to only when it is nothing yet or this command's own earlier records
    # (a file whose first line is a record): never a file of the user's, a read-only one, a
    # link, or a file inside a run (rundir.outpath's rule); checked before anything runs
    problem = None if args.out is None else outpath.file_problem(args.out, RECORD_HEADER)
    if problem:
        print(f"{PROG}: {problem}; nothing written", file=sys.stderr)
        return 2
    (f,) = _fetch([prog.source], args)
    b = build_mod.ensure_built(f)
    if not b["ok"]:
        print(f"{PROG}: {prog.source} build failed: {b['reason']}", file=sys.stderr)
        return 1
    cell = Cell(kind=f"original:{prog.source}", command="send", method=prog.name,
                transport=args.transport, placement=args.placement, mode="stream",
                size=args.size, threads=args.threads, cache=None,
                duration_s=float(args.duration), warmup_s=0.0, verify="off",
                fields=adapters.FIELDS, mtu=None, experiment="originals-run")
    prepared = {prog.source: {"dir": str(b["dir"]), "source": f.describe()}}
    rconf = trial_config(cell, cpus_for(cell.placement, cell.has_sink, cell.threads), False)
    run_id = f"originals-run-{now()}"
    janitor = Janitor()
    rc = 0
    try:
        for i in range(args.repeat):
            trial = Trial(cell.id, i + 1)
            started = new_record(run_id, cell, trial, i)
            rec = finish(started, run_original(prepared, cell, rconf, intended_config(cell),
                                               janitor, server_args=args.server_args))
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                # appended, never through a link put there since the check
                fd = os.open(args.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o644)
                with os.fdopen(fd, "a") as fo:
                    fo.write(json.dumps(rec.to_json()) + "\n")
            res = rec.result or {}
            if rec.status == "ok":
                lat = (res.get("theirs") or {}).get("latency_us")
                uid = ((rec.sections.get("identity") or {}).get("server") or {}).get(
                    "uid", ["?"])[0]
                print(f"{prog.name} {args.transport} {args.placement} t={args.threads} "
                      f"size={args.size} ({prog.size_unit} arg {prog.size_arg(args.size)}): "
                      f"{res['gbit_per_s']:.3f} Gbit/s over {res['seconds']:.2f} s, "
                      f"{res['bytes']} B" + (f", their latency {lat:.2f} us" if lat else "")
                      + f" [uid {uid}]")
            else:
                rc = 1
                print(f"{prog.name} {rec.status}: {rec.error}", file=sys.stderr)
    finally:
        janitor.close()
    return rc


def cmd_published(args: argparse.Namespace) -> int:
    trees = {f.source.id: f.dir for f in _fetch(args.ids, args)}
    rows, missing = published.read(trees)
    if args.json:
        print(json.dumps({"rows": rows, "missing": missing}, indent=1))
        return 0
    for r in rows:
        print(f"{r['claim']:4} {r['method']:13} {r['size_as_published']:20} t={r['threads']} "
              f"{r['metric']}: {r['value']:g} {r['unit']}  ({r['file']})")
    for m in missing:
        print(f"{m['claim']:4} {m['source']}: not in their CSVs: {m['reason']}")
    return 0


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        if args.cmd == "methods":
            for name, p in adapters.PROGRAMS.items():
                print(f"{name:14} server {p.server_bin}, client {p.client_bin}, size per "
                      f"{p.size_unit}")
            return 0
        return {"fetch": cmd_fetch, "build": cmd_build, "run": cmd_run,
                "published": cmd_published}[args.cmd](args)
    except OriginalsError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:  # output piped into e.g. head
        sys.stdout = open(os.devnull, "w")
        return 1
    except OSError as e:  # e.g. a cache directory this user may not enter
        where = f" {e.filename}:" if e.filename else ""
        print(f"{prog}:{where} {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130

"""An original program's trial inside a sweep: the same block, round and record as copybench's.

A plan cell of kind ``original:S<n>`` (runner.plan.rounds: an experiment's ``originals``) names one of
their methods (``S2:one-copy``) at the configuration of the copybench cell whose block it joins.
:func:`prepare` fetches and builds each report's code once per run (pinned, unprivileged, as
``python -m runner originals build`` does) and says what it built for the manifest;
:func:`run_original` runs one trial through :func:`runner.originals.program_run.run_program`
and says what it did (:class:`runner.trial.trialrecord.Outcome`, from which the sweep's
record is made): ``result`` in copybench's shape (``bytes``, ``seconds``, ``gbit_per_s``,
``msgs_per_s``; what copybench measures and they do not is absent) with their own printed
numbers and metric definitions under ``result.theirs``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from runner.originals import OriginalsError, adapters, build, fetch, published, sources
from runner.originals.program_run import run_program
from runner.plan.cells import Cell
from runner.host.proc import Janitor
from runner.trial.trialrecord import Outcome

BUILD_KEYS = ("ok", "compiler", "make", "commands", "flags", "warning_count", "warnings",
              "binaries", "seconds", "user", "reason")


def prepare(ids: list[str], log: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """Fetch (pinned) and build each report's code; per id either ``{"dir", "build",
    "source", "published"}`` or ``{"error"}`` (the reason, one line). Never raises for one
    source."""
    out: dict[str, dict[str, Any]] = {}
    pins = sources.load()
    for sid in ids:
        try:
            f = fetch.fetch(pins[sid])
            b = build.ensure_built(f)
        except (OriginalsError, OSError, KeyError) as e:
            out[sid] = {"error": f"fetch or build failed: {e}"}
            log(f"originals {sid}: {out[sid]['error']}; its trials are recorded as failed")
            continue
        if not b.get("ok"):
            out[sid] = {"error": f"build failed: {b.get('reason')}",
                        "build": {k: b.get(k) for k in BUILD_KEYS if k in b},
                        "source": f.describe()}
            log(f"originals {sid}: {out[sid]['error']}; its trials are recorded as failed")
            continue
        out[sid] = {"dir": str(b["dir"]), "source": f.describe(),
                    "build": {k: b.get(k) for k in BUILD_KEYS if k in b},
                    "published": _published(sid, f.dir)}
        log(f"originals {sid}: {f.source.repository}@{f.source.commit[:12]} built "
            f"({b.get('compiler')}; {b.get('warning_count')} warnings)")
    return out


def unavailable(ids: list[str]) -> str | None:
    """Why the pinned sources of ``ids`` cannot be had here (the first that cannot, in one
    clause), or None once each is fetched and verified (into the cache the sweep's
    :func:`prepare` then reads): what ``python -m runner originals fetch`` does, the check
    ``make claims`` makes before its sweep."""
    try:
        pins = sources.load()
        for sid in ids:
            fetch.fetch(pins[sid])
    except KeyError as e:
        return f"{e.args[0]}: not in the pins ({sources.SOURCES_TSV})"
    except (OriginalsError, OSError) as e:
        # fetch's own advice on getting them is the caller's to give, once
        return str(e).split("; without GitHub")[0]
    return None


def _published(sid: str, tree: Path) -> dict[str, Any]:
    """The numbers their committed CSVs hold (read from the verified tree, kept in the
    manifest so the book can set them beside the report's text), or why not."""
    try:
        rows, missing = published.READERS[sid](tree)
    except (OSError, KeyError, ValueError) as e:
        return {"rows": [], "missing": [], "error": f"their CSVs could not be read: {e}"}
    return {"rows": rows, "missing": missing}


def manifest_entry(prepared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What the run's manifest keeps of each source: pin, origin, compiler, flags, warnings."""
    return {sid: {k: v for k, v in p.items() if k != "dir"} for sid, p in prepared.items()}


def _result(res: dict[str, Any]) -> dict[str, Any]:
    shared = ("bytes", "messages", "seconds", "gbit_per_s", "msgs_per_s")
    return {**{k: res.get(k) for k in shared}, "rtt_ns": None, "sender": None,
            "receiver": None,
            "theirs": {k: v for k, v in res.items() if k not in shared}}


def run_original(prepared: dict[str, dict[str, Any]], cell: Cell, rconf: dict[str, Any],
                 intended: dict[str, Any], janitor: Janitor | None = None,
                 server_args: str = "explicit") -> Outcome:
    """One trial of their program named by ``cell``: the kind object is their
    :class:`runner.originals.adapters.Program` (its server's and clients' argv, its parser),
    run by :func:`runner.originals.program_run.run_program`; what it did as the
    :class:`runner.trial.trialrecord.Outcome` the record is made from."""
    src = cell.kind.split(":", 1)[1]
    prep = prepared.get(src) or {"error": "not prepared for this run"}
    prog = adapters.program(cell.method)
    config = {**intended, **rconf, "protocol": "tcp", "verify": "off"}
    tool_version = None
    if "source" in prep:
        s = prep["source"]
        tool_version = f"{s['repository']}@{s['commit'][:12]}"

    def failed(error: str) -> Outcome:
        return Outcome(tool=cell.method, tool_version=tool_version, config=config,
                       status="failed", error=error, result=None)

    if "error" in prep:
        return failed(f"{src}'s programs: {prep['error']}")
    try:
        o = run_program(prog, Path(prep["dir"]), cell.transport or "loopback",
                        cell.placement, cell.threads, cell.size, int(cell.duration_s),
                        janitor=janitor, mtu=cell.mtu, server_args=server_args)
    except OriginalsError as e:  # refused before it ran (arguments, user, binaries): a record
        return failed(f"{cell.method}: {e}")
    theirs_cfg = o.config
    config.update({"size_arg": theirs_cfg.get("size_arg"), "size_unit": prog.size_unit,
                   "field_bytes": theirs_cfg.get("field_bytes"),
                   "cpus_sender": theirs_cfg.get("server_cpus"),
                   "cpus_receiver": theirs_cfg.get("client_cpus"),
                   "host": theirs_cfg.get("host"), "namespaces": theirs_cfg.get("namespaces"),
                   "user": theirs_cfg.get("user")})
    return Outcome(tool=cell.method, tool_version=tool_version, config=config,
                   status=o.status, error=o.error,
                   result=_result(o.result) if isinstance(o.result, dict) else None,
                   sections={"invocation": {**(o.invocation or {}), "exit": o.exit,
                                            "client_wall_s": o.client_wall_s,
                                            "wall_s": o.wall_s},
                             "identity": o.identity, "output": o.output})

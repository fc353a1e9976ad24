"""The catalog of committed runs: every run directory in a ``data/raw`` (one holding its
records, packed ``trials.jsonl.gz`` or not), with what the book says of it before any record
is read::

    id        the directory's name
    profile   the plan's profile ("paper", "claims", "noise-study", ...)
    made      when it was planned (the plan's ``created_at``, else the manifest's), UTC
    packed    whether its records are packed (committed as ``trials.jsonl.gz``)
    cpus      the CPUs its process could use (the manifest's affinity, else its CPU count)
    cpu_class the machine class in its one wording ("AMD EPYC", "Intel Xeon"), from the
              manifest's CPU model
    harness   what the measurement was, from the plan's cells: paired blocks or cells alone,
              the copybench method the parity rule reads beside iperf3, and the
              receiver's factors where the cells set any

Only each run's ``plan.json`` and ``manifest.json`` are read, each as a run's own file
(:func:`rundir.utf8.read`: a regular file within the size cap, never through a link below
the run, strict JSON). A file that is there but cannot be read as a JSON object is a
:class:`BadCatalog` line naming it; a run without a manifest or plan is listed with what is
missing said ("unknown CPU", no profile).
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from decision import parity  # the standard library only
from rundir import layout, utf8

#: the repository's committed runs (a book built from a run elsewhere reads them too)
REPOSITORY_RAW = Path(__file__).resolve().parents[1] / "data" / "raw"
#: the profiles whose runs test the claims (a noise study, a pilot or a validation run does not)
CLAIM_PROFILES = ("paper", "claims", "threads")
#: what a run without a CPU model in its manifest is called
UNKNOWN_CPU = "unknown CPU"
#: the plan cells' factors that configure the receiver (the sink) rather than the sender
RECEIVER_PREFIXES = ("sink", "recv")


class BadCatalog(ValueError):
    """A run's ``plan.json`` or ``manifest.json`` that cannot be read: ``<file>: <what is
    wrong>`` (a link, a FIFO, too large, not UTF-8, not JSON, not an object, a time stamp
    that is not one)."""


@dataclass(frozen=True)
class Harness:
    """What a run measured with, from its plan's cells."""

    blocked: bool  # the cells ran in paired blocks (the block design), else one by one
    parity: str | None  # the copybench method planned beside iperf3 that the parity rule reads
    receiver: tuple[str, ...]  # the receiver's factors the cells set ("sink=kept"), sorted

    @property
    def words(self) -> str:
        """The harness in words: "paired blocks; parity: send / iperf3"."""
        parts = ["paired blocks" if self.blocked else "unblocked cells"]
        if self.parity:
            parts.append(f"parity: {self.parity} / iperf3")
        if self.receiver:
            parts.append("receiver: " + ", ".join(self.receiver))
        return "; ".join(parts)


@dataclass(frozen=True)
class Entry:
    """One committed run of the catalog."""

    path: Path
    profile: str | None
    made: datetime | None
    packed: bool
    cpus: int | None
    cpu_model: str
    harness: Harness

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def cpu_class(self) -> str:
        """The machine class's one wording ("AMD EPYC", "Intel Xeon")."""
        return cpu_class(self.cpu_model)

    @property
    def machine(self) -> str:
        """The class with the CPUs the run could use: "2-CPU AMD EPYC"."""
        return f"{self.cpus}-CPU {self.cpu_class}" if self.cpus else self.cpu_class

    @property
    def machine_key(self) -> tuple[int, str]:
        """What tells two machines apart: the CPUs a run could use and their class."""
        return (self.cpus or 0, self.cpu_class)

    @property
    def tests_claims(self) -> bool:
        return self.profile in CLAIM_PROFILES


_MARKS = re.compile(r"\((?:R|TM|C)\)", re.IGNORECASE)
_NOT_FAMILY = {"processor", "cpu", "core", "with"}


def cpu_class(model: str | None) -> str:
    """A CPU model's class in the book's one wording: its vendor and family, trademarks and
    the model number dropped ("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" and "Intel(R)
    Xeon(R) Processor" are "Intel Xeon"; "AMD EPYC 7763 64-Core Processor" is "AMD EPYC")."""
    if not model or model == UNKNOWN_CPU:
        return UNKNOWN_CPU
    words = [w for w in _MARKS.sub(" ", str(model)).split()
             if w.lower() not in _NOT_FAMILY and not w.startswith("@")]
    return " ".join(words[:2]) if words else UNKNOWN_CPU


def _instant(stamp: Any, where: Path) -> datetime | None:
    if stamp in (None, ""):
        return None
    try:
        t = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        raise BadCatalog(f"{where}: created_at {str(stamp)[:40]!r} is not an ISO time "
                         "stamp") from None
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def _json_object(run_dir: Path, name: str) -> dict[str, Any] | None:
    """The run's JSON file ``name`` as an object, None when absent; damage a BadCatalog."""
    p = run_dir / name
    if not os.path.lexists(p):
        return None
    try:
        doc = utf8.json_loads(utf8.read(p, inside=run_dir))
    except (OSError, ValueError) as exc:  # a link, a FIFO, a device, too large; not JSON
        raise BadCatalog(f"{p}: cannot be read as the run's {name} "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    if not isinstance(doc, dict):
        raise BadCatalog(f"{p}: a JSON {type(doc).__name__}, not the run's {name} (an object)")
    return doc


def _cpus(manifest: dict[str, Any]) -> int | None:
    cpu = manifest.get("cpu") or {}
    if not isinstance(cpu, dict):
        return None
    aff = cpu.get("affinity")
    if isinstance(aff, list) and aff:
        return len(aff)
    n = cpu.get("count")
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def _model(manifest: dict[str, Any]) -> str:
    cpu = manifest.get("cpu") or {}
    model = cpu.get("model") if isinstance(cpu, dict) else None
    return str(model) if model else UNKNOWN_CPU


def harness(plan: dict[str, Any] | None) -> Harness:
    """The run's harness from its plan's cells (:class:`Harness`)."""
    cells = (plan or {}).get("cells")
    cells = [c for c in cells.values() if isinstance(c, dict)] if isinstance(cells, dict) else []
    blocked = bool((plan or {}).get("blocks"))
    paired = _paired_with_iperf3(cells)
    receiver = sorted({f"{k}={c[k]}" for c in cells for k in c
                       if k.startswith(RECEIVER_PREFIXES) and c[k] is not None})
    return Harness(blocked, _parity(paired), tuple(receiver))


def _paired_with_iperf3(cells: list[dict[str, Any]]) -> set[str]:
    """The copybench methods planned in one block with iperf3 in the parity rule's
    configuration (:mod:`decision.parity`: its transport, placement and sizes, one stream)."""
    def at_rule(c: dict[str, Any]) -> bool:
        return (c.get("transport") == parity.TRANSPORT and c.get("placement") == parity.PLACEMENT
                and c.get("size") in parity.SIZES and c.get("mode", "stream") == "stream"
                and c.get("threads", 1) == 1 and bool(c.get("block")))

    blocks = {c["block"] for c in cells if c.get("kind") == "peer:iperf3" and at_rule(c)}
    return {str(c.get("method")) for c in cells
            if c.get("kind") == "copybench" and at_rule(c) and c["block"] in blocks}


def _parity(methods: set[str]) -> str | None:
    """The copybench method the parity rule reads against iperf3 among those planned beside
    it (:func:`decision.parity.declaration`); None when it is neither declaration's."""
    if not methods & {d.method for d in parity.DECLARATIONS}:
        return None
    return parity.declaration(methods).method


def has_records(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds its trial records as a regular file (packed or not)."""
    for name in (layout.TRIALS, layout.TRIALS_PACKED):
        try:
            if stat.S_ISREG(os.lstat(run_dir / name).st_mode):
                return True
        except OSError:
            continue
    return False


#: a file changed this recently (seconds) may change again within its time stamp's tick, so
#: an entry read from it is not kept
RACY_S = 2.0


def _stamp(p: Path) -> tuple[int, ...] | None:
    """What tells a file's content changed (device, inode, size, modification and change
    times), None if absent."""
    try:
        st = os.lstat(p)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def entry(run_dir: str | Path) -> Entry:
    """One run's catalog entry (its plan and manifest read; :class:`BadCatalog` on damage).
    Read again only when one of the files it is read from changed: a notebook asks for the
    same runs' entries many times."""
    d = Path(run_dir)
    stamps = tuple(_stamp(d / n) for n in (layout.PLAN, layout.MANIFEST, layout.TRIALS,
                                           layout.TRIALS_PACKED))
    racy = time.time_ns() - RACY_S * 1e9
    if any(s is not None and max(s[3], s[4]) > racy for s in stamps):
        return _entry.__wrapped__(d, stamps)
    return _entry(d, stamps)


@functools.lru_cache(maxsize=256)
def _entry(d: Path, _stamps: tuple[tuple[int, ...] | None, ...]) -> Entry:
    plan, manifest = _json_object(d, layout.PLAN), _json_object(d, layout.MANIFEST)
    stamp = (plan or {}).get("created_at") or (manifest or {}).get("created_at")
    where = d / (layout.PLAN if (plan or {}).get("created_at") else layout.MANIFEST)
    profile = (plan or {}).get("profile")
    packed = not os.path.lexists(d / layout.TRIALS) and has_records(d)
    return Entry(d, str(profile) if profile else None, _instant(stamp, where), packed,
                 _cpus(manifest or {}), _model(manifest or {}), harness(plan))


def catalog(raw: str | Path) -> list[Entry]:
    """Every run under ``raw`` (each directory holding its records as a regular file), in
    name order, which is the order they were made (a run's id starts with its UTC time)."""
    root = Path(raw)
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise BadCatalog(f"{root}: cannot be listed as a directory of runs "
                         f"({exc.strerror or exc})") from None
    out = []
    for name in names:
        d = root / name
        try:
            if not stat.S_ISDIR(os.lstat(d).st_mode):
                continue  # a file, or a link (a run is a directory of its own)
        except OSError:
            continue
        if has_records(d):
            out.append(entry(d))
    return out


def beside(run_dir: str | Path) -> list[Entry]:
    """The catalog of the directory ``run_dir`` sits in, ``run_dir`` itself excepted."""
    ref = Path(run_dir).resolve()
    return [e for e in catalog(ref.parent) if e.path.resolve() != ref]


def newest(entries: Iterable[Entry], profile: str) -> Entry | None:
    """The newest run of ``profile`` among ``entries``; None when there is none."""
    found = [e for e in entries if e.profile == profile]
    return max(found, key=lambda e: e.run_id) if found else None


def find(raw: str | Path, run_id: str) -> Entry | None:
    """The entry of the run named ``run_id`` under ``raw``; None where it holds no such run."""
    d = Path(raw) / run_id
    return entry(d) if run_id and "/" not in run_id and has_records(d) else None

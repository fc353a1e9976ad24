"""CPU profiles: ``perf record -e cpu-clock -g`` around a trial, reduced to symbol shares.

The reduction reads every sample's thread name, time and leaf symbol (``perf script``) and
keeps, for every symbol, its number of samples and its share of all samples (self time),
marks kernel symbols, and sums kernel symbols into the groups that the run-directory format
defines (:mod:`rundir.perf`). Format 2 adds the samples of each *side* (the sending threads,
``cb-send``/``cb-copy``, and the receiving ones, ``cb-sink``, told apart by their thread
names, not by subtraction) per CPU category and per symbol, and the same counts in
consecutive time windows. The raw ``perf.data`` is deleted after the reduction; only the
small JSON is kept.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from rundir import atomic
from runner.host.proc import ask, private_tmp
from rundir.perf import (CATEGORIES, CATEGORIES_VERSION, FORMAT, KERNEL_GROUPS,
                         MIN_SYMBOL_SAMPLES, SAMPLE_HZ, WINDOW_S, Reduction, Symbol,
                         category_of, group_of, is_copy_routine, side_of_comm, thread_tag)

#: -B (--no-buildid): no build-id table, so perf record copies nothing to /tmp (it copies the
#: vDSO to /tmp/perf-vdso.so-XXXXXX to read its build id, and a perf killed with the sweep
#: leaves that copy) and adds nothing to ~/.debug; the reduction runs on the same machine at
#: once and finds every binary by its path (perf script reads a build id from the file
#: itself where it needs one)
PERF_RECORD = ["perf", "record", "-q", "-B", "-a", "-g", "-e", "cpu-clock", "-F",
               str(SAMPLE_HZ)]


def reduce_rows(sym_rows: list[tuple[int, str, str]],
                comm_rows: list[tuple[int, str, str]] | None = None,
                top: int = 60) -> Reduction:
    total = sum(s for s, _, _ in sym_rows)
    groups: dict[str, float] = {name: 0.0 for name in KERNEL_GROUPS}
    groups["other_kernel"] = 0.0
    user_copy = 0.0
    kernel = 0.0
    symbols = []
    for samples, flag, name in sorted(sym_rows, key=lambda r: -r[0]):
        share = samples / total if total else 0.0
        is_k = flag == "k"
        g = group_of(name, is_k)
        if is_k:
            kernel += share
            groups[g or "other_kernel"] += share
        elif g == "user_copy":
            user_copy += share
        symbols.append(Symbol(name, is_k, samples, share))
    by_comm: dict[str, float] = {}
    if comm_rows:
        ctotal = sum(s for s, _, _ in comm_rows) or 1
        for samples, _, name in comm_rows:
            by_comm[name] = by_comm.get(name, 0.0) + samples / ctotal
    # keep the top symbols plus every copy-group symbol (small files, nothing hidden)
    kept = [s for i, s in enumerate(symbols)
            if i < top or group_of(s.symbol, s.kernel) in ("copy", "user_copy")]
    return Reduction(samples=total, kernel_share=kernel, groups=groups,
                     user_copy_share=user_copy, symbols=kept, by_comm=by_comm)


#: one line of ``perf script -F comm,tid,time,ip,sym,dso -G``
_SCRIPT_LINE = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<tid>\d+)\s+(?:\[\d+\]\s+)?(?P<time>\d+\.\d+):\s+"
                          r"(?P<ip>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")


def parse_script(lines: Iterable[str]) -> Iterable[tuple[str, int, float, str, bool]]:
    """``perf script -F comm,tid,time,ip,sym,dso -G`` -> (comm, tid, time_s, symbol,
    kernel) per sample. A sample without a symbol is ``[unknown]``; kernel samples are
    those in ``[kernel.kallsyms]`` or a module (``[veth]``...) or at a kernel address."""
    for line in lines:
        m = _SCRIPT_LINE.match(line)
        if not m:
            continue
        dso = m["dso"]
        try:
            high = int(m["ip"], 16) >= 0xffff800000000000
        except ValueError:
            high = False
        kernel = dso.startswith("[kernel") or high or (
            dso.startswith("[") and dso not in ("[unknown]", "[vdso]", "[heap]", "[stack]"))
        yield m["comm"].strip(), int(m["tid"]), float(m["time"]), m["sym"].strip() or \
            "[unknown]", kernel


def reduce_samples(samples: Iterable[tuple[str, int, float, str, bool]], top: int = 60,
                   window_s: float = WINDOW_S, tag: str | None = None) -> Reduction:
    """Format-2 reduction of parsed samples (see :mod:`rundir.perf`); ``tag``: the trial's
    thread-name tag (:func:`rundir.perf.thread_tag`), so other copybench processes' threads
    are not counted as this trial's sides."""
    sym_count: Counter[tuple[str, bool]] = Counter()
    comm_count: Counter[str] = Counter()
    side_sym: dict[str, Counter[tuple[str, bool]]] = defaultdict(Counter)
    timed: list[tuple[float, str, str, bool]] = []  # (time, side, category, copy routine)
    for comm, _tid, t, sym, kernel in samples:
        sym_count[(sym, kernel)] += 1
        comm_count[comm] += 1
        side = side_of_comm(comm, tag)
        side_sym[side][(sym, kernel)] += 1
        if side in ("sender", "receiver", "kernel_threads", "setup"):
            timed.append((t, side, category_of(sym, kernel), is_copy_routine(sym, kernel)))
    rows = [(n, "k" if k else ".", sym) for (sym, k), n in sym_count.items()]
    red = reduce_rows(rows, [(n, "", c) for c, n in comm_count.items()], top=top)
    red.format = FORMAT
    red.categories_version = CATEGORIES_VERSION
    red.window_s = window_s
    red.thread_tag = tag
    sides: dict[str, dict] = {}
    for side, counter in side_sym.items():
        cats = {c: 0 for c in CATEGORIES}
        copy = 0
        for (sym, kernel), n in counter.items():
            cats[category_of(sym, kernel)] += n
            copy += n if is_copy_routine(sym, kernel) else 0
        entry: dict = {"samples": sum(counter.values()), "copy": copy, "categories": cats}
        if side in ("sender", "receiver", "kernel_threads"):
            entry["symbols"] = [[sym, kernel, n] for (sym, kernel), n in counter.most_common()
                                if n >= MIN_SYMBOL_SAMPLES or is_copy_routine(sym, kernel)
                                or category_of(sym, kernel) == "data_copy"]
        sides[side] = entry
    red.sides = sides
    # windows: from the first to the last sample of the sending threads
    sent = [t for t, side, _, _ in timed if side == "sender"]
    if sent and window_s > 0:
        t0, t1 = min(sent), max(sent)
        n = max(1, int((t1 - t0) / window_s + 0.5))
        width = (t1 - t0) / n if t1 > t0 else window_s
        wins = [{"t0": round(i * width, 4), "t1": round((i + 1) * width, 4), "sides": {}}
                for i in range(n)]
        for t, side, cat, copy in timed:
            if t < t0 or t > t1:
                continue
            w = wins[min(n - 1, int((t - t0) / width))]["sides"]
            e = w.setdefault(side, {"samples": 0, "copy": 0, "categories": {}})
            e["samples"] += 1
            e["copy"] += int(copy)
            e["categories"][cat] = e["categories"].get(cat, 0) + 1
        red.windows = wins
    return red


def _script(data: Path, tmp: Path | None = None) -> list[str]:
    """``perf script`` of ``data``. With ``tmp`` (the sweep's temporary directory) it runs
    with a private ``/tmp`` inside it (:func:`runner.host.proc.private_tmp`): its copy of the
    vDSO never lands in the real ``/tmp``, even if it is killed with the sweep. The data
    comes on stdin, so its path need not be visible there."""
    with tempfile.TemporaryDirectory(prefix="perf-", dir=tmp) as private, \
            open(data, "rb") as stdin:
        out = subprocess.run(
            ["perf", "script", "-i", "/dev/stdin", "-F", "comm,tid,time,ip,sym,dso", "-G"],
            stdin=stdin, capture_output=True, text=True, check=False, timeout=600,
            preexec_fn=private_tmp(Path(private)) if tmp is not None else None)
    if out.returncode != 0:
        raise RuntimeError(f"perf script failed: {out.stderr.strip()[-500:]}")
    return out.stdout.splitlines()


def reduce_file(data: Path, window_s: float = WINDOW_S, seed: int | None = None,
                tmp: Path | None = None) -> Reduction:
    """``seed``: the trial's pattern seed (copybench's ``--seed``), which names its threads;
    ``tmp``: the sweep's temporary directory (see :func:`_script`)."""
    return reduce_samples(parse_script(_script(data, tmp)), window_s=window_s,
                          tag=None if seed is None else thread_tag(seed))


def available() -> tuple[bool, str]:
    """Whether ``perf record -e cpu-clock`` works here, and why not."""
    if shutil.which("perf") is None:
        return False, "perf is not installed"
    r = ask(["perf", "record", "-q", "-a", "-e", "cpu-clock", "-o", "/dev/null", "--", "true"],
            timeout=30)
    if r.problem is not None:  # it could not start, or hung (its process group is ended)
        return False, f"perf record: {r.problem}"
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        return False, f"perf record -a -e cpu-clock fails: {last.strip()}"
    return True, ""


def store(reduction: Reduction, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps(reduction.to_json(), separators=(",", ":")) + "\n")


# ------------------------------------------------------------ what a run must profile
#
# The copy-count calibration (analysis/statistics/copycount.py) estimates the CPU cost of one copied
# byte per side from the configurations whose count is known, in the same run, at the same
# transport, placement and size, and validates it by leave-one-out. A run supports a
# reported count at a (transport, placement, size) only if it profiled, there:
#   * message (TCP): send, sendmsg, zerocopy (known when every completion is COPIED, as on
#     loopback and veth) and the methods to be counted (uring-zc, vmsplice);
#   * file→socket at the same sizes: read-write, mmap-write, sendfile, splice, splice2;
#   * udp-forward: send and sendmsg (the known ones) with zerocopy/uring-zc;
#   * file→file: read-write, sendfile, splice and copy_file_range (a calibration point only
#     where the manifest records a non-reflink file system for the copy directory);
# with several profiled trials per configuration (CALIBRATION_PROFILED_TRIALS; trial-to-
# trial variation of a side's CPU per byte was ±15-30 % on a loaded 2-CPU VM, so 3 trials
# leave ±10-15 %; 5 make ±0.25 copies reachable) of at least CALIBRATION_WINDOW_S each (the
# reduction cuts them into WINDOW_S windows). The plan gives one profiled trial per cell
# (repetition 0); the analysis takes every trial with repetition <= 0 as a profiled trial
# of its configuration, so a plan that gives N per cell should number them 0, -1, ...,
# -(N-1) (ids <cell>-p, <cell>-p2, ...) and spread them over rounds.

CALIBRATION_PROFILED_TRIALS = 5
CALIBRATION_WINDOW_S = 2.0

"""CPU profiles: ``perf record -e cpu-clock -g`` around a trial, reduced to symbol shares.

The reduction keeps, for every symbol, its number of samples and its share of all samples
(self time, ``--no-children``), marks kernel symbols, and sums kernel symbols into the groups
that the run-directory format defines (:mod:`rundir.perf`). The raw ``perf.data`` is deleted
after the reduction; only the small JSON is kept.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from rundir import atomic
from rundir.perf import KERNEL_GROUPS, SAMPLE_HZ, Reduction, Symbol, group_of

PERF_RECORD = ["perf", "record", "-q", "-a", "-g", "-e", "cpu-clock", "-F", str(SAMPLE_HZ)]


def parse_report(text: str) -> list[tuple[int, str, str]]:
    """Lines of ``perf report --stdio -n -t '\\t' --sort KEY`` -> (samples, flag, name).

    ``flag`` is ``k`` (kernel), ``.`` (user) or ``""`` (a key without a privilege mark).
    """
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        samples = int(parts[1])
        name = "\t".join(parts[2:]).strip()
        flag = ""
        if name.startswith("[") and "] " in name[:5]:
            flag = name[1:name.index("]")]
            name = name[name.index("] ") + 2:].strip()
        rows.append((samples, flag, name))
    return rows


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


def _report(data: Path, sort: str) -> str:
    out = subprocess.run(
        ["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort", sort,
         "-g", "none", "-n", "--percent-limit", "0", "-t", "\t"],
        capture_output=True, text=True, check=False, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"perf report failed: {out.stderr.strip()[-500:]}")
    return out.stdout


def reduce_file(data: Path) -> Reduction:
    return reduce_rows(parse_report(_report(data, "sym")), parse_report(_report(data, "comm")))


def available() -> tuple[bool, str]:
    """Whether ``perf record -e cpu-clock`` works here, and why not."""
    if shutil.which("perf") is None:
        return False, "perf is not installed"
    try:
        r = subprocess.run(["perf", "record", "-q", "-a", "-e", "cpu-clock", "-o",
                            "/dev/null", "--", "true"], capture_output=True, text=True,
                           timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"perf record: {e}"
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        return False, f"perf record -a -e cpu-clock fails: {last.strip()}"
    return True, ""


def store(reduction: Reduction, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps(reduction.to_json(), indent=1) + "\n")

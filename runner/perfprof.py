"""CPU profiles: ``perf record -e cpu-clock -g`` around a trial, reduced to symbol shares.

The reduction keeps, for every symbol, its number of samples and its share of all samples
(self time, ``--no-children``), marks kernel symbols, and sums kernel symbols into groups
(``copy`` = the routines that move bytes: ``*copy_user*``, ``rep_movs*``, ``_copy_to_iter``,
``_copy_from_iter``, ``skb_copy_datagram_iter``, ``*memcpy*`` (e.g. ``__pi_memcpy``),
``skb_copy_ubufs`` (zero-copy pages copied on local delivery)...). User-space ``memcpy``/
``memmove`` (the ``send`` method's gather copy) is its own group, ``user_copy``. The raw
``perf.data`` is deleted after the reduction; only the small JSON is kept.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PERF_RECORD = ["perf", "record", "-q", "-a", "-g", "-e", "cpu-clock", "-F", "1999"]

# kernel symbol groups; a symbol counts in the first group it matches
KERNEL_GROUPS: dict[str, tuple[str, ...]] = {
    "copy": ("*copy_user*", "rep_movs*", "_copy_to_iter", "_copy_from_iter",
             "skb_copy_datagram_iter", "memcpy*", "*memcpy*", "*memmove*",
             "copy_page", "copy_mc_*", "*copy_to_user*", "*copy_from_user*",
             "_copy_to_user", "_copy_from_user", "copyin", "copyout",
             # the copy of MSG_ZEROCOPY pages when an skb is delivered locally, and the
             # iov_iter page-copy entry points
             "skb_copy_ubufs", "skb_copy_bits", "copy_page_to_iter", "copy_page_from_iter",
             "copy_folio_to_iter", "copy_folio_from_iter*"),
    "checksum": ("*csum*", "*checksum*"),
    "zerocopy": ("*zerocopy*", "*msg_zerocopy*", "*zcopy*", "__zerocopy_sg_from_iter",
                 "io_send_zc*", "io_notif*", "sock_zerocopy*", "skb_zerocopy*"),
    "pages": ("*get_user_pages*", "*pin_user_pages*", "*gup_*", "__alloc_pages*",
              "*free_pages*", "*page_frag*", "*folio*", "*rmqueue*", "*free_unref*",
              "clear_page*", "*page_cache*", "filemap_*"),
    "splice_pipe": ("*splice*", "*pipe*", "*vmsplice*", "*sendfile*"),
    "tcp_ip": ("tcp_*", "__tcp_*", "ip_*", "__ip_*", "ipv4_*", "udp_*", "__udp_*",
               "*skb*", "sock_*", "sk_*", "__sk_*", "inet_*", "__dev_*", "dev_*",
               "net_rx*", "__netif*", "netif_*", "veth_*", "loopback_*", "napi_*",
               "__napi*", "process_backlog", "*nf_hook*", "fib_*"),
    "locking": ("*spin_lock*", "*spin_unlock*", "_raw_*", "*mutex*", "*rwsem*"),
    "scheduler": ("schedule*", "__schedule", "*switch_to*", "finish_task_switch*",
                  "*try_to_wake_up*", "*enqueue_*", "*dequeue_*", "pick_next*",
                  "update_curr*", "*wake_up*"),
    "syscall_entry": ("entry_SYSCALL*", "do_syscall_64", "syscall_*", "__x64_sys_*",
                      "*exit_to_user_mode*", "syscall_exit*"),
    "idle": ("*idle*", "*halt*", "mwait*", "poll_idle"),
}
USER_COPY = ("memcpy*", "__memcpy*", "memmove*", "__memmove*", "*memcpy_avx*", "*memmove_avx*")


@dataclass
class Symbol:
    symbol: str
    kernel: bool
    samples: int
    share: float  # of all samples


@dataclass
class Reduction:
    samples: int
    kernel_share: float
    groups: dict[str, float]  # share of all samples per group (kernel symbols)
    user_copy_share: float
    symbols: list[Symbol] = field(default_factory=list)
    by_comm: dict[str, float] = field(default_factory=dict)
    event: str = "cpu-clock"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def group_of(symbol: str, kernel: bool) -> str | None:
    if not kernel:
        return "user_copy" if any(fnmatch.fnmatchcase(symbol, p) for p in USER_COPY) else None
    for name, patterns in KERNEL_GROUPS.items():
        if any(fnmatch.fnmatchcase(symbol, p) for p in patterns):
            return name
    return "other_kernel"


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
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(reduction.to_json(), indent=1) + "\n")
    tmp.replace(path)

"""The CPU-profile files of a run: ``perf/<trial>.json``, one per profiled trial.

A profile is ``perf record -a -g -e cpu-clock -F SAMPLE_HZ`` around a trial, reduced to
symbol shares (self time, ``--no-children``) of *all* samples, idle included. Kernel symbols
are summed into groups: a symbol counts in the first group it matches (``copy`` = the
routines that move bytes: ``*copy_user*``, ``rep_movs*``, ``_copy_to_iter``,
``_copy_from_iter``, ``skb_copy_datagram_iter``, ``*memcpy*`` (e.g. ``__pi_memcpy``),
``skb_copy_ubufs`` (zero-copy pages copied on local delivery)...). User-space ``memcpy``/
``memmove`` (the ``send`` method's gather copy) is its own group, ``user_copy``.

The runner writes these files (``runner.perfprof``); the analysis reads them. The groups are
part of the format: both sides classify a symbol with :func:`group_of`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import asdict, dataclass, field
from typing import Any

#: ``perf record -F``: samples per second per CPU (a prime, so sampling does not lock onto
#: a periodic timer).
SAMPLE_HZ = 1999

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



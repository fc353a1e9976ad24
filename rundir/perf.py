"""The CPU-profile files of a run: ``perf/<trial>.json``, one per profiled trial.

A profile is ``perf record -a -g -e cpu-clock -F SAMPLE_HZ`` around a trial, reduced to
symbol shares (self time, ``--no-children``) of *all* samples, idle included. Kernel symbols
are summed into groups: a symbol counts in the first group it matches (``copy`` = the
routines that move bytes: ``*copy_user*``, ``rep_movs*``, ``_copy_to_iter``,
``_copy_from_iter``, ``skb_copy_datagram_iter``, ``*memcpy*`` (e.g. ``__pi_memcpy``),
``skb_copy_ubufs`` (zero-copy pages copied on local delivery)...). User-space ``memcpy``/
``memmove`` (the ``send`` method's gather copy) is its own group, ``user_copy``.

The runner writes these files (``runner.host.cpuprofile``); the analysis reads them. The groups are
part of the format: both sides classify a symbol with :func:`group_of`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import asdict, dataclass, field
from functools import lru_cache
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
    # format 2 (see below): per-side counts, per-window counts
    format: int = 1
    sides: dict[str, dict[str, Any]] = field(default_factory=dict)
    windows: list[dict[str, Any]] = field(default_factory=list)
    window_s: float | None = None
    thread_tag: str | None = None
    sample_hz: int = SAMPLE_HZ
    categories_version: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@lru_cache(maxsize=1 << 16)  # a profile names each symbol in many samples and windows
def group_of(symbol: str, kernel: bool) -> str | None:
    if not kernel:
        return "user_copy" if any(fnmatch.fnmatchcase(symbol, p) for p in USER_COPY) else None
    for name, patterns in KERNEL_GROUPS.items():
        if any(fnmatch.fnmatchcase(symbol, p) for p in patterns):
            return name
    return "other_kernel"




# --------------------------------------------------------------------------- format 2
#
# Format 2 (this module's FORMAT) adds, beside everything format 1 had:
#   ``format``: 2
#   ``sides``: {side: {"samples": n, "categories": {category: n},
#                      "symbols": [[symbol, kernel, samples], ...]}}
#       samples of the threads of each side, by comm (see SIDE_OF_COMM), never by
#       subtraction; ``symbols`` keeps every symbol of the sender and receiver sides
#       down to MIN_SYMBOL_SAMPLES samples, and every data-copy symbol.
#   ``windows``: [{"t0": s, "t1": s, "sides": {side: {"samples": n,
#                                                     "categories": {category: n}}}}]
#       the same counts in consecutive time windows of the profile (``window_s`` long,
#       from the first to the last sample of the sending threads), so the analysis can
#       see profile-to-profile variation within a trial as well as across trials.
#   ``window_s``, ``sample_hz``, ``categories_version``.
# Format-1 files (no ``format`` key) stay readable: they lack ``sides`` and ``windows``.

FORMAT = 2
CATEGORIES_VERSION = 1

#: Which side of the transfer a thread's samples belong to, by its comm. copybench names
#: its threads with prctl(PR_SET_NAME) ``<role>.<tag>``, tag = the trial's pattern seed mod
#: 100000 as five digits (:func:`thread_tag`): ``cb-send.<tag>`` (every sending thread, and
#: the second thread of splice2, which inherits the name), ``cb-sink.<tag>`` (every
#: receiving thread), ``cb-copy.<tag>`` (the copying thread of ``copybench copy``); the
#: main threads keep the name ``copybench`` and only set up (file generation, control
#: connection). With the trial's tag, threads of *other* copybench processes running at the
#: same time (another tag) count as ``other``.
SIDE_OF_COMM: tuple[tuple[str, str], ...] = (
    ("cb-send*", "sender"), ("cb-copy*", "sender"), ("cb-sink*", "receiver"),
    ("copybench", "setup"), ("ksoftirqd/*", "kernel_threads"), ("kworker/*", "kernel_threads"),
    ("swapper", "idle"),
)
SIDES = ("sender", "receiver", "setup", "kernel_threads", "idle", "other")


def thread_tag(seed: int) -> str:
    """The suffix copybench gives its thread names for a trial with this pattern seed."""
    return f"{seed % 100000:05d}"


def side_of_comm(comm: str, tag: str | None = None) -> str:
    if tag is not None and comm.startswith("cb-"):
        role, _, t = comm.partition(".")
        if t != tag:
            return "other"
        return {"cb-send": "sender", "cb-copy": "sender", "cb-sink": "receiver"}.get(role,
                                                                                    "other")
    for pattern, side in SIDE_OF_COMM:
        if fnmatch.fnmatchcase(comm, pattern):
            return side
    return "other"


#: CPU categories after Cai et al., "Understanding Host Network Stack Overheads"
#: (SIGCOMM 2021), whose artifact maps symbols to data_copy, tcp/ip, netdev, skb, mm,
#: lock, sched and etc (``symbol_mapping.tsv`` in
#: github.com/Terabit-Ethernet/Understanding-network-stack-overheads-SIGCOMM-2021).
#: Differences, on purpose: system-call entry/exit is its own category (Cai et al. count
#: ``entry_SYSCALL_64``/``do_syscall_64`` as sched); the zero-copy completion path (error
#: queue, io_uring notifications and completions) is its own category; page pinning
#: (``get_user_pages``, ``iov_iter_get_pages``, ``__zerocopy_sg_from_iter``) and page
#: faults are memory management; user-space code other than memcpy/memmove is ``user``;
#: ``memset``/checksums are ``other`` (Cai et al.: data_copy / etc).
CATEGORIES: tuple[str, ...] = ("data_copy", "tcp_ip", "netdev", "skb", "mm", "lock", "sched",
                               "syscall", "completion", "user", "other")
CATEGORY_LABELS = {
    "data_copy": "data copy", "tcp_ip": "TCP/IP", "netdev": "netdevice / driver",
    "skb": "skb alloc/free", "mm": "memory mgmt (pinning, GUP, faults)", "lock": "locks",
    "sched": "scheduling / wakeups", "syscall": "syscall entry/exit",
    "completion": "errqueue / io_uring completion", "user": "user space (not copy)",
    "other": "other",
}
#: exact kernel symbols first (they override the patterns below)
CATEGORY_EXACT: dict[str, str] = {
    # Cai et al. count the hardened-usercopy checks and iov_iter bookkeeping as data copy
    "__check_object_size": "data_copy", "check_heap_object": "data_copy",
    "__virt_addr_valid": "data_copy", "check_stack_object": "data_copy",
    "iov_iter_advance": "data_copy", "simple_copy_to_iter": "data_copy",
    "__skb_datagram_iter": "data_copy",
    "sk_wait_data": "sched", "sock_def_readable": "sched", "wait_woken": "sched",
    "woken_wake_function": "sched", "sk_stream_wait_memory": "sched",
    "__local_bh_enable_ip": "sched", "handle_softirqs": "sched", "__do_softirq": "sched",
    "do_softirq": "sched", "irq_exit_rcu": "sched",
    "lock_sock_nested": "lock", "__lock_sock": "lock", "release_sock": "tcp_ip",
    "__release_sock": "tcp_ip",
    "process_backlog": "netdev", "enqueue_to_backlog": "netdev", "loopback_xmit": "netdev",
    "kfree_skbmem": "skb", "skb_release_data": "skb", "skb_release_head_state": "skb",
    "skb_segment": "skb", "skb_try_coalesce": "skb", "skb_shift": "skb",
    "pskb_expand_head": "skb", "sk_page_frag_refill": "skb", "skb_page_frag_refill": "skb",
    "tcp_stream_alloc_skb": "skb", "sk_stream_alloc_skb": "skb",
    "mm_account_pinned_pages": "mm",
}
#: then the first matching pattern, in this order
CATEGORY_PATTERNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("data_copy", KERNEL_GROUPS["copy"] + ("__pi_memcpy*", "__pi_memmove*", "copy_to_iter*",
                                           "copy_from_iter*", "*_copy_to_iter*",
                                           "*_copy_from_iter*", "memcpy_to_page",
                                           "memcpy_from_page")),
    ("completion", ("*msg_zerocopy*", "*zerocopy_callback*", "*zerocopy_put*",
                    "*zerocopy_realloc*", "*zcopy*", "net_zcopy*", "sock_zerocopy*",
                    "*errqueue*", "sock_dequeue_err_skb", "ip_recv_error", "ipv6_recv_error",
                    "sock_recv_errqueue", "io_notif*", "io_tx_ubuf*", "io_uring*",
                    "__io_uring*", "io_cqring*", "__io_cq*", "io_cq*", "io_req*", "__io_req*",
                    "io_fill_cqe*", "io_submit*", "io_issue*", "io_send*", "io_sendmsg*",
                    "io_sendrecv*", "io_wq*", "io_run*", "__io_run*", "io_post*", "io_poll*",
                    "io_free*", "io_alloc*", "io_get*", "io_put*", "io_queue*", "io_sq*",
                    "io_ring*")),
    ("mm", ("*get_user_pages*", "*pin_user_pages*", "*gup_*", "follow_page*",
            "iov_iter_get_pages*", "iov_iter_extract*", "*zerocopy_sg_from_iter*",
            "zerocopy_fill_skb_from_iter", "*unpin_user_page*", "*page_fault*",
            "exc_page_fault", "asm_exc_page_fault", "handle_mm_fault", "__handle_mm_fault",
            "do_*fault*", "*filemap_fault*", "filemap_map_pages", "*alloc_pages*",
            "*free_pages*", "*free_frozen_pages*", "__free_one_page", "free_unref*",
            "*page_frag*", "get_page_from_freelist", "*rmqueue*", "clear_page*",
            "__get_pfnblock*", "*folio*", "*page_cache*", "filemap_*", "put_page",
            "__put_page", "release_pages", "*lru*", "mem_cgroup*", "__mod_*state*",
            "mod_*state*", "kmem_cache_*", "*kmalloc*", "kfree", "__kmem_cache*",
            "*slab*", "__ksize", "ksize", "*mmap*", "unmap_*", "zap_*", "tlb_*",
            "*tlb*", "vm_*", "vma_*", "__vm_*", "mm_*", "__mm_*", "pte_*", "pmd_*",
            "*_pte_*", "page_*", "__page_*", "*pageblock*", "workingset_*",
            "xas_*", "__xa_*", "xa_*", "__filemap_*", "touch_atime", "mark_page_accessed",
            "truncate_*", "shmem_*")),
    ("skb", ("*alloc_skb*", "*build_skb*", "*kfree_skb*", "__kfree_skb*", "consume_skb",
             "skb_clone", "__skb_clone", "__copy_skb_header", "skb_put", "skb_push",
             "skb_pull", "skb_release*", "skb_free*", "skb_add_rx_frag*", "skb_entail",
             "skb_split", "skb_attempt_defer_free", "skb_defer_free*", "napi_skb_cache*",
             "skb_headers_offset_update", "__skb_flow_dissect", "__skb_get_hash*",
             "skb_condense", "skb_orphan*", "skb_set_owner*", "*skb_head*",
             "__netdev_alloc*", "netdev_alloc*", "napi_alloc*", "__napi_alloc*")),
    ("netdev", ("*gro_*", "*gso_*", "dev_*", "__dev_*", "netif_*", "__netif*", "napi_*",
                "__napi*", "net_rx_action", "net_tx_action", "veth_*", "loopback_*",
                "eth_*", "*qdisc*", "sch_*", "pfifo*", "fq_codel*", "validate_xmit*",
                "netdev_*", "__netdev_*", "skb_network_protocol", "__skb_flow_get_ports",
                "get_rps_cpu", "rps_*", "skb_mac_gso*", "dma_*", "xmit_*", "*_xmit",
                "txq_*", "__skb_checksum", "skb_csum_hwoffload_help", "ethtool_*")),
    ("tcp_ip", ("tcp_*", "__tcp_*", "tcp4_*", "tcpv4_*", "bbr_*", "cubictcp_*", "ip_*",
                "__ip_*", "ipv4_*", "ipv6_*", "ip6_*", "__ip6_*", "udp_*", "__udp_*",
                "udpv6_*", "udp4_*", "__udp4_*", "inet_*", "__inet_*", "inet6_*",
                "sock_*", "__sock_*", "sk_*", "__sk_*", "sock_i*", "*nf_*", "nf_*",
                "ipt_*", "iptable_*", "fib_*", "__fib_*", "dst_*", "__dst_*", "rt_*",
                "raw_local_deliver", "rb_*", "security_sock*", "security_socket*",
                "apparmor_*", "selinux_*", "__sys_recv*", "__sys_send*", "____sys_*",
                "___sys_*", "__sys_sendmsg", "__sys_recvmsg", "sys_sendmsg", "sys_recvmsg",
                "sockfd_lookup*", "__sock_sendmsg", "sock_sendmsg", "sock_recvmsg",
                "sock_write_iter", "sock_read_iter", "neigh_*", "__neigh_*",
                "skb_copy_and_csum*", "icmp_*", "__icmp_*", "*conntrack*", "ktime_get*",
                "skb_rbtree_*", "skb_queue_*", "skb_dequeue*", "__skb_dequeue*",
                "skb_*")),
    ("lock", ("*spin_lock*", "*spin_unlock*", "*spin_trylock*", "_raw_*", "*queued_spin*",
              "*queued_*lock*", "*mutex*", "*rwsem*", "osq_*", "rcu_*", "__rcu_*",
              "*read_lock*", "*write_lock*", "*read_unlock*", "*write_unlock*",
              "*seqlock*", "*lock_slowpath*")),
    ("sched", ("schedule*", "__schedule", "*switch_to*", "finish_task_switch*",
               "*try_to_wake_up*", "ttwu_*", "*enqueue_task*", "*dequeue_task*",
               "enqueue_entity", "dequeue_entity*", "pick_next*", "pick_task*", "put_prev*",
               "set_next*", "update_curr*", "update_rq_clock*", "*wake_up*", "__wake*",
               "psi_*", "switch_mm*", "*cond_resched*", "load_balance", "sched_*",
               "__sched_*", "update_load_avg*", "__update_load_avg*", "reweight_*",
               "update_cfs*", "*hrtick*", "resched_*", "check_preempt*", "wakeup_*",
               "select_task_rq*", "select_idle*", "available_idle*", "irqentry_*",
               "irq_enter*", "irq_exit*", "do_softirq*", "raise_softirq*",
               "__raise_softirq*", "tick_*", "hrtimer_*", "__hrtimer_*",
               "sysvec_apic_timer*", "asm_sysvec_*", "sysvec_*", "cpuacct_*",
               "account_*", "__account_*", "task_tick*", "read_tsc", "native_sched_clock",
               "sched_clock*", "cpuidle_*", "do_idle", "*poll_idle*", "default_idle*")),
    ("syscall", ("entry_SYSCALL*", "do_syscall_64", "syscall_*", "__x64_sys_*", "x64_sys_call",
                 "__ia32_sys_*", "*exit_to_user_mode*", "syscall_return_via_sysret",
                 "switch_fpu_return", "fpregs_*", "restore_fpregs*", "__fdget*", "fdget*",
                 "__fget*", "fget*", "fput*", "__fput*", "ksys_*", "vfs_read", "vfs_write",
                 "rw_verify_area", "__fsnotify*", "fsnotify*", "security_file_permission",
                 "apparmor_file_permission", "common_file_perm", "aa_file_perm",
                 "audit_*", "__audit_*", "*syscall_enter*", "*syscall_exit*",
                 "perf_syscall_*", "perf_trace_*", "perf_tp_*", "trace_*")),
)


@lru_cache(maxsize=1 << 16)  # as group_of: the patterns are this module's constants
def category_of(symbol: str, kernel: bool) -> str:
    """The CPU category (:data:`CATEGORIES`) of a sample's leaf symbol."""
    if not kernel:
        if any(fnmatch.fnmatchcase(symbol, p) for p in USER_COPY):
            return "data_copy"
        return "user"
    hit = CATEGORY_EXACT.get(symbol)
    if hit:
        return hit
    for name, patterns in CATEGORY_PATTERNS:
        if any(fnmatch.fnmatchcase(symbol, p) for p in patterns):
            return name
    return "other"


#: kept in ``sides[*].symbols``: every symbol with at least this many samples (plus every
#: data-copy symbol)
MIN_SYMBOL_SAMPLES = 2
#: default length of one profile window (s)
WINDOW_S = 0.5


def read_sides(o: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The per-side counts of a reduction read from JSON; None for format-1 files."""
    sides = o.get("sides")
    return sides if isinstance(sides, dict) and sides else None


def is_copy_routine(symbol: str, kernel: bool) -> bool:
    """A routine that moves bytes (the ``copy`` group, user memcpy/memmove, and newer
    kernels' ``__pi_memcpy``/``__pi_memmove`` aliases): what the copy count is made of.
    Narrower than the ``data_copy`` category, which also holds the hardened-usercopy
    checks and the iov_iter bookkeeping around the copies."""
    if kernel and (symbol.startswith("__pi_memcpy") or symbol.startswith("__pi_memmove")):
        return True
    return group_of(symbol, kernel) in ("copy", "user_copy")

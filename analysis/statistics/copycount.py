"""How many times the CPU copies each byte: a count calibrated, in the same run and at the
same size, on the configurations whose count is known, and validated before it is used.

The quantity measured per configuration and per side (the sending threads ``cb-send`` /
``cb-copy``, the receiving ones ``cb-sink``, told apart in the system-wide profile by thread
name) is the CPU time spent in copy routines per byte moved, per profiled trial::

    y = (copy-routine samples of the side / all samples of the side)
        x (CPU-seconds of the side / bytes moved)          both from the same profiled trial

averaged over the configuration's profiled trials. Both factors come from the same trial on
purpose: on a shared machine, interference changes a side's CPU per byte from trial to
trial, and the share and the CPU per byte of one trial see the same interference. (perf's
own overhead is in both the known and the unknown configurations and cancels in the
calibration.) Where a profiled trial's record lacks the side's CPU time, the median over
the measured trials of the configuration is used instead.

A copy count needs the CPU cost of copying one byte once, ``c``. It is not taken from a
memcpy benchmark elsewhere (a 64 MiB memcpy is memory-bound; a 64 KiB copy stays in cache)
but estimated from the configurations of the same *calibration group* (transport,
placement, size; same run) whose count on that side is known by construction
(:data:`KNOWN`): ``c = sum(y) / sum(known count)`` over them. A configuration's count on a
side is ``y / c``; end to end, the sum over the sides. The count is never a difference, so
it cannot be negative.

**Validation before use (leave-one-out).** Each known configuration of a group is predicted
from the others of its group (``c`` estimated without it). The group *validates* when every
prediction, per side and end to end, lands within :data:`TOLERANCE` of the known count and
the group has at least two known configurations with a non-zero count on each of its sides.
Only in validated groups are counts reported; elsewhere the copy-routine CPU share is
reported and the count is *not identifiable* (with the reason). A count outside
``[0, BOUND]`` (the largest count any method has, 3, plus the tolerance) is not reported
either: it is flagged, never printed as a number.

**Uncertainty.** Percentile bootstrap (:data:`RESAMPLES` resamples, seeded): the profiled
trials of a configuration are resampled, then each drawn trial's time windows (``rundir.perf``
format 2), so the CI covers profile-to-profile variation (with one profiled trial, only the
variation between its windows). Every estimate carries the number of samples and profiled
trials it rests on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analysis.statistics.fmt import fmt_size
from analysis.statistics.stats import CONFIDENCE

#: largest number of CPU copies per byte any method here performs (send and read-write: 3
#: end to end; no side does more)
MAX_TOTAL = 3.0
#: a leave-one-out prediction must land within this many copies per byte of the known count
TOLERANCE = 0.25
#: a reported count must lie in [0, BOUND]: the largest count plus the validation
#: tolerance (a method with 3 copies is validated when estimated at 3.2, so 3.2 is not an
#: impossible value; 3.3 is). The count is a ratio of non-negative numbers, so never < 0.
BOUND = MAX_TOTAL + TOLERANCE
RESAMPLES = 2000

SIDES_OF = {"message": ("sender", "receiver"), "file→socket": ("sender", "receiver"),
            "file→file": ("sender",)}


@dataclass(frozen=True)
class Known:
    """A configuration whose CPU copies per byte are known by construction."""

    scenario: str
    method: str
    transports: tuple[str | None, ...]
    sender: int
    receiver: int | None
    path: str  # the kernel path, for the book
    condition: str = ""  # when it is a calibration point at all


#: The configurations with a known count, with the kernel path of each copy. TCP receivers
#: (``copybench sink``) ``recv()`` into a user buffer: one copy, ``tcp_recvmsg`` ->
#: ``skb_copy_datagram_iter`` -> ``_copy_to_iter`` (copy_to_user), in the sink's thread.
KNOWN: tuple[Known, ...] = (
    Known("message", "sendmsg", ("loopback", "veth"), 1, 1,
          "sender: sendmsg(iov of the fields) -> tcp_sendmsg_locked -> skb_copy_to_page_nocache"
          " / _copy_from_iter (copy_from_user into the skb's pages); receiver: tcp_recvmsg ->"
          " _copy_to_iter (copy_to_user)"),
    Known("message", "send", ("loopback", "veth"), 2, 1,
          "sender: memcpy of the fields into one user buffer (libc __memmove_*), then send() ->"
          " tcp_sendmsg_locked -> _copy_from_iter; receiver: _copy_to_iter"),
    Known("message", "zerocopy", ("loopback", "veth"), 1, 1,
          "sender: MSG_ZEROCOPY pins the pages (no copy at send), but local delivery copies"
          " them: __netif_receive_skb -> skb_orphan_frags_rx -> skb_copy_ubufs (in the"
          " sender's thread, in softirq), completion flagged SO_EE_CODE_ZEROCOPY_COPIED;"
          " receiver: _copy_to_iter. Which thread runs skb_copy_ubufs is not fixed: with large"
          " messages ksoftirqd and the receiver's backlog processing run it too, so the"
          " per-side count can fail where the end-to-end one holds",
          condition="every completion of the cell's trials is COPIED"),
    Known("message", "sendmsg", ("udp-forward",), 1, None,
          "sender: udp_sendmsg -> ip_make_skb -> ip_generic_getfrag -> _copy_from_iter;"
          " forwarded and dropped at the blackhole route, no receiver"),
    Known("message", "send", ("udp-forward",), 2, None,
          "sender: memcpy of the fields (libc), then udp_sendmsg -> _copy_from_iter;"
          " no receiver"),
    Known("file→socket", "read-write", ("loopback", "veth"), 2, 1,
          "sender: read() -> filemap_read -> copy_page_to_iter -> _copy_to_iter (page cache"
          " to user), write() -> tcp_sendmsg_locked -> _copy_from_iter (user to skb);"
          " receiver: _copy_to_iter"),
    Known("file→socket", "mmap-write", ("loopback", "veth"), 1, 1,
          "sender: write() of the mapped file -> tcp_sendmsg_locked -> _copy_from_iter (page"
          " cache to skb; page faults on first touch); receiver: _copy_to_iter"),
    Known("file→socket", "sendfile", ("loopback", "veth"), 0, 1,
          "sender: sendfile -> splice_direct_to_actor -> filemap_splice_read + splice_to_socket"
          " (page references, MSG_SPLICE_PAGES; no copy); receiver: _copy_to_iter"),
    Known("file→socket", "splice", ("loopback", "veth"), 0, 1,
          "sender: splice file->pipe (filemap_splice_read, page references), pipe->socket"
          " (splice_to_socket, MSG_SPLICE_PAGES); receiver: _copy_to_iter"),
    Known("file→socket", "splice2", ("loopback", "veth"), 0, 1,
          "as splice, the two splices in two threads (both cb-send); receiver: _copy_to_iter"),
    Known("file→file", "copy_file_range", (None,), 1, None,
          "copy_file_range -> generic_copy_file_range / splice_file_range -> do_splice_direct"
          " -> iter_file_splice_write -> copy into the destination's page cache (one copy) on"
          " a file system without reflink (ext4, tmpfs); on XFS/Btrfs it may share extents",
          condition="the copy directory's file system does not reflink (ext4, tmpfs)"),
    Known("file→file", "read-write", (None,), 2, None,
          "read() -> _copy_to_iter (page cache to user), write() -> generic_perform_write ->"
          " copy_folio_from_iter_atomic (user to page cache)"),
    Known("file→file", "sendfile", (None,), 1, None,
          "sendfile file->file -> do_splice_direct -> iter_file_splice_write ->"
          " copy_page_from_iter (pipe pages into the destination's page cache)"),
    Known("file→file", "splice", (None,), 1, None,
          "splice file->pipe (references), pipe->file -> iter_file_splice_write ->"
          " copy_page_from_iter into the destination's page cache"),
)

#: file systems on which copy_file_range copies (no reflink / extent sharing)
NO_REFLINK_FS = ("ext4", "ext3", "ext2", "tmpfs")

CONFIG_KEY = ["scenario", "method", "transport", "placement", "size", "threads", "mode",
              "cache"]
GROUP_KEY = ["group_scenario", "transport", "placement", "size", "threads", "mode"]


def config_keys(d: pd.DataFrame) -> pd.Series:
    """A string key per row: the configuration (:data:`CONFIG_KEY`), whatever the cell."""
    if d.empty:
        return pd.Series([], index=d.index, dtype=object)
    return d[CONFIG_KEY].apply(lambda r: "|".join(str(x) for x in r), axis=1)


def known_for(scenario: str, method: str, transport: str | None) -> Known | None:
    for k in KNOWN:
        if k.scenario == scenario and k.method == method and transport in k.transports:
            return k
    return None


def known_table() -> pd.DataFrame:
    return pd.DataFrame([{"scenario": k.scenario, "method": k.method,
                          "transports": ", ".join(t or "— (file to file)" for t in k.transports),
                          "sender": k.sender, "receiver": "—" if k.receiver is None
                          else k.receiver,
                          "end to end": k.sender + (k.receiver or 0),
                          "kernel path": k.path, "calibration point when": k.condition or "always"}
                         for k in KNOWN])


# ------------------------------------------------------------------------------ inputs

@dataclass
class SideData:
    """What one configuration's estimate on one side rests on."""

    windows: list[np.ndarray]  # per profiled trial: array of (copy, samples) per window
    cpu_per_byte: np.ndarray  # per profiled trial: CPU-seconds of the side per byte

    @property
    def samples(self) -> int:
        return int(sum(w[:, 1].sum() for w in self.windows))

    @property
    def copy_samples(self) -> int:
        return int(sum(w[:, 0].sum() for w in self.windows))

    def share(self) -> float:
        s = self.samples
        return self.copy_samples / s if s else math.nan

    def value(self) -> float:
        """Mean over the profiled trials of (copy share x CPU per byte)."""
        if not self.samples:
            return math.nan
        ys = [w[:, 0].sum() / w[:, 1].sum() * c for w, c in zip(self.windows, self.cpu_per_byte)
              if w[:, 1].sum() > 0]
        return float(np.mean(ys)) if ys else math.nan

    def replicates(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """``b`` bootstrap replicates of y: the profiled trials resampled, and each drawn
        trial's windows resampled (the copy share's profile-to-profile variation)."""
        nt = len(self.windows)
        if not nt or not self.samples:
            return np.full(b, np.nan)
        acc = np.zeros(b)
        pick_t = rng.integers(0, nt, size=(b, nt))
        for i in range(nt):
            w, c = self.windows[i], self.cpu_per_byte[i]
            n_i = (pick_t == i).sum(axis=1)  # how often trial i is drawn in each replicate
            for k in range(1, nt + 1):
                sel = n_i == k
                if not sel.any():
                    continue
                # k independent window resamples of trial i for these replicates
                idx = rng.integers(0, len(w), size=(int(sel.sum()), k, len(w)))
                cp = w[idx, 0].sum(axis=2)
                tt = w[idx, 1].sum(axis=2)
                with np.errstate(invalid="ignore", divide="ignore"):
                    acc[sel] += np.nansum(np.where(tt > 0, cp / tt, np.nan), axis=1) * c
        return acc / nt


@dataclass
class Config:
    key: dict[str, Any]
    sides: dict[str, SideData]
    known: Known | None
    known_why_not: str = ""  # why a configuration with a known count is not a calibration point
    profiled_trials: int = 0
    measured_trials: int = 0

    @property
    def calibrates(self) -> bool:
        return self.known is not None and not self.known_why_not

    def known_count(self, side: str) -> int | None:
        if self.known is None:
            return None
        return self.known.sender if side == "sender" else self.known.receiver


def copy_dir_fs(manifest: dict[str, Any]) -> str | None:
    """The file system of the directory copybench made its files in, if the manifest says."""
    for path in (("filesystems", "copy_dir"), ("dir_fs",), ("files", "fs"),
                 ("storage", "fstype")):
        o: Any = manifest
        for p in path:
            o = o.get(p) if isinstance(o, dict) else None
        if isinstance(o, str):
            return o
        if isinstance(o, dict) and isinstance(o.get("fstype"), str):
            return o["fstype"]
    return None


def gather(trials: pd.DataFrame, profiles: Any, manifest: dict[str, Any] | None = None
           ) -> list[Config]:
    """One :class:`Config` per profiled configuration with format-2 profiles.

    ``trials``: the tidy trial table (``analysis.loading.run``), every record, profiled ones
    included; ``profiles``: :class:`analysis.loading.cpuprofiles.CpuProfiles`."""
    wins = profiles.windows
    if wins is None or wins.empty:
        return []
    t = trials[trials["kind"].fillna("copybench") == "copybench"]
    ok = t[t["status"] == "ok"]
    prof_t = ok[ok["repetition"] <= 0]  # 0 (and, with more per cell, -1, -2...)
    meas = ok[ok["repetition"].fillna(1) >= 1]
    fs = copy_dir_fs(manifest or {})
    prof_ids = set(wins["trial_id"])
    prof_t = prof_t[prof_t["trial_id"].isin(prof_ids)]
    if prof_t.empty:
        return []
    out: list[Config] = []
    keyed = prof_t.assign(_k=config_keys(prof_t))
    mkeyed = meas.assign(_k=config_keys(meas))
    for k, grp in keyed.groupby("_k", sort=True):
        first = grp.iloc[0]
        scen = str(first["scenario"])
        if scen not in SIDES_OF:
            continue
        m = mkeyed[mkeyed["_k"] == k]
        transport = first["transport"] if isinstance(first["transport"], str) else None
        sides_here = SIDES_OF[scen]
        if scen == "message" and transport == "udp-forward":
            sides_here = ("sender",)
        sides: dict[str, SideData] = {}
        for side in sides_here:
            with np.errstate(invalid="ignore", divide="ignore"):
                mc = (m[f"{side}_cpu_s"].astype(float) / m["bytes"].astype(float)).to_numpy()
            mc = mc[np.isfinite(mc) & (mc > 0)]
            per_trial, cpb = [], []
            for _, tr in grp.iterrows():
                w = wins[(wins["trial_id"] == tr["trial_id"]) & (wins["side"] == side)]
                if not len(w) or w["samples"].sum() <= 0:
                    continue
                try:
                    c = float(tr[f"{side}_cpu_s"]) / float(tr["bytes"])
                except (TypeError, ValueError, ZeroDivisionError):
                    c = math.nan
                if not (math.isfinite(c) and c > 0):
                    if not len(mc):
                        continue
                    c = float(np.median(mc))
                per_trial.append(w[["copy", "samples"]].to_numpy(dtype=float))
                cpb.append(c)
            if per_trial:
                sides[side] = SideData(per_trial, np.asarray(cpb))
        if not sides:
            continue
        known = known_for(scen, str(first["method"]), transport)
        why = ""
        if known is not None and known.method == "zerocopy" and scen == "message" \
                and transport != "udp-forward":
            frac = ok[ok["trial_id"].isin(list(grp["trial_id"]) + list(m["trial_id"]))][
                "zc_copied_fraction"].astype(float)
            if not len(frac.dropna()) or float(frac.min()) < 0.999:
                why = "not every zero-copy completion was COPIED"
        if known is not None and known.method == "copy_file_range":
            if fs is None:
                why = "the copy directory's file system is not recorded"
            elif fs not in NO_REFLINK_FS:
                why = f"file system {fs} may reflink"
        key = {c: first[c] for c in CONFIG_KEY}
        key["transport"] = transport
        out.append(Config(key, sides, known, why, len(grp), len(m)))
    return out


def group_of_config(c: Config) -> tuple:
    scen = c.key["scenario"]
    g = "file→file" if scen == "file→file" else "socket"
    return (g, c.key["transport"], c.key["placement"], c.key["size"], c.key["threads"],
            c.key["mode"])


# ------------------------------------------------------------------------- calibration

@dataclass
class CostEstimate:
    value: float
    lo: float
    hi: float


def _ci(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if len(x) < 10:
        return math.nan, math.nan
    a = (1 - CONFIDENCE) / 2
    return float(np.quantile(x, a)), float(np.quantile(x, 1 - a))


@dataclass
class Group:
    key: tuple
    configs: list[Config]
    identifiable: bool = False
    reason: str = ""
    cost: dict[str, CostEstimate] = field(default_factory=dict)  # CPU-s per byte per copy


@dataclass
class _Samples:
    """Every configuration's copy cost per byte and side: the point value and its bootstrap
    replicates (drawn once, in configuration order, so a seed gives the same CIs)."""

    configs: list[Config]
    point: dict[tuple[int, str], float]
    reps: dict[tuple[int, str], np.ndarray]

    @classmethod
    def draw(cls, configs: list[Config], seed: int, resamples: int) -> "_Samples":
        rng = np.random.default_rng(seed)
        reps: dict[tuple[int, str], np.ndarray] = {}
        point: dict[tuple[int, str], float] = {}
        for i, c in enumerate(configs):
            for side, d in c.sides.items():
                reps[(i, side)] = d.replicates(rng, resamples)
                point[(i, side)] = d.value()
        return cls(configs, point, reps)

    def calibration_points(self, members: list[int], side: str) -> list[tuple[int, int]]:
        """(configuration, known count) of the members that calibrate this side: a known
        configuration with at least one copy there."""
        out = []
        for i in members:
            k = self.configs[i].known_count(side)
            if self.configs[i].calibrates and (i, side) in self.point and (k or 0) > 0:
                out.append((i, k))
        return out

    def cost(self, members: list[int], side: str) -> tuple[float, np.ndarray] | None:
        """CPU-s per byte per copy on this side: the known configurations' copy cost summed
        over their summed known counts (point, replicates); None without a calibration
        point."""
        pts = self.calibration_points(members, side)
        if not pts:
            return None
        den = sum(k for _, k in pts)
        rnum = np.sum([self.reps[(i, side)] for i, _ in pts], axis=0)
        return sum(self.point[(i, side)] for i, _ in pts) / den, rnum / den

    def leave_one_out(self, gname: str, members: list[int]
                      ) -> tuple[list[dict[str, Any]], list[str]]:
        """Every known configuration of a group predicted from the others (per side, and end
        to end where it has two): validation rows, and the failures as text."""
        rows: list[dict[str, Any]] = []
        fails: list[str] = []
        for i in members:
            c = self.configs[i]
            if not c.calibrates:
                continue
            others = [j for j in members if j != i]
            tot_v, tot_r, tot_k, ok_sides = 0.0, 0.0, 0, True
            for side in c.sides:
                k = c.known_count(side)
                cc = self.cost(others, side)
                if cc is None or k is None:
                    ok_sides = False
                    continue
                v = self.point[(i, side)] / cc[0]
                r = self.reps[(i, side)] / cc[1]
                rows.append(self._validation_row(c, gname, side, k, v, r,
                                                 c.sides[side].samples))
                if not rows[-1]["pass"]:
                    fails.append(f"{c.key['method']} {side} {prediction_text(v, k)}")
                tot_v += v
                tot_r = tot_r + r
                tot_k += k
            if ok_sides and len(c.sides) > 1:
                rows.append(self._validation_row(c, gname, "total", tot_k, tot_v,
                                                 np.asarray(tot_r),
                                                 sum(d.samples for d in c.sides.values())))
                if not rows[-1]["pass"]:
                    fails.append(f"{c.key['method']} end to end "
                                 f"{prediction_text(tot_v, tot_k)}")
        return rows, fails

    @staticmethod
    def _validation_row(c: Config, gname: str, side: str, known: int, v: float,
                        r: np.ndarray, samples: int) -> dict[str, Any]:
        lo, hi = _ci(r)
        err = v - known
        return {**c.key, "group": gname, "side": side, "known": known, "estimate": v,
                "lo": lo, "hi": hi, "error": err, "pass": bool(abs(err) <= TOLERANCE),
                "samples": samples, "profiled_trials": c.profiled_trials}

    def counts(self, g: Group, gname: str, members: list[int]) -> list[dict[str, Any]]:
        """The copy count of every configuration of a group, per side and end to end, with
        the group's full calibration (NaN where not identifiable, with the reason)."""
        rows: list[dict[str, Any]] = []
        for i in members:
            c = self.configs[i]
            tot_v, tot_r, all_sides = 0.0, None, True
            for side, d in c.sides.items():
                full = self.cost(members, side)
                row = {**c.key, "group": gname, "side": side,
                       "copy_share": d.share(), "copy_cpu_s_per_gb": self.point[(i, side)] * 1e9,
                       "samples": d.samples, "copy_samples": d.copy_samples,
                       "profiled_trials": c.profiled_trials,
                       "measured_trials": c.measured_trials,
                       "known": c.known_count(side) if c.calibrates else None}
                if full is None:
                    all_sides = False
                    rows.append({**row, **_unreported(f"{side}: no calibration point")})
                    continue
                v = self.point[(i, side)] / full[0]
                r = self.reps[(i, side)] / full[1]
                tot_v += v
                tot_r = r if tot_r is None else tot_r + r
                rows.append({**row, **_report(v, r, BOUND, g)})
            if len(c.sides) > 1:
                row = {**c.key, "group": gname, "side": "total", "copy_share": math.nan,
                       "copy_cpu_s_per_gb": sum(self.point[(i, s)] for s in c.sides) * 1e9,
                       "samples": sum(d.samples for d in c.sides.values()),
                       "copy_samples": sum(d.copy_samples for d in c.sides.values()),
                       "profiled_trials": c.profiled_trials,
                       "measured_trials": c.measured_trials,
                       "known": (c.known.sender + (c.known.receiver or 0)) if c.calibrates
                       else None}
                if all_sides and tot_r is not None:
                    rows.append({**row, **_report(tot_v, tot_r, BOUND, g)})
                else:
                    rows.append({**row, **_unreported("a side has no calibration point")})
        return rows

    def group(self, gkey: tuple, members: list[int]) -> tuple[Group, list[dict[str, Any]]]:
        """A group's per-side costs, whether its counts are identifiable (2 calibration points
        per side, every leave-one-out prediction within the tolerance) and why not; with its
        validation rows."""
        g = Group(gkey, [self.configs[i] for i in members])
        sides = sorted({s for i in members for s in self.configs[i].sides},
                       key=lambda s: ("sender", "receiver").index(s))
        reasons: list[str] = []
        for side in sides:
            n_cal = len(self.calibration_points(members, side))
            if n_cal < 2:
                reasons.append(f"{side}: {n_cal} known configuration(s) with copies on this "
                               "side (leave-one-out needs 2)")
            full = self.cost(members, side)
            if full is not None:
                lo, hi = _ci(full[1])
                g.cost[side] = CostEstimate(full[0], lo, hi)
        rows, fails = self.leave_one_out(_gname(gkey), members)
        if fails:
            reasons.append("leave-one-out outside ±%.2f: %s" % (TOLERANCE, "; ".join(fails)))
        g.identifiable = not reasons
        g.reason = "; ".join(reasons)
        return g, rows


def calibrate(configs: list[Config], seed: int = 13, resamples: int = RESAMPLES
              ) -> tuple[pd.DataFrame, pd.DataFrame, list[Group]]:
    """-> (validation, counts, groups).

    ``validation``: one row per (known configuration, side | "total"): known count, the
    leave-one-out estimate with its CI, the error, pass/fail. ``counts``: one row per
    (configuration, side | "total"): the copy-routine share, y, the count with CI (NaN
    where not identifiable), ``identifiable``, ``reason``, samples."""
    samples = _Samples.draw(configs, seed, resamples)
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(configs):
        groups.setdefault(group_of_config(c), []).append(i)
    val_rows: list[dict[str, Any]] = []
    cnt_rows: list[dict[str, Any]] = []
    group_objs: list[Group] = []
    for gkey, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        g, rows = samples.group(gkey, members)
        val_rows += rows
        group_objs.append(g)
        cnt_rows += samples.counts(g, _gname(gkey), members)
    val = pd.DataFrame(val_rows, columns=None if val_rows else VALIDATION_COLUMNS)
    cnt = pd.DataFrame(cnt_rows, columns=None if cnt_rows else COUNT_COLUMNS)
    return val, cnt, group_objs


VALIDATION_COLUMNS = [*CONFIG_KEY, "group", "side", "known", "estimate", "lo", "hi", "error",
                      "pass", "samples", "profiled_trials"]
COUNT_COLUMNS = [*CONFIG_KEY, "group", "side", "copy_share", "copy_cpu_s_per_gb", "samples",
                 "copy_samples", "profiled_trials", "measured_trials", "known", "count", "lo",
                 "hi", "identifiable", "reason", "raw_count"]


def _gname(gkey: tuple) -> str:
    g, transport, placement, size, threads, mode = gkey
    return f"{g} {transport or ''} {placement} {fmt_size(size)}".replace("  ", " ")


def _unreported(reason: str) -> dict[str, Any]:
    return {"count": math.nan, "lo": math.nan, "hi": math.nan, "identifiable": False,
            "reason": reason, "raw_count": math.nan}


def _report(v: float, r: np.ndarray, bound: float, g: Group) -> dict[str, Any]:
    """A count is reported only in a validated group and inside ``[0, bound]``."""
    lo, hi = _ci(r)
    if not g.identifiable:
        return {**_unreported("not identifiable: " + g.reason), "raw_count": v}
    if not (math.isfinite(v) and math.isfinite(lo) and math.isfinite(hi)):
        return {**_unreported("not identifiable: no CI"), "raw_count": v}
    if v < 0 or lo < 0 or v > bound:
        return {**_unreported(f"not identifiable: estimate {v:.2f} [{lo:.2f}, {hi:.2f}] "
                              f"outside [0, {bound:g}]"), "raw_count": v}
    return {"count": v, "lo": lo, "hi": hi, "identifiable": True, "reason": "",
            "raw_count": v}


def in_bounds(v: float) -> bool:
    """Whether a value can be a count at all: inside ``[0, BOUND]``."""
    return math.isfinite(v) and 0.0 <= v <= BOUND


def prediction_text(v: float, known: int) -> str:
    """A leave-one-out prediction against its known count, as the book prints it: the count
    where it can be one ("1.84 vs 2"); beyond ``[0, BOUND]`` no count at all, but what it
    measures, the price this configuration pays per copied byte against the others' ("vs 2:
    not a count, outside [0, 3.25]: a copied byte costs it 2.18x the others' price")."""
    if in_bounds(v):
        return f"{v:.2f} vs {known}"
    rel = f": a copied byte costs it {v / known:.2f}× the others' price" if known else ""
    return f"vs {known}: not a count, outside [0, {BOUND:g}]{rel}"


def validation_view(val: pd.DataFrame) -> pd.DataFrame:
    """The validation table as the book prints it: the leave-one-out prediction with its CI
    where it lies inside ``[0, BOUND]`` (a count), else why not; beside it the price ratio
    (prediction / known count: what a copied byte of this configuration costs against the
    price the others of its group imply), which is defined whatever its value."""
    if val.empty:
        return val.assign(**{"prediction": pd.Series(dtype=object),
                             "price ratio": pd.Series(dtype=float),
                             "price CI": pd.Series(dtype=object)})
    out = val.copy()
    out["prediction"] = [
        (f"{r['estimate']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]" if in_bounds(r["estimate"])
         and r["lo"] >= 0 else f"not a count (outside [0, {BOUND:g}])")
        for _, r in val.iterrows()]
    k = val["known"].astype(float).where(val["known"].astype(float) > 0)
    out["price ratio"] = val["estimate"] / k
    out["price CI"] = [f"[{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) and math.isfinite(hi)
                       else "—" for lo, hi in zip(val["lo"] / k, val["hi"] / k)]
    return out


def check_bounds(counts: pd.DataFrame) -> list[str]:
    """Every reported count inside [0, BOUND] and its CI above 0: the list of violations (a
    test asserts it is empty)."""
    bad = []
    for _, r in counts.iterrows():
        if not r.get("identifiable"):
            if math.isfinite(float(r["count"])):
                bad.append(f"{r['method']} {r['side']}: a count printed where not identifiable")
            continue
        x, lo = float(r["count"]), float(r["lo"])
        if not (0.0 <= x <= BOUND) or not lo >= 0.0:
            bad.append(f"{r['method']} {r['side']} {r['size']}: {x} [{lo}, {r['hi']}] "
                       f"outside [0, {BOUND}]")
    return bad


def analyse(run: Any, seed: int = 13, resamples: int = RESAMPLES
            ) -> tuple[pd.DataFrame, pd.DataFrame, list[Group]]:
    """:func:`calibrate` on a loaded run (``analysis.loading.run.Run``)."""
    return calibrate(gather(run.trials, run.profiles, run.manifest), seed, resamples)

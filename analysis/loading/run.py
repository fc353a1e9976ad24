"""Load a run directory (``trials.jsonl``, ``manifest.json``, ``plan.json``, CPU profile
reductions) into tidy pandas tables for the notebooks, and select and summarise cells.
Loading and tidying only: the statistics live in :mod:`analysis.statistics.stats`, CPU profiles in
:mod:`analysis.loading.cpuprofiles`, figures in :mod:`analysis.figures.plots`, formatting in :mod:`analysis.statistics.fmt`.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence
from zlib import error as zlib_error

import numpy as np
import pandas as pd

from analysis.statistics import stats as S
from analysis.loading.cpuprofiles import CpuProfiles, load_cpu_profiles, read_json
from rundir import layout, planfile, records, sharetime, utf8
# the methods' words (rundir.vocabulary owns them; the analysis imports them from here)
from rundir.vocabulary import FILE_METHODS, MESSAGE_METHODS  # noqa: F401
from decision.quantities import primary

COUNTERS = ("task_clock_ns", "context_switches", "cpu_migrations", "page_faults", "cycles",
            "instructions", "cache_references", "cache_misses", "l1d_load_misses",
            "llc_load_misses")
HW_COUNTERS = ("cycles", "instructions", "cache_references", "cache_misses",
               "l1d_load_misses", "llc_load_misses")
FACTORS = ("kind", "scenario", "command", "method", "mode", "protocol", "transport",
           "placement", "size", "threads", "cache")


# ---------------------------------------------------------------------------- loading

def _scenario(cfg: dict[str, Any]) -> str:
    kind = cfg.get("kind") or "copybench"
    if kind.startswith("original:"):
        return "original"
    if kind != "copybench":
        return "peer"
    if cfg.get("command") == "copy":
        return "file→file"
    if cfg.get("method") in MESSAGE_METHODS:
        return "message"
    return "file→socket"


def _side(prefix: str, side: dict[str, Any] | None) -> dict[str, Any]:
    row: dict[str, Any] = {}
    side = side or {}
    ut, st = side.get("utime_s"), side.get("stime_s")
    row[f"{prefix}_utime_s"] = ut
    row[f"{prefix}_stime_s"] = st
    row[f"{prefix}_cpu_s"] = (ut + st) if ut is not None and st is not None else None
    for k in ("syscalls", "vol_ctx_switches", "invol_ctx_switches", "minor_faults", "bytes"):
        row[f"{prefix}_{k}"] = side.get(k)
    counters = side.get("counters") or {}
    for c in COUNTERS:
        row[f"{prefix}_{c}"] = counters.get(c)
    unavailable = side.get("counters_unavailable") or {}
    row[f"{prefix}_unavailable"] = "; ".join(f"{k}: {v}" for k, v in sorted(unavailable.items()))
    row.update(_noise(prefix, side))
    return row


def slice_cv(slices_bytes: Any, slices_s: Any) -> float | None:
    """The coefficient of variation (sample SD / mean) of the throughput of a window's slices
    (copybench's ``slices_bytes`` over ``slices_s``): how steady the window was. None when
    the record has no slices or fewer than two with time in them, or moved nothing."""
    if not isinstance(slices_bytes, list) or not isinstance(slices_s, list):
        return None
    rates = [b / s for b, s in zip(slices_bytes, slices_s)
             if b is not None and s is not None and s > 0]
    if len(rates) < 2:
        return None
    mean = sum(rates) / len(rates)
    if mean <= 0:
        return None
    return float(np.std(rates, ddof=1) / mean)


def _sum_or_none(values: Any) -> int | None:
    """The sum over a side's threads; None when any thread's value is missing (null with a
    reason in the record) or the record has no such field."""
    if not isinstance(values, list) or not values or any(v is None for v in values):
        return None
    return int(sum(values))


def _noise(prefix: str, side: dict[str, Any]) -> dict[str, Any]:
    """The noise study's fields of one side (None in records of earlier versions of the
    format, which lack them): the window's steadiness over its ten slices, the socket buffers at its edges
    (summed over the threads: the side's total buffering), the TCP retransmissions in it,
    the congestion window at its end (``tcpi_snd_cwnd``, segments, summed over the threads),
    and how many threads ended on another CPU than they started on."""
    row: dict[str, Any] = {f"{prefix}_slice_cv": slice_cv(side.get("slices_bytes"),
                                                          side.get("slices_s"))}
    for k in ("sndbuf_start", "sndbuf_end", "rcvbuf_start", "rcvbuf_end"):
        row[f"{prefix}_{k}"] = _sum_or_none(side.get(k))
    start, end = side.get("tcp_info_start"), side.get("tcp_info_end")
    retrans = None
    if isinstance(start, list) and isinstance(end, list) and start and len(start) == len(end):
        pairs = [(a.get("total_retrans"), b.get("total_retrans")) if a and b else (None, None)
                 for a, b in zip(start, end)]
        if all(a is not None and b is not None for a, b in pairs):
            retrans = int(sum(b - a for a, b in pairs))
    row[f"{prefix}_retrans"] = retrans
    row[f"{prefix}_snd_cwnd_end"] = _sum_or_none(
        [(t or {}).get("snd_cwnd") for t in end] if isinstance(end, list) else None)
    c0, c1 = side.get("cpu_start"), side.get("cpu_end")
    row[f"{prefix}_cpus_changed"] = (
        sum(1 for a, b in zip(c0, c1) if a is not None and b is not None and a != b)
        if isinstance(c0, list) and isinstance(c1, list) and len(c0) == len(c1) else None)
    return row


def tidy_record(rec: dict[str, Any]) -> dict[str, Any]:
    """One flat row per trial record."""
    cfg = rec.get("config") or {}
    res = rec.get("result") or {}
    row: dict[str, Any] = {k: rec.get(k) for k in (
        "run_id", "trial_id", "cell", "order_index", "repetition", "started_at", "status",
        "error", "tool")}
    row["kind"] = cfg.get("kind") or "copybench"
    row["scenario"] = _scenario(cfg)
    for k in ("command", "method", "mode", "protocol", "transport", "placement", "size",
              "threads", "cache", "fields", "duration_s", "warmup_s", "verify", "no_sink",
              "counters", "block", "twin"):
        row[k] = cfg.get(k)
    # block design (runner/plan/blocks.py): block id (None in runs without blocks) and the A/A
    # control's twin flag (1 = the second copy of a method in its block)
    row["twin"] = int(row["twin"] or 0)
    # fixed socket buffers (send --sockbuf; 0: autotuned, as every run before the option)
    row["sockbuf"] = int(cfg.get("sockbuf") or 0)
    # a TCP stream receiver's bytes per recv() (send --recv-size, the profile's [receiver]
    # factor): the cell's, else what the sink reported; None where the record does not say
    row["recv_size"] = recv_size(rec)
    # the noise study's two other controls: copybench's sink kept across trials ("kept"; None
    # in records before the option: a fresh one per trial), and a second method alternating
    # with the first inside the trial (send --alternate: its name, and each method's Gbit/s
    # over its slices, the first the cell's method)
    row["sink"] = cfg.get("sink")
    row["alternate"] = cfg.get("alternate")
    alt_g = (res.get("alternate") or {}).get("gbit_per_s")
    alt_g = alt_g if isinstance(alt_g, list) and len(alt_g) == 2 else [None, None]
    row["alternate_gbit_first"], row["alternate_gbit_second"] = alt_g
    # how the trial measured its comparison: "separate" (today's: this method alone) or
    # "shared-time" (copybench send --share-time: two methods, two connections, one trial;
    # each method's measurements are a row of Run.shared, :func:`shared_rows`)
    row["procedure"] = sharetime.procedure(rec)
    row["share_time"] = cfg.get("share_time")
    # the profile's experiment that planned the cell (a control's name in the noise study) and
    # the trial's wall time, the pair's start to its end (what a round costs the machine)
    row["experiment"] = cfg.get("experiment")
    row["wall_s"] = (rec.get("invocation") or {}).get("wall_s")
    if row["threads"] is None:
        row["threads"] = 1
    for k in ("bytes", "messages", "seconds", "gbit_per_s", "msgs_per_s"):
        row[k] = res.get(k)
    # the primary metric (Gbit/s, or the median RTT in ns for pingpong), as the runner has it
    row["primary_metric"] = primary(rec)
    # a report's own program (runner/originals): the latency it prints, by its own definition
    # (S1: window / messages; S2: mean time to receive one message; S3: mean recv() time)
    theirs = res.get("theirs") or {}
    row["their_latency_us"] = theirs.get("latency_us")
    # S2's server returns 2 s after its last accept: a client that saw EOF before its window
    row["their_stopped_early"] = theirs.get("stopped_early")
    if row["their_stopped_early"] is None and row["kind"] == "original:S3" and theirs:
        # records written before the S3 adapter flagged it: the same test from what it
        # recorded (a full window lasts at least duration - 1 s under their tv_sec rule)
        secs, dur = res.get("seconds"), cfg.get("duration_s")
        if secs is not None and dur is not None:
            row["their_stopped_early"] = bool(secs < int(dur) - 1)  # whole s, as run
    # S2's script put the first client's printed throughput in its CSV (the others dropped)
    row["their_published_gbps"] = theirs.get("published_gbps")
    rtt = res.get("rtt_ns") or {}
    for p in ("p50", "p90", "p99", "p999", "max", "mean"):
        v = rtt.get(p)
        row[f"rtt_{p}_us"] = v / 1000.0 if v is not None else None
    row.update(_side("sender", res.get("sender")))
    row.update(_side("receiver", res.get("receiver")))
    row["receiver_unavailable_reason"] = res.get("receiver_unavailable")
    zc = res.get("zerocopy") or {}
    for k in ("completions", "copied", "enobufs"):
        row[f"zc_{k}"] = zc.get(k)
    comp, cop = zc.get("completions"), zc.get("copied")
    row["zc_copied_fraction"] = (cop / comp) if comp else None
    ver = res.get("verify") or {}
    row["verify_bytes_checked"] = ver.get("bytes_checked")
    row["verify_mismatches"] = ver.get("mismatches")
    # interference over the window (copybench reads /proc/stat at its edges); null when it
    # could not be read, with the reason
    inter = res.get("interference") or {}
    row["steal_frac"] = inter.get("steal_frac")
    row["busy_frac"] = inter.get("busy_frac")
    row["interference_unavailable"] = res.get("interference_unavailable")
    # NET_RX/NET_TX softirq runs over the window: the host's (copybench reads /proc/softirqs
    # beside /proc/stat), and the sink's CPUs' (its host's); None when not recorded
    softirqs = res.get("softirqs") or {}
    row["softirq_net_rx"] = softirqs.get("net_rx")
    row["softirq_net_tx"] = softirqs.get("net_tx")
    rsoft = (res.get("receiver") or {}).get("softirqs") or {}
    cpus = rsoft.get("cpus")
    row["receiver_softirq_net_rx"] = (sum(c["net_rx"] for c in cpus)
                                      if isinstance(cpus, list) and cpus else None)
    row["retries"] = len(rec.get("retries") or [])
    # how many CPUs each side's threads were pinned to (the runner's CPU lists; copybench
    # pins thread i to the (i mod n)-th CPU of its list): the thread-count claims' condition
    row["n_cpus_sender"] = _n_cpus(cfg.get("cpus_sender_list"), cfg.get("cpus_sender"))
    row["n_cpus_sink"] = _n_cpus(cfg.get("cpus_sink_list"), cfg.get("cpus_receiver"))
    return row


#: copybench's sink's bytes per recv() on a TCP stream unless the trial asked for others
#: (src/control.h RECV_SIZE_DEFAULT): the size a run's readers read (Run.recv_size None)
RECV_SIZE_DEFAULT = 64 << 10


def recv_size(rec: dict[str, Any]) -> int | None:
    """A copybench TCP stream trial's receive size per recv(): ``config.recv_size`` (the
    runner's cell asked for it), else ``result.receiver.recv_size`` (what the sink used); None
    for every other trial and for records that say neither."""
    cfg = rec.get("config") or {}
    if cfg.get("mode") != "stream" or cfg.get("protocol", "tcp") != "tcp":
        return None
    n = cfg.get("recv_size") or ((rec.get("result") or {}).get("receiver") or {}).get("recv_size")
    return int(n) if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def shared_rows(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """A shared-time trial's two methods as two rows (:mod:`rundir.sharetime`): the record's
    row (:func:`tidy_record`) with each method's own figures: its method, its rate at the sink
    as ``gbit_per_s`` and ``primary_metric``, its connection's window bytes, its threads' CPU
    and mechanisms (``sender_*``, ``receiver_*``), its zero-copy counts; ``cell`` is the
    record's cell and the connection (``<cell>/0``, ``<cell>/1``: the two cells whose
    measurements the record holds), ``trial_cell`` the record's, ``share_with`` the other
    method. In an A/A (a method with itself) the second connection's row is the twin. [] for
    a record without both methods' figures."""
    pm = sharetime.methods(rec)
    if not pm:
        return []
    base = tidy_record(rec)
    names = [str(m.get("method")) for m in pm]
    out = []
    for c, m in enumerate(pm):
        row = dict(base)
        row.update(_side("sender", m.get("sender")))
        row.update(_side("receiver", m.get("receiver")))
        rate = sharetime.rate(m)
        zc = m.get("zerocopy") or {}
        comp, cop = zc.get("completions"), zc.get("copied")
        row.update({
            "method": names[c], "cell": f"{rec.get('cell')}/{c}", "trial_cell": rec.get("cell"),
            "connection": c, "share_with": names[1 - c],
            "twin": int(c == 1 and names[0] == names[1]),
            "gbit_per_s": rate, "primary_metric": rate, "bytes": m.get("bytes"),
            "seconds": m.get("turns_s"), "sender_gbit_per_s": m.get("sender_gbit_per_s"),
            "msgs_per_s": None, "zc_completions": comp, "zc_copied": cop,
            "zc_enobufs": zc.get("enobufs"), "zc_copied_fraction": (cop / comp) if comp else None})
        out.append(row)
    return out


def _n_cpus(spec: Any, array: Any) -> int | None:
    """The number of CPUs in a CPU list ("0", "0,1", "2-5") or array; None when unpinned."""
    if isinstance(array, list) and array:
        return len(array)
    if not isinstance(spec, str) or not spec.strip():
        return None
    n = 0
    for part in spec.split(","):
        a, _, b = part.partition("-")
        try:
            n += int(b or a) - int(a) + 1
        except ValueError:
            return None
    return n


def _derive(df: pd.DataFrame) -> pd.DataFrame:
    gb = df["bytes"].astype(float) / 1e9
    with np.errstate(divide="ignore", invalid="ignore"):
        for side in ("sender", "receiver"):
            df[f"{side}_cpu_s_per_gb"] = df[f"{side}_cpu_s"].astype(float) / gb
            df[f"{side}_cycles_per_byte"] = df[f"{side}_cycles"].astype(float) / (gb * 1e9)
            for c in ("llc_load_misses", "l1d_load_misses", "cache_misses"):
                df[f"{side}_{c}_per_kib"] = df[f"{side}_{c}"].astype(float) / (gb * 1e9 / 1024)
            df[f"{side}_syscalls_per_mib"] = (df[f"{side}_syscalls"].astype(float)
                                              / (gb * 1e9 / (1 << 20)))
    df["mib_per_s"] = df["bytes"].astype(float) / (1 << 20) / df["seconds"].astype(float)
    # S1's "latency" as its code computes it: the window over the messages received in a
    # stream (an inverse message rate, not a round trip), in microseconds
    with np.errstate(divide="ignore", invalid="ignore"):
        df["inv_msg_rate_us"] = 1e6 / df["msgs_per_s"].astype(float)
    df.loc[~np.isfinite(df["inv_msg_rate_us"]), "inv_msg_rate_us"] = np.nan
    return df


@dataclass
class Run:
    """A run directory in tidy form. ``trials`` has every record (profiled trials and
    failures included); :attr:`measured` is what the statistics use."""

    path: Path
    trials: pd.DataFrame
    manifest: dict[str, Any]
    plan: dict[str, Any] | None
    profiles: CpuProfiles  # the CPU profiles (perf/)
    notes: list[str] = field(default_factory=list)
    # each shared-time trial's two methods, a row each (shared_rows); empty without any
    shared_trials: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the receive size :attr:`measured` reads (a profile's [receiver] factor measures a
    # run's TCP stream cells at several): None, the sink's default and every trial that has
    # no receive size or does not say; a size, only the trials measured at it
    recv_size: int | None = None

    def raw_records(self) -> Iterator[dict[str, Any]]:
        """The run's records as written (through :func:`rundir.records.read`, the one reader
        of ``trials.jsonl``), for what the tidy table leaves out (a peer tool's own report)."""
        path = records.trials_file(self.path)
        return iter(()) if path is None else records.read(path)

    @property
    def measured(self) -> pd.DataFrame:
        """Successful trials excluding the profiled (perf record, repetition 0) ones and the
        trials the run's declared interference rule excludes (:attr:`excluded`): today's
        procedure, each method in a trial of its own. Shared-time trials are read apart
        (:attr:`shared`): where a block holds both designs, every reader of ``measured`` (the
        claims, the decision map, the noise chapter) reads today's ``send`` and today's
        ratios, until a validation run adopts the shared-time design. A TCP stream trial at
        a receive size other than :attr:`recv_size`'s is read apart too
        (:mod:`analysis.claims.robustness` reads each size).

        Which rows these are is worked out once per records table, receive size and plan
        (every reader asks for them, often hundreds of times per run); each call returns
        the rows afresh, so a caller that changes its copy changes no other's."""
        t = self.trials
        kept = self.__dict__.get("_measured_rows")
        if kept is not None and kept[0] is t and kept[1] == self.recv_size \
                and kept[2] is self.plan:
            return t.take(kept[3])
        ok = self._measured()
        if t.index.is_unique:  # the rows by position (a take: cheaper than by label)
            self.__dict__["_measured_rows"] = (t, self.recv_size, self.plan,
                                               t.index.get_indexer(ok.index))
        return ok

    def _measured(self) -> pd.DataFrame:
        t = self.trials
        ok = t[(t["status"] == "ok") & (t["repetition"].fillna(1) >= 1)]
        ok = ok.drop(index=self.excluded.index)
        if "procedure" in ok:
            ok = ok[ok["procedure"].fillna(sharetime.SEPARATE) == sharetime.SEPARATE]
        if "recv_size" in ok:  # the [receiver] factor's other sizes are read apart
            rs = ok["recv_size"]
            ok = (ok[rs.isna() | (rs == RECV_SIZE_DEFAULT)] if self.recv_size is None
                  else ok[rs == self.recv_size])
        return ok

    @property
    def shared(self) -> pd.DataFrame:
        """The shared-time trials' methods, a row each (:func:`shared_rows`): ok, not
        profiled, not excluded by the declared interference rule (the trial's), with the
        columns of :attr:`measured` (``gbit_per_s`` each method's rate at the sink)."""
        s = self.shared_trials
        if s.empty:
            return s
        ok = s[(s["status"] == "ok") & (s["repetition"].fillna(1) >= 1)]
        gone = set(self.excluded["trial_id"]) if "trial_id" in self.excluded else set()
        return ok[~ok["trial_id"].isin(gone)]

    @property
    def steal_rule(self) -> float | None:
        """The interference rule the profile declared before the run (``[design]
        exclude_steal_above``): a trial whose window had a larger share of steal time is
        excluded. None: no rule (nothing is excluded)."""
        return planfile.Declared.of(self.plan).exclude_steal_above

    @property
    def excluded(self) -> pd.DataFrame:
        """The ok, non-profiled trials the declared interference rule excludes, each with
        its reason; every one is counted and listed in the book."""
        t = self.trials
        rule = self.steal_rule
        if rule is None or "steal_frac" not in t:
            return t.iloc[0:0].assign(exclusion=pd.Series(dtype=object))
        ok = t[(t["status"] == "ok") & (t["repetition"].fillna(1) >= 1)]
        steal = ok["steal_frac"].astype(float)
        out = ok[steal > rule].copy()
        out["exclusion"] = [f"steal {s:.1%} of the window's CPU time > {rule:.0%}"
                            for s in out["steal_frac"].astype(float)]
        return out

    @property
    def has_blocks(self) -> bool:
        """Whether the run used the block design (records carry ``config.block``)."""
        b = self.trials["block"] if "block" in self.trials else None
        return b is not None and bool(b.notna().any())

    @property
    def primary(self) -> str:
        """The primary comparison the plan declared before the run (``design.primary``):
        ``paired`` or ``unpaired``; runs without blocks can only be unpaired."""
        if not self.has_blocks:
            return S.UNPAIRED
        return planfile.Declared.of(self.plan).primary

    @property
    def rounds_min(self) -> int:
        """The fewest rounds a comparison of the declared design rests on
        (``design.rounds_min``): one with fewer is shown, never cited as a headline."""
        return planfile.Declared.of(self.plan).rounds_min

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id") or self.path.name)

    @property
    def created_at(self) -> datetime | None:
        """When the run was planned (the plan's, else the manifest's ``created_at``) as an
        aware UTC instant; None when neither says."""
        stamp = str((self.plan or {}).get("created_at") or self.manifest.get("created_at")
                    or "")
        return instant(stamp) if stamp else None


def instant(stamp: str) -> datetime:
    """An ISO time stamp as an aware UTC instant (a stamp without a zone is UTC)."""
    t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


class BadRun(ValueError):
    """A run directory whose files cannot be read as a run's: one line, ``<file>[:<line>]:
    <what is wrong>`` (a record that is not JSON, a key given twice, a cut line, a link in
    place of a file, a record whose fields are not a record's, no records file). A command
    that loads a run prints it and exits 2; a notebook raises it (``make book`` names it)."""


def _tidy_rows(trials_file: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The run's records as rows (today's trials, and a shared-time record's two methods:
    :func:`shared_rows`), a damaged record (not JSON, or one the analysis cannot compute
    from: :func:`rundir.records.fields_problem`) a :class:`BadRun` naming its line."""
    rows, shared = [], []
    try:
        for n, r in enumerate(records.read(trials_file, fields=True), 1):
            try:
                rows.append(tidy_record(r))
                shared += shared_rows(r)
            except (AttributeError, TypeError, KeyError, ValueError) as exc:
                raise BadRun(f"{trials_file}:{n}: not a record the analysis can read "
                             f"({type(exc).__name__}: {exc})") from None
    except records.RecordError as exc:
        raise BadRun(str(exc)) from None
    except (OSError, EOFError, zlib_error) as exc:
        raise BadRun(f"{trials_file}: cannot be read "
                     f"({getattr(exc, 'strerror', None) or exc})") from None
    return rows, shared


def _run_json(path: Path, what: str, read: Any) -> Any:
    """``read()`` of one of the run's JSON files, its damage a :class:`BadRun` naming it."""
    try:
        return read()
    except (OSError, ValueError) as exc:  # not UTF-8, not strict JSON, a link, too large
        raise BadRun(f"{path / what}: cannot be read as the run's {what} "
                     f"({getattr(exc, 'strerror', None) or exc})") from None


def load_run(run_dir: str | Path) -> Run:
    path = Path(run_dir).expanduser().resolve()
    trials_file = records.trials_file(path)
    if trials_file is None:
        raise BadRun(f"no {layout.TRIALS} or {layout.TRIALS_PACKED} in {path} "
                     "(a run directory holds its trial records)")
    rows, shared = _tidy_rows(trials_file)
    df = pd.DataFrame(rows)
    if df.empty:
        df = pd.DataFrame(columns=list(tidy_record({}).keys()))
    df = _derive(df)
    sdf = _derive(pd.DataFrame(shared)) if shared else pd.DataFrame()
    manifest = _run_json(path, layout.MANIFEST,
                         lambda: read_json(path / layout.MANIFEST, path)) or {}
    if not isinstance(manifest, dict):
        raise BadRun(f"{path / layout.MANIFEST}: a JSON {type(manifest).__name__}, not the "
                     "run's manifest (an object)")
    plan = _run_json(path, layout.PLAN, lambda: planfile.read(path))
    notes: list[str] = []
    if not manifest:
        notes.append(f"{layout.MANIFEST} missing or empty")
    cpu = _run_json(path, layout.PERF_DIR, lambda: load_cpu_profiles(path, df))
    return Run(path, df, manifest, plan, cpu, notes, sdf)


# ---------------------------------------------------------------------------- siblings

def sibling_json(run_dir: Path, name: str) -> Any:
    """The JSON file ``name`` (``plan.json``, ``manifest.json``) of a run beside the one being
    read, or None when it has none: read as a run's own file (:func:`rundir.utf8.read`: a
    regular file at most 64 MiB, never through a link below the run, so a FIFO or a link to
    /dev/zero is refused before a byte is read; strict JSON). Anything else that is not such
    a file is a :class:`BadRun` naming it."""
    p = Path(run_dir) / name
    if not os.path.lexists(p):
        return None
    try:
        return utf8.json_loads(utf8.read(p, inside=Path(run_dir)))
    except (OSError, ValueError) as exc:  # a link, a FIFO, a device, too large; not JSON
        raise BadRun(f"{p}: cannot be read as the {name} of a run beside the one read "
                     f"({getattr(exc, 'strerror', None) or exc})") from None


@dataclass(frozen=True)
class Sibling:
    """A committed run beside the one read: its directory, and its ``plan.json`` and
    ``manifest.json`` (None where it has none, or where either is not a JSON object)."""

    path: Path
    plan: dict[str, Any] | None
    manifest: dict[str, Any] | None


def packed_siblings(run_dir: str | Path) -> list[Sibling]:
    """The committed runs beside ``run_dir`` (each directory of its parent, itself excepted,
    that holds a packed ``trials.jsonl.gz`` as a regular file), in name order, with their plan
    and manifest (:func:`sibling_json`: a damaged one is a :class:`BadRun`). Only those two
    files are read: what the replication chapter chooses its other runs by."""
    ref = Path(run_dir).resolve()
    out = []
    for d in sorted(ref.parent.iterdir()):
        try:
            packed = stat.S_ISREG(os.lstat(d / layout.TRIALS_PACKED).st_mode)
        except OSError:  # not a directory, or no packed records
            continue
        if not packed or d.resolve() == ref:
            continue
        plan, manifest = sibling_json(d, layout.PLAN), sibling_json(d, layout.MANIFEST)
        out.append(Sibling(d, plan if isinstance(plan, dict) else None,
                           manifest if isinstance(manifest, dict) else None))
    return out


# ---------------------------------------------------------------------------- manifest

def memcpy_gbit(manifest: dict[str, Any]) -> float | None:
    m = manifest.get("memcpy")
    if isinstance(m, (int, float)):
        return float(m)
    if isinstance(m, dict):
        for k in ("bound_gbit_per_s", "memcpy_gbit_per_s", "gbit_per_s"):
            if isinstance(m.get(k), (int, float)):
                return float(m[k])
    v = manifest.get("memcpy_gbit_per_s")
    return float(v) if isinstance(v, (int, float)) else None


def pmu_status(run: Run) -> tuple[bool, str]:
    """Whether hardware counters were measured in this run, and if not, why."""
    m = run.measured
    hw = [f"{s}_{c}" for s in ("sender", "receiver") for c in HW_COUNTERS]
    present = [c for c in hw if c in m and m[c].notna().any()]
    if present:
        return True, "hardware counters present (" + ", ".join(sorted(
            {c.split("_", 1)[1] for c in present})) + ")"
    reasons = set()
    # trials run with --counters rusage (latency cells) skip perf by choice: only trials that
    # asked for every counter can say why the machine has none
    asked = m[m["counters"] != "rusage"]
    for col in ("sender_unavailable", "receiver_unavailable"):
        for v in asked[col].dropna():
            for part in str(v).split("; "):
                if part.startswith("cycles:"):
                    reasons.add(part.split(": ", 1)[1])
    pmu = run.manifest.get("pmu")
    if isinstance(pmu, dict):
        for k in ("reason", "why", "error"):
            if pmu.get(k):
                reasons.add(str(pmu[k]))
    if not reasons:
        reasons.add("no trial in this run recorded hardware counters")
    return False, "; ".join(sorted(reasons))


def flatten(d: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested manifest → (key, value) rows; long lists are summarised."""
    out: list[tuple[str, str]] = []
    if isinstance(d, dict):
        for k, v in d.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict) and v:
                out += flatten(v, key)
            else:
                out += flatten(v, key) if isinstance(v, dict) else [(key, _short(v))]
    else:
        out.append((prefix, _short(d)))
    return out


def _short(v: Any, limit: int = 160) -> str:
    s = json.dumps(v) if isinstance(v, (list, dict)) else ("—" if v is None else str(v))
    return s if len(s) <= limit else s[: limit - 1] + "…"


# ---------------------------------------------------------------------------- selection

def _equal(col: pd.Series, v: Any) -> np.ndarray:
    """``col == v`` as a plain boolean array, a missing value never equal: strings and
    objects compared as Python objects (a missing value as None), numbers as numbers, any
    other type by pandas (its missing values read False, as a boolean mask reads them)."""
    dt = col.dtype
    if dt == object or isinstance(dt, pd.StringDtype):
        out = col.to_numpy(dtype=object, na_value=None) == v
    elif isinstance(dt, np.dtype) and dt.kind in "biuf" and isinstance(v, (int, float, np.number)):
        out = col.to_numpy() == v
    else:
        return (col == v).to_numpy(dtype=bool, na_value=False)
    if isinstance(out, np.ndarray) and out.dtype == bool and out.shape == (len(col),):
        return out
    return (col == v).to_numpy(dtype=bool, na_value=False)  # (v missing, or not comparable)


def _matching(df: pd.DataFrame, factors: dict[str, Any]) -> np.ndarray:
    """The positions of the rows matching every factor (see :func:`select`)."""
    mask = np.ones(len(df), dtype=bool)
    for k, v in factors.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple, set)):
            mask &= df[k].isin(list(v)).to_numpy(dtype=bool, na_value=False)
        else:
            mask &= _equal(df[k], v)
    return np.flatnonzero(mask)


def select(df: pd.DataFrame, **factors: Any) -> pd.DataFrame:
    """Rows matching every given factor (a value, or a list/tuple of allowed values)."""
    return df.take(_matching(df, factors))


def select_columns(df: pd.DataFrame, columns: Sequence[str], **factors: Any) -> pd.DataFrame:
    """:func:`select`, keeping only ``columns`` (those ``df`` has): the rows of a records
    table are taken column by column, so a reader of a few of its many columns takes only
    those."""
    keep = [c for c in dict.fromkeys(columns) if c in df.columns]
    return df[keep].take(_matching(df, factors))


def values(df: pd.DataFrame, metric: str) -> np.ndarray:
    return df[metric].astype(float).dropna().to_numpy()


def summarize_cells(df: pd.DataFrame, metric: str, by: Sequence[str]) -> pd.DataFrame:
    """Per cell (the ``by`` factors): median with bootstrap CI, n, achieved relative CI
    half-width, Tukey outlier counts, Shapiro-Wilk p."""
    rows = []
    if df.empty:
        return pd.DataFrame(columns=[*by, "median", "lo", "hi", "n", "ci_half_width_rel",
                                     "outliers_low", "outliers_high", "shapiro_p"])
    for i, (key, g) in enumerate(df.groupby(list(by), dropna=False, sort=True)):
        x = values(g, metric)
        if x.size == 0:
            continue
        s = S.summarize(x, seed=i)
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), "median": s.median.value, "lo": s.median.lo,
                     "hi": s.median.hi, "n": s.median.n,
                     "ci_half_width_rel": s.median.half_width_rel,
                     "outliers_low": s.outliers.low, "outliers_high": s.outliers.high,
                     "shapiro_p": s.normality.p})
    return pd.DataFrame(rows)


def normalised_by_cell(df: pd.DataFrame, metric: str) -> pd.Series:
    """Each value divided by its cell's median (for drift tests across cells)."""
    med = df.groupby("cell")[metric].transform("median")
    return df[metric].astype(float) / med.astype(float)


def drift_by_scenario(run: Run, metric: str = "gbit_per_s") -> pd.DataFrame:
    m = run.measured
    rows = []
    for scen, g in m.groupby("scenario"):
        g = g[g[metric].notna() & (g[metric].astype(float) > 0)]
        if g.empty:
            continue
        d = S.drift(g["order_index"], normalised_by_cell(g, metric))
        rows.append({"scenario": scen, "trials": d.n, "spearman_rho": d.rho, "p": d.p,
                     "drift": "detected" if d.detected else "not detected"})
    return pd.DataFrame(rows)


def distinct(df: pd.DataFrame, col: str) -> list[Any]:
    return sorted(v for v in df[col].dropna().unique())


#: the factors that make a configuration (a figure's point pools trials of one configuration)
CONFIG_FACTORS = ("kind", "scenario", "method", "mode", "protocol", "transport", "placement",
                  "size", "threads", "cache")


def one_window(df: pd.DataFrame) -> pd.DataFrame:
    """The trials of each configuration at one window length: where the run measured a
    configuration at several windows (the method chapter's window curves), the window with
    the most trials, so that no point or CI of a figure pools two windows."""
    if df.empty or "duration_s" not in df or df["duration_s"].nunique(dropna=True) < 2:
        return df
    keys = [c for c in CONFIG_FACTORS if c in df]
    n = df.groupby([*keys, "duration_s"], dropna=False)["duration_s"].transform("size")
    best = n.groupby([df[k] for k in keys], dropna=False).transform("max")
    keep = df[n == best]
    # ties: the longest of the windows with the most trials
    top = keep.groupby(keys, dropna=False)["duration_s"].transform("max")
    return keep[keep["duration_s"] == top]


def reference(df: pd.DataFrame, transports: Sequence[str] = ("veth", "loopback"),
              placements: Sequence[str] = ("cross-core", "unpinned", "same-core")
              ) -> tuple[str | None, str | None]:
    """The (transport, placement) the figures single out: the most-populated pair, ties
    broken by preference (veth as in the PA02 reports; cross-core)."""
    if df.empty:
        return None, None
    best: tuple[int, int, str | None, str | None] = (-1, 0, None, None)
    for i, t in enumerate(transports):
        for j, p in enumerate(placements):
            n = int(((df["transport"] == t) & (df["placement"] == p)).sum())
            key = (n, -(i * 10 + j))
            if n and key > best[:2]:
                best = (n, -(i * 10 + j), t, p)
    if best[2] is None:
        row = df.iloc[0]
        return row["transport"], row["placement"]
    return best[2], best[3]


def method_order(df: pd.DataFrame) -> list[str]:
    present = set(df["method"].dropna())
    return [m for m in (*MESSAGE_METHODS, *FILE_METHODS) if m in present] + sorted(
        present - set(MESSAGE_METHODS) - set(FILE_METHODS))

"""Whether the shared-time design may replace today's: the criteria a validation run (the
``shared-time`` profile: both designs of each comparison in the same rounds) is judged by,
declared before the run in ``runner/profiles/shared-time-criteria.toml``, and their reading of
a run's tidy tables (``Run.measured``: today's trials; ``Run.shared``: each shared-time
connection a row).

The criteria, each read when the two designs are meant to measure the same ratio:

* (a) **overlap**: no comparison X/send has a shared-time CI disjoint from today's (both t CIs
  at the family's level, 1 - alpha/m over the m comparisons; :func:`decision.rule.overlap`);
* (b) **equivalence**: the pooled ratio shared-time / today's over the comparisons (per round,
  the mean over the comparisons of the two designs' log-ratio difference; its t interval over
  the rounds at 1 - 2 alpha, the two one-sided tests at alpha) lies inside 1 +- the declared
  margin (:class:`decision.rule.Expect` ``equivalent``);
* (c) **A/A**: each shared-time A/A (send against itself, one per size and placement) has its CI
  at the A/A control's level inside the band (:data:`decision.band.SESOI`);
* (d) **spread**: the median per-round sd of shared time's comparisons is at most the declared
  fraction of today's median in the same run;
* (e) **mechanisms**: per quantity (the congestion window and receive buffer at the window's
  end, retransmissions per GB, bytes per receive call), each shared-time connection against
  today's trial of its method's cell in the same round: no connection's ratio CI (at the
  family's level over the connections) lies wholly beyond 1 +- the quantity's tolerance, and
  the pooled ratio (per round the mean over the connections, 1 - 2 alpha) lies inside it.

Adopt only if every criterion holds; a criterion whose declared comparisons or connections the
run lacks (no CI) does not hold. Every interval is :func:`decision.interval.paired_interval`
(the one paired t interval), every reading of one against an edge is :mod:`decision.rule`'s;
the readers :func:`disjoint`, :func:`equivalent`, :func:`beyond` and :func:`sd_holds` are the
ones the simulation of the criteria (:mod:`analysis.designsim.sharedtime`) uses. Pure: the
criteria come in as a parsed TOML document (:func:`parse`), the run as tidy tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.statistics import designs as D
from analysis.statistics.fmt import fmt_ratio_ci, fmt_size
from decision import interval as I
from decision import rule as R
from decision.band import ALPHA, BAND, SESOI

#: the placements a comparison may be declared at
PLACEMENTS = ("same-core", "cross-core", "unpinned")
#: the methods a shared-time trial can hold (copybench send --share-time)
SHARE_METHODS = ("send", "sendmsg", "zerocopy")
#: the criteria's keys, in the order they are read
KEYS = ("a", "b", "c", "d", "e")


def _f(d: pd.DataFrame, col: str) -> pd.Series:
    return pd.to_numeric(d[col], errors="coerce").astype(float) if col in d \
        else pd.Series(np.nan, index=d.index)


#: quantity key -> (its words, its value per tidy row). Each is compared as a ratio, so each
#: is positive where recorded: retransmissions as 1 + per GB (a window without any is 1).
MECHANISMS: dict[str, tuple[str, Callable[[pd.DataFrame], pd.Series]]] = {
    "snd_cwnd": ("congestion window at the window's end (segments)",
                 lambda d: _f(d, "sender_snd_cwnd_end")),
    "rcvbuf": ("receive buffer at the window's end (bytes)",
               lambda d: _f(d, "receiver_rcvbuf_end")),
    "retrans": ("1 + retransmissions per GB",
                lambda d: 1.0 + _f(d, "sender_retrans") / (_f(d, "bytes") / 1e9)),
    "bytes_per_call": ("bytes per receive call",
                       lambda d: _f(d, "receiver_bytes") / _f(d, "receiver_syscalls")),
}


class CriteriaError(ValueError):
    """A criteria document that is incomplete or inconsistent: one line naming the key and
    what is allowed."""


# ------------------------------------------------------------------------ the criteria

@dataclass(frozen=True)
class Derivation:
    """How the derived numbers (the margin, the tolerances) were derived: the noise the
    simulation assumed for shared time, its sensitivity values, the pass probability each
    derived criterion was derived at, the reference run whose trials model the mechanisms,
    and the simulation's runs and seed."""

    sd_shared: float
    sensitivity: tuple[float, ...]
    pass_each: float
    reference_run: str
    runs: int
    seed: int


@dataclass(frozen=True)
class Criteria:
    """The declared criteria (``runner/profiles/shared-time-criteria.toml``)."""

    profile: str
    alpha: float
    rounds: int
    base: str
    methods: tuple[str, ...]
    sizes: tuple[int, ...]
    placements: tuple[str, ...]
    overlap_family: int
    margin: float
    aa_family: int
    aa_band: float
    sd_at_most: float
    mechanism_family: int
    tolerances: dict[str, float]
    derivation: Derivation

    @property
    def overlap_level(self) -> float:
        """(a)'s level: 1 - alpha / m over the comparisons."""
        return I.level_of(self.overlap_family, self.alpha)

    @property
    def aa_level(self) -> float:
        """(c)'s level of one A/A's CI: 1 - alpha / its family (the A/A control's: 95 %)."""
        return I.level_of(self.aa_family, self.alpha)

    @property
    def tost_level(self) -> float:
        """The pooled equivalence tests' level: 1 - 2 alpha (two one-sided tests at alpha)."""
        return 1.0 - 2.0 * self.alpha

    @property
    def mechanism_level(self) -> float:
        """(e)'s level of one connection's CI: 1 - alpha / m over the connections."""
        return I.level_of(self.mechanism_family, self.alpha)

    def comparisons(self) -> list[tuple[int, str, str]]:
        """The declared comparisons X/base: (size, placement, pair), in reading order."""
        return [(s, p, f"{m}/{self.base}") for s in self.sizes for p in self.placements
                for m in self.methods]

    def aa(self) -> list[tuple[int, str, str]]:
        """The declared shared-time A/As: (size, placement, "base (twin)/base")."""
        return [(s, p, f"{self.base} (twin)/{self.base}") for s in self.sizes
                for p in self.placements]

    def connections(self) -> list[tuple[int, str, str, int]]:
        """The declared shared-time connections: (size, placement, "M0|M1", connection),
        each trial's two (the cell's method on connection 0, the base on 1), the A/A's
        included."""
        trials = [f"{m}|{self.base}" for m in self.methods] + [f"{self.base}|{self.base}"]
        return [(s, p, t, c) for s in self.sizes for p in self.placements for t in trials
                for c in (0, 1)]


def _table(doc: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    t = doc.get(key)
    if not isinstance(t, dict):
        raise CriteriaError(f"{where}: [{key}] missing (a table is required)")
    return t


def _known(t: Mapping[str, Any], key: str, allowed: Sequence[str], where: str) -> None:
    extra = sorted(set(t) - set(allowed))
    if extra:
        raise CriteriaError(f"{where}: [{key}] has unknown key(s) {', '.join(extra)} "
                            f"(allowed: {', '.join(allowed)})")


def _num(t: Mapping[str, Any], table: str, key: str, where: str, lo: float, hi: float,
         integer: bool = False) -> float:
    v = t.get(key)
    ok_type = isinstance(v, int) if integer else isinstance(v, (int, float))
    if isinstance(v, bool) or not ok_type or not (lo <= v <= hi):
        kind = "an integer" if integer else "a number"
        raise CriteriaError(f"{where}: {table}.{key}: {v!r} is not {kind} in [{lo:g}, {hi:g}]")
    return v


def _level(t: Mapping[str, Any], table: str, want: float, how: str, where: str) -> None:
    v = _num(t, table, "level", where, 0.0, 1.0)
    if abs(v - want) > 1e-6:
        raise CriteriaError(f"{where}: {table}.level: {v!r} is not {how} = {want:.7g}")


def _strings(t: Mapping[str, Any], table: str, key: str, where: str,
             allowed: Sequence[str]) -> tuple[str, ...]:
    v = t.get(key)
    if not isinstance(v, list) or not v or any(x not in allowed for x in v) \
            or len(set(v)) != len(v):
        raise CriteriaError(f"{where}: {table}.{key}: {v!r} is not a list of distinct values "
                            f"from {', '.join(allowed)}")
    return tuple(v)


def parse(doc: Mapping[str, Any], where: str = "criteria") -> Criteria:
    """The criteria of a TOML document, every key checked: present, of its type and range,
    consistent (each declared family is the count it covers, each level the one its family
    gives). Raises :class:`CriteriaError` with one line naming the key."""
    top = ("criteria", "comparisons", "overlap", "equivalence", "aa", "sd", "mechanisms",
           "derivation")
    _known(doc, "top level", top, where)
    c = _table(doc, "criteria", where)
    _known(c, "criteria", ("profile", "alpha", "rounds", "adopt"), where)
    profile = c.get("profile")
    if not isinstance(profile, str) or not profile:
        raise CriteriaError(f"{where}: criteria.profile: the name of the profile judged")
    alpha = _num(c, "criteria", "alpha", where, 0.0, 1.0)
    if alpha != ALPHA:
        raise CriteriaError(f"{where}: criteria.alpha: {alpha!r} is not the study's error "
                            f"rate {ALPHA}")
    rounds = int(_num(c, "criteria", "rounds", where, 2, 10_000, integer=True))
    if c.get("adopt") != "all":
        raise CriteriaError(f"{where}: criteria.adopt: {c.get('adopt')!r} (allowed: \"all\": "
                            "adopt only if every criterion holds)")
    cmp_ = _table(doc, "comparisons", where)
    _known(cmp_, "comparisons", ("base", "methods", "sizes", "placements"), where)
    base = cmp_.get("base")
    if base not in SHARE_METHODS:
        raise CriteriaError(f"{where}: comparisons.base: {base!r} (allowed: "
                            f"{', '.join(SHARE_METHODS)})")
    methods = _strings(cmp_, "comparisons", "methods", where,
                       [m for m in SHARE_METHODS if m != base])
    sizes = cmp_.get("sizes")
    if not isinstance(sizes, list) or not sizes or len(set(sizes)) != len(sizes) or any(
            isinstance(s, bool) or not isinstance(s, int) or s <= 0 for s in sizes):
        raise CriteriaError(f"{where}: comparisons.sizes: {sizes!r} is not a list of distinct "
                            "sizes in bytes")
    placements = _strings(cmp_, "comparisons", "placements", where, PLACEMENTS)
    n_cmp = len(methods) * len(sizes) * len(placements)

    ov = _table(doc, "overlap", where)
    _known(ov, "overlap", ("family", "level"), where)
    fam = int(_num(ov, "overlap", "family", where, 1, 10_000, integer=True))
    if fam != n_cmp:
        raise CriteriaError(f"{where}: overlap.family: {fam} is not the {n_cmp} comparisons "
                            "declared")
    _level(ov, "overlap", I.level_of(fam, alpha), "1 - alpha/family", where)
    eq = _table(doc, "equivalence", where)
    _known(eq, "equivalence", ("margin", "level"), where)
    margin = _num(eq, "equivalence", "margin", where, 1e-6, 0.999)
    _level(eq, "equivalence", 1 - 2 * alpha, "1 - 2 alpha", where)
    aa = _table(doc, "aa", where)
    _known(aa, "aa", ("band", "family", "level"), where)
    if aa.get("band") != BAND:
        raise CriteriaError(f"{where}: aa.band: {aa.get('band')!r} (allowed: \"{BAND}\", the "
                            "study's one band)")
    aa_family = int(_num(aa, "aa", "family", where, 1, 10_000, integer=True))
    _level(aa, "aa", I.level_of(aa_family, alpha), "1 - alpha/family", where)
    sd = _table(doc, "sd", where)
    _known(sd, "sd", ("at_most",), where)
    at_most = _num(sd, "sd", "at_most", where, 1e-6, 1.0)
    me = _table(doc, "mechanisms", where)
    _known(me, "mechanisms", ("family", "level", "pooled_level", "tolerance"), where)
    n_conn = (2 * len(methods) + 2) * len(sizes) * len(placements)
    mfam = int(_num(me, "mechanisms", "family", where, 1, 100_000, integer=True))
    if mfam != n_conn:
        raise CriteriaError(f"{where}: mechanisms.family: {mfam} is not the {n_conn} "
                            "shared-time connections declared")
    _level(me, "mechanisms", I.level_of(mfam, alpha), "1 - alpha/family", where)
    if abs(_num(me, "mechanisms", "pooled_level", where, 0.0, 1.0) - (1 - 2 * alpha)) > 1e-6:
        raise CriteriaError(f"{where}: mechanisms.pooled_level: {me.get('pooled_level')!r} "
                            f"is not 1 - 2 alpha = {1 - 2 * alpha:g}")
    tol = me.get("tolerance")
    if not isinstance(tol, dict) or set(tol) != set(MECHANISMS):
        got = sorted(tol) if isinstance(tol, dict) else tol
        raise CriteriaError(f"{where}: mechanisms.tolerance: {got!r} (required: one number "
                            f"each for {', '.join(MECHANISMS)})")
    tolerances = {k: float(_num(tol, "mechanisms.tolerance", k, where, 1e-6, 0.999))
                  for k in MECHANISMS}
    dv = _table(doc, "derivation", where)
    _known(dv, "derivation", ("sd_shared", "sensitivity", "pass_each", "reference_run", "runs",
                              "seed"), where)
    sens = dv.get("sensitivity")
    if not isinstance(sens, list) or not sens or any(
            isinstance(x, bool) or not isinstance(x, (int, float)) or x <= 0 for x in sens):
        raise CriteriaError(f"{where}: derivation.sensitivity: {sens!r} is not a list of sds")
    ref = dv.get("reference_run")
    if not isinstance(ref, str) or not ref:
        raise CriteriaError(f"{where}: derivation.reference_run: the run (data/raw/<run-id>) "
                            "whose trials model the mechanisms")
    derivation = Derivation(
        float(_num(dv, "derivation", "sd_shared", where, 1e-6, 10.0)),
        tuple(float(x) for x in sens),
        float(_num(dv, "derivation", "pass_each", where, 0.5, 0.999999)), ref,
        int(_num(dv, "derivation", "runs", where, 10, 10_000_000, integer=True)),
        int(_num(dv, "derivation", "seed", where, 0, 2 ** 63 - 1, integer=True)))
    return Criteria(profile, float(alpha), rounds, str(base), methods, tuple(sizes), placements,
                    fam, float(margin), aa_family, SESOI, float(at_most), mfam,
                    tolerances, derivation)


# ------------------------------------------------------------- the readers of the criteria

def disjoint(a_lo: float, a_hi: float, b_lo: float, b_hi: float) -> bool | None:
    """Whether two CIs are disjoint; None where either has no ends."""
    ov = R.overlap(a_lo, a_hi, b_lo, b_hi)
    return None if ov is None else not ov


def equivalent(lo: float, hi: float, t: float) -> bool:
    """Whether the CI lies inside [1 - t, 1 + t] (an equivalence expectation agrees)."""
    return R.Expect(R.EQUIVALENT, t).read(lo, hi).outcome == R.AGREES


def beyond(lo: float, hi: float, t: float) -> bool:
    """Whether the CI lies wholly beyond 1 + t or 1 - t (a difference beyond t shown)."""
    return R.side(lo, hi, 1.0 - t, 1.0 + t) in ("above", "below")


def sd_holds(sd_today: float, sd_shared: float, at_most: float) -> bool:
    """Whether shared time's median per-round sd is at most ``at_most`` x today's."""
    return math.isfinite(sd_today) and math.isfinite(sd_shared) \
        and sd_shared <= at_most * sd_today


# ------------------------------------------------------------------- a run's reading

@dataclass(frozen=True)
class Outcome:
    """One criterion read on a run: whether it holds and each reading it rests on."""

    key: str
    title: str
    holds: bool
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Judgement:
    """Every criterion's outcome and the adoption rule's answer."""

    outcomes: tuple[Outcome, ...]

    @property
    def adopt(self) -> bool:
        """Adopt only if every criterion holds."""
        return bool(self.outcomes) and all(o.holds for o in self.outcomes)

    def failed(self) -> list[str]:
        return [o.key for o in self.outcomes if not o.holds]


def _label(size: int, placement: str, what: str) -> str:
    return f"{what} {fmt_size(int(size))} {placement}"


def _ci(lo: float, hi: float, est: float) -> str:
    return fmt_ratio_ci(est, lo, hi, times=False) if math.isfinite(lo) else "no CI"


def _rows(table: pd.DataFrame, keys: Sequence[tuple[int, str, str]]
          ) -> tuple[dict[tuple[int, str, str], Any], list[tuple[int, str, str]]]:
    by = {(int(r.size), str(r.placement), str(r.pair)): r for r in table.itertuples()}
    return {k: by[k] for k in keys if k in by}, [k for k in keys if k not in by]


def _missing(keys: Sequence[tuple[Any, ...]]) -> str:
    return "missing (not measured under both designs): " + "; ".join(
        _label(k[0], k[1], " ".join(str(x) for x in k[2:])) for k in keys)


def overlap(table: pd.DataFrame, crit: Criteria) -> Outcome:
    """(a) on :func:`analysis.statistics.designs.compare`'s table at the overlap family."""
    rows, missing = _rows(table, crit.comparisons())
    lines, ok = [], not missing
    for (size, pl, pair), r in rows.items():
        dis = disjoint(r.lo_today, r.hi_today, r.lo_shared, r.hi_shared)
        ok &= dis is False
        verdict = {True: "DISJOINT", False: "overlap", None: "no CI"}[dis]
        lines.append(f"{_label(size, pl, pair)}: today {_ci(r.lo_today, r.hi_today, r.ratio_today)}"
                     f", shared time {_ci(r.lo_shared, r.hi_shared, r.ratio_shared)}: {verdict}")
    if missing:
        lines.append(_missing(missing))
    return Outcome("a", f"no comparison's CIs disjoint (t CIs at {crit.overlap_level:.6g}, "
                        f"family {crit.overlap_family})", ok, tuple(lines))


def pooled(per_round: Mapping[Any, pd.Series]) -> pd.Series:
    """Per round (the index's last level, the repetition), the mean over the series of their
    values in that round: the pooled per-round log ratio of several comparisons."""
    parts = [s.groupby(level=s.index.nlevels - 1).mean().rename(i)
             for i, s in enumerate(per_round.values())]
    if not parts:
        return pd.Series(dtype=float)
    wide = pd.concat(parts, axis=1)
    return wide.mean(axis=1, skipna=True).dropna().sort_index()


def _lr(j: pd.DataFrame) -> pd.Series:
    a, b = j["a"].astype(float), j["b"].astype(float)
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    return np.log(a[ok] / b[ok])


def equivalence(measured: pd.DataFrame, shared: pd.DataFrame, crit: Criteria) -> Outcome:
    """(b): the pooled ratio shared time / today's over the declared comparisons."""
    today, sh = D.today_rounds(measured), D.shared_rounds(shared)
    keys = crit.comparisons()
    missing = [k for k in keys if k not in today or k not in sh]
    diffs = {k: (_lr(sh[k]) - _lr(today[k])).dropna() for k in keys if k not in missing}
    ci = I.paired_interval(pooled(diffs).to_numpy(), level=crit.tost_level)
    inside = equivalent(ci.lo, ci.hi, crit.margin)
    ok = not missing and inside
    lines = [f"pooled ratio shared time / today's over {len(diffs)} comparisons, {ci.n} rounds:"
             f" {_ci(ci.lo, ci.hi, ci.estimate)} (t CI at {crit.tost_level:.2f}); "
             f"{'inside' if inside else 'NOT inside'} [{1 - crit.margin:.3f}, "
             f"{1 + crit.margin:.3f}]"]
    if missing:
        lines.append(_missing(missing))
    return Outcome("b", f"pooled equivalence (TOST at alpha {crit.alpha:g}, margin "
                        f"±{crit.margin:.0%})", ok, tuple(lines))


def aa(table: pd.DataFrame, crit: Criteria) -> Outcome:
    """(c) on :func:`analysis.statistics.designs.compare`'s table at the A/A's level."""
    rows, missing = _rows(table, crit.aa())
    lines, ok = [], not missing
    for (size, pl, pair), r in rows.items():
        inside = equivalent(r.lo_shared, r.hi_shared, crit.aa_band)
        ok &= inside
        lines.append(f"{_label(size, pl, 'A/A')}: shared time "
                     f"{_ci(r.lo_shared, r.hi_shared, r.ratio_shared)} "
                     f"{'inside' if inside else 'NOT inside'} the band (today's "
                     f"{_ci(r.lo_today, r.hi_today, r.ratio_today)})")
    if missing:
        lines.append(_missing(missing))
    return Outcome("c", f"the shared-time A/A inside ±{crit.aa_band:.0%} (t CIs at "
                        f"{crit.aa_level:.2f})", ok, tuple(lines))


def spread(table: pd.DataFrame, crit: Criteria) -> Outcome:
    """(d): the median per-round sd of the declared comparisons, shared time against
    today's."""
    rows, missing = _rows(table, crit.comparisons())
    sub = table[[(int(r.size), str(r.placement), str(r.pair)) in rows
                 for r in table.itertuples()]]
    med_t, med_s = D.median_sd(sub) if not sub.empty else (math.nan, math.nan)
    ok = not missing and sd_holds(med_t, med_s, crit.sd_at_most)
    lines = [f"median paired per-round sd over {len(rows)} comparisons: today {med_t:.3f}, "
             f"shared time {med_s:.3f} (ratio {med_s / med_t:.2f}; at most "
             f"{crit.sd_at_most:g})" if math.isfinite(med_t) and med_t > 0 else
             "no per-round sd"]
    if missing:
        lines.append(_missing(missing))
    return Outcome("d", f"shared time's median sd at most {crit.sd_at_most:g} x today's", ok,
                   tuple(lines))


def mechanism_rounds(measured: pd.DataFrame, shared: pd.DataFrame, quantity: str
                     ) -> dict[tuple[int, str, str, int], pd.Series]:
    """Per shared-time connection (size, placement, "M0|M1", connection): its per-round log
    ratio of ``quantity`` (:data:`MECHANISMS`) against today's trial of its method's cell
    (twin 0) in the same block and round; rounds where either value is missing left out."""
    value = MECHANISMS[quantity][1]
    today, sh = D.stream_rows(measured), D.stream_rows(shared)
    out: dict[tuple[int, str, str, int], pd.Series] = {}
    if today.empty or sh.empty or "connection" not in sh:
        return out
    today = today[today["twin"].fillna(0).astype(int) == 0]
    tv = today.assign(v=value(today)).groupby(
        ["size", "placement", "method", "block", "repetition"])["v"].median()
    for (size, pl, _cell, conn), g in sh.assign(v=value(sh)).groupby(
            ["size", "placement", "trial_cell", "connection"]):
        method, other = str(g["method"].iloc[0]), str(g["share_with"].iloc[0])
        pair = f"{method}|{other}" if int(conn) == 0 else f"{other}|{method}"
        s = g.set_index(["block", "repetition"])["v"].astype(float)
        try:
            t = tv.loc[(size, pl, method)]
        except KeyError:
            continue
        j = pd.concat([s.rename("a"), t.rename("b")], axis=1, join="inner")
        out[(int(size), str(pl), pair, int(conn))] = _lr(j)
    return out


def mechanisms(measured: pd.DataFrame, shared: pd.DataFrame, crit: Criteria) -> list[Outcome]:
    """(e), one outcome per quantity."""
    out = []
    keys = crit.connections()
    for q, (words, _) in MECHANISMS.items():
        t = crit.tolerances[q]
        per = mechanism_rounds(measured, shared, q)
        lines, ok = [], True
        missing = [k for k in keys if k not in per or per[k].size < 2]
        for k in keys:
            if k in missing:
                continue
            ci = I.paired_interval(per[k].to_numpy(), level=crit.mechanism_level)
            if beyond(ci.lo, ci.hi, t):
                ok = False
                lines.append(f"{_label(k[0], k[1], f'{k[2]} connection {k[3]}')}: "
                             f"{_ci(ci.lo, ci.hi, ci.estimate)} BEYOND ±{t:.0%}")
        pool = I.paired_interval(pooled({k: per[k] for k in keys if k not in missing})
                                 .to_numpy(), level=crit.tost_level)
        inside = equivalent(pool.lo, pool.hi, t)
        ok = ok and inside and not missing
        if not lines:
            lines.append(f"no connection's CI (at {crit.mechanism_level:.6g}) beyond ±{t:.0%}")
        lines.insert(0, f"pooled over {len(keys) - len(missing)} connections, {pool.n} rounds: "
                        f"{_ci(pool.lo, pool.hi, pool.estimate)} (t CI at "
                        f"{crit.tost_level:.2f}) {'inside' if inside else 'NOT inside'} "
                        f"±{t:.0%}")
        if missing:
            lines.append(_missing(missing))
        out.append(Outcome("e", f"{words}: shared time / today's within ±{t:.0%}", ok,
                           tuple(lines)))
    return out


def judge(measured: pd.DataFrame, shared: pd.DataFrame, crit: Criteria) -> Judgement:
    """Every criterion read on a run's tidy tables (``Run.measured``, ``Run.shared``)."""
    at_family = D.compare(measured, shared, crit.overlap_family)
    at_aa = D.compare(measured, shared, crit.aa_family)
    return Judgement((overlap(at_family, crit), equivalence(measured, shared, crit),
                      aa(at_aa, crit), spread(at_family, crit),
                      *mechanisms(measured, shared, crit)))

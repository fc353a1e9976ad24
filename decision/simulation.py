"""Simulation harness of the sequential top-up design (:mod:`decision.sequential`), shared
by tests/decision/test_sequential_simulation.py (which asserts on it) and
studies/simulate_topup.py (which prints its table).

Synthetic per-round log ratios: log(true ratio) + sd * e, e standard normal (or a
unit-variance t with 4 df, for heavy tails), with the sds of the noise model
(runner/profiles/noise.toml, read by :mod:`decision.profiles`) and planted true ratios. The design is the
claims profile's (runner/profiles/claims.toml [design]): a block's planned rounds n0 by the
formula of runner/plan/blocks.py (the smallest n with t(1 - a/2m, n-1) sd / sqrt(n) <=
ln(1 + target), within rounds_min..rounds_max), looks every k rounds, maximum N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from decision import interval as I
from decision import rule as R
from decision import sequential as sq
from decision.profiles import read_profile
from decision.sequential import Schedule, schedule

DIRECTION = (0.97, 1.03)
APPROX_TOL = 1.25
Array = NDArray[np.float64]


def noise_sd(kind: str, placement: str, window_s: float) -> float:
    """The noise model's per-round log-ratio sd for one kind of cell, placement and window."""
    doc = read_profile("noise")
    for e in doc["sd"]:
        if (e["kind"], e["placement"], float(e["window_s"])) == (kind, placement, window_s):
            return float(e["log_ratio_sd"])
    raise KeyError(f"noise.toml has no sd for {kind} {placement} {window_s} s")


def design(profile: str = "claims") -> dict[str, float]:
    """A profile's [design] table with its budget_s."""
    doc = read_profile(profile)
    return {**doc["design"], "budget_s": doc["profile"]["budget_s"]}


def planned_rounds(sd: float, family: int, profile: str = "claims") -> int:
    """n0 by runner/plan/blocks.py's formula at the profile's target, confidence and limits."""
    d = design(profile)
    level = I.level_of(family, 1 - d["confidence"])
    for n in range(int(d["rounds_min"]), int(d["rounds_max"]) + 1):
        if I.half_log(sd, n, level) <= math.log1p(d["target"]):
            return n
    return int(d["rounds_max"])


@dataclass(frozen=True)
class Comparison:
    """A planted comparison: true ratio, per-round sd, its family and its rule's boundaries."""

    name: str
    truth: float
    sd: float
    family: int
    rule: tuple[float, ...] = DIRECTION


def approx(r: float) -> tuple[float, float]:
    return (r / APPROX_TOL, r * APPROX_TOL)


def draws(rng: np.random.Generator, runs: int, n: int, truth: float, sd: float,
          tails: str = "normal") -> Array:
    """runs x n per-round log ratios with mean log(truth) and sd ``sd``."""
    if tails == "normal":
        e = rng.standard_normal((runs, n))
    elif tails == "t4":
        e = rng.standard_t(4, (runs, n)) / math.sqrt(2.0)  # var of t4 is 2
    else:
        raise ValueError(f"unknown tails {tails!r}: normal or t4")
    return math.log(truth) + sd * e


def look_stats(x: Array, looks: Sequence[int]) -> tuple[Array, Array]:
    """Mean and sd (ddof 1) of the first n_j columns, per run and look: runs x K each."""
    mean, sd, _ = I.running(x, looks, [0.0] * len(looks))
    return mean, sd


@lru_cache(maxsize=512)
def interval_quantiles(sched: sq.Schedule, family: int, reading: str,
                       spending: str = sq.POCOCK) -> Array:
    """q_j per look: ``sequential`` = the repeated CIs' (decision.sequential.quantiles);
    ``naive`` = the ordinary fixed-sample t quantile at 1 - alpha/m at every look (the rule
    "stop when the ordinary CI clears", which the type I checks must catch)."""
    if reading == "sequential":
        return np.asarray(sq.quantiles(sched, family, sq.ALPHA, spending))
    if reading != "naive":
        raise ValueError(f"unknown reading {reading!r}: sequential or naive")
    a = sq.ALPHA / family
    return np.asarray([stats.t.isf(a / 2, n - 1) for n in sched.looks])


def first_decided(x: Array, sched: sq.Schedule, q: Array,
                  rule: tuple[float, ...]) -> tuple[Array, Array, Array]:
    """Per run: the index of the stopping look (first decided, else the last), whether it
    decided, and its CI (log scale, columns lo and hi)."""
    mean, _, half = I.running(x, sched.looks, q)
    lo, hi = mean - half, mean + half
    straddled = np.zeros_like(lo, dtype=bool)
    for b in rule:
        straddled |= R.crosses(lo, hi, math.log(b))
    ok = ~straddled
    idx = np.where(ok.any(axis=1), ok.argmax(axis=1), len(sched.looks) - 1)
    rows = np.arange(x.shape[0])
    return idx, ok[rows, idx], np.stack([lo[rows, idx], hi[rows, idx]], axis=1)


def wrong(decided: Array, ci: Array, rule: tuple[float, ...], truth: float) -> Array:
    """Decisions the truth contradicts. A decided CI lies below the first boundary (says the
    ratio is below it), above the last (says it is above it), or inside the band between two
    boundaries (direction's "equivalent", "~R"'s "holds": the band is closed, as
    analysis.statistics.stats.decide reads it). So at a truth exactly on a one-boundary rule (above /
    below X) every decision is wrong; at a truth on a band's edge only the side outside
    the band is."""
    b = [math.log(v) for v in sorted(rule)]
    t = math.log(truth)
    where = R.gap(ci[:, 0], ci[:, 1], b)  # 0: below the first boundary, len(b): above the last
    # the gaps the truth allows: below b0 only if t < b0, above the last only if t > it, the
    # band between two boundaries if t lies in it (closed)
    right = {0} if t < b[0] else set()
    if t > b[-1]:
        right.add(len(b))
    if len(b) == 2 and b[0] <= t <= b[1]:
        right.add(1)
    return decided & ~np.isin(where, sorted(right))


@dataclass(frozen=True)
class Rate:
    """An observed proportion with its count and Clopper-Pearson bounds."""

    hits: int
    runs: int

    @property
    def p(self) -> float:
        return self.hits / self.runs

    def ci(self, level: float = sq.CONFIDENCE) -> tuple[float, float]:
        r = stats.binomtest(self.hits, self.runs).proportion_ci(level, method="exact")
        return float(r.low), float(r.high)


def null_error(seed: int, runs: int, sched: sq.Schedule, family: int, reading: str,
               rule: tuple[float, ...], truth: float, spending: str = sq.POCOCK,
               tails: str = "normal") -> tuple[Rate, Rate]:
    """A family of ``family`` independent comparisons, all with the true ratio ``truth`` on
    a boundary of ``rule``, each stopping at its first decided look (at most N). Returns
    (family-wise: some comparison decided wrongly; per comparison: decided wrongly).
    Independent members are Bonferroni's worst case; a truth on a one-boundary rule is the
    worst case of a rule (both decisions wrong there)."""
    rng = np.random.default_rng(seed)
    q = interval_quantiles(sched, family, reading, spending)
    any_bad = np.zeros(runs, dtype=bool)
    bad = 0
    for _ in range(family):
        x = draws(rng, runs, sched.rounds_max, truth, 0.155, tails)
        _, dec, ci = first_decided(x, sched, q, rule)
        w = wrong(dec, ci, rule, truth)
        any_bad |= w
        bad += int(w.sum())
    return Rate(int(any_bad.sum()), runs), Rate(bad, runs * family)


def aa_false_positive(seed: int, runs: int, sched: sq.Schedule, reading: str, sd: float,
                      spending: str = sq.POCOCK, tails: str = "normal") -> Rate:
    """The A/A control (true ratio 1, family 1): runs whose CI excludes 1 at *any* look up
    to N (no stopping: the simultaneous reading, stricter than at a stopping look)."""
    rng = np.random.default_rng(seed)
    x = draws(rng, runs, sched.rounds_max, 1.0, sd, tails)
    mean, _, half = I.running(x, sched.looks, interval_quantiles(sched, 1, reading, spending))
    return Rate(int(np.sum(np.any(~R.crosses(mean - half, mean + half, 0.0), axis=1))), runs)


@dataclass(frozen=True)
class Power:
    decided: Rate
    wrong: Rate
    rounds_mean: float  # rounds at the stopping look, averaged over runs
    rounds_p90: float


def power(seed: int, runs: int, c: Comparison, sched: sq.Schedule,
          spending: str = sq.POCOCK) -> Power:
    """A planted effect under the sequential design, each run stopping at its first decided
    look (at most N)."""
    rng = np.random.default_rng(seed)
    x = draws(rng, runs, sched.rounds_max, c.truth, c.sd)
    idx, dec, ci = first_decided(x, sched, interval_quantiles(sched, c.family, "sequential",
                                                              spending), c.rule)
    used = np.asarray(sched.looks)[idx]
    return Power(Rate(int(dec.sum()), runs), Rate(int(wrong(dec, ci, c.rule, c.truth).sum()),
                                                  runs),
                 float(used.mean()), float(np.percentile(used, 90)))


def fixed_power(seed: int, runs: int, c: Comparison, n: int) -> Rate:
    """The fixed design's chance of deciding ``c`` at n rounds (ordinary t CI, 1 - alpha/m)."""
    rng = np.random.default_rng(seed)
    x = draws(rng, runs, n, c.truth, c.sd)
    sched = sq.Schedule((n,))
    _, dec, _ = first_decided(x, sched, interval_quantiles(sched, c.family, "naive"), c.rule)
    return Rate(int(dec.sum()), runs)


def rounds_for_power(seed: int, runs: int, c: Comparison, n0: int, k: int, n_cap: int,
                     target: float = 0.8, spending: str = sq.POCOCK) -> int | None:
    """The smallest maximum N = n0 + j k (N <= n_cap) at which the sequential design decides
    ``c`` in at least ``target`` of the runs, by bisection over j (the power grows with N);
    None if even n_cap falls short."""
    def ok(j: int) -> bool:
        return power(seed, runs, c, sq.schedule(n0, k, n0 + j * k), spending).decided.p \
            >= target

    lo, hi = 0, (n_cap - n0) // k
    if not ok(hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return n0 + hi * k


# ------------------------------------------- the top-up against the fixed design, same data

def mix() -> list[Comparison]:
    """Comparisons like the reference run's claim blocks (noise-model sds, 1 s windows;
    file copies at 2 s): easy ones decided after a few rounds (C5 0.245, C14 0.178), clear
    ones, the near-boundary C8 (two-copy ahead by 10-12 % against 1.03) and C9 (0.61 against
    ~52 %'s upper boundary 0.65), and one that no budget here decides (no difference, whose
    equivalence inside 0.97-1.03 needs hundreds of rounds)."""
    sc, cc = noise_sd("stream", "same-core", 1.0), noise_sd("stream", "cross-core", 1.0)
    fs, fc = noise_sd("file", "same-core", 2.0), noise_sd("file", "cross-core", 2.0)
    return [Comparison("C5 same-core", 0.245, sc, 2), Comparison("C5 cross-core", 0.245, cc, 2),
            Comparison("C14 same-core", 0.178, fs, 3), Comparison("C14 cross-core", 0.178, fc, 3),
            Comparison("clear 1.30 same-core", 1.30, sc, 4),
            Comparison("clear 1.30 cross-core", 1.30, cc, 4),
            Comparison("clear 0.80 same-core", 0.80, sc, 4),
            Comparison("C8 1.11 same-core", 1.11, sc, 4),
            Comparison("C8 1.11 cross-core", 1.11, cc, 4),
            Comparison("C9 0.61 same-core", 0.61, sc, 4, approx(0.52)),
            Comparison("C9 0.61 cross-core", 0.61, cc, 4, approx(0.52)),
            Comparison("no difference cross-core", 1.00, cc, 4)]


def near_boundary() -> list[Comparison]:
    """C8 (two-copy ahead by 10-12 %, read against 1.03) and C9 (0.61, read against the
    upper boundary 0.65 of "~52 %"), family 4, at the noise model's sds (streams, 1 s)."""
    sc, cc = noise_sd("stream", "same-core", 1.0), noise_sd("stream", "cross-core", 1.0)
    return [Comparison(f"C8 {r:.2f} {p}", r, sd, 4) for r in (1.10, 1.12)
            for p, sd in (("same-core", sc), ("cross-core", cc))] + \
        [Comparison(f"C9 0.61 {p}", 0.61, sd, 4, approx(0.52))
         for p, sd in (("same-core", sc), ("cross-core", cc))]


def _fixed_reads(xs: list[Array], comps: list[Comparison], total: int) -> tuple[Array, Array]:
    """The fixed design: ``total`` rounds spread evenly (the first total mod M get one more),
    each comparison read once with the ordinary t CI at 1 - alpha/m. Per comparison:
    (decided, decided wrongly)."""
    m = len(comps)
    dec, bad = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    for i, (x, c) in enumerate(zip(xs, comps)):
        n = total // m + (1 if i < total % m else 0)
        sched = sq.Schedule((n,))
        _, ok, ci = first_decided(x[None, :n], sched, interval_quantiles(sched, c.family,
                                                                          "naive"), c.rule)
        dec[i], bad[i] = ok[0], wrong(ok, ci, c.rule, c.truth)[0]
    return dec, bad


def _topup_reads(xs: list[Array], comps: list[Comparison], scheds: list[sq.Schedule],
                 total: int, spending: str) -> tuple[Array, Array, Array]:
    """The top-up design: every block to its first look, then the rounds left go, one look
    at a time, to the block :func:`decision.sequential.rank_blocks` puts first (a block whose
    next look does not fit the rounds left is passed over). Per comparison: (decided,
    decided wrongly, rounds run)."""
    ids = [f"b{i:02d}" for i in range(len(comps))]
    at = {b: 0 for b in ids}  # index of the latest look reached
    used = sum(s.looks[0] for s in scheds)
    if used > total:
        raise ValueError(f"the first looks alone need {used} rounds, over the total {total}")

    def summary(i: int) -> sq.Summary:
        n = scheds[i].looks[at[ids[i]]]
        return sq.summarize(ids[i], xs[i][:n], scheds[i], comps[i].family, comps[i].rule,
                            spending)

    summ = {b: summary(i) for i, b in enumerate(ids)}
    while True:
        for b, _ in sq.rank_blocks(summ.values()):
            i = ids.index(b)
            step = scheds[i].looks[at[b] + 1] - scheds[i].looks[at[b]]
            if used + step <= total:
                at[b] += 1
                used += step
                summ[b] = summary(i)
                break
        else:
            break
    s = [summ[b] for b in ids]
    dec = np.array([sq.decided(x.lo, x.hi, c.rule) for x, c in zip(s, comps)])
    with np.errstate(divide="ignore"):  # an early look's CI may reach 0 on the ratio scale
        bad = np.array([wrong(np.array([d]), np.log(np.array([[x.lo, x.hi]])), c.rule,
                              c.truth)[0] for d, x, c in zip(dec, s, comps)])
    return dec, bad, np.array([x.rounds for x in s])


@dataclass(frozen=True)
class Versus:
    """Both designs at the same total rounds, per simulated run (rows) and comparison
    (columns): decided, decided wrongly, and the rounds the top-up gave each."""

    fixed_decided: Array
    topup_decided: Array
    fixed_wrong: Array
    topup_wrong: Array
    topup_rounds: Array

    @property
    def fixed(self) -> Array:
        """Comparisons decided per run by the fixed design."""
        return self.fixed_decided.sum(axis=1)

    @property
    def topup(self) -> Array:
        return self.topup_decided.sum(axis=1)

    def gain(self) -> tuple[float, float, float]:
        """Mean extra comparisons the top-up decides per run, with a 95 % t interval over
        the runs (paired: both designs read the same rounds)."""
        ci = I.paired_interval(self.topup - self.fixed, level=sq.CONFIDENCE)  # not logs
        return ci.mean_log, ci.mean_log - ci.half, ci.mean_log + ci.half


def topup_vs_fixed(seed: int, runs: int, comps: list[Comparison], total: int,
                   sched: sq.Schedule, spending: str = sq.POCOCK) -> Versus:
    """Both designs on the same simulated rounds: comparison i's per-round log ratios are
    drawn once per run, and each design reads the first rounds it runs of them."""
    rng = np.random.default_rng(seed)
    longest = max(sched.rounds_max, total // len(comps) + 1)
    out: list[list[Array]] = [[], [], [], [], []]
    for _ in range(runs):
        xs = [draws(rng, 1, longest, c.truth, c.sd)[0] for c in comps]
        fd, fw = _fixed_reads(xs, comps, total)
        td, tw, tr = _topup_reads(xs, comps, [sched] * len(comps), total, spending)
        for acc, v in zip(out, (fd, td, fw, tw, tr)):
            acc.append(v)
    fd, td, fw, tw, tr = (np.array(a) for a in out)
    return Versus(fd, td, fw, tw, tr)


# ------------------------------------------------------------------- the design simulated

#: the committed design (decision.sequential.SequentialDesign's defaults: first look 10,
#: looks at 20 and 30, N = 30)
DESIGN = sq.SequentialDesign()
#: the design the reference run 20261124T133652Z-paper-e8c3 ran (first look 6, a look every
#: 6, N = 90), whose comparison-level simulations the older checks keep
PREVIOUS = sq.SequentialDesign(first_look=6, look_every=6, rounds_max=90)


def design_text() -> str:
    return sq.design_text(DESIGN.to_json())


def design_schedule(dsn: sq.SequentialDesign = DESIGN) -> sq.Schedule:
    """A design's looks (its first look does not depend on the planned rounds)."""
    return dsn.schedule(int(design()["rounds_min"]))


def look_table(sched: sq.Schedule, family: int,
               spending: str = sq.POCOCK) -> list[tuple[int, float, float, float, float]]:
    """Per look: (rounds, information fraction, c_j, nominal level, q_j) at a family."""
    cs = sq.boundaries(sched.fractions, sq.ALPHA / family, spending)
    qs = sq.quantiles(sched, family, sq.ALPHA, spending)
    return [(n, t, c, 1 - 2 * float(stats.norm.sf(c)), q)
            for n, t, c, q in zip(sched.looks, sched.fractions, cs, qs)]


# ------------------------------------------------------- the reproduction criterion simulated

#: a comparison set's verdicts, as the criterion reads them
SIM_HOLDS, SIM_REFUTED, SIM_OPEN = 1, -1, 0


@dataclass(frozen=True)
class SetModel:
    """One comparison set of the reference (analysis.comparison.reproduce.comparison_set) as
    the criterion's simulation draws it: per size read, the true ratio (on the rule's ratio)
    and what the claim expects there (decision.rule.Expect; every size must agree: holds,
    one contradicting: refuted); the per-round sd of the log ratio and the claim's family."""

    name: str
    truths: tuple[float, ...]
    expects: tuple[R.Expect, ...]
    sd: float
    family: int


def _outcome(e: R.Expect, lo: Array, hi: Array) -> Array:
    """Per CI (log scale): +1 agrees, -1 contradicts, 0 open (crosses an edge), as
    :meth:`decision.rule.Expect.read` reads a CI against its edges."""
    edges = [math.log(x) for x in e.edges()]
    crosses = np.zeros(lo.shape, dtype=bool)
    for b in edges:
        crosses |= (lo < b) & (b < hi)
    if e.kind == R.EQUIVALENT:
        inside = (lo >= edges[0]) & (hi <= edges[1])
        out = np.where(inside, 1, -1)
    else:
        above = (lo + hi) / 2.0 > edges[0]
        wanted_above = e.kind in (R.GREATER, R.AT_LEAST)
        out = np.where(above == wanted_above, 1, -1)
    return np.where(crosses, 0, out)


def draw_verdicts(rng: np.random.Generator, runs: int, m: SetModel,
                  truths: Sequence[float] | None = None,
                  dsn: sq.SequentialDesign = DESIGN) -> Array:
    """``runs`` verdicts (+1 holds, -1 refuted, 0 undecided) of one comparison set under the
    design: per size, per-round log ratios at its truth and sd, the repeated CI at each look
    at the family's level, stopped at the first look the claim's expectation decides; the
    sizes combined as decision.verdict.every does (one contradicting refutes, all agreeing
    hold)."""
    sched = design_schedule(dsn)
    q = interval_quantiles(sched, int(m.family), "sequential", dsn.spending)
    agree = np.ones(runs, dtype=bool)
    contra = np.zeros(runs, dtype=bool)
    for truth, e in zip(truths or m.truths, m.expects):
        x = draws(rng, runs, sched.rounds_max, truth, m.sd)
        mean, _, half = I.running(x, sched.looks, q)
        out = _outcome(e, mean - half, mean + half)
        decided = out != 0
        idx = np.where(decided.any(axis=1), decided.argmax(axis=1), len(sched.looks) - 1)
        o = out[np.arange(runs), idx]
        agree &= o == 1
        contra |= o == -1
    return np.where(contra, SIM_REFUTED, np.where(agree, SIM_HOLDS, SIM_OPEN)).astype(float)


def mirrored(m: SetModel) -> tuple[float, ...]:
    """The truths of a set that truly differs in a rerun: each ratio mirrored about 1 (the
    effect reversed), so a claim that holds in one truth is refuted in the other."""
    return tuple(1.0 / t for t in m.truths)


@dataclass(frozen=True)
class CriterionSim:
    """The simulated criterion: the smallest share of the reference's decided comparison
    sets a rerun must reproduce (none reversed beyond ``reversals``), chosen so that a
    rerun of the same truth passes with probability at least ``target``; that probability
    (with its Clopper-Pearson 95 % CI), and the power table: the chance of passing when k
    comparison sets truly differ."""

    min_share: float
    reversals: int
    target: float
    runs: int
    seed: int
    sets: int
    pass_same_truth: float
    pass_ci: tuple[float, float]
    pass_when_differ: tuple[tuple[int, float], ...]  # (k, P(pass)) when k sets truly differ
    judged: tuple[str, ...]

    def to_json(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def _shares(ref: Array, run: Array) -> tuple[Array, Array]:
    """Per simulated pair (rows): the share of the reference's decided sets the rerun
    reproduced (the same decided verdict) and how many it reversed."""
    dec = ref != 0
    n = dec.sum(axis=1)
    same = ((ref == run) & dec).sum(axis=1)
    rev = ((ref * run) < 0).sum(axis=1)
    return np.where(n > 0, same / np.maximum(n, 1), np.nan), rev


def pass_rate(share: Array, rev: Array, min_share: float, reversals: int) -> Rate:
    ok = (share >= min_share - 1e-12) & (rev <= reversals)
    return Rate(int(ok.sum()), int(share.size))


def simulate_criterion(models: Sequence[SetModel], runs: int = 4000, seed: int = 1,
                       target: float = 0.95, reversals: int = 0,
                       judged: Sequence[str] | None = None, ks: Sequence[int] = (1, 2, 3, 4, 5),
                       dsn: sq.SequentialDesign = DESIGN) -> CriterionSim:
    """The criterion by simulation: pairs of runs (a reference and a rerun) of the same truth
    (each set's truths: the reference's estimates), each set's verdicts drawn by
    :func:`draw_verdicts`; the criterion is the largest share s (a whole percent) such that
    P(share of the reference's decided sets reproduced >= s and at most ``reversals``
    reversed) >= ``target``. ``judged``: the names of the sets the criterion judges (e.g. the
    verdicts the same on every class of machine measured); None: every set. The power table
    draws the rerun's k sets (chosen at random per pair among the judged) from their
    mirrored truths."""
    ms = [m for m in models if judged is None or m.name in set(judged)]
    if not ms:
        raise ValueError("no comparison set to judge")
    rng = np.random.default_rng(seed)
    ref = np.stack([draw_verdicts(rng, runs, m, dsn=dsn) for m in ms], axis=1)
    run = np.stack([draw_verdicts(rng, runs, m, dsn=dsn) for m in ms], axis=1)
    share, rev = _shares(ref, run)
    share = np.where(np.isnan(share), 1.0, share)
    s = 1.0
    while s > 0 and pass_rate(share, rev, s, reversals).p < target:
        s = round(s - 0.01, 2)
    base = pass_rate(share, rev, s, reversals)
    other = np.stack([draw_verdicts(rng, runs, m, mirrored(m), dsn=dsn) for m in ms], axis=1)
    power = []
    for k in ks:
        if k > len(ms):
            break
        pick = np.argsort(rng.random((runs, len(ms))), axis=1)[:, :k]
        alt = run.copy()
        rows = np.arange(runs)[:, None]
        alt[rows, pick] = other[rows, pick]
        sh, rv = _shares(ref, alt)
        sh = np.where(np.isnan(sh), 1.0, sh)
        power.append((int(k), pass_rate(sh, rv, s, reversals).p))
    return CriterionSim(s, reversals, target, runs, seed, len(ms), base.p, base.ci(),
                        tuple(power), tuple(m.name for m in ms) if judged is not None else ())

"""The criteria of the shared-time validation run (:mod:`analysis.statistics.adoption`)
simulated before the run, on its plan's structure, when the two designs measure the same
ratio: how often each criterion and all of them together hold, and the smallest margin or
tolerance at which each derived criterion holds with a given probability.

The model, per block of the plan (a size and placement) and round:

* today's design: each method's trial has a log-throughput error of sd ``sd_today /
  sqrt(2)`` (the placement's per-round sd of a log ratio, ``runner/profiles/noise.toml``,
  over the two trials of a pair), so today's X/send shares the round's ``send`` trial (the
  two comparisons of a block are correlated, as in a run); a round's common factor cancels
  in every ratio and is left out;
* shared time: each trial's log ratio (X|send, and the A/A send|send) has sd ``sd_shared``,
  independent of the others and of today's trials (so the designs' errors are independent:
  for (a) and (b) the harder case, a positive correlation would narrow their difference);
* errors standard normal, or a unit-variance t with 4 df (``tails="t4"``); the true ratio of
  each comparison is the same under both designs (a ``bias`` multiplies shared time's X/send
  ratios, for the criteria's power), and 1 for the A/A;
* the mechanisms (criterion e): each trial's four quantities drawn together from a reference
  run's trials of its method's cell (today's procedure; :func:`mechanism_pool`), today's
  trial of a method shared by the connections compared with it in that round, each
  shared-time connection a draw of its own (a ``shift`` multiplies a quantity's shared-time
  values, for the power).

Each run's CIs are the t intervals of :func:`decision.interval.running` (the vectorised
form of :func:`decision.interval.paired_interval`), each read with the criteria's own readers
(:func:`~analysis.statistics.adoption.disjoint`, ``equivalent``, ``beyond``, ``sd_holds``).
Only numpy and the project's statistics: no files are read here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from analysis.statistics import adoption as AD
from analysis.statistics import designs as D
from decision import interval as I

Array = NDArray[np.float64]
#: the derived numbers are rounded up to this step (whole percent)
STEP = 0.01


@dataclass(frozen=True)
class Block:
    """One block of the validation plan: its size and placement, its rounds, today's methods
    (each in a trial of its own) and the methods X of its shared-time trials X|base (the base
    itself for the A/A)."""

    size: int
    placement: str
    rounds: int
    today: tuple[str, ...]
    shared: tuple[str, ...]


def blocks_of_plan(plan: Mapping[str, Any], crit: AD.Criteria) -> list[Block]:
    """The blocks of a plan (``python -m runner plan --json``) that hold both designs of the
    declared comparisons: per block, today's methods (fresh sink, twin 0) and the methods of
    its shared-time cells that share time with the base."""
    cells = plan.get("cells") or {}
    out = []
    for b in (plan.get("blocks") or {}).values():
        cs = [cells[c] for c in b.get("cells", []) if c in cells]
        today = sorted({c["method"] for c in cs if not c.get("share_time")
                        and (c.get("sink") or "fresh") != "kept" and not c.get("twin")})
        shared = sorted({c["method"] for c in cs if c.get("share_time") == crit.base})
        if not shared:
            continue
        first = cs[0]
        out.append(Block(int(first["size"]), str(first["placement"]), int(b["rounds"]),
                         tuple(today), tuple(shared)))
    return sorted(out, key=lambda x: (x.size, x.placement))


def structure_problems(blocks: Sequence[Block], crit: AD.Criteria) -> list[str]:
    """Where the plan's blocks differ from what the criteria declare (their comparisons, the
    A/A, the rounds): [] when they agree."""
    bad = []
    want = {(s, p) for s in crit.sizes for p in crit.placements}
    got = {(b.size, b.placement) for b in blocks}
    if got != want:
        bad.append(f"blocks {sorted(got)} are not the declared sizes x placements "
                   f"{sorted(want)}")
    for b in blocks:
        if set(b.shared) != {*crit.methods, crit.base}:
            bad.append(f"{b.size} {b.placement}: shared-time methods {list(b.shared)}, "
                       f"declared {[*crit.methods, crit.base]}")
        if not {*crit.methods, crit.base} <= set(b.today):
            bad.append(f"{b.size} {b.placement}: today's methods {list(b.today)}")
        if b.rounds != crit.rounds:
            bad.append(f"{b.size} {b.placement}: {b.rounds} rounds, declared {crit.rounds}")
    return bad


@dataclass(frozen=True)
class Noise:
    """The noise a simulation assumes: today's per-round sd of a log ratio per placement,
    shared time's, the errors' tails, and what differs between the designs (none: the
    null)."""

    sd_today: Mapping[str, float]
    sd_shared: float
    tails: str = "normal"
    bias: float = 1.0
    shift: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.tails not in ("normal", "t4"):
            raise ValueError(f"tails: {self.tails!r} (allowed: normal, t4)")
        bad = {k: v for k, v in {"bias": self.bias, "sd_shared": self.sd_shared,
                                 **self.sd_today, **self.shift}.items() if not v > 0}
        unknown = sorted(set(self.shift) - set(AD.MECHANISMS))
        if bad or unknown:
            got = bad or unknown
            raise ValueError(f"noise: every sd, bias and shift must be positive and every "
                             f"shift a quantity of {', '.join(AD.MECHANISMS)} (got {got})")


#: (method, size, placement) -> trials x quantities (:data:`analysis.statistics.adoption.
#: MECHANISMS`' order)
Pool = Mapping[tuple[str, int, str], Array]


def mechanism_pool(measured: pd.DataFrame, crit: AD.Criteria, transport: str = "veth",
                   window_s: float = 1.0) -> dict[tuple[str, int, str], Array]:
    """Today's trials of each declared method's cell in a reference run (stream, one
    thread, fresh sink, autotuned buffers, the window, twin 0), each with every quantity of
    :data:`~analysis.statistics.adoption.MECHANISMS` recorded and positive. Raises
    ValueError naming a cell with fewer than 2 such trials."""
    d = D.stream_rows(measured)
    need = {"transport", "threads", "duration_s", "twin"}
    if d.empty or not need <= set(d):
        raise ValueError("the reference run has no stream trials of a block design")
    d = d[(d["transport"] == transport) & (d["threads"].fillna(1) == 1)
          & (d["duration_s"].astype(float) == window_s) & (d["twin"].fillna(0) == 0)
          & (d.get("sockbuf", 0) == 0) & d.get("alternate", pd.Series(None, index=d.index))
          .isna()]
    vals = np.column_stack([f(d).to_numpy(dtype=float) for _, f in AD.MECHANISMS.values()])
    ok = np.all(np.isfinite(vals) & (vals > 0), axis=1)
    out = {}
    for m in (*crit.methods, crit.base):
        for s in crit.sizes:
            for p in crit.placements:
                sel = ok & (d["method"] == m).to_numpy() & (d["size"] == s).to_numpy() \
                    & (d["placement"] == p).to_numpy()
                if sel.sum() < 2:
                    raise ValueError(f"the reference run has {int(sel.sum())} trial(s) of {m} "
                                     f"{s} B {p} {transport} with every mechanism recorded")
                out[(m, s, p)] = vals[sel]
    return out


def _errors(rng: np.random.Generator, shape: tuple[int, ...], tails: str) -> Array:
    if tails == "t4":
        return rng.standard_t(4, shape) / math.sqrt(2.0)  # t(4) has variance 2
    return rng.standard_normal(shape)


@dataclass
class Sims:
    """Per simulated run: whether each criterion held at the declared numbers, and for the
    derived ones the smallest margin (tolerance) at which it would have held."""

    a: NDArray[np.bool_]
    b: NDArray[np.bool_]
    c: NDArray[np.bool_]
    d: NDArray[np.bool_]
    e: dict[str, NDArray[np.bool_]]
    need_b: Array
    need_e: dict[str, Array]

    @property
    def e_all(self) -> NDArray[np.bool_]:
        return np.all(np.column_stack(list(self.e.values())), axis=1)

    @property
    def joint(self) -> NDArray[np.bool_]:
        return self.a & self.b & self.c & self.d & self.e_all

    def table(self) -> dict[str, float]:
        """Each criterion's pass probability and the joint one."""
        out = {"a": float(self.a.mean()), "b": float(self.b.mean()),
               "c": float(self.c.mean()), "d": float(self.d.mean())}
        out.update({f"e {q}": float(v.mean()) for q, v in self.e.items()})
        out["e"] = float(self.e_all.mean())
        out["all"] = float(self.joint.mean())
        return out


def derived(need: Array, p: float) -> float:
    """The smallest margin on the :data:`STEP` grid at which a criterion whose runs needed
    ``need`` holds with probability at least ``p``."""
    q = float(np.quantile(need, p, method="higher"))
    return max(STEP, math.ceil(round(q / STEP, 9)) * STEP)


def _ci(mean: Array, half: Array) -> tuple[Array, Array]:
    return np.exp(mean - half), np.exp(mean + half)


def _need_inside(lo: Array, hi: Array) -> Array:
    """The smallest t with [lo, hi] inside [1 - t, 1 + t] (what ``equivalent`` asks)."""
    return np.maximum(1.0 - lo, hi - 1.0)


def _need_not_beyond(lo: Array, hi: Array) -> Array:
    """The smallest t at which [lo, hi] is not wholly beyond 1 +- t (what ``beyond``
    asks); 0 for a CI that holds 1."""
    return np.maximum(np.maximum(lo - 1.0, 1.0 - hi), 0.0)


def _chunk(crit: AD.Criteria, blocks: Sequence[Block], noise: Noise, pool: Pool,
           runs: int, rng: np.random.Generator) -> Sims:
    n = crit.rounds
    q_fam = I.t_quantile(crit.overlap_level, n)
    q_aa = I.t_quantile(crit.aa_level, n)
    q_tost = I.t_quantile(crit.tost_level, n)
    q_mech = I.t_quantile(crit.mechanism_level, n)
    today_ci, shared_ci, aa_ci, sds, diffs = [], [], [], [], []
    qn = list(AD.MECHANISMS)
    mech: dict[str, list[Array]] = {q: [] for q in qn}
    for b in blocks:
        s_t = noise.sd_today[b.placement] / math.sqrt(2.0)
        trial = {m: s_t * _errors(rng, (runs, n), noise.tails) for m in b.today}
        for x in b.shared:
            lr_s = noise.sd_shared * _errors(rng, (runs, n), noise.tails)
            if x == crit.base:
                m_, _, h = I.running(lr_s, [n], [q_aa])
                aa_ci.append(_ci(m_[:, 0], h[:, 0]))
                continue
            lr_s = lr_s + math.log(noise.bias)
            lr_t = trial[x] - trial[crit.base]
            mt, st, ht = I.running(lr_t, [n], [q_fam])
            ms, ss, hs = I.running(lr_s, [n], [q_fam])
            today_ci.append(_ci(mt[:, 0], ht[:, 0]))
            shared_ci.append(_ci(ms[:, 0], hs[:, 0]))
            sds.append((st[:, 0], ss[:, 0]))
            diffs.append(lr_s - lr_t)
        # the mechanisms: today's trial of each method, each shared connection's own draw
        draw_t = {m: pool[(m, b.size, b.placement)][
            rng.integers(0, len(pool[(m, b.size, b.placement)]), (runs, n))]
            for m in sorted({*b.shared, crit.base})}
        for x in b.shared:
            for method in (x, crit.base):  # connection 0, then 1
                cell = pool[(method, b.size, b.placement)]
                own = cell[rng.integers(0, len(cell), (runs, n))]
                for k, q in enumerate(qn):
                    mech[q].append(np.log(own[..., k] * noise.shift.get(q, 1.0))
                                   - np.log(draw_t[method][..., k]))
    # (b): per round the mean over the comparisons of shared time's minus today's log ratio
    pm, _, ph = I.running(np.mean(diffs, axis=0), [n], [q_tost])
    b_lo, b_hi = _ci(pm[:, 0], ph[:, 0])
    a = np.ones(runs, bool)
    bb = np.zeros(runs, bool)
    c = np.ones(runs, bool)
    d = np.zeros(runs, bool)
    med_t = np.median(np.column_stack([x[0] for x in sds]), axis=1)
    med_s = np.median(np.column_stack([x[1] for x in sds]), axis=1)
    e = {q: np.ones(runs, bool) for q in qn}
    need_e = {}
    cells: dict[str, tuple[Array, Array]] = {}
    pooled_e: dict[str, tuple[Array, Array]] = {}
    for q in qn:
        x = np.stack(mech[q])  # connections x runs x rounds
        cm, _, chh = I.running(x.reshape(-1, n), [n], [q_mech])
        lo, hi = _ci(cm[:, 0].reshape(x.shape[:2]), chh[:, 0].reshape(x.shape[:2]))
        cells[q] = (lo, hi)
        em, _, eh = I.running(x.mean(axis=0), [n], [q_tost])
        pooled_e[q] = _ci(em[:, 0], eh[:, 0])
        need_e[q] = np.maximum(_need_inside(*pooled_e[q]),
                               _need_not_beyond(lo, hi).max(axis=0))
    for r in range(runs):
        a[r] = all(AD.disjoint(t[0][r], t[1][r], s[0][r], s[1][r]) is False
                   for t, s in zip(today_ci, shared_ci))
        bb[r] = AD.equivalent(b_lo[r], b_hi[r], crit.margin)
        c[r] = all(AD.equivalent(x[0][r], x[1][r], crit.aa_band) for x in aa_ci)
        d[r] = AD.sd_holds(med_t[r], med_s[r], crit.sd_at_most)
        for q in qn:
            t = crit.tolerances[q]
            lo, hi = cells[q]
            e[q][r] = AD.equivalent(pooled_e[q][0][r], pooled_e[q][1][r], t) and not any(
                AD.beyond(lo[i, r], hi[i, r], t) for i in range(lo.shape[0]))
    return Sims(a, bb, c, d, e, _need_inside(b_lo, b_hi), need_e)


def simulate(crit: AD.Criteria, blocks: Sequence[Block], noise: Noise, pool: Pool,
             runs: int, seed: int, chunk: int = 500) -> Sims:
    """``runs`` simulated validation runs (seeded: the same arguments give the same
    numbers), in chunks of ``chunk`` runs."""
    rng = np.random.default_rng(seed)
    parts = [_chunk(crit, blocks, noise, pool, min(chunk, runs - i), rng)
             for i in range(0, runs, chunk)]
    cat = np.concatenate
    return Sims(cat([p.a for p in parts]), cat([p.b for p in parts]),
                cat([p.c for p in parts]), cat([p.d for p in parts]),
                {q: cat([p.e[q] for p in parts]) for q in parts[0].e},
                cat([p.need_b for p in parts]),
                {q: cat([p.need_e[q] for p in parts]) for q in parts[0].need_e})


def derive(sims: Sims, p: float) -> tuple[float, dict[str, float]]:
    """The derived numbers at pass probability ``p``: (b)'s margin and (e)'s tolerances,
    each the smallest on the :data:`STEP` grid at which its criterion held in a share ``p``
    of the runs."""
    return derived(sims.need_b, p), {q: derived(v, p) for q, v in sims.need_e.items()}


def with_numbers(crit: AD.Criteria, margin: float, tolerances: Mapping[str, float]
                 ) -> AD.Criteria:
    """The criteria with another margin and tolerances (the derivation's candidates)."""
    return replace(crit, margin=margin, tolerances=dict(tolerances))

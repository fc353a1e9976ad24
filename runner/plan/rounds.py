"""The plan: a profile's cells (:mod:`runner.plan.expand`) in shuffled rounds.

Every cell is repeated: round *r* holds the *r*-th repetition of every cell still running,
shuffled with ``random.Random(f"{seed}:{r}")``. Rounds 1..min are fixed and stored in
``plan.json``; later rounds (up to max) hold only the cells whose bootstrap CI is still wider
than the target (``runner.plan.adaptive``), so they are derived, deterministically, from the
records. A profile with a ``[design]`` is planned in blocks instead (:mod:`runner.plan.blocks`):
every round of every block is planned before anything runs. Cells marked for CPU profiles
get one extra *profiled* trial (repetition 0, under ``perf record``) in round 1; it is never
used for statistics. The core types are :mod:`runner.plan.cells`'s, the time estimate
:mod:`runner.plan.estimate`'s.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable

from decision import families, sesoi
from decision import sequential as sq
from decision.band import SESOI
from decision.quantities import cell_kind
from rundir import sharetime
from runner.plan import blocks as BK
from runner.plan import topup
from runner.host.errors import ProfileError, UsageError
from runner.plan.estimate import trial_seconds
from runner.plan.expand import ONE_HOST, ROOT_REASON, Hosts, expand
from runner.host.capabilities import Capabilities
from runner.plan.cells import Cell, Plan, Trial
from runner.plan.profile import PROFILE_DIR, PURPOSES, Design, Experiment, Profile, format_size

def round_order(ids: Iterable[str], seed: int, round_no: int) -> list[str]:
    order = sorted(ids)
    random.Random(f"{seed}:{round_no}").shuffle(order)
    return order


def make(profile: Profile, caps: Capabilities, seed: int | None = None,
         rehearsal: bool = False, hosts: Hosts = ONE_HOST) -> Plan:
    """The plan of ``profile`` on this machine (``caps``), on one host or two (``hosts``)."""
    seed = profile.seed if seed is None else seed
    sources: dict[str, list[Experiment]] = {}
    cells, skipped = expand(profile, caps, sources, hosts)
    notes = hosts.notes(profile)
    root_skips = {r.split(":")[0]: n for r, n in skipped.items() if r.endswith(ROOT_REASON)}
    if root_skips:
        what = " and ".join(f"{n} {t}" for t, n in sorted(root_skips.items()))
        notes.append(f"not root: skipping {what} cell(s): {ROOT_REASON} (run as root to "
                     "include them); loopback and file cells run")
    for reason, n in sorted(skipped.items()):
        if not reason.endswith(ROOT_REASON):
            notes.append(f"skipped {n} cell(s): {reason}")
    if not caps.perf and any(c.perf for c in cells.values()):
        notes.append(f"CPU profiles skipped ({caps.perf_why})")
        cells = {cid: Cell(**{**asdict(c), "perf": False}) for cid, c in cells.items()}
    if profile.design is not None:
        plan = _make_blocks(profile, seed, cells, sources, skipped, notes, rehearsal, caps)
        plan.hosts = hosts.to_json(profile)
        return plan
    if rehearsal:
        raise UsageError(f"--rehearsal: profile {profile.name} has no [design] (block design)")
    rounds = adaptive_rounds(cells, seed, profile.repetitions.min)
    return Plan(profile=profile.name, seed=seed, cells=cells, skipped=dict(skipped),
                notes=notes, rounds=rounds, rep_min=profile.repetitions.min,
                rep_max=profile.repetitions.max, hosts=hosts.to_json(profile))


def adaptive_rounds(cells: dict[str, Cell], seed: int, rep_min: int) -> list[list[str]]:
    """The fixed rounds 1..min of the adaptive design: every cell in each (the profiled
    trials in round 1), shuffled by :func:`round_order`."""
    rounds = []
    for r in range(1, rep_min + 1):
        ids = [Trial(cid, r).id for cid in cells]
        if r == 1:
            ids += _profiled_ids(cells)
        rounds.append(round_order(ids, seed, r))
    return rounds


def block_rounds(blocks: list[BK.Block], seed: int, singles: list[str]) -> list[list[str]]:
    """Every planned round of the block design (:func:`runner.plan.blocks.round_order`); the
    ``singles`` (profiled trials) in round 1."""
    n_rounds = max((b.rounds for b in blocks), default=0)
    return [BK.round_order(blocks, seed, r, singles if r == 1 else None)
            for r in range(1, n_rounds + 1)]


def planned_rounds(plan: Plan) -> list[list[str]]:
    """The rounds a plan's cells, seed and blocks make: what its ``plan.json`` must hold
    (a resumed run checks it, :mod:`runner.sweep.runstate`)."""
    if plan.blocks is None:
        return adaptive_rounds(plan.cells, plan.seed, plan.rep_min)
    blocks = [BK.Block(**b) for b in plan.blocks.values()]
    return block_rounds(blocks, plan.seed, _profiled_ids(plan.cells))


def _profiled_ids(cells: dict[str, Cell]) -> list[str]:
    return [Trial(cid, 0, k).id for cid, c in cells.items() if c.perf
            for k in range(1, c.perf_trials + 1)]


class PlanError(UsageError):
    """A block design whose decision rules cannot be met (a strict profile refuses to run)."""


def noise_path(profile: Profile) -> Path | None:
    """The profile's noise model: relative to the profile file, else to runner/profiles/."""
    if not profile.design or not profile.design.noise:
        return None
    return profile_file(profile, profile.design.noise)


def profile_file(profile: Profile, name: str | None) -> Path | None:
    """A file a profile names (its noise model, its planning file): relative to the profile
    file, else to runner/profiles/; None when absent."""
    if not name:
        return None
    given = Path(name)
    for base in (Path(profile.path).parent, PROFILE_DIR):
        cand = given if given.is_absolute() else base / given
        if cand.is_file():
            return cand
    return None


#: a rehearsal runs this share of each block's planned rounds, at least one; the A/A control's
#: block keeps two (so the paired statistics run) and profiled cells two profiled trials
REHEARSAL_SHARE = 0.1


#: how a noise model of this machine is made (both commands of ``python -m runner``)
NOISE_HOW = ("python -m runner notebook --profile pilot, then python -m runner noise RUN "
             "--out FILE")


def _load_noise(profile: Profile, notes: list[str]) -> tuple[Path | None, BK.Noise]:
    """The profile's noise model: its file, or none when it names none (every block then
    assumes the fallback sd). One it names that is not there is refused: the rounds of
    every block would silently come from the fallback instead of this machine's noise."""
    path = noise_path(profile)
    if profile.design is not None and profile.design.noise and path is None:
        where = " or ".join(sorted({str(Path(profile.path).parent), str(PROFILE_DIR)}))
        raise ProfileError(profile.path, "design.noise", f"{profile.design.noise!r}: no such "
                           f"file (looked in {where}); measure this machine's noise: "
                           f"{NOISE_HOW}; or leave design.noise out to plan every block at "
                           f"the fallback sd {BK.FALLBACK_SD}")
    return path, (BK.Noise.load(path) if path else BK.Noise([], "none"))


def _group_blocks(profile: Profile, cells: dict[str, Cell],
                  sources: dict[str, list[Experiment]], noise: BK.Noise
                  ) -> tuple[list[BK.Block], dict[str, str]]:
    """The cells grouped into blocks (an original program joins its copybench cell's block),
    each block with its purpose, claims, family, margin and noise; and cell id -> block id."""
    des = profile.design
    assert des is not None
    keys_of = {cid: sorted({BK.block_key(c.factors(), ("threads",) if e.pair_threads else ())
                            for e in sources.get(cid, [])} or {BK.block_key(c.factors())})
               for cid, c in cells.items() if not c.block_as}
    for cid, c in cells.items():  # an original program joins its copybench cell's block
        if c.block_as:
            keys_of[cid] = keys_of[c.block_as]
    groups = BK.group(keys_of)
    block_of = {cid: bid for bid, ids in groups.items() for cid in ids}
    p1 = topup.p1_cells(cells, sources)
    blocks: list[BK.Block] = []
    for key, ids in sorted(groups.items()):
        # the block's purpose, claims, family and margins: from the experiments that list its
        # copybench cells (an original program's experiment lists them too)
        exps = [e for cid in ids if not cells[cid].block_as for e in sources.get(cid, [])]
        purpose = min((e.purpose for e in exps), key=PURPOSES.index, default="descriptive")
        first = cells[min(ids, key=lambda c: (cells[c].kind != "copybench", c))]
        kind = cell_kind(first.mode, first.command, first.cache)
        sd, why = noise.sd(kind, first.placement, first.duration_s)
        if any(cells[c].share_time for c in ids):
            sd, why = _shared_sd(noise, ids, cells, first, sd, why)
        margins = [e.margin for e in exps if e.margin is not None]
        target = des.descriptive_target if purpose == "descriptive" else des.target
        threads = sorted({cells[c].threads for c in ids})
        label = " ".join(x for x in (first.transport or "file→file", first.placement,
                                     first.mode or "copy", format_size(first.size),
                                     "/".join(map(str, threads)) + "t" if threads != [1] else "",
                                     first.cache or "",
                                     f"recv {format_size(first.recv_size)}"
                                     if first.recv_size else "",
                                     "(its own block)" if first.group else "") if x)
        blocks.append(BK.Block(
            id=key, label=label, cells=sorted(ids), purpose=purpose,
            claims=sorted({c for e in exps for c in e.claims}),
            family=max((topup.experiment_family(e, p1) for e in exps), default=1),
            margin=min(margins) if margins else None, kind=kind,
            placement=first.placement, window_s=first.duration_s, sd=sd, sd_source=why,
            seconds_per_round=sum(trial_seconds(cells[c]) for c in ids), target=target,
            caps={c: cells[c].rounds_cap for c in ids if cells[c].rounds_cap},
            cell_seconds={c: trial_seconds(cells[c]) for c in ids if cells[c].rounds_cap},
            **_held(exps, sd, des)))
    return blocks, block_of


def _held(exps: list[Experiment], sd: float, des: Design) -> dict[str, Any]:
    """A block's rounds held by an experiment's own ``target`` (the most any of its
    experiments needs, runner.plan.blocks.hold_rounds) and what for; {} when none has one."""
    own = sorted({(BK.hold_rounds(sd, e.target, des.confidence, e.family, des), e.name,
                   e.target, e.family) for e in exps if e.target is not None})
    if not own:
        return {}
    n, name, target, family = own[-1]
    return {"hold": n, "held_by": {
        "experiment": name, "target": target, "family": family,
        "expected_half_width": BK.half_width(sd, n, des.confidence, family)}}


def _shared_sd(noise: BK.Noise, ids: list[str], cells: dict[str, Cell], first: Cell,
               sd: float, why: str) -> tuple[float, str]:
    """The sd a block with shared-time cells plans with: the noise model's shared-time entry
    (:data:`rundir.sharetime.NOISE_KIND`: a comparison inside one trial) where it has one,
    else today's (not assumed smaller before it is measured); a block holding both designs
    takes the larger, since its rounds serve the comparisons of both."""
    if not any(e.kind == sharetime.NOISE_KIND for e in noise.entries):
        return sd, f"{why}; shared time: today's sd (the noise model has no shared-time entry)"
    shared, shared_why = noise.sd(sharetime.NOISE_KIND, first.placement, first.duration_s)
    if all(cells[c].share_time or cells[c].kind != "copybench" for c in ids):
        return shared, shared_why
    return (shared, shared_why) if shared > sd else (sd, f"{why} (both designs: the larger)")


def _applicability(blocks: list[BK.Block], des: Design, caps: Capabilities,
                   notes: list[str]) -> None:
    """The claims this machine cannot test, known before the run (decision.families'
    conditions: a CPU per thread and side, CPUs for parallel threads, a PMU): each block
    names them (``untestable``), their comparisons are never topped up
    (:func:`_attach_comparisons`), and a claim block that serves only such claims is
    planned to the descriptive target, as the descriptive chapter reads it."""
    seen: dict[str, list[str]] = {}
    for b in blocks:
        b.untestable = {c: why for c in b.claims
                        if (why := families.untestable(c, b.placement, caps.cpus, caps.pmu))}
        for c, why in b.untestable.items():
            seen.setdefault(why, []).append(b.id)
        tabled = [c for c in b.claims if c in families.FAMILY]
        if b.purpose == "claim" and tabled and all(c in b.untestable for c in tabled) \
                and not set(b.claims) - set(tabled):
            b.target = des.descriptive_target
            b.note = (b.note + "; " if b.note else "") + (
                "every claim of the block is not testable here: planned to the descriptive "
                "target, never topped up")
    for why, ids in sorted(seen.items()):
        notes.append(f"not testable here: {why} ({len(ids)} block(s)); its comparisons get "
                     "the planned rounds only and are never topped up")


def _rehearse(blocks: list[BK.Block], cells: dict[str, Cell], des: Design, sequential: bool,
              notes: list[str]) -> dict[str, Cell]:
    """A rehearsal's share of every block's rounds (blocks planned to the rehearsal's first
    look keep theirs) and one profiled trial per profiled cell; returns the cells."""
    for b in blocks:
        if b.first_look:  # planned to the rehearsal's first look already
            continue
        keep = 2 if "AA" in b.claims else 1
        b.rounds = max(keep, round(b.rounds * REHEARSAL_SHARE))
        b.expected_half_width = BK.half_width(b.sd, b.rounds, des.confidence, b.family)
    notes.append(f"rehearsal: every block runs about {REHEARSAL_SHARE:.0%} of its planned "
                 "rounds, at least one (the A/A block two), and profiled cells one profiled "
                 "trial"
                 + (f"; the top-up runs on the {REHEARSAL_SEQUENTIAL} sequential blocks that "
                    f"cost least per round ({REHEARSAL_LOOK} rounds to the first look, a "
                    f"look every {REHEARSAL_LOOK}, a tenth of the top-up's reserve)"
                    if sequential else "")
                 + ": a check that the pipeline and the book work on this plan, not a "
                 "result")
    return {cid: Cell(**{**asdict(c), "perf_trials": min(c.perf_trials, 1)})
            for cid, c in cells.items()}


def _design_json(des: Design, path: Path | None, noise: BK.Noise, rehearsal: bool,
                 seq: sq.SequentialDesign | None, blocks: list[BK.Block], topup_s: float
                 ) -> dict[str, Any]:
    """plan.json's design: the profile's, with the noise model used and the top-up's
    declaration (looks, spending, budget and what it covers) when the design has one."""
    design = {**asdict(des), "noise_file": str(path) if path else None,
              "noise_source": noise.source, "rehearsal": rehearsal}
    if seq is not None and des.sequential is not None:
        design["sequential"] = {
            **seq.to_json(), "budget_s": des.sequential.budget_s,
            "topup_budget_s": round(topup_s, 1), "budget_rule": topup.BUDGET_RULE,
            "planning": des.sequential.planning,
            "blocks": sum(1 for b in blocks if b.first_look),
            "comparisons": sum(len(b.sequential.get("comparisons", [])) for b in blocks)}
    else:
        design.pop("sequential")
    return design


def _make_blocks(profile: Profile, seed: int, cells: dict[str, Cell],
                 sources: dict[str, list[Experiment]], skipped: Counter[str],
                 notes: list[str], rehearsal: bool = False,
                 caps: Capabilities | None = None) -> Plan:
    des = profile.design
    assert des is not None
    path, noise = _load_noise(profile, notes)
    blocks, block_of = _group_blocks(profile, cells, sources, noise)
    if caps is not None:
        _applicability(blocks, des, caps, notes)
    cells = {cid: Cell(**{**asdict(c), "block": block_of[cid]}) for cid, c in cells.items()}
    singles = _profiled_ids(cells)
    fixed = sum(trial_seconds(cells[Trial.parse(t).cell], True) for t in singles)
    seq = sequential_design(des, rehearsal)
    if seq is not None:
        _attach_comparisons(blocks, cells, sources, seq, rehearsal)
        notes += _control_rounds(blocks, cells, des)
        caps_of = {cid: b.caps.get(cid, 0) for b in blocks for cid in b.cells}
        cells = {cid: Cell(**{**asdict(c), "rounds_cap": caps_of[cid]})
                 if c.rounds_cap or caps_of[cid] else c for cid, c in cells.items()}
        notes += _their_notes(blocks, cells)
    reserve = des.sequential.budget_s if des.sequential else 0.0
    notes += BK.plan_rounds(blocks, des, profile.budget_s - reserve if profile.budget_s
                           else None, fixed)
    topup_s = _topup_budget(blocks, profile, fixed, reserve, rehearsal)
    bad = BK.unreachable(blocks, des)
    if bad:
        msg = (f"{len(bad)} decision rule(s) cannot be met at the planned rounds: "
               + "; ".join(bad[:5]) + (" …" if len(bad) > 5 else ""))
        if des.strict and not rehearsal:
            raise PlanError(f"profile {profile.name}: {msg} (raise the budget or "
                            "rounds_max, or lengthen the windows)")
        notes.append("warning: " + msg + " (the run goes on: these comparisons will most "
                     "likely end undecided, which the book reports as such; a short profile "
                     "such as smoke or quick is not meant to decide them, `make claims` is)")
    if rehearsal:
        cells = _rehearse(blocks, cells, des, seq is not None, notes)
        singles = _profiled_ids(cells)
    rounds = block_rounds(blocks, seed, singles)
    n_rounds = len(rounds)
    design = _design_json(des, path, noise, rehearsal, seq, blocks, topup_s)
    if seq is not None and not rehearsal:
        design["sesoi"], note = band_check(blocks, seq)
        notes += [note] if note else []
    return Plan(profile=profile.name, seed=seed, cells=cells, skipped=dict(skipped),
                notes=notes, rounds=rounds, rep_min=n_rounds, rep_max=n_rounds,
                blocks={b.id: b.to_json() for b in blocks}, design=design)


def band_check(blocks: list[BK.Block], seq: sq.SequentialDesign) -> tuple[dict[str, Any], str]:
    """The smallest effect of interest this design resolves at the noise model's sd (the
    median over the top-up's blocks: :func:`decision.sesoi.derive`, the function the book's
    sentence calls too), for plan.json, and a warning where the claims' declared band
    (:data:`decision.band.SESOI`) is narrower: its "equivalent" would then be out of reach
    for most comparisons even at a true ratio of 1."""
    sds = sorted(b.sd for b in blocks if b.first_look and b.sd > 0)
    if not sds:
        return {}, ""
    mid = len(sds) // 2
    sigma = sds[mid] if len(sds) % 2 else (sds[mid - 1] + sds[mid]) / 2
    d = sesoi.derive(sigma, seq, sesoi.FAMILY)
    # plan.json is strict JSON: an unresolved band (inf) is written as null
    doc = {**{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
              for k, v in d.to_json().items()}, "declared": SESOI,
           "sigma_source": "median of the noise model's sd over the top-up's blocks"}
    if math.isfinite(d.sesoi) and SESOI + 1e-9 >= d.sesoi:
        return doc, ""
    return doc, (f"warning: the claims' band ±{SESOI:.0%} is narrower than the smallest "
                 f"effect this design resolves at the noise model's sd, {d.text()}")


#: a rehearsal's sequential blocks: first look after 2 rounds (the fewest a CI needs), a look
#: every 2, and a tenth of the maximum (at least 4), so it runs at least one top-up look; only
#: the few cheapest blocks keep the top-up (the others run one round, as every block of a
#: rehearsal), so the rehearsal of the paper profile stays near a quarter of an hour
REHEARSAL_LOOK = 2
REHEARSAL_SEQUENTIAL = 4


def sequential_design(des: Design, rehearsal: bool) -> sq.SequentialDesign | None:
    """The top-up's design as this plan runs it (None: the fixed design)."""
    if des.sequential is None:
        return None
    full = des.sequential.design(alpha=round(1 - des.confidence, 12))
    if not rehearsal:
        return full
    most = max(2 * REHEARSAL_LOOK, 2 * round(full.rounds_max * REHEARSAL_SHARE / 2))
    return sq.SequentialDesign(spending=full.spending, alpha=full.alpha,
                               first_look=REHEARSAL_LOOK, look_every=REHEARSAL_LOOK,
                               rounds_max=most, drop_below=0.0)  # a check runs its looks


def _attach_comparisons(blocks: list[BK.Block], cells: dict[str, Cell],
                        sources: dict[str, list[Experiment]],
                        seq: sq.SequentialDesign, rehearsal: bool) -> None:
    """Each block with a declared comparison (runner.plan.topup.resolve) gets the top-up's
    looks, its family (the largest of its comparisons') and its comparisons (a rehearsal:
    only the :data:`REHEARSAL_SEQUENTIAL` that cost least per round, ties by block id)."""
    looks = list(seq.schedule(seq.first_look or 2).looks)
    p1 = topup.p1_cells(cells, sources)
    found = {b.id: topup.resolve(b.cells, cells, sources, p1, b.untestable) for b in blocks}
    keep = sorted((b for b in blocks if found[b.id]), key=lambda b: (b.seconds_per_round, b.id))
    if rehearsal:
        keep = keep[:REHEARSAL_SEQUENTIAL]
    for b in keep:
        comps = found[b.id]
        if comps:
            b.sequential = {"looks": looks, "family": max(c.family for c in comps),
                            "comparisons": [c.to_json() for c in comps]}
            _their_rounds(b, comps, cells, sources)


def _control_rounds(blocks: list[BK.Block], cells: dict[str, Cell], des: Design) -> list[str]:
    """The A/A control runs the rounds at which a true ratio of 1 reads "equivalent" with
    80 % probability at its block's noise-model sd (runner.plan.blocks.control_rounds): its
    twin stops there (a cap), and its block runs at least as many rounds
    (runner.plan.blocks.plan_rounds), so the twin's partner runs the same rounds. Returns
    the plan's note on it (the rounds, the chance, the sd)."""
    notes = []
    for b in blocks:
        twins = [cid for cid in b.cells if cells[cid].twin]
        if not twins or "AA" not in b.claims:
            continue
        aa = BK.control_rounds(b, des)
        for cid in twins:
            b.caps[cid] = aa.rounds
            b.cell_seconds[cid] = trial_seconds(cells[cid])
        notes.append(aa.text())
    return notes


def _their_notes(blocks: list[BK.Block], cells: dict[str, Cell]) -> list[str]:
    """What the reports' own programs get in the sequential design, in one line."""
    seq = [b for b in blocks if b.first_look]
    theirs = [(b, cid) for b in seq for cid in b.cells if cells[cid].is_original]
    if not theirs:
        return []
    every = sum(1 for b, cid in theirs if not b.caps.get(cid))
    first = sum(1 for b, cid in theirs if b.caps.get(cid) == b.first_look)
    kept = sorted({b.caps[cid] for b, cid in theirs
                   if b.caps.get(cid) and b.caps[cid] != b.first_look})
    return [f"the reports' own programs: {every} of their {len(theirs)} cells in sequential "
            "blocks are read by a comparison testable here and run every round of their "
            f"block (first look and top-up looks); {first} serve a claim testable here that no "
            "comparison reads and run to the first look"
            + (f"; {len(theirs) - every - first} serve only claims this machine cannot test "
               f"and keep originals_rounds ({', '.join(map(str, kept))})" if kept else "")]


def _their_rounds(b: BK.Block, comps: list[topup.Comparison], cells: dict[str, Cell],
                  sources: dict[str, list[Experiment]]) -> None:
    """The reports' own programs in a sequential block take part in its design like
    copybench's cells: a cell that one of the block's comparisons reads runs every round
    of the block (its first look and every top-up look: no cap); one that serves a claim
    testable here that no comparison reads (a latency their program prints) runs to the
    first look; only one whose every claim this machine cannot test keeps its
    ``originals_rounds``."""
    read = topup.uncapped(comps)
    for cid, cap in list(b.caps.items()):
        claims = {c for e in sources.get(cid, []) for c in e.claims}
        if cid in read:
            del b.caps[cid]
            del b.cell_seconds[cid]
        elif claims - set(b.untestable):
            b.caps[cid] = max(cap, b.first_look)


def _topup_budget(blocks: list[BK.Block], profile: Profile, fixed_s: float,
                  reserve_s: float, rehearsal: bool) -> float:
    """The top-up's budget (runner.plan.topup.BUDGET_RULE): the profile's budget less the planned
    rounds (without a budget: the reserve; a rehearsal: a tenth of the reserve), at most
    what every sequential block would take from its first look to its maximum."""
    if not any(b.first_look for b in blocks):
        return 0.0
    planned = fixed_s + sum(b.seconds(b.rounds) for b in blocks)
    most = sum(b.seconds(b.sequential["looks"][-1]) - b.seconds(b.first_look)
               for b in blocks if b.first_look)
    if rehearsal:
        left = REHEARSAL_SHARE * reserve_s
    else:
        left = profile.budget_s - planned if profile.budget_s else reserve_s
    return max(0.0, min(left, most))

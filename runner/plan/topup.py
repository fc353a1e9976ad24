"""The sequential top-up of the block design: which comparisons each block carries, which
block gets the next look, and what the plan expects to stay undecided.

* At plan time (:func:`resolve`) each experiment's declared ``comparisons`` ("a/b" of two
  methods, "Nt/Mt" of two thread counts of one method) become pairs of the block's
  copybench cells (twin 0) that differ in exactly that factor; a pair declared by several
  experiments carries every boundary they declare and the largest family. A block with a
  comparison gets the looks of :class:`decision.sequential.SequentialDesign`.
* At run time (:func:`next_look`), after every planned round, each comparison's repeated CI
  at the latest look its block reached (:func:`decision.sequential.looks_by_round`, from the
  records only) says whether it is decided; :func:`decision.sequential.rank_blocks` orders the
  blocks with an undecided comparison and rounds left, and the first whose next look fits
  the budget left gets it (one whole look). The budget counts the plan's estimated seconds
  of the trials granted, never the clock, so a resumed run grants the same looks.
* Before the run (:func:`expectations`), each comparison's chance to be decided at its
  first look and by its maximum, under the noise model's sd of its block and the effect a
  planning file gives (:func:`effects_from_run`: a reference run's estimate of the same
  comparison), by :func:`decision.sequential.p_decided`.

The statistics are :mod:`decision.sequential`'s, the same the analysis reads the verdicts with.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from decision import families
from rundir import planfile, records
from rundir.vocabulary import REPORT_NAMES
from decision import sequential as sq
from decision.quantities import log_ratios, primary
from rundir import utf8 as rundir_text
from runner.plan.blocks import in_block_order
from runner.host.errors import ProfileError
from runner.plan.estimate import trial_seconds
from runner.plan.cells import Cell, Plan
from runner.plan.profile import Experiment

#: the rule the top-up's budget follows, in words (plan.json, the plan printout)
BUDGET_RULE = ("the top-up's budget is the profile's budget_s less the planned rounds' "
               "estimated seconds (at least design.sequential.budget_s is reserved for it), "
               "counted in the plan's estimated seconds of the trials it grants, not by the "
               "clock, so a resumed run grants the same looks; a look that does not fit the "
               "budget left is passed over for the next block in the order")


@dataclass(frozen=True)
class Comparison:
    """One ratio a/b of two cells of a block, and the boundaries its rules read it against."""

    name: str  # e.g. "zerocopy/send at 4 threads", "8t/4t of sendmsg"
    a: str  # cell ids
    b: str
    boundaries: tuple[float, ...]
    family: int
    # the claims testable here whose rules read it (decision.families.READS); empty for a
    # question's comparison or a plan made before the verdict order
    claims: tuple[str, ...] = ()

    @property
    def declared(self) -> str:
        """The declared comparison it is a pair of ("8t/2t", "zerocopy/send")."""
        return self.name.split(" ", 1)[0]

    def to_json(self) -> dict[str, Any]:
        d = {**asdict(self), "boundaries": list(self.boundaries), "claims": list(self.claims)}
        if not self.claims:
            d.pop("claims")
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Comparison":
        return cls(str(d["name"]), str(d["a"]), str(d["b"]),
                   tuple(float(x) for x in d["boundaries"]), int(d["family"]),
                   tuple(str(c) for c in d.get("claims") or ()))


def _cell(cells: Mapping[str, Cell], method: str, threads: int) -> str | None:
    """The first cell of ``cells`` with this method and thread count."""
    return next((cid for cid, c in cells.items() if c.method == method and c.threads == threads),
                None)


def _pairs(name: str, cells: Mapping[str, Cell]) -> list[tuple[str, str, str]]:
    """(label, a, b) for every pair of ``cells`` that the comparison ``name`` names: thread
    counts of one method ("8t/2t", per method) or two methods at one thread count ("a/b",
    per thread count)."""
    num, den = name.split("/")
    if num.endswith("t") and num[:-1].isdigit():
        ta, tb = int(num[:-1]), int(den[:-1])
        wanted = [(f"{name} of {m}", m, ta, m, tb)
                  for m in sorted({c.method for c in cells.values()})]
    else:
        wanted = [(f"{name} at {t} thread{'s' if t != 1 else ''}", num, t, den, t)
                  for t in sorted({c.threads for c in cells.values()})]
    out = []
    for label, ma, ta, mb, tb in wanted:
        a, b = _cell(cells, ma, ta), _cell(cells, mb, tb)
        if a is not None and b is not None:
            out.append((label, a, b))
    return out


def p1_cells(cells: Mapping[str, Cell], sources: Mapping[str, list[Experiment]]) -> int:
    """P1's cells searched, as the analysis counts them (analysis.claims.placement): the
    (pair, threads, size) of the pairs P1 reads with both methods under both placements,
    among the copybench stream cells of P1's experiments, on the first transport (veth, then
    loopback) that has any (:func:`decision.families.p1_search`)."""
    return len(_p1_search(cells, sources)[1])


def _p1_search(cells: Mapping[str, Cell],
               sources: Mapping[str, list[Experiment]]) -> families.P1Search:
    return families.p1_search(c for cid, c in cells.items()
                              if any("P1" in e.claims for e in sources.get(cid, [])))


def claim_family(e: Experiment, name: str, placement_cells: int,
                 untestable: Iterable[str] = ()) -> int | None:
    """The family a declared comparison of experiment ``e`` is stopped at: the largest of
    the families (decision.families) of the experiment's claims that read it (C14's counted
    from the experiment's sizes, P1's from ``placement_cells``); an experiment whose claims
    do not read it (a question's) keeps the profile's ``family``. Claims this machine cannot
    test (``untestable``) do not count; None when every claim that reads it is one (the
    comparison is then never topped up)."""
    who = families.readers(name, e.claims)
    if not who:
        return e.family
    skip = set(untestable)
    who = [c for c in who if c not in skip]
    if not who:
        return None
    return max(families.family(c, sizes=len(e.sizes), placement_cells=placement_cells)
               for c in who)


def experiment_family(e: Experiment, placement_cells: int) -> int:
    """The largest family of an experiment's claims (decision.families), or the profile's
    ``family`` for an experiment without claims of that table (a question's): what a
    block's planned rounds are sized for in the fixed design."""
    fams = [families.family(c, sizes=len(e.sizes), placement_cells=placement_cells)
            for c in e.claims if c in families.FAMILY]
    return max(fams) if fams else e.family


def asked_edges(readers: Iterable[str], cell: Cell, name: str,
                declared: Iterable[float]) -> tuple[float, ...]:
    """The edges a comparison is asked about: the union of what the verdicts it serves
    expect of it (decision.families.edges: one edge per verdict, on the comparison's ratio;
    the band's two for the placement question), so a comparison whose CI already lies wholly
    on one side of every verdict's edge is decided; the profile's declared boundaries for a
    comparison no verdict reads (a question's)."""
    asked = families.edges(readers, cell.mode, cell.size, name)
    return asked if asked is not None else tuple(sorted(declared))


def resolve(block_cells: Iterable[str], cells: Mapping[str, Cell],
            sources: Mapping[str, list[Experiment]], placement_cells: int = 0,
            untestable: Iterable[str] = ()) -> list[Comparison]:
    """A block's comparisons: each experiment's declared ones, among that experiment's own
    copybench cells of the block (twin 0; the reports' programs and the A/A twin are not
    compared), boundaries united where experiments share a pair. Each comparison's family
    is its one family (:func:`decision.families.one_family`): the largest of the claims
    that read it (:func:`claim_family`: the table both the runner and the analysis read),
    of P1's where it is one of P1's orderings, whichever experiment declared it
    (:func:`decision.families.p1_reads`), and of the findings' family of the pair among
    the plan's ``cells``
    (:func:`decision.families.findings_family`), the family every reader reads it at, so it
    stops where it is read. A comparison read only by claims this
    machine cannot test (``untestable``, decision.families.untestable) is left out: it is
    never topped up."""
    found: dict[tuple[str, str], Comparison] = {}
    ids = [cid for cid in block_cells if cells[cid].kind == "copybench" and not cells[cid].twin]
    exps = {e.name: e for cid in ids for e in sources.get(cid, []) if e.comparisons}
    index = families.findings_index(cells.values())
    p1 = _p1_search(cells, sources)
    for e in exps.values():
        own = {cid: cells[cid] for cid in ids if e in sources.get(cid, [])}
        for name, bounds in e.comparisons:
            claims_fam = claim_family(e, name, placement_cells, untestable)
            if claims_fam is None:
                continue
            skip = set(untestable)
            for label, a, b in _pairs(name, own):
                fam = families.one_family(
                    claims_fam, families.findings_family(index, cells[a], cells[b]),
                    families.p1_reads(p1, cells[a], cells[b]))
                readers = tuple(c for c in families.readers(name, e.claims, cells[a].size)
                                if c not in skip)
                edges = asked_edges(readers, cells[a], name, bounds)
                old = found.get((a, b))
                if old is not None:
                    edges = tuple(sorted(set(old.boundaries) | set(edges)))
                found[(a, b)] = Comparison(
                    label, a, b, edges, max(fam, old.family if old else 1),
                    tuple(sorted(set(readers) | set(old.claims if old else ()))))
    found.update({(c.a, c.b): c for c in their_comparisons(block_cells, cells, sources,
                                                           untestable)})
    return sorted(found.values(), key=lambda c: c.name)


def their_comparisons(block_cells: Iterable[str], cells: Mapping[str, Cell],
                      sources: Mapping[str, list[Experiment]],
                      untestable: Iterable[str] = ()) -> list[Comparison]:
    """The reports' own programs' comparisons in a block: an experiment with ``originals``
    declares its ``comparisons`` in copybench's method names, and they are read on their
    programs' cells too (``send/sendmsg`` -> ``S3:two-copy/S3:one-copy``; thread counts of
    one of their programs), at the family of the claims testable here that read them
    (decision.families), each claim's verdict on their program a verdict of its own
    (``S3:C8``: their program's reading is decided apart from copybench's). A claim whose
    reading of their programs is their own printed latency
    (:data:`decision.families.THEIR_OWN_METRIC`) does not read them: the runner's primary
    metric is not that latency."""
    theirs = [cid for cid in block_cells if cells[cid].kind.startswith("original:")]
    skip = set(untestable) | set(families.THEIR_OWN_METRIC)
    out: list[Comparison] = []
    exps = {e.name: e for cid in theirs for e in sources.get(cid, []) if e.comparisons}
    for e in exps.values():
        own = [cid for cid in theirs if e in sources.get(cid, [])]
        for src in sorted({cells[cid].kind.split(":", 1)[1] for cid in own}):
            mine = {cid: cells[cid] for cid in own if cells[cid].kind == f"original:{src}"}
            for name, bounds in e.comparisons:
                num, den = name.split("/")
                threads = num.endswith("t") and num[:-1].isdigit()
                if not threads and not (num in REPORT_NAMES and den in REPORT_NAMES):
                    continue
                theirs_name = name if threads else \
                    f"{src}:{REPORT_NAMES[num]}/{src}:{REPORT_NAMES[den]}"
                for label, a, b in _pairs(theirs_name, mine):
                    readers = [c for c in families.readers(name, e.claims, cells[a].size)
                               if c not in skip]
                    if not readers:
                        continue
                    fam = max(families.family(c, sizes=len(e.sizes)) for c in readers)
                    out.append(Comparison(label, a, b,
                                          asked_edges(readers, cells[a], name, bounds), fam,
                                          tuple(f"{src}:{c}" for c in sorted(readers))))
    return out


def uncapped(comparisons: Iterable[Comparison]) -> set[str]:
    """The cells a block's comparisons read (their programs' among them run every round of
    the block, first look and top-up looks, like copybench's)."""
    return {x for c in comparisons for x in (c.a, c.b)}


# --------------------------------------------------------------------------- at run time

def steal_excluded(rec: Mapping[str, Any], rule: float | None) -> bool:
    """The interference rule the plan declared (``exclude_steal_above``), as the analysis
    applies it: a trial whose window had a larger share of steal time is excluded."""
    if rule is None:
        return False
    steal = (((rec.get("result") or {}).get("interference") or {}).get("steal_frac"))
    return isinstance(steal, (int, float)) and not isinstance(steal, bool) and steal > rule


def round_values(recs: Iterable[Mapping[str, Any]], until: int,
                 steal_rule: float | None) -> dict[int, float | None]:
    """One cell's primary values by round, rounds 1..until, excluded trials left out."""
    out: dict[int, float | None] = {}
    for r in recs:
        rep = int(r.get("repetition") or 0)
        if 1 <= rep <= until and not steal_excluded(r, steal_rule):
            out[rep] = primary(r)
    return out


@dataclass(frozen=True)
class Grant:
    """One look granted to a block: rounds first..last, its trials in run order, their
    estimated seconds, and why (the order rule's number)."""

    block: str
    first: int
    last: int
    trials: tuple[str, ...]
    seconds: float
    extra_rounds: float  # the extra-rounds order's number, or the verdict order's score
    by_verdicts: bool = False  # the verdict order (score: verdicts decided per second)

    def why(self) -> str:
        """The order rule's number in words. The verdict order: the predicted verdicts its
        next look decides (their chances summed), per hour of the look's seconds. The
        extra-rounds order of older plans: ((q_K s)/d)^2 - n uses the final look's
        quantile q_K, smaller than an early look's (fewer df, same Pocock level), so a block
        still undecided at its look can project to no extra rounds: it is then the nearest
        to deciding, which is why it runs first."""
        need = self.extra_rounds
        if self.by_verdicts:
            return (f"its next look decides a verdict testable here with the highest predicted "
                    f"chance per second ({need * self.seconds:.2f} verdicts expected from "
                    f"{self.seconds:.0f} s, {need * 3600:.2f} per hour)")
        if math.isinf(need):
            return "its closest undecided comparison's estimate lies on a rule boundary"
        if need < 0.5:
            return ("its closest undecided comparison would be decided by the rounds it has "
                    "at the final look's quantile, not at this look's wider one")
        return f"its closest undecided comparison needs about {need:.0f} more rounds"


def look_trials(plan: Plan, block: str, first: int, last: int) -> tuple[list[str], float]:
    """The trial ids of rounds first..last of a block in run order (each round's cells in
    the counterbalanced in-block order; a cell past its rounds cap sits out) and their
    estimated seconds."""
    b = plan.blocks[block] if plan.blocks else {}
    caps = b.get("caps") or {}
    ids: list[str] = []
    secs = 0.0
    for r in range(first, last + 1):
        for cid in in_block_order(b["cells"], plan.seed, r, block):
            if caps.get(cid) and r > caps[cid]:
                continue
            ids.append(f"{cid}-{r}")
            secs += trial_seconds(plan.cells[cid])
    return ids, secs


def _sequential(plan: Plan) -> dict[str, Any] | None:
    """The plan's ``design.sequential`` (None: the fixed design)."""
    return planfile.sequential_design({"design": plan.design})


def paired(x: Mapping[int, float | None], y: Mapping[int, float | None]
           ) -> tuple[list[int], list[float]]:
    """The rounds both cells have a positive value for, and their log ratios, in order."""
    rounds = [r for r in sorted(set(x) & set(y)) if log_ratios({r: x[r]}, {r: y[r]})]
    return rounds, log_ratios({r: x[r] for r in rounds}, {r: y[r] for r in rounds})


def summaries(plan: Plan, granted: Mapping[str, int],
              recs_of: Callable[[str], list[dict[str, Any]]]) -> list[sq.Summary]:
    """Every comparison of every sequential block at the latest look its granted rounds
    reach, from the records of those rounds only."""
    design = sq.design_of(_sequential(plan) or {})
    rule = planfile.Declared.of({"design": plan.design}).exclude_steal_above
    out: list[sq.Summary] = []
    for bid, n in sorted(granted.items()):
        seq = plan.blocks[bid]["sequential"]  # type: ignore[index]
        sched = sq.Schedule(tuple(seq["looks"]))
        for c in map(Comparison.from_json, seq["comparisons"]):
            rounds, lr = paired(round_values(recs_of(c.a), n, rule),
                                round_values(recs_of(c.b), n, rule))
            looks = sq.looks_by_round(rounds, lr, sched, n, c.family, design.spending,
                                      design.alpha)
            place = plan.blocks[bid].get("placement") or ""  # type: ignore[index]
            cell = plan.cells[c.a]  # its verdicts, as the order models them (families)
            s = sq.summary_of(bid, looks, sched, c.family, c.boundaries, design.spending,
                              design.alpha, families.serves(c.claims, cell.mode, cell.size,
                                                            place, c.declared))
            if s is not None:
                out.append(s)
    return out


def budget_s(plan: Plan) -> float:
    """The top-up's budget in estimated seconds (0 for the fixed design)."""
    seq = _sequential(plan)
    return float(seq.get("topup_budget_s") or 0.0) if seq else 0.0


def planned_rounds(plan: Plan) -> dict[str, int]:
    """The sequential blocks and the rounds planned for them (their first look)."""
    return {bid: int(b["rounds"]) for bid, b in (plan.blocks or {}).items()
            if b.get("sequential")}


def next_look(plan: Plan, granted: Mapping[str, int], used_s: float,
              recs_of: Callable[[str], list[dict[str, Any]]]) -> Grant | None:
    """The next look of the top-up: the first block in the order of the plan's design whose
    next look fits the budget left, or None when no block qualifies. A plan whose
    comparisons name their claims follows :func:`decision.sequential.rank_by_verdicts`
    (the chance per second that the next look decides a verdict testable here); an older
    plan keeps the order it declared (:func:`decision.sequential.rank_blocks`)."""
    seq = _sequential(plan)
    if not seq or not granted:
        return None
    budget = float(seq["topup_budget_s"])
    summ = summaries(plan, granted, recs_of)
    nexts: dict[str, tuple[int, list[str], float]] = {}
    for bid, n in granted.items():
        looks = plan.blocks[bid]["sequential"]["looks"]  # type: ignore[index]
        later = [x for x in looks if x > n]
        if later:
            ids, secs = look_trials(plan, bid, n + 1, later[0])
            nexts[bid] = (later[0], ids, secs)
    by_verdicts = any(s.verdicts for s in summ)
    drop = sq.design_of(seq).drop_below
    order = (sq.rank_by_verdicts(summ, {b: v[2] for b, v in nexts.items()}, drop)
             if by_verdicts else sq.rank_blocks(summ))
    for bid, why in order:
        if bid not in nexts:
            continue
        last, ids, secs = nexts[bid]
        if used_s + secs <= budget + 1e-9:
            return Grant(bid, granted[bid] + 1, last, tuple(ids), secs, why, by_verdicts)
    return None


# ---------------------------------------------------------------- planning: expectations

def effects_from_run(plan: Plan, run_dir: Path) -> list[dict[str, Any]]:
    """Each comparison of ``plan`` measured in another run (the same cells: ids are hashes
    of the factors): its geometric-mean ratio, the sd of its per-round log ratios and its
    rounds, from that run's records (its own interference rule applied)."""
    run_plan = planfile.read(run_dir)
    rule = planfile.Declared.of(run_plan).exclude_steal_above
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for r in records.read(records.trials_file(run_dir) or run_dir / "trials.jsonl"):
        by_cell.setdefault(str(r.get("cell")), []).append(r)
    out = []
    for bid, b in sorted((plan.blocks or {}).items()):
        for c in map(Comparison.from_json, (b.get("sequential") or {}).get("comparisons", [])):
            lr = log_ratios(round_values(by_cell.get(c.a, []), 10**6, rule),
                            round_values(by_cell.get(c.b, []), 10**6, rule))
            if len(lr) < 2:
                continue
            mean = sum(lr) / len(lr)
            sd = math.sqrt(sum((v - mean) ** 2 for v in lr) / (len(lr) - 1))
            out.append({"block": bid, "label": b["label"], "comparison": c.name, "a": c.a,
                        "b": c.b, "ratio": round(math.exp(mean), 5), "sd": round(sd, 5),
                        "rounds": len(lr)})
    return out


#: the first line's start of every planning file :func:`effects_toml` writes (``planning
#: --out`` replaces only a file that begins with it: :mod:`rundir.outpath`)
EFFECTS_HEADER = "# expected effects of the "


def effects_toml(rows: list[dict[str, Any]], run_dir: Path, profile: str) -> str:
    """The planning file: one [[effect]] per comparison (written by ``python -m runner
    planning``)."""
    lines = [f"{EFFECTS_HEADER}{profile} profile's comparisons, for its plan's "
             "expected undecided count:", f"# python -m runner planning {run_dir} --profile "
             f"{profile} --out FILE", "[meta]", f'run = "{Path(run_dir).name}"',
             f'profile = "{profile}"', ""]
    for r in rows:
        lines += ["[[effect]]"] + [f"{k} = {v!r}".replace("'", '"') if isinstance(v, str)
                                   else f"{k} = {v}" for k, v in r.items()] + [""]
    return "\n".join(lines)


def load_effects(path: Path) -> tuple[dict[tuple[str, str], float], str]:
    """The planning file's ratios by (a, b) cell ids, and the run they came from."""
    try:
        doc = rundir_text.toml_loads(path.read_text(encoding="utf-8"))
        return ({(str(e["a"]), str(e["b"])): float(e["ratio"]) for e in doc.get("effect", [])},
                str(doc.get("meta", {}).get("run", path.name)))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as e:
        raise ProfileError(str(path), "-", f"cannot read the planning file: {e}") from None


@dataclass(frozen=True)
class Expectation:
    block: str
    label: str
    comparison: str
    ratio: float | None  # the planning effect (None: no estimate)
    sd: float
    p_first: float  # decided at the first look
    p_max: float  # decided by the block's maximum


def expectations(plan: Plan, effects: Mapping[tuple[str, str], float]) -> list[Expectation]:
    """Every comparison's chance to be decided, under its block's noise-model sd and the
    planning effect (a comparison without one counts as undecided: both chances 0)."""
    design = sq.design_of(_sequential(plan) or {})
    out = []
    for bid, b in sorted((plan.blocks or {}).items()):
        seq = b.get("sequential")
        if not seq:
            continue
        sched = sq.Schedule(tuple(seq["looks"]))
        for c in map(Comparison.from_json, seq["comparisons"]):
            ratio = effects.get((c.a, c.b))
            p1, pn = (0.0, 0.0) if ratio is None else sq.p_decided(
                math.log(ratio), float(b["sd"]), sched, c.family, c.boundaries,
                design.spending, design.alpha)
            out.append(Expectation(bid, b["label"], c.name, ratio, float(b["sd"]), p1, pn))
    return out

"""What the noise means for the verdicts: the noise section's sd linked to the rounds a
comparison needs, the A/A control's plan and the run's undecided comparisons, each computed by
the code that decides (none re-derived here):

* :func:`band_needs`: the rounds a comparison needs at a per-round sd, read as the band is
  derived (the reference profile's design, its looks' repeated-CI quantiles at the level of the
  band's family, :func:`decision.sesoi.needs`): "equivalent" at a true ratio of 1, and the
  direction at true ratios a band's width, a half, a quarter and an eighth of it past the
  band's edge (:func:`decision.interval.rounds_to_decide`, the claims' distance);
* :func:`aa_plan`: the A/A control's planned rounds (the plan's cap of its twin cells) and
  its chance to read "equivalent" at that sd (:func:`decision.sesoi.control_rounds`, the
  planner's function);
* :func:`undecided`: the run's map comparisons that are not decided against the band, their
  rounds and the rounds each would need (:meth:`analysis.claims.base.Compared.rounds_needed`,
  what its distance says), split by why they stayed open;
* :func:`band_sigma`: which sd the band is derived for and the CPU class of the run it comes
  from, read from the manifests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from analysis.claims import sesoi as CS
from analysis.comparison.machines import entry_of, machine_class
from rundir.catalog import UNKNOWN_CPU
from analysis.statistics.fmt import fmt_pct
from analysis.words.counts import Tally
from decision import sesoi as DS
from decision.band import CONFIDENCE, SESOI, band


def beyond_edge(t: float = SESOI) -> tuple[float, ...]:
    """The distances past the band's edge the direction's rounds are stated at: the band's
    width, then halved three times (the rounds grow as the inverse square)."""
    return tuple(t / 2 ** k for k in range(4))


def band_needs(sd: float) -> DS.Needs:
    """The rounds a comparison needs at per-round sd ``sd``, read as the band is derived (the
    reference profile's design, the band's family)."""
    return DS.needs(sd, CS.reference_design(), CS.FAMILY, SESOI, beyond_edge())


def needs_table(n: DS.Needs) -> pd.DataFrame:
    """:class:`decision.sesoi.Needs` as rows: the true ratio, what is decided, the rounds."""
    lo, hi = band(n.band)
    rows = [{"true ratio": "1", "decided": f"equivalent (CI inside {lo:g} to {hi:g})",
             "rounds needed": n.equivalent}]
    for x, r in zip(n.beyond, n.direction):
        rows.append({"true ratio": f"{hi * (1 + x):.3g} or {lo / (1 + x):.3g}",
                     "decided": f"the direction beyond the band ({fmt_pct(x, 1)} past its edge)",
                     "rounds needed": r})
    return pd.DataFrame(rows)


def _rounds(x: float) -> str:
    return f"{x:,.0f}" if math.isfinite(x) else "no number of"


def rounds_text(n: DS.Needs) -> str:
    """What follows "a comparison needs about" in the method chapter (glue ``noise_rounds``)."""
    lo, hi = band(n.band)
    past = (f"{_rounds(n.equivalent)} rounds, more than the design's maximum of "
            f"{n.rounds_max}," if n.equivalent > n.rounds_max else
            f"{_rounds(n.equivalent)} rounds")
    return (f"{past} for its CI, read as the band is derived (looks at "
            f"{', '.join(map(str, n.looks))} rounds at the level of a family of {n.family}, "
            f"quantile {n.quantiles[-1]:.2f} at the last), to lie inside {lo:g} to {hi:g} with "
            f"{fmt_pct(n.power, 0)} probability when the true ratio is 1 (at "
            f"{n.rounds_max} rounds the chance is {fmt_pct(n.chance_at_last, 0)}); a true "
            f"ratio {fmt_pct(n.beyond[1], 0)} past the band's edge needs "
            f"{_rounds(n.direction[1])} rounds to decide its direction, one "
            f"{fmt_pct(n.beyond[-1], 1)} past it {_rounds(n.direction[-1])}")


# --------------------------------------------------------------------------- the A/A control

@dataclass(frozen=True)
class AAPlan:
    """The A/A control's planned rounds and its chances at a per-round sd (and at the sd the
    plan gave its block)."""

    planned: int
    at_planned: DS.ControlRounds  # the chance at the planned rounds, at the sd asked about
    wanted: int  # the rounds that reach the power at that sd
    plan_sd: float  # the noise model's sd the plan gave the A/A's block (NaN: none)
    at_plan_sd: float  # the chance at the planned rounds at that sd


def aa_cells(plan: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The plan's twin cells (the A/A control's second copies)."""
    return [c for c in ((plan or {}).get("cells") or {}).values() if (c.get("twin") or 0) > 0]


def aa_planned(plan: Mapping[str, Any] | None) -> int | None:
    """The rounds the plan gives the A/A control: its twin cells' cap (else their block's
    rounds); None where the plan has no twin."""
    blocks = (plan or {}).get("blocks") or {}
    got = [cap for c in aa_cells(plan)
           if isinstance(cap := c.get("rounds_cap")
                         or (blocks.get(c.get("block")) or {}).get("rounds"), int) and cap >= 2]
    return max(got) if got else None


def aa_plan(plan: Mapping[str, Any] | None, sd: float) -> AAPlan | None:
    """The A/A control's plan read at per-round sd ``sd`` with the planner's
    :func:`decision.sesoi.control_rounds` (at the planned rounds, and uncapped for the rounds
    that reach its power); None without an A/A in the plan or a usable sd."""
    n = aa_planned(plan)
    if n is None or not (math.isfinite(sd) and sd > 0):
        return None
    blocks = (plan or {}).get("blocks") or {}
    sds = [b["sd"] for c in aa_cells(plan)
           if isinstance((b := blocks.get(c.get("block")) or {}).get("sd"), (int, float))
           and b["sd"] > 0]
    psd = float(max(sds)) if sds else math.nan
    return AAPlan(n, DS.control_rounds(sd, SESOI, n, least=n),
                  DS.control_rounds(sd, SESOI, 1000).wanted, psd,
                  DS.control_rounds(psd, SESOI, n, least=n).chance if sds else math.nan)


def aa_text(a: AAPlan) -> str:
    """The A/A control's chance to read "equivalent" at its planned rounds."""
    lo, hi = band(a.at_planned.band)
    more = [f"{a.wanted} rounds would reach {fmt_pct(a.at_planned.power, 0)}"
            ] if a.wanted > a.planned else []
    if math.isfinite(a.at_plan_sd):
        more.append(f"at the sd the plan gave its block, {a.plan_sd:.3f}, "
                    f"{fmt_pct(a.at_plan_sd, 0)}")
    return (f"the A/A control, planned to {a.planned} rounds, reads \"equivalent\" (its "
            f"{fmt_pct(CONFIDENCE, 0)} CI of a true ratio of 1 inside {lo:g} to {hi:g}) at that "
            f"sd with probability {fmt_pct(a.at_planned.chance, 0)}"
            + (f" ({'; '.join(more)})" if more else ""))


# ----------------------------------------------------------------- the undecided comparisons

@dataclass(frozen=True)
class Undecided:
    """The comparisons of a set not decided against the band, and why."""

    total: int  # comparisons in the set
    n: int  # not decided against the band (greater, less or equivalent)
    no_direction: int  # of them, the CI holds 1 too
    size_open: int  # of them, the direction decided, its size open
    sd: float  # their median per-round sd
    rounds: float  # the median of the rounds they ran
    needed: float  # the median of the rounds each would need (80 %, its own sd and family)
    needed_max: float
    fixed: int  # in blocks without the top-up (the fixed design's planned rounds)
    fixed_rounds: int  # the most rounds one of those ran
    topped: int  # in the top-up's blocks
    beyond: int  # of those, needing more than the design's maximum
    rounds_max: int  # that maximum (0 where none was topped up)
    short: int  # of those, within the maximum but not given the rounds (the budget)
    reached: int  # of those, given the rounds it needs and still undecided


def undecided(tab: pd.DataFrame) -> Undecided:
    """:class:`Undecided` of a table of :func:`analysis.claims.baselines.baseline_comparisons`
    (its ``decision``, ``rounds``, ``sd_log``, ``rounds_max`` and ``rounds_needed``)."""
    if tab.empty or "rounds_needed" not in tab:
        return Undecided(len(tab), 0, 0, 0, math.nan, math.nan, math.nan, math.nan, 0, 0, 0,
                         0, 0, 0, 0)
    t = Tally.of(tab)
    u = tab[tab["decision"] == "inconclusive"]
    need = u["rounds_needed"].astype(float)
    top = u["rounds_max"].astype(float).notna()
    fixed, topped = u[~top], u[top]
    tn = topped["rounds_needed"].astype(float)
    beyond = tn > topped["rounds_max"]
    reached = ~beyond & (topped["rounds"] >= tn)

    def med(s: pd.Series) -> float:
        s = s.astype(float)
        s = s[s.notna()]
        return float(s.median()) if len(s) else math.nan

    return Undecided(
        len(tab), len(u), t.undecided, t.faster_open + t.slower_open, med(u["sd_log"]),
        med(u["rounds"]), med(need), float(need.max()) if need.notna().any() else math.nan,
        len(fixed), int(fixed["rounds"].max()) if len(fixed) else 0, len(topped),
        int(beyond.sum()), int(topped["rounds_max"].max()) if len(topped) else 0,
        int((~beyond & ~reached).sum()), int(reached.sum()))


def _were(n: int) -> str:
    return "was" if n == 1 else "were"


def undecided_text(u: Undecided) -> str:
    """The run's undecided map comparisons and why they stayed open."""
    if not u.total:
        return "this run has no map comparison"
    if not u.n:
        return f"every one of the run's {u.total} map comparisons is decided against the band"
    parts = []
    if u.fixed:
        parts.append(f"{u.fixed} {_were(u.fixed)} read at the rounds their blocks were planned "
                     f"to (at most {u.fixed_rounds}), without the top-up")
    if u.topped:
        why = [f"{u.beyond} would need more than the design's maximum of {u.rounds_max}"]
        if u.short:
            why.append(f"{u.short} {_were(u.short)} not given the rounds {'it needs' if u.short == 1 else 'they need'} "
                       "within it")
        if u.reached:
            why.append(f"{u.reached} got them and stayed open")
        parts.append(f"of the {u.topped} topped up, " + " and ".join(why))
    split = (f" ({u.no_direction} with the direction undecided too, {u.size_open} with it "
             "decided and the size open)" if u.size_open else "")
    return (f"{u.n} of the run's {u.total} map comparisons are not decided against the "
            f"band{split}: they ran a median of {u.rounds:.0f} rounds at a median per-round sd "
            f"of {u.sd:.3f}, where each would need a median of {u.needed:,.0f} (at most "
            f"{u.needed_max:,.0f}) for a decision with {fmt_pct(DS.POWER, 0)} probability at "
            f"its own sd and family; " + "; ".join(parts))


def verdicts_text(n: DS.Needs, a: AAPlan | None, u: Undecided) -> str:
    """The essentials in two sentences (glue ``noise_verdicts``): the rounds the sd asks for,
    the A/A control's chance at its plan, and the run's undecided comparisons."""
    eq = (f"more than the design's maximum of {n.rounds_max} rounds" if
          n.equivalent > n.rounds_max else f"{_rounds(n.equivalent)} rounds" + (
              " (the design's maximum)" if n.equivalent == n.rounds_max else ""))
    aa = (f", and the A/A control, planned to {a.planned} rounds, reads \"equivalent\" with "
          f"probability {fmt_pct(a.at_planned.chance, 0)}" if a is not None else "")
    first = (f"At the noise study's median paired per-round sd of {n.sigma:.3f}, a comparison "
             f"read as the band is derived needs {eq} to read \"equivalent\" at a true ratio "
             f"of 1 with {fmt_pct(n.power, 0)} probability and {_rounds(n.direction[-1])} to "
             f"decide the direction of a true ratio {fmt_pct(n.beyond[-1], 1)} past the band's "
             f"edge{aa}")
    if not u.total:
        return f"{first}. This run has no map comparison."
    if not u.n:
        return f"{first}. Every one of the run's {u.total} map comparisons is decided."
    why = []
    if u.fixed:
        why.append(f"{u.fixed} {_were(u.fixed)} read at their blocks' planned rounds (at most "
                   f"{u.fixed_rounds})")
    if u.topped:
        why.append(f"{u.beyond} of the {u.topped} topped up would need more than the design's "
                   f"maximum of {u.rounds_max}")
    return (f"{first}. {u.n} of the run's {u.total} map comparisons stay undecided against the "
            f"band: " + " and ".join(why) + f" (a median of {u.needed:,.0f} rounds needed over "
            f"the {u.n}, at most {u.needed_max:,.0f}).")


# ----------------------------------------------------------------- the sd the band rests on

@dataclass(frozen=True)
class BandSigma:
    """The two sds the band's sd is the larger of, and the CPU class of each one's run."""

    study_run: str
    study_sd: float
    aa_run: str
    aa_sd: float
    study_cpu: str
    aa_cpu: str

    @property
    def from_aa(self) -> bool:
        return self.aa_sd > self.study_sd

    @property
    def sigma(self) -> float:
        return max(self.study_sd, self.aa_sd)


def machine(manifest: Mapping[str, Any] | None) -> str:
    """A run's machine class in words ("2-CPU AMD EPYC"), from its manifest
    (:func:`analysis.comparison.machines.machine_class`)."""
    n, model = machine_class(dict(manifest or {}))
    return f"{n}-CPU {model}" if n else model


def _cpu(name: str, beside: Path) -> str:
    """A run's machine class in words ("2-CPU AMD EPYC"), from the catalog's entry of it
    beside the book's run or in the repository's data/raw
    (:func:`analysis.comparison.machines.entry_of`); "an unrecorded machine" where neither
    holds it."""
    e = entry_of(name, beside)  # bounded; damage: BadRun
    return e.machine if e is not None and e.cpu_class != UNKNOWN_CPU else "an unrecorded machine"


def band_sigma(run_dir: str | Path) -> BandSigma:
    """The band's sd (:func:`analysis.claims.sesoi.sigma`) and where each of its two inputs
    was measured."""
    beside = Path(run_dir).parent
    study, sd, _ = CS.NOISE_STUDY
    return BandSigma(study, float(sd), CS.AA_RUN, float(CS.aa_sigma(*CS.AA_CONTROL)),
                     _cpu(study, beside), _cpu(CS.AA_RUN, beside))


def band_sigma_text(b: BandSigma, reference_cpu: str) -> str:
    """Which run's sd the band is derived for, and whether it is the book's run's CPU class."""
    where, cpu = ("the A/A control", b.aa_cpu) if b.from_aa else ("the noise study", b.study_cpu)
    same = ("the same CPU class as this run's" if cpu == reference_cpu else
            "another CPU class than this run's") + f" ({reference_cpu})"
    return (f"the band is derived for a per-round sd of {b.sigma:.3f}, the larger of the noise "
            f"study's {b.study_sd:.3f} (run {b.study_run}, {b.study_cpu}) and the A/A "
            f"control's {b.aa_sd:.3f} (run {b.aa_run}, {b.aa_cpu}): {where} sets it, "
            f"measured on {same}")

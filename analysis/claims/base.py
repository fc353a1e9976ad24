"""What every claim test shares: verdict names, the result record, the published size
lists, and how a test picks its configuration from a run (the source's transport and
placement first, then the nearest the run has)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pandas as pd

from analysis import stats as S
from analysis.claims.rules import fmt_size
from analysis.fmt import fmt_num
from analysis.run import Run, pmu_status, select, values

if TYPE_CHECKING:
    from analysis.claims.rules import Rule

HOLDS, REFUTED, INCONCLUSIVE, NOT_TESTABLE = "holds", "refuted", "inconclusive", "not testable here"
TRANSPORT_PREF = ("veth", "loopback")  # S2/S3 used a veth pair between two namespaces
PLACEMENT_PREF = ("cross-core", "unpinned", "same-core")
KiB = 1024
#: Size lists as published.
S2_SIZES = (512, 4 * KiB, 16 * KiB, 64 * KiB)
S3_SIZES = (1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB)
#: Tolerance for "about R x" claims: the CI must lie within [R/1.25, R*1.25].
APPROX_TOL = 1.25
#: Textbook CPU copies per transfer (claim C15, S5 table 1.1 citing Song & Alves-Foss).

@dataclass
class ClaimResult:
    claim: str
    source: str
    statement: str
    published: str
    verdict: str = NOT_TESTABLE
    statistic: str = ""
    value: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    configuration: str = ""
    reason: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    part: str = ""  # the placement (and reading) this verdict is for
    rule: str = ""  # the whole decision rule
    boundaries: str = ""  # what the verdict turns on, short (printed beside the verdict)
    design: str = ""  # paired | unpaired: the primary statistic's design
    sensitivity: str = ""  # the other design's estimate and outcome
    boundary: str = ""  # inconclusive: the boundary the CI straddles

    @property
    def key(self) -> str:
        return f"{self.claim} ({self.part})" if self.part else self.claim

    def ci_text(self) -> str:
        if not math.isfinite(self.value):
            return "—"
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{fmt_num(self.value)} (no CI)"
        return f"{fmt_num(self.value)} [{fmt_num(self.lo)}, {fmt_num(self.hi)}]"


def set_estimate(r: ClaimResult, e: S.Estimate) -> None:
    r.value, r.lo, r.hi = e.value, e.lo, e.hi


def stream_cells(run: Run, udp: bool = False) -> pd.DataFrame:
    """The message stream cells: TCP only, or with ``udp`` the UDP ones (udp-forward) too."""
    m = run.measured
    st = m[(m["scenario"] == "message") & (m["mode"] == "stream")]
    return st if udp else st[st["protocol"] != "udp"]


def pingpong_cells(run: Run) -> pd.DataFrame:
    m = run.measured
    return m[(m["scenario"] == "message") & (m["mode"] == "pingpong")]


def pick_config(df: pd.DataFrame, need: Callable[[pd.DataFrame], bool],
          transports: Sequence[str] = TRANSPORT_PREF,
          placements: Sequence[str] = PLACEMENT_PREF) -> tuple[pd.DataFrame, str, str] | None:
    """The first (transport, placement) in preference order whose rows satisfy ``need``."""
    for t in transports:
        for p in placements:
            sub = df[(df["transport"] == t) & (df["placement"] == p)]
            if not sub.empty and need(sub):
                return sub, t, p
    return None


def has_data(df: pd.DataFrame, metric: str = "gbit_per_s", **f: Any) -> bool:
    return values(select(df, **f), metric).size >= 2


def why_missing(df: pd.DataFrame, what: str, **f: Any) -> str:
    """A reason naming the first factor level that the run lacks."""
    for k, v in f.items():
        levels = set(df[k].dropna().unique()) if k in df else set()
        wanted = v if isinstance(v, (list, tuple)) else [v]
        if not levels.intersection(wanted):
            if k == "threads":
                return f"no {'/'.join(str(w) for w in wanted)}-thread {what} cells in this run"
            if k == "size":
                return f"no {' or '.join(fmt_size(w) for w in wanted)} {what} cells in this run"
            return f"no {k}={'/'.join(map(str, wanted))} {what} cells in this run"
    return f"fewer than 2 trials per cell for {what} in this run"


def config_text(transport: str, placement: str, threads: int | None = None, extra: str = "") -> str:
    parts = [transport, placement]
    if threads is not None:
        parts.append(f"{threads} thread{'s' if threads != 1 else ''}")
    if extra:
        parts.append(extra)
    return ", ".join(parts)


def sizes_text(sizes: Sequence[float]) -> str:
    return ", ".join(fmt_size(s) for s in sizes)


# ---------------------------------------------------------------------------- rules engine

@dataclass
class Compared:
    """One comparison a/b of a rule: the primary test (what the run's design declares), the
    other design as a sensitivity check, and the rule's reading of each CI."""

    size: int
    primary: S.RatioTest
    decision: S.Decision
    sensitivity: S.RatioTest | None = None
    sens_decision: S.Decision | None = None

    def row(self) -> dict[str, Any]:
        p, s = self.primary, self.sensitivity
        return {"size": self.size, "design": p.kind, "n": p.n, "ratio": p.ratio.value,
                "lo": p.ratio.lo, "hi": p.ratio.hi, "CI level": p.ratio.confidence,
                "p_adj": p.p_adj, "outcome": self.decision.outcome, "why": self.decision.why,
                "sensitivity": (f"{s.kind} {fmt_num(s.ratio.value)} [{fmt_num(s.ratio.lo)}, "
                                f"{fmt_num(s.ratio.hi)}] → {self.sens_decision.outcome}"
                                if s is not None and self.sens_decision else "—")}


def _twin0(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["twin"].fillna(0).astype(int) == 0] if "twin" in df else df


def round_values(df: pd.DataFrame, f: dict[str, Any], metric: str) -> pd.Series:
    """The cells matching ``f``, one value per (block, round): the median of ``metric``
    (the A/A twin left out)."""
    d = _twin0(select(df, **f))
    d = d[d["block"].notna() & d[metric].notna()]
    return d.groupby(["block", "repetition"])[metric].median().astype(float)


def paired_values(df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
                  metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Values of a and b measured in the same block and round (repetition), aligned: the
    pairs of the block design. Runs without blocks give no pairs."""
    if "block" not in df or not df["block"].notna().any():
        return np.array([]), np.array([])

    j = pd.concat([round_values(df, a, metric).rename("a"),
                   round_values(df, b, metric).rename("b")], axis=1, join="inner").dropna()
    return j["a"].to_numpy(), j["b"].to_numpy()


def compare_pair(run: Run, df: pd.DataFrame, a: dict[str, Any], b: dict[str, Any],
                 metric: str, family: int, rule: S.DecisionRule, size: int = 0,
                 paired: bool = True, seed: int = 0) -> Compared | None:
    """a/b under the run's declared primary design, the other design beside it."""
    x = values(_twin0(select(df, **a)), metric)
    y = values(_twin0(select(df, **b)), metric)
    if x.size < 2 or y.size < 2:
        return None
    unp = S.unpaired_ratio(x, y, family, seed=seed)
    pr = None
    if paired:
        xa, yb = paired_values(df, a, b, metric)
        if xa.size >= 2:
            pr = S.paired_ratio(xa, yb, family)
    if run.primary == S.PAIRED and pr is not None:
        prim, sens = pr, unp
    else:
        prim, sens = unp, pr
    return Compared(size, prim, S.decide(rule, prim.ratio), sens,
                    S.decide(rule, sens.ratio) if sens is not None else None)


def design_text(run: Run) -> str:
    if not run.has_blocks:
        return "unpaired (this run has no blocks)"
    return f"{run.primary} (declared in plan.json)"


def original_cells(run: Run) -> pd.DataFrame:
    """The reports' own programs' trials (kind ``original:S<n>``, methods ``S<n>:...``)."""
    m = run.measured
    return m[m["scenario"] == "original"]


def rule_cells(run: Run, rule: "Rule", placement: str | None) -> pd.DataFrame:
    """The cells of a rule's configuration (every method, every size); a rule about a
    report's own programs (methods ``S<n>:...``) reads their trials."""
    if ":" in rule.numerator + rule.denominator:
        d = original_cells(run)
        d = d[d["mode"] == rule.mode]
    elif rule.mode == "stream":
        d = stream_cells(run)
    elif rule.mode == "pingpong":
        d = pingpong_cells(run)
    else:
        m = run.measured
        d = m[m["scenario"] == rule.mode]
        if rule.cache:
            d = d[d["cache"] == rule.cache]
    f: dict[str, Any] = {"transport": rule.transport, "placement": placement}
    if rule.combine != "threads":
        f["threads"] = rule.threads
    return select(d, **f)


def _sizes_with(d: pd.DataFrame, a: str, b: str, metric: str) -> list[int]:
    return sorted(int(s) for s in d["size"].dropna().unique()
                  if has_data(d, metric, method=a, size=s) and has_data(d, metric, method=b, size=s))


def _result(rule: "Rule", stmt: tuple[str, str, str], placement: str | None) -> ClaimResult:
    r = ClaimResult(rule.claim, *stmt)
    r.part = ", ".join(x for x in (placement, rule.reading) if x)
    r.rule = (f"[{rule.reading}] " if rule.reading else "") + rule.text()
    r.boundaries = (f"[{rule.reading}] " if rule.reading else "") + rule.boundaries_text()
    r.configuration = rule.configuration(placement)
    return r


def apply_rule(run: Run, rule: "Rule", stmt: tuple[str, str, str],
               placement: str | None) -> ClaimResult:
    """Evaluate one rule at one placement: the comparisons, each read by the rule, combined
    into the verdict. ``stmt`` = (source, statement, published)."""
    r = _result(rule, stmt, placement)
    d = rule_cells(run, rule, placement)
    a, b, metric = rule.numerator, rule.denominator, rule.metric
    if rule.pmu:
        ok, why = pmu_status(run)
        if not ok:
            r.reason = f"needs hardware cache counters ({metric}); this run has none: {why}"
            return r
    sizes = list(rule.sizes) or _sizes_with(d, a, b, metric)
    if not sizes:
        r.reason = _missing(run, rule, placement)
        return r
    r.design = run.primary if run.has_blocks else S.UNPAIRED
    if rule.combine == "crossover":
        return _crossover(run, rule, r, d)
    family = rule.family or len(sizes)
    comps: dict[int, Compared | None] = {
        s: compare_pair(run, d, {"method": a, "size": s}, {"method": b, "size": s}, metric,
                        family, rule.decision, s, rule.paired, seed=i)
        for i, s in enumerate(sizes)}
    have = {s: c for s, c in comps.items() if c is not None}
    missing = [s for s, c in comps.items() if c is None]
    if not have:
        r.reason = _missing(run, rule, placement, sizes)
        return r
    r.details = [c.row() for c in have.values()]
    r.statistic = rule.statistic + (f" (CI level {S.family_confidence(family):.2%})"
                                    if family > 1 else "")
    per = "; ".join(f"{fmt_size(s)}: {c.decision.outcome} ({c.decision.why})"
                    for s, c in have.items())
    pick: Compared
    if rule.combine == "single":
        pick = next(iter(have.values()))
        out = pick.decision.outcome
        r.verdict = {"holds": HOLDS, "refuted": REFUTED}.get(out, INCONCLUSIVE)
    elif rule.combine == "every":
        exp = {s: (rule.expected[i] if len(rule.expected) == len(sizes) else rule.expected[0])
               for i, s in enumerate(sizes)}
        contrary = [s for s, c in have.items()
                    if c.decision.outcome not in exp[s] | {"inconclusive"}]
        undecided = [s for s, c in have.items() if c.decision.outcome == "inconclusive"]
        if contrary:
            r.verdict, pick = REFUTED, have[contrary[0]]
        elif missing and not undecided:  # agrees wherever measured, but a size is missing
            r.verdict, pick = NOT_TESTABLE, next(iter(have.values()))
        elif undecided:  # (a missing size could not make it hold either)
            r.verdict, pick = INCONCLUSIVE, have[undecided[0]]
        else:
            r.verdict = HOLDS
            pick = min(have.values(), key=lambda c: abs(math.log(c.primary.ratio.value)))
    else:  # at best: the largest ratio over the sizes is ~R
        band_lo, band_hi = rule.decision.boundaries()
        above = [c for c in have.values() if c.primary.ratio.lo > band_hi]
        best = max(have.values(), key=lambda c: c.primary.ratio.value)
        finite = all(math.isfinite(c.primary.ratio.hi) for c in have.values())
        if above:
            r.verdict, pick = REFUTED, above[0]
        elif finite and all(c.primary.ratio.hi < band_lo for c in have.values()):
            r.verdict, pick = REFUTED, best
        elif missing and finite and all(c.primary.ratio.hi <= band_hi for c in have.values()):
            r.verdict, pick = NOT_TESTABLE, best
        elif finite and all(c.primary.ratio.hi <= band_hi for c in have.values()) and any(
                c.decision.outcome == "holds" for c in have.values()):
            r.verdict, pick = HOLDS, best
        else:
            r.verdict, pick = INCONCLUSIVE, best
    set_estimate(r, pick.primary.ratio)
    if len(sizes) > 1:
        r.statistic += f"; shown: {fmt_size(pick.size)}"
    if pick.sensitivity is not None and pick.sens_decision is not None:
        s = pick.sensitivity.ratio
        r.sensitivity = (f"{pick.sensitivity.kind}: {fmt_num(s.value)} [{fmt_num(s.lo)}, "
                         f"{fmt_num(s.hi)}] → {pick.sens_decision.outcome}")
    if r.verdict == INCONCLUSIVE:
        r.boundary = "; ".join(f"{fmt_size(s)}: {c.decision.why}" for s, c in have.items()
                               if c.decision.outcome == "inconclusive") or pick.decision.why
    r.reason = per + (f"; no cells at {sizes_text(missing)}" if missing else "")
    return r


def crossover_of(run: Run, d: pd.DataFrame, a: str, b: str, metric: str,
                 sizes: Sequence[int]) -> tuple[S.Crossover, str]:
    """Where method a starts to beat method b along ``sizes`` in the cells ``d``, and the
    design that computed it: paired over rounds when the run has blocks (and every size has
    two pairs or more), else unpaired over trials."""
    lr = {}
    if run.primary == S.PAIRED and run.has_blocks:
        for s in sizes:
            x, y = paired_values(d, {"method": a, "size": s}, {"method": b, "size": s}, metric)
            lr[s] = S.log_ratios(x, y)
    if lr and all(v.size >= 2 for v in lr.values()):
        return S.paired_crossover(lr), S.PAIRED
    return (S.crossover({s: values(select(d, method=a, size=s), metric) for s in sizes},
                        {s: values(select(d, method=b, size=s), metric) for s in sizes}),
            S.UNPAIRED)


def _crossover(run: Run, rule: "Rule", r: ClaimResult, d: pd.DataFrame) -> ClaimResult:
    a, b, metric = rule.numerator, rule.denominator, rule.metric
    sizes = _sizes_with(d, a, b, metric)
    if len(sizes) < 2:
        r.verdict = NOT_TESTABLE
        r.reason = "fewer than two sizes with both methods in this configuration"
        return r
    c, r.design = crossover_of(run, d, a, b, metric, sizes)
    r.value, r.lo, r.hi = c.size, c.lo, c.hi
    r.statistic = (f"{rule.statistic} (bytes, {r.design} bootstrap; P(no crossover in range) "
                   f"= {c.p_none:.2f})")
    r.verdict, why = S.crossover_verdict(c, *rule.band)
    r.configuration = rule.configuration(r.part.split(",")[0] or None).replace(
        "every file size measured", "sizes " + sizes_text(c.sizes))
    if r.verdict == INCONCLUSIVE:
        r.boundary = why
    copied = select(run.measured, method=a, transport=rule.transport)["zc_copied_fraction"]
    cf = f"; copied fraction of zero-copy completions on {rule.transport}: {copied.median():.2f}" \
        if a == "zerocopy" and copied.notna().any() else ""
    r.reason = f"{why} ({fmt_size(rule.band[0])}–{fmt_size(rule.band[1])}){cf}"
    return r


def _missing(run: Run, rule: "Rule", placement: str | None,
             sizes: Sequence[int] | None = None) -> str:
    if rule.mode in ("stream", "pingpong"):
        base = stream_cells(run) if rule.mode == "stream" else pingpong_cells(run)
        what = "stream" if rule.mode == "stream" else "ping-pong"
    else:
        m = run.measured
        base, what = m[m["scenario"] == rule.mode], rule.mode
    f: dict[str, Any] = {}
    if rule.transport:
        f["transport"] = [rule.transport]
    if placement:
        f["placement"] = [placement]
    if rule.mode in ("stream", "pingpong") and rule.combine != "threads":
        f["threads"] = [rule.threads]
    if rule.sizes or sizes:
        f["size"] = list(sizes or rule.sizes)
    f["method"] = [rule.numerator] if rule.combine != "threads" else None
    f = {k: v for k, v in f.items() if v is not None}
    why = why_missing(base, what, **f)
    if why.startswith("fewer"):
        return (f"no {what} cells with both {rule.numerator} and {rule.denominator} at "
                f"{rule.configuration(placement)} in this run")
    return why


def evaluate_rules(run: Run, rules: Sequence["Rule"], stmt: tuple[str, str, str]
                   ) -> list[ClaimResult]:
    """Every rule of a claim at every placement it names. When every result is "not
    testable here" for the same reason, one row says so."""
    out = [apply_rule(run, rule, stmt, pl) for rule in rules for pl in rule.placements]
    return collapse(out)


def collapse(out: list[ClaimResult]) -> list[ClaimResult]:
    if len(out) > 1 and all(x.verdict == NOT_TESTABLE and not math.isfinite(x.value)
                            for x in out):
        one = out[0]
        one.part = ""
        one.reason = "; ".join(dict.fromkeys(x.reason for x in out))
        one.rule = " | ".join(dict.fromkeys(x.rule for x in out))
        one.boundaries = " | ".join(dict.fromkeys(x.boundaries for x in out))
        one.configuration = " | ".join(dict.fromkeys(x.configuration for x in out))
        return [one]
    return out

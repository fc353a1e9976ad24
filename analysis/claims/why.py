"""Why the published number, the authors' program here and copybench here differ (#18).

The rules below were written before the reference run that carries the reports' programs
(``data/raw/20261123T151436Z-paper-f0ed``) was looked at, and are applied unchanged to every
claim row of :func:`analysis.claims.originals.rows`.

1. **Testbed.** Their program here *reproduces* the published ratio when the published value
   lies inside their ratio's CI; otherwise the published number is *not reproduced by its own
   program on this testbed*, and that gap is the testbed or the report's configuration,
   which nothing measured here identifies.
2. **Program.** Over the rounds in which all four cells ran, the gap between their ratio and
   copybench's splits exactly into one factor per method (geometric means of paired log
   ratios add)::

       theirs / copybench = (their numerator / copybench numerator)
                            / (their denominator / copybench denominator)

   Each factor is a paired geometric-mean ratio over the rounds in which their program and
   copybench's method ran in the same block (t CI at the claim rule's Bonferroni level). A
   factor *differs* when its CI lies wholly outside [1 - t, 1 + t], t = the practical
   threshold of the direction rules (3 %). The factor furthest from 1 (in log) among those
   that differ *carries* the gap; none differing means the two programs agree here.
3. **Explanation.** A carrier is *explained* when a fact read from their code
   (:data:`CODE_FACTS`, each from :mod:`runner.originals.adapters`) predicts that method's
   program to be slower (or faster) than copybench's and the factor goes that way; the
   sentence names the fact and the measured factor. A carrier with no fact, or with the
   opposite direction, is *not explained*, and the sentence says so with the factor.
4. **C6 (their CSV).** S2's script writes only the first client's throughput to its CSV. The
   first client's 8-thread / 4-thread ratio is computed beside the summed one; the CSV fact
   *explains* the published number when the two CIs are disjoint and the published value is
   nearer (in log) to the first client's ratio than to the sum's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis import stats as S
from analysis.claims.base import original_cells, paired_values, stream_cells
from analysis.claims.rules import RULES, THREADS, Rule, fmt_size
from analysis.run import Run, select

#: speed of their program against copybench's counterpart a fact predicts
SLOWER, FASTER, OTHER_QUANTITY = "slower", "faster", "another quantity"
#: time-like metrics: a slower program has the larger value
TIME_METRICS = ("inv_msg_rate_us", "their_latency_us", "rtt_p50_us")


@dataclass(frozen=True)
class CodeFact:
    predicts: str
    text: str


#: (source, their method, metric kind) -> what their code makes of it. Metric kind is
#: "throughput" or "latency" (the number their program prints as latency).
CODE_FACTS: dict[tuple[str, str, str], CodeFact] = {
    ("S2", "two-copy", "throughput"): CodeFact(
        SLOWER, "their two-copy sends the 8 fields with 8 separate send() calls per message"),
    ("S3", "two-copy", "throughput"): CodeFact(
        FASTER, "their two-copy copies the fields into one buffer once, before its loop, "
        "and then only send()s it (no copy per message)"),
    ("S3", "two-copy", "latency"): CodeFact(
        OTHER_QUANTITY, "their latency is the mean time of one recv() into 64 KiB, not the "
        "time per message"),
    ("S3", "zero-copy", "latency"): CodeFact(
        OTHER_QUANTITY, "their latency is the mean time of one recv() into 64 KiB, not the "
        "time per message"),
}

#: copybench's method for each of their methods
COPYBENCH_OF = {"two-copy": "send", "one-copy": "sendmsg", "zero-copy": "zerocopy"}


@dataclass(frozen=True)
class Factor:
    """Their method / copybench's counterpart in one configuration (paired by round)."""

    theirs: str
    copybench: str
    value: float
    lo: float
    hi: float
    n: int
    threads: int | None = None  # a thread-count rule's side (C6)

    @property
    def differs(self) -> bool:
        t = S.PRACTICAL_THRESHOLD
        return (math.isfinite(self.lo) and math.isfinite(self.hi)
                and (self.lo > 1 + t or self.hi < 1 - t))

    def text(self) -> str:
        if not math.isfinite(self.value):
            return f"{self.theirs} against {self.copybench}: no pairs"
        at = f" ({self.threads} threads)" if self.threads else ""
        return (f"{self.theirs}{at} at {self.value:.2f}x copybench's {self.copybench} "
                f"[{self.lo:.2f}, {self.hi:.2f}]")


def _metric_kind(metric: str) -> str:
    return "latency" if metric == "their_latency_us" else "throughput"


def _speed(f: Factor, metric: str) -> str:
    slower = f.value > 1 if metric in TIME_METRICS else f.value < 1
    return SLOWER if slower else FASTER


def _both(run: Run, rule: Rule, placement: str | None, their_metric: str) -> pd.DataFrame:
    """Their trials and copybench's stream trials of one configuration, with one column
    ``_m`` holding each side's metric (theirs by their definition, copybench's by the rule's)."""
    th = original_cells(run)
    th = th[th["mode"] == rule.mode].assign(_m=lambda d: d[their_metric].astype(float))
    cb = stream_cells(run).assign(_m=lambda d: d[rule.metric].astype(float))
    both = pd.concat([th, cb])
    f: dict[str, Any] = {"transport": rule.transport, "placement": placement}
    if rule.combine != THREADS:
        f["threads"] = rule.threads
    return select(both, **f)


def factor(df: pd.DataFrame, theirs: str, copybench: str, size: int, family: int,
           threads: int | None = None) -> Factor:
    a: dict[str, Any] = {"method": theirs, "size": size}
    b: dict[str, Any] = {"method": copybench, "size": size}
    if threads is not None:
        a["threads"] = b["threads"] = threads
    x, y = paired_values(df, a, b, "_m")
    r = S.paired_ratio(x, y, family)
    return Factor(theirs, copybench, r.ratio.value, r.ratio.lo, r.ratio.hi, r.ratio.n, threads)


def _first_client(run: Run, rule: Rule, placement: str | None, size: int, method: str
                  ) -> tuple[S.Estimate, S.Estimate] | None:
    """C6: the first client's 8/4-thread ratio (their CSV's number) and the summed one."""
    d = select(original_cells(run), transport=rule.transport, placement=placement,
               method=method, size=size)
    if "their_published_gbps" not in d or d["their_published_gbps"].notna().sum() < 4:
        return None
    out = []
    for metric in ("their_published_gbps", rule.metric):
        x, y = paired_values(d, {"threads": int(rule.numerator)},
                             {"threads": int(rule.denominator)}, metric)
        out.append(S.paired_ratio(x, y, rule.family).ratio)
    return out[0], out[1]


def _ci(e: S.Estimate) -> str:
    return f"{e.value:.2f} [{e.lo:.2f}, {e.hi:.2f}]"


def explain(run: Run, row: pd.Series) -> dict[str, Any]:
    """The rules of this module applied to one row of :func:`originals.rows`."""
    rule = next(r for r in RULES[row["claim"]] if (r.reading or "") == (row["reading"] or "")
                and r.mode == "stream")
    src, size, pl = row["source"], int(row["size"]), row["placement"]
    pub, th = row["published"], (row["theirs_lo"], row["theirs_hi"])
    out: dict[str, Any] = {"claim": row["claim"], "reading": row["reading"], "placement": pl,
                           "size": size}
    if not (row["theirs_n"] and math.isfinite(th[0]) and math.isfinite(th[1])):
        out.update(reproduced=None, carrier="", status="no data",
                   why="their program has no CI here")
        return out
    reproduced = bool(math.isfinite(pub) and th[0] <= pub <= th[1])
    out["reproduced"] = reproduced
    parts = []
    if math.isfinite(pub):
        parts.append("their program here reproduces the published ratio" if reproduced else
                     f"their program here gives {row['theirs_ratio']:.3g}, not the published "
                     f"{pub:.3g} (their testbed or configuration; not identified here)")
    kind = _metric_kind(row["their_metric"])
    df = _both(run, rule, pl, row["their_metric"])
    if rule.combine == THREADS:
        method = "one-copy"  # C6 is about S2's one-copy, as published
        facs = [factor(df, f"{src}:{method}", COPYBENCH_OF[method], size, rule.family, t)
                for t in (int(rule.numerator), int(rule.denominator))]
    else:
        inv = {v: k for k, v in COPYBENCH_OF.items()}
        facs = [factor(df, f"{src}:{inv[m]}", m, size, rule.family)
                for m in (rule.numerator, rule.denominator)]
    differing = [f for f in facs if f.differs]
    status, carrier = "agree", ""
    if not differing:
        parts.append("their program and copybench agree here (" +
                     "; ".join(f.text() for f in facs) + ")")
    else:
        c = max(differing, key=lambda f: abs(math.log(f.value)))
        carrier = c.theirs
        fact = CODE_FACTS.get((src, c.theirs.split(":")[1], kind))
        speed = _speed(c, row["their_metric"])
        if fact is not None and (fact.predicts == OTHER_QUANTITY or fact.predicts == speed):
            status = "explained"
            parts.append(f"{fact.text}: {c.text()}")
        else:
            status = "not explained"
            parts.append(f"not explained: {c.text()}, which nothing read in their code "
                         "predicts" + (f" ({fact.text} predicts {fact.predicts})" if fact
                                       else ""))
    if rule.combine == THREADS:
        fc = _first_client(run, rule, pl, size, f"{src}:one-copy")
        if fc is not None:
            first, summed = fc
            disjoint = first.hi < summed.lo or first.lo > summed.hi
            nearer = (math.isfinite(pub) and abs(math.log(first.value / pub))
                      < abs(math.log(summed.value / pub)))
            if disjoint and nearer:
                status = "explained"
            parts.append(
                ("their CSV holds the first client's throughput only" if disjoint and nearer
                 else "the first client's throughput (their CSV's number) does not explain "
                 "it") + f": first client {_ci(first)}, sum over clients {_ci(summed)}")
    out.update(carrier=carrier, status=status, why="; ".join(parts) + ".")
    out["factors"] = "; ".join(f.text() for f in facs)
    return out


def table(run: Run, rows: pd.DataFrame) -> pd.DataFrame:
    """One explanation per row of :func:`originals.rows` (empty when their programs did
    not run)."""
    if rows.empty or not rows["theirs_n"].gt(0).any():
        return pd.DataFrame()
    return pd.DataFrame([explain(run, r) for _, r in rows.iterrows()])


def per_claim(expl: pd.DataFrame) -> pd.DataFrame:
    """One line per claim: how many rows each status has, and the sentence of the most
    frequent status (the first row with it, its size and placement named)."""
    out = []
    for claim, g in expl.groupby("claim", sort=False):
        counts = g["status"].value_counts()
        top = counts.index[0]
        ex = g[g["status"] == top].iloc[0]
        out.append({"claim": claim,
                    "rows": ", ".join(f"{k} {v}" for k, v in counts.items()),
                    "reproduced": f"{int(g['reproduced'].fillna(False).sum())} of {len(g)}",
                    "why they differ (example)":
                    f"{fmt_size(int(ex['size']))}, {ex['placement']}: {ex['why']}"})
    return pd.DataFrame(out)


__all__ = ["CODE_FACTS", "Factor", "explain", "factor", "per_claim", "table"]

"""The results chapter's findings, one per configuration, worded from a run's decided
comparisons.

Pure functions of tables the notebooks already compute (no I/O): the message methods against
two-copy ``send`` and the file methods against ``read-write``
(:func:`analysis.claims.baselines.baseline_comparisons`), their crossover sizes
(:func:`analysis.claims.baselines.crossovers`, drawn and quoted only where they agree with the
decided comparisons: :func:`crossover_agreement`), the claim verdicts and the A/A control.
Each finding is one sentence with its number and CI, the configuration it holds for and the
label of the figure that shows it. Nothing is asserted that the run did not decide: an
inconclusive comparison is reported as undecided, and a run that cannot support findings at
all (synthetic, a rehearsal, a smoke run) says so in every sentence. The headline findings
and the abstract are :mod:`analysis.words.headlines`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pandas as pd

from analysis.claims.base import ABOVE, ABOVE_AND_BELOW, BELOW, INCONCLUSIVE, INSIDE
from analysis.statistics import stats as S
from analysis.statistics.fmt import fmt_band, fmt_est, fmt_pct, fmt_size
from analysis.words.phrases import (configuration, crossover_phrase, never_beats,
                                    never_faster, ratio_ci, size_runs, size_span)

#: what a run must be for its comparisons to be findings (else: why not)
UNSUPPORTED_KINDS = {
    "synthetic": "this run is synthetic test data, not a measurement",
    "rehearsal": "this run is a rehearsal at a tenth of its plan's rounds",
    "smoke": "this run is a smoke run (two rounds, sub-second windows)",
}


@dataclass(frozen=True)
class Finding:
    """One sentence of the findings section."""

    topic: str         # "message", "file", "claims", "control"
    config: str        # the configuration it holds for ("loopback, cross-core, 1 thread")
    text: str          # the sentence (Markdown, methods in backticks)
    figure: str        # the label of the figure that shows it ("" when none)
    decided: bool      # whether it rests on at least one decided comparison
    table: str = ""    # the label of the table that lists its comparisons ("" when none)


def run_kind(manifest: Mapping[str, Any], plan: Mapping[str, Any] | None) -> str | None:
    """Why the run cannot support findings (a key of :data:`UNSUPPORTED_KINDS`), or None."""
    if manifest.get("synthetic"):
        return "synthetic"
    design = (plan or {}).get("design") or {}
    if design.get("rehearsal"):
        return "rehearsal"
    prof = (plan or {}).get("profile") or manifest.get("profile")
    name = prof.get("name") if isinstance(prof, Mapping) else prof
    if name == "smoke":
        return "smoke"
    return None


def _are(n: int, what: str) -> str:
    """"1 is refuted", "3 are refuted"; "1 holds", "2 hold"."""
    if what == "hold":
        return f"{n} {'holds' if n == 1 else 'hold'}"
    return f"{n} {'is' if n == 1 else 'are'} {what}"


def _range(sizes: Sequence[int], all_sizes: Sequence[int]) -> str:
    """"from 64 KiB up" when ``sizes`` are the top of ``all_sizes``, else their runs of
    consecutive measured sizes ("at 64 B–4 KiB, 64 KiB")."""
    s, a = sorted(sizes), sorted(all_sizes)
    if len(s) >= 2 and s == a[len(a) - len(s):] and len(s) < len(a):
        return f"from {fmt_size(s[0])} up"
    if s == a and len(a) >= 2:
        return f"at every size measured ({size_span(a[0], a[-1])})"
    return "at " + size_runs(s, a)


def method_clause(rows: pd.DataFrame, baseline: str,
                  crossover: Mapping[str, Any] | None = None) -> tuple[str, bool]:
    """One method's sentence against the baseline in one configuration, from its per-size
    decisions; and whether any of them was decided."""
    meth = str(rows["method"].iloc[0])
    all_sizes = [int(s) for s in rows["size"]]
    by = {k: rows[rows["decision"] == k] for k in ("greater", "less", "equivalent",
                                                   "inconclusive")}
    parts: list[str] = []
    if len(by["greater"]):
        best = by["greater"].loc[by["greater"]["ratio"].idxmax()]
        txt = (f"`{meth}` beats `{baseline}` {_range(list(by['greater']['size']), all_sizes)}"
               f" (up to {ratio_ci(best)} at {fmt_size(best['size'])}")
        if crossover is not None and math.isfinite(crossover.get("crossover", math.nan)) \
                and crossover.get("agrees", True):
            txt += "; crossover " + crossover_phrase(
                crossover["crossover"], crossover.get("lo", math.nan),
                crossover.get("hi", math.nan), all_sizes)
        parts.append(txt + ")")
    elif never_faster(rows["decision"]):
        # "never" only where every size of this configuration is decided, none faster
        worst = rows.loc[rows["ratio"].idxmax()]
        parts.append(f"{never_beats([meth], baseline)} here (at best {ratio_ci(worst)} at "
                     f"{fmt_size(worst['size'])})")
    if len(by["less"]):
        low = by["less"].loc[by["less"]["ratio"].idxmin()]
        lead = "it is slower" if parts else f"`{meth}` is slower than `{baseline}`"
        parts.append(f"{lead} {_range(list(by['less']['size']), all_sizes)} (down to "
                     f"{ratio_ci(low)} at {fmt_size(low['size'])})")
    if len(by["equivalent"]):
        lead = "equivalent" if parts else f"`{meth}` is equivalent to `{baseline}`"
        parts.append(f"{lead} (within {fmt_band()}) at "
                     f"{size_runs(by['equivalent']['size'], all_sizes)}")
    if len(by["inconclusive"]):
        lead = "undecided" if parts else f"`{meth}` against `{baseline}` is undecided"
        parts.append(f"{lead} at {size_runs(by['inconclusive']['size'], all_sizes)} "
                     "(CI straddles the threshold)")
    decided = bool(len(rows) - len(by["inconclusive"]))
    return "; ".join(parts), decided


def comparison_findings(cmp: pd.DataFrame, baseline: str, factors: Sequence[str], topic: str,
                        figure: str, xo: pd.DataFrame | None = None,
                        methods: Sequence[str] | None = None) -> list[Finding]:
    """One finding per configuration: each method's clause against ``baseline``."""
    out: list[Finding] = []
    if cmp.empty:
        return out
    keys = [f for f in factors if f in cmp]
    for key, g in cmp.groupby(keys, sort=True, dropna=False):
        conf = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        order = [m for m in (methods or sorted(g["method"].unique())) if (g["method"] == m).any()]
        clauses, decided = [], False
        for meth in order:
            rows = g[g["method"] == meth]
            x = None
            if xo is not None and len(xo):
                sel = xo[(xo["method"] == meth)]
                for k, v in conf.items():
                    if k in sel:
                        sel = sel[(sel[k] == v) | (sel[k].isna() & pd.isna(v))]
                x = sel.iloc[0].to_dict() if len(sel) else None
            c, d = method_clause(rows, baseline, x)
            clauses.append(c)
            decided |= d
        cfg = configuration(conf)
        out.append(Finding(topic, cfg, f"**{cfg}:** " + "; ".join(clauses) + ".", figure,
                           decided))
    return out


def config_label(r: Mapping[str, Any]) -> str:
    """A message comparison's configuration as its figures and tables name it: transport,
    protocol and placement, then its window ("loopback, cross-core, 1 s")."""
    return f"{configuration(r, ('transport', 'protocol', 'placement'))}, {r['duration_s']:g} s"


def with_configuration(tab: pd.DataFrame) -> pd.DataFrame:
    """``tab`` with each row's :func:`config_label` as its ``configuration`` column."""
    return tab.assign(configuration=tab.apply(config_label, axis=1)) if len(tab) else tab


def windows_text(d: pd.DataFrame) -> str:
    """Which sizes of which transport ran which window, from the comparisons ``d``."""
    if d.empty:
        return "no comparison"
    out = []
    for w, g in d.groupby("duration_s", sort=True):
        per = ", ".join(f"{t} {size_runs(list(h['size']), list(d.loc[d['transport'] == t, 'size']))}"
                        for t, h in g.groupby("transport", sort=False))
        out.append(f"{w:g} s windows: {per}")
    return "; ".join(out)


def crossover_agreement(xo: pd.DataFrame, cmp: pd.DataFrame, factors: Sequence[str]
                        ) -> pd.DataFrame:
    """Each crossover (``xo``: the size from which a method beats its baseline) against the
    decided comparisons of the same method and configuration (``cmp``): it *agrees* when no
    size below it is decided faster, no size above it slower, and a size above it is decided
    faster. Adds ``agrees`` and ``why``; a figure draws only the crossovers that agree."""
    if xo.empty:
        return xo.assign(agrees=pd.Series(dtype=bool), why=pd.Series(dtype=object))
    keys = [f for f in factors if f in xo and f in cmp]
    agrees, why = [], []
    for _, x in xo.iterrows():
        sel = cmp[cmp["method"] == x["method"]]
        for k in keys:
            sel = sel[(sel[k] == x[k]) | (sel[k].isna() & pd.isna(x[k]))]
        c = float(x["crossover"])
        if not math.isfinite(c):
            agrees.append(False)
            why.append("no crossover in the measured range")
            continue
        above, below = sel[sel["size"] > c], sel[sel["size"] < c]
        slow = size_runs(above.loc[above["decision"] == "less", "size"], sel["size"])
        fast = size_runs(below.loc[below["decision"] == "greater", "size"], sel["size"])
        bad = [f"decided slower at {slow} above it"] if slow else []
        if fast:
            bad.append(f"decided faster at {fast} below it")
        if not (above["decision"] == "greater").any():
            bad.append("no size above it is decided faster")
        agrees.append(not bad)
        why.append("; ".join(bad) if bad else "agrees with the decided comparisons")
    return xo.assign(agrees=agrees, why=why)


def crossover_words(xo: pd.DataFrame, cmp: pd.DataFrame, factors: Sequence[str]) -> pd.Series:
    """Each crossover of ``xo`` as the book reports it (:func:`crossover_phrase`), against the
    sizes measured for the same method and configuration in ``cmp``: its CI only where a
    measured size lies within it, else the measured sizes around it."""
    keys = [f for f in factors if f in xo and f in cmp]
    out = []
    for _, x in xo.iterrows():
        sel = cmp[cmp["method"] == x["method"]]
        for k in keys:
            sel = sel[(sel[k] == x[k]) | (sel[k].isna() & pd.isna(x[k]))]
        out.append(crossover_phrase(float(x["crossover"]), float(x["lo"]), float(x["hi"]),
                                    sel["size"]) or "none in the measured range")
    return pd.Series(out, index=xo.index, dtype=object)


#: the states of a verdict, in the words of a sentence
VERDICT_WORDS = (("holds", "hold"), ("refuted", "refuted"), ("inconclusive", "inconclusive"),
                 ("undetermined", "undetermined"), ("not testable here", "not testable here"),
                 ("not run in this profile", "not run in this profile"))
#: what each basis of a verdict reads the claim as (analysis.claims: copybench measures the
#: claim as its report words it; the report's own program shows it as its code behaves)
BASIS_WORDS = {"copybench": "as their reports word them (copybench)",
               "their program": "as the reports' own programs behave (run here)"}


def magnitude_of_holds(verdicts: pd.DataFrame) -> str:
    """Of the verdicts whose direction holds, where the report's published number lies against
    our CI on this testbed (:mod:`analysis.claims.magnitude`): "of these, the published number
    lies inside our CI on this testbed in 1, above it in 9, below it in 1 and above it at some
    sizes and below at others in 0; 2 have no published number" ("" without a magnitude column
    or a verdict that holds). A verdict whose published sizes were not all measured is counted
    apart."""
    if "magnitude" not in verdicts:
        return ""
    m = verdicts.loc[verdicts["verdict"] == "holds", "magnitude"].value_counts()
    n = int(m.sum())
    if not n:
        return ""
    inside, above, below, both, open_ = (int(m.get(k, 0)) for k in (
        INSIDE, ABOVE, BELOW, ABOVE_AND_BELOW, INCONCLUSIVE))
    none = n - inside - above - below - both - open_
    text = (f"of these, the published number lies inside our CI on this testbed in {inside}, "
            f"above it in {above}, below it in {below} and above it at some sizes and below "
            f"at others in {both}")
    if open_:
        text += f"; {open_} lack{'s' if open_ == 1 else ''} a measured published size"
    return text + (f"; {none} {'has' if none == 1 else 'have'} no published number"
                   if none else "")


def _state_counts(verdicts: pd.DataFrame, with_ids: bool) -> str:
    counts = verdicts["verdict"].value_counts()
    parts = []
    for v, word in VERDICT_WORDS:
        n = int(counts.get(v, 0))
        if not n and v in ("not run in this profile", "undetermined"):
            continue
        text = _are(n, word)
        size = magnitude_of_holds(verdicts) if v == "holds" else ""
        if size:
            text += f" in direction ({size})"
        if with_ids and v in ("holds", "refuted", "inconclusive"):
            ids = verdicts.loc[verdicts["verdict"] == v, "claim"].unique().tolist()
            text += f" ({', '.join(ids) if ids else 'none'})"
        parts.append(text)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def verdict_counts(verdicts: pd.DataFrame, with_ids: bool = False) -> str:
    """"4 hold, 23 are refuted, 3 are inconclusive and 4 are not testable here", per reading
    of the claims where the table says which measurement decided each verdict (``basis``),
    optionally with the claims of each verdict in parentheses."""
    if "basis" not in verdicts or verdicts["basis"].nunique() < 2:
        return _state_counts(verdicts, with_ids)
    return "; ".join(f"{BASIS_WORDS.get(b, b)}: {_state_counts(g, with_ids)}"
                     for b, g in verdicts.groupby("basis", sort=True))


def aa_band_text(r: Mapping[str, Any], post_hoc: bool = False) -> str:
    """An A/A control's CI read against the band the claims are read at (its ``decision``
    against its ``band``, :func:`analysis.claims.twin_pairs`): whether the rounds it ran
    resolve that band; ``post_hoc``: the run was made before that reading was the rule
    (:func:`analysis.words.revisions.post_hoc`)."""
    t = r.get("band")
    band = fmt_band() if t is None else fmt_band(float(t))
    outcome = r.get("decision")
    label = "; post hoc" if post_hoc else ""
    chance = r.get("chance equivalent")
    odds = (f" (a null difference reads equivalent at its {r.get('rounds')} rounds with "
            f"probability {fmt_pct(float(chance), 0)} at the noise model's per-round sd "
            f"{float(r.get('planning sd')):.3f})"
            if isinstance(chance, float) and math.isfinite(chance) else "")
    if outcome == "equivalent":
        return (f"inside the claims' band {band} (equivalent{label}): at these rounds the design "
                f"calls a null difference equivalent{odds}")
    if outcome in ("greater", "less"):
        return (f"wholly outside the claims' band {band} ({outcome}{label}): a false "
                f"difference beyond the band{odds}")
    return (f"reaching past the claims' band {band} (undecided{label}): at these rounds a null "
            f"difference can end undecided{odds}")


def control_finding(aa: pd.DataFrame, post_hoc: bool = False) -> Finding | None:
    """The A/A control: the same method twice must give a ratio whose CI contains 1, and
    its CI read against the claims' band says whether its rounds resolve that band."""
    if aa.empty:
        return None
    r = aa.iloc[0]
    ok = bool(r["contains 1"])
    text = (f"The A/A control (`{r['method']}` against itself, {r['configuration']}, "
            f"{int(r['rounds'])} rounds) gives {ratio_ci(r)}: "
            + ("its CI contains 1, as it must" if ok else
               "its CI misses 1 — a false positive of the design in this run (expected in "
               "about 1 run in 20); read every decision of this run with that in mind")
            + f"; it lies {aa_band_text(r, post_hoc)}.")
    return Finding("control", str(r["configuration"]), text, "testbed-aa", True)


def unsupported_text(kind: str | None) -> str:
    return (f"This run cannot support findings: {UNSUPPORTED_KINDS[kind]}. The sentences "
            "below say what it measured; they are not results." if kind else "")


def findings_markdown(findings: Sequence[Finding], kind: str | None) -> str:
    """A numbered list, each item linked to its figure and its table."""
    if not findings:
        return "This run has no comparisons from which a finding could be worded."
    lines = [unsupported_text(kind), ""] if kind else []
    for i, f in enumerate(findings, 1):
        refs = [f"{{ref}}`{what} <{lab}>`" for what, lab in (("figure", f.figure),
                                                             ("table", f.table)) if lab]
        link = f" ({', '.join(refs)})" if refs else ""
        tag = "" if f.decided else " *(nothing decided here)*"
        lines.append(f"{i}. {f.text}{tag}{link}")
    return "\n".join(lines)


def fidelity_why(fid: pd.DataFrame, cpu: pd.DataFrame | None = None) -> str:
    """Where copybench `send` and iperf3 differ: whether copybench `sendmsg` (the kernel's
    copy only, as iperf3's write of one buffer) differs too, so that the gap is or is not
    `send`'s own user-space copy; and which side's CPU per GB differs (``cpu``: per tool
    and size, the median CPU-s/GB of each side)."""
    if fid.empty or "copybench method" not in fid:
        return ""
    ip = fid[fid["peer"] == "iperf3"]
    out = []
    for (size, tr, pl), g in ip.groupby(["size", "transport", "placement"], sort=False):
        s, m = g[g["copybench method"] == "send"], g[g["copybench method"] == "sendmsg"]
        if s.empty or s.iloc[0]["decision"] not in ("less", "greater"):
            continue
        x = s.iloc[0]
        word = "below" if x["decision"] == "less" else "above"
        txt = (f"At {size} ({tr}, {pl}) copybench `send` is {word} iperf3 "
               f"({_peer_ci(x)})")
        if m.empty:
            out.append(txt + "; no copybench `sendmsg` cell to tell its user-space copy apart.")
            continue
        y = m.iloc[0]
        txt += (f"; copybench `sendmsg`, whose call is the kernel's copy alone like iperf3's "
                f"write, is {_peer_ci(y)} "
                f"of iperf3 ({y['decision']})")
        if y["decision"] != x["decision"]:
            out.append(txt + ": the gap is `send`'s user-space copy of the fields into one "
                       "buffer, which iperf3 does not make, not the harness.")
            continue
        txt += ": the gap is not `send`'s user-space copy"
        out.append(txt + (_cpu_side(cpu, size, tr, pl) if cpu is not None else "") + ".")
    return " ".join(out)


def fidelity_row_text(x: Mapping[str, Any]) -> str:
    """One row of the fidelity table in words: the ratio copybench / peer with its CI, at its
    size, and its decision."""
    est = S.Estimate(x["copybench / peer"], x["CI low"], x["CI high"], 0)
    return f"{fmt_est(est).replace(', n=0', '')} at {x['size']} ({x['decision']})"


def _peer_ci(r: Mapping[str, Any]) -> str:
    """copybench / peer with its CI, from a fidelity row."""
    return ratio_ci({"ratio": r["copybench / peer"], "lo": r["CI low"], "hi": r["CI high"]})


def _cpu_side(cpu: pd.DataFrame, size: str, tr: str, pl: str) -> str:
    """Which side of copybench `sendmsg` costs more CPU per GB than iperf3's, and whether
    that side was busy the whole window (the bottleneck)."""
    c = cpu[(cpu["size"] == size) & (cpu["transport"] == tr) & (cpu["placement"] == pl)]
    ip, cb = c[c["tool"] == "iperf3"], c[c["tool"] == "copybench sendmsg"]
    if ip.empty or cb.empty:
        return ""
    i, b = ip.iloc[0], cb.iloc[0]
    parts = []
    for side in ("sender", "receiver"):
        a_, p_ = b[f"{side} CPU-s/GB"], i[f"{side} CPU-s/GB"]
        if math.isfinite(a_) and math.isfinite(p_) and p_ > 0:
            parts.append((side, a_, p_, a_ / p_))
    if not parts:
        return ""
    worst = max(parts, key=lambda t: t[3])
    txt = "; ".join(f"{side}: copybench `sendmsg` {a_:.3f} CPU-s per GB, iperf3 {p_:.3f}"
                    for side, a_, p_, _ in parts)
    busy = b.get("receiver CPU-s per window second") if worst[0] == "receiver" else math.nan
    tail = (f", and copybench's receiving thread was busy {busy:.2f} s of each second of the "
            "window, so it is the bottleneck" if isinstance(busy, float) and math.isfinite(busy)
            and busy > 0.9 else "")
    return (f". Per byte moved, the {worst[0]} costs copybench {worst[3]:.1f} times what it "
            f"costs iperf3 ({txt}){tail}")


def testbed_text(manifest: Mapping[str, Any]) -> str:
    """"one 2-CPU virtual machine", from the run's manifest (CPU count, hypervisor flag)."""
    cpu = (manifest.get("cpu") or {}).get("count")
    vm = (manifest.get("virtualization") or {}).get("hypervisor_flag")
    what = "virtual machine" if vm else "machine"
    return f"one {cpu}-CPU {what}" if isinstance(cpu, int) else f"one {what}"


def markdown_to_latex(text: str) -> str:
    """The abstract's Markdown (backticks, ×, –, ±) as LaTeX for the PDF's abstract page."""
    esc = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
           "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    out, code = [], False
    for ch in text:
        if ch == "`":
            out.append("}" if code else r"\texttt{")
            code = not code
            continue
        out.append(esc.get(ch, ch))
    if code:
        out.append("}")
    s = "".join(out)
    return (s.replace("×", r"$\times$").replace("±", r"$\pm$").replace("–", "--")
            .replace("—", "---").replace("→", r"$\rightarrow$").replace("\u00a0", "~"))

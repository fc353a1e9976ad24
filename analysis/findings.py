"""The paper's findings and abstract, worded from a run's decided comparisons.

Pure functions of tables the notebooks already compute (no I/O): the message methods against
two-copy ``send`` and the file methods against ``read-write``
(:func:`analysis.claims.sendcmp.baseline_comparisons`), their crossover sizes
(:func:`analysis.claims.sendcmp.crossovers`), the claim verdicts and the A/A control. Each
finding is one sentence with its number and CI, the configuration it holds for and the label
of the figure that shows it. Nothing is asserted that the run did not decide: an
inconclusive comparison is reported as undecided, and a run that cannot support findings at
all (synthetic, a rehearsal, a smoke run) says so in every sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pandas as pd

from analysis.fmt import fmt_num, fmt_size

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


def _ci(r: Mapping[str, Any]) -> str:
    return f"{fmt_num(r['ratio'])}× [{fmt_num(r['lo'])}, {fmt_num(r['hi'])}]"


def _sizes(rows: pd.DataFrame) -> str:
    return ", ".join(fmt_size(s) for s in sorted(rows["size"]))


def _range(sizes: Sequence[int], all_sizes: Sequence[int]) -> str:
    """"from 64 KiB up" when ``sizes`` are the top of ``all_sizes``, else the list."""
    s, a = sorted(sizes), sorted(all_sizes)
    if len(s) >= 2 and s == a[len(a) - len(s):] and len(s) < len(a):
        return f"from {fmt_size(s[0])} up"
    if s == a and len(a) >= 2:
        return f"at every size measured ({fmt_size(a[0])}–{fmt_size(a[-1])})"
    return "at " + ", ".join(fmt_size(x) for x in s)


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
               f" (up to {_ci(best)} at {fmt_size(best['size'])}")
        if crossover is not None and math.isfinite(crossover.get("crossover", math.nan)):
            lo, hi = crossover.get("lo", math.nan), crossover.get("hi", math.nan)
            ci = (f", CI {fmt_size(lo)}–{fmt_size(hi)}" if math.isfinite(lo) and math.isfinite(hi)
                  else "")
            txt += f"; crossover at about {fmt_size(crossover['crossover'])}{ci}"
        parts.append(txt + ")")
    elif len(by["less"]) or len(by["equivalent"]):
        worst = rows.loc[rows["ratio"].idxmax()]
        parts.append(f"`{meth}` never beats `{baseline}` here (at best {_ci(worst)} at "
                     f"{fmt_size(worst['size'])})")
    if len(by["less"]):
        low = by["less"].loc[by["less"]["ratio"].idxmin()]
        lead = "it is slower" if parts else f"`{meth}` is slower than `{baseline}`"
        parts.append(f"{lead} {_range(list(by['less']['size']), all_sizes)} (down to "
                     f"{_ci(low)} at {fmt_size(low['size'])})")
    if len(by["equivalent"]):
        lead = "equivalent" if parts else f"`{meth}` is equivalent to `{baseline}`"
        parts.append(f"{lead} (within the ±3 % threshold) at {_sizes(by['equivalent'])}")
    if len(by["inconclusive"]):
        lead = "undecided" if parts else f"`{meth}` against `{baseline}` is undecided"
        parts.append(f"{lead} at {_sizes(by['inconclusive'])} (CI straddles the threshold)")
    decided = bool(len(rows) - len(by["inconclusive"]))
    return "; ".join(parts), decided


def _config_text(conf: Mapping[str, Any]) -> str:
    out = []
    if "scenario" in conf:
        out.append(str(conf["scenario"]))
    if "transport" in conf and isinstance(conf["transport"], str):
        out.append(str(conf["transport"]))
    if conf.get("protocol") == "udp":
        out.append("UDP")
    if "placement" in conf:
        out.append(str(conf["placement"]))
    if conf.get("cache") not in (None, "n/a") and isinstance(conf.get("cache"), str):
        out.append(f"{conf['cache']} cache")
    w = conf.get("duration_s")
    if isinstance(w, (int, float)) and not math.isnan(w):
        out.append(f"{w:g} s windows")
    th = conf.get("threads")
    if th is not None and not (isinstance(th, float) and math.isnan(th)):
        out.append(f"{int(th)} thread{'s' if int(th) != 1 else ''}")
    return ", ".join(out)


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
        cfg = _config_text(conf)
        out.append(Finding(topic, cfg, f"**{cfg}:** " + "; ".join(clauses) + ".", figure,
                           decided))
    return out


def verdict_counts(verdicts: pd.DataFrame, with_ids: bool = False) -> str:
    """"4 hold, 23 are refuted, 3 are inconclusive and 4 are not testable", optionally with
    the claims of each verdict in parentheses."""
    counts = verdicts["verdict"].value_counts()
    parts = []
    for v, word in (("holds", "hold"), ("refuted", "refuted"), ("inconclusive", "inconclusive"),
                    ("not testable here", "not testable")):
        text = _are(int(counts.get(v, 0)), word)
        if with_ids and v != "not testable here":
            ids = verdicts.loc[verdicts["verdict"] == v, "claim"].unique().tolist()
            text += f" ({', '.join(ids) if ids else 'none'})"
        parts.append(text)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def claims_finding(verdicts: pd.DataFrame) -> Finding | None:
    """The claim verdicts in one sentence: counts, and which claims hold or are refuted."""
    if verdicts.empty:
        return None
    text = (f"Of {len(verdicts)} claim verdicts (one per placement and reading), "
            f"{verdict_counts(verdicts, with_ids=True)} on this testbed.")
    decided = verdicts["verdict"].isin(["holds", "refuted"]).any()
    return Finding("claims", "each claim's own configuration", text, "claims-verdicts",
                   bool(decided))


def control_finding(aa: pd.DataFrame) -> Finding | None:
    """The A/A control: the same method twice must give a ratio whose CI contains 1."""
    if aa.empty:
        return None
    r = aa.iloc[0]
    ok = bool(r["contains 1"])
    text = (f"The A/A control (`{r['method']}` against itself, {r['configuration']}, "
            f"{int(r['rounds'])} rounds) gives {_ci(r)}: "
            + ("its CI contains 1, as it must." if ok else
               "its CI misses 1 — a false positive of the design in this run (expected in "
               "about 1 run in 20); read every decision of this run with that in mind."))
    return Finding("control", str(r["configuration"]), text, "testbed-aa", True)


def unsupported_text(kind: str | None) -> str:
    return (f"This run cannot support findings: {UNSUPPORTED_KINDS[kind]}. The sentences "
            "below say what it measured; they are not results." if kind else "")


def findings_markdown(findings: Sequence[Finding], kind: str | None) -> str:
    """The findings section's body: a numbered list, each item linked to its figure."""
    if not findings:
        return "This run has no comparisons from which a finding could be worded."
    lines = [unsupported_text(kind), ""] if kind else []
    for i, f in enumerate(findings, 1):
        link = f" ({{ref}}`figure <{f.figure}>`)" if f.figure else ""
        tag = "" if f.decided else " *(nothing decided here)*"
        lines.append(f"{i}. {f.text}{tag}{link}")
    return "\n".join(lines)


def _best_gain(cmp: pd.DataFrame) -> pd.Series | None:
    g = cmp[cmp["decision"] == "greater"] if len(cmp) else cmp
    return g.loc[g["ratio"].idxmax()] if len(g) else None


def abstract_results(msg: pd.DataFrame, files: pd.DataFrame, verdicts: pd.DataFrame,
                     kind: str | None, n_trials: int, hours: float, testbed: str) -> str:
    """The abstract's results sentences, worded from the decided comparisons; ``testbed``
    names the machine as its manifest describes it ("one 2-CPU virtual machine")."""
    if kind:
        return (f"This build comes from a run that cannot support results "
                f"({UNSUPPORTED_KINDS[kind]}); the reference run's abstract states them.")
    out = [f"On {testbed} ({n_trials:,} trials, {hours:.1f} h),"]
    if len(msg):
        dec = msg["decision"].value_counts()
        threads = ", ".join(str(int(t)) for t in sorted(msg["threads"].unique()))
        out.append(f"of {len(msg)} comparisons of a copy-avoiding message method with "
                   f"two-copy `send` (method × size × transport × placement, {threads} "
                   f"thread{'s' if threads != '1' else ''}), "
                   f"{dec.get('greater', 0)} are faster, {dec.get('less', 0)} slower, "
                   f"{dec.get('equivalent', 0)} equivalent within ±3 % and "
                   f"{dec.get('inconclusive', 0)} undecided.")
        b = _best_gain(msg)
        if b is not None:
            out.append(f"The largest decided gain is `{b['method']}` at {fmt_size(b['size'])} "
                       f"({_config_text(b.to_dict())}): {_ci(b)}.")
        never = [m for m, g in msg.groupby("method") if not (g["decision"] == "greater").any()
                 and (g["decision"] == "less").any()]
        if never:
            out.append("Never faster than `send` in any configuration measured: "
                       + ", ".join(f"`{m}`" for m in never) + ".")
    if len(files):
        b = _best_gain(files)
        if b is not None:
            out.append(f"Among file methods the largest decided gain over `read-write` is "
                       f"`{b['method']}` ({b['scenario']}, {fmt_size(b['size'])}): {_ci(b)}.")
    if len(verdicts):
        out.append(f"Of {len(verdicts)} verdicts on {verdicts['claim'].nunique()} published "
                   f"claims, {verdict_counts(verdicts)} here.")
    return " ".join(out)


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

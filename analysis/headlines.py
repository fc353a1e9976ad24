"""The paper's headline findings (at most :data:`MAX_FINDINGS`) and its abstract, worded
from a run's decided comparisons (pure functions of the tables the findings notebook
computes; no I/O).

Each headline is a decision a practitioner can act on ("use `sendmsg` instead of `send`
from 64 KiB up"), stated for the configurations the run decided it in: a finding that holds
for one placement says so, and one that goes one way in one configuration and the other way
in another is reported as a flip, naming the factor that differs. A copy-avoiding message
method is set against `sendmsg` as well as against `send`: `sendmsg` makes the same kernel
copy as `send` without `send`'s user-space memcpy, so a gain over `send` that `sendmsg`
shares comes from skipping that memcpy, not from avoiding a copy in the kernel. The
exhaustive per-configuration list stays in :mod:`analysis.findings` (the results chapter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pandas as pd

from analysis.counts import Tally
from analysis.findings import UNSUPPORTED_KINDS, Finding, verdict_counts
from analysis.fmt import fmt_hours, fmt_num, fmt_ratio_ci, fmt_size, plural

MAX_FINDINGS = 6
#: what each decision of a "direction" rule means, in the headlines' words
WORDS = {"greater": "faster", "less": "slower", "equivalent": "equivalent",
         "inconclusive": "undecided"}
#: the factors a configuration is told apart by, in the order they are named
FACTORS = ("scenario", "transport", "protocol", "placement", "cache")
ZERO_COPY = ("zerocopy", "uring-zc", "vmsplice")
#: the methods whose sends complete with a notification saying whether the kernel copied
COMPLETION_METHODS = ("zerocopy", "uring-zc")


def ci(r: Mapping[str, Any], rounds: bool = False) -> str:
    """``1.71× [1.11, 2.64]`` (with ``, 3 rounds`` when asked and known)."""
    n = r.get("n")
    known = rounds and n is not None and pd.notna(n)
    return fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], rounds=int(n) if known else None)


def spans(sizes: Sequence[float], all_sizes: Sequence[float]) -> str:
    """Sizes as runs of consecutive measured sizes: "64 B, 1 MiB–64 MiB"."""
    order = sorted({float(x) for x in all_sizes})
    want = {float(x) for x in sizes}
    runs: list[list[float]] = []
    for x in order:
        if x in want and runs and runs[-1][-1] == order[order.index(x) - 1]:
            runs[-1].append(x)
        elif x in want:
            runs.append([x])
    return ", ".join(fmt_size(r[0]) if len(r) == 1 else f"{fmt_size(r[0])}–{fmt_size(r[-1])}"
                     for r in runs)


def where(r: Mapping[str, Any]) -> str:
    """A configuration as the headlines name it: "loopback, cross-core" (message rows),
    "file → socket, loopback, same-core" (file rows), "udp-forward (UDP), same-core"."""
    parts = []
    scen = r.get("scenario")
    if isinstance(scen, str) and scen != "message":
        parts.append(scen.replace("→", " → "))
    t = r.get("transport")
    if isinstance(t, str):
        parts.append(f"{t} (UDP)" if r.get("protocol") == "udp" else t)
    if isinstance(r.get("placement"), str):
        parts.append(str(r["placement"]))
    c = r.get("cache")
    if isinstance(c, str) and c not in ("warm", "n/a"):
        parts.append(f"{c} cache")
    return ", ".join(parts)


def _dedupe(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per size: a size measured at two windows keeps the comparison with more
    rounds (the configuration's sizes are the union of its windows' curves)."""
    if rows.empty or not rows["size"].duplicated().any():
        return rows
    n = rows["n"] if "n" in rows else pd.Series(0, index=rows.index)
    return rows.assign(_n=n).sort_values("_n").drop_duplicates("size", keep="last") \
        .drop(columns="_n").sort_values("size")


def clause(rows: pd.DataFrame, rounds: bool = True) -> str:
    """One configuration's decisions, size by size: "faster at 1 MiB–64 MiB (up to 1.40×
    [1.20, 1.60], 6 rounds), undecided at 64 KiB"."""
    rows = _dedupe(rows)
    sizes = list(rows["size"])
    parts = []
    for dec in ("greater", "less", "equivalent", "inconclusive"):
        d = rows[rows["decision"] == dec]
        if d.empty:
            continue
        txt = f"{WORDS[dec]} at {spans(list(d['size']), sizes)}"
        if dec in ("greater", "less"):
            ext = d.loc[d["ratio"].idxmax() if dec == "greater" else d["ratio"].idxmin()]
            txt += (f" ({'up to' if dec == 'greater' else 'down to'} {ci(ext, rounds)}"
                    + (f" at {fmt_size(ext['size'])}" if len(d) > 1 else "") + ")")
        elif dec == "inconclusive" and len(d) == 1:
            txt += f" ({ci(d.iloc[0], rounds)})"
        parts.append(txt)
    return ", ".join(parts)


@dataclass(frozen=True)
class Pattern:
    """How one method did against its baseline in each configuration."""

    by_config: dict[str, pd.DataFrame]
    factors: dict[str, dict[str, Any]]  # configuration -> its factor values

    def kind(self, cfg: str) -> str:
        d = set(self.by_config[cfg]["decision"])
        if "greater" in d and "less" in d:
            return "mixed"
        if "greater" in d:
            return "pays"
        if "less" in d:
            return "costs"
        return "even" if "equivalent" in d else "open"

    def configs(self, *kinds: str) -> list[str]:
        return [c for c in self.by_config if self.kind(c) in kinds]

    def differing(self, a: Sequence[str], b: Sequence[str]) -> list[str]:
        """The factors whose values tell the configurations ``a`` from ``b``."""
        return [f for f in FACTORS
                if {self.factors[c].get(f) for c in a}.isdisjoint(
                    {self.factors[c].get(f) for c in b})]


def pattern(rows: pd.DataFrame) -> Pattern:
    """Group one method's comparison rows by configuration (:func:`where`)."""
    labels = rows.apply(lambda r: where(r.to_dict()), axis=1) if len(rows) else pd.Series()
    by = {lab: g.sort_values("size") for lab, g in rows.groupby(labels, sort=False)}
    facs = {lab: {f: g.iloc[0].get(f) for f in FACTORS} for lab, g in by.items()}
    return Pattern(by, facs)


def at(p: Pattern, dec: str, configs: Sequence[str] | None = None, dedupe: bool = True) -> str:
    """Where a decision was reached: "256 KiB–1 MiB (veth, same-core); 64 MiB (loopback,
    cross-core)" (``dedupe``: one window per size; else every window's comparison)."""
    out = []
    for cfg in configs or list(p.by_config):
        rows = _dedupe(p.by_config[cfg]) if dedupe else p.by_config[cfg]
        d = rows[rows["decision"] == dec]
        if len(d):
            out.append(f"{spans(list(d['size']), list(rows['size']))} ({cfg})")
    return "; ".join(out)


def extremes(rows: pd.DataFrame) -> str:
    """The largest decided gain and the deepest decided loss, each with its CI, where it
    was measured and its rounds."""
    out = []
    for dec, word, pick in (("greater", "largest gain", "idxmax"), ("less", "largest loss",
                                                                    "idxmin")):
        d = rows[rows["decision"] == dec]
        if len(d):
            r = d.loc[getattr(d["ratio"], pick)()]
            out.append(f"{word} {ci(r, True)} at {fmt_size(r['size'])}, {where(r.to_dict())}")
    return "; ".join(out)


def from_up(p: Pattern, configs: Sequence[str]) -> float | None:
    """The size Z of "from Z up" when it covers exactly what was decided: in each of
    ``configs`` the sizes decided faster are every size measured from Z up (one Z for all of
    them); else None (the decided sizes are then listed, never generalised)."""
    zs = set()
    for cfg in configs:
        rows = _dedupe(p.by_config[cfg])
        g = sorted(float(x) for x in rows.loc[rows["decision"] == "greater", "size"])
        top = sorted(float(x) for x in rows["size"] if g and float(x) >= g[0])
        if not g or g != top:
            return None
        zs.add(g[0])
    return zs.pop() if len(zs) == 1 else None


def verdict(p: Pattern, method: str, baseline: str) -> str:
    """The decision in one phrase, each word from decided comparisons that cover exactly its
    scope: use it from a size up (only where every measured size from there up is decided
    faster), faster at the sizes decided, a flip with a factor, never (only where every
    comparison is decided), or undecided."""
    pays, costs = p.configs("pays", "mixed"), p.configs("costs", "mixed")
    allrows = pd.concat(list(p.by_config.values())) if p.by_config else pd.DataFrame()
    lo = allrows[allrows["decision"] == "less"]["size"] if len(allrows) else []
    undecided = bool(len(allrows)) and bool((allrows["decision"] == "inconclusive").any())
    faster, slower = at(p, "greater"), at(p, "less")
    if pays and not costs:
        rest = [c for c in p.by_config if c not in pays]
        z = from_up(p, pays)
        if z is None:
            return (f"`{method}` is faster than `{baseline}` at {faster}, and decided slower "
                    "at no size measured")
        scope = (f"in {pays[0]}, the only configuration measured" if len(p.by_config) == 1
                 else "in every configuration measured" if not rest else
                 f"only in {'; '.join(pays)} (not decided faster in {'; '.join(rest)})")
        return (f"use `{method}` rather than `{baseline}` from {fmt_size(z)} up, {scope}: "
                f"faster at {faster}")
    if pays and costs:
        only_p = [c for c in pays if c not in costs]
        only_c = [c for c in costs if c not in pays]
        f = p.differing(only_p, only_c) if only_p and only_c and \
            len(only_p) + len(only_c) == len(set(pays) | set(costs)) else []
        if f:
            return (f"`{method}` against `{baseline}` flips with the {' and '.join(f)}: "
                    f"faster at {faster}; slower at {slower}")
        return (f"`{method}` against `{baseline}` depends on size and configuration: faster "
                f"at {faster}; slower at {slower}")
    if costs:
        where_ = (f"at {slower}" if len(costs) <= 2 else
                  f"in {len(costs)} of {len(p.by_config)} configurations, at sizes from "
                  f"{fmt_size(min(lo))} to {fmt_size(max(lo))}")
        if not undecided:  # "never" only where every comparison is decided
            return (f"`{method}` never beats `{baseline}` in any configuration measured: "
                    f"slower {where_}")
        return (f"`{method}` is slower than `{baseline}` {where_} and decided faster at no "
                f"size; undecided at {at(p, 'inconclusive', dedupe=False)}")
    if p.configs("even"):
        return (f"`{method}` is equivalent to `{baseline}` (within the threshold) wherever "
                "decided")
    return f"`{method}` against `{baseline}` is undecided everywhere"


def detail(p: Pattern) -> str:
    """Every configuration's clause: "loopback, same-core: faster at ...; veth, ...: ..."."""
    return "; ".join(f"{cfg}: {clause(rows)}" for cfg, rows in p.by_config.items())


def counts(rows: pd.DataFrame) -> str:
    """"faster in 2, slower in 9, equivalent in 1, undecided in 4 of 16 comparisons"."""
    vc = rows["decision"].value_counts()
    parts = [f"{WORDS[d]} in {int(vc[d])}" for d in WORDS if vc.get(d, 0)]
    return ", ".join(parts) + f" of {len(rows)} comparison{'s' if len(rows) != 1 else ''}"


def window_flips(rows: pd.DataFrame) -> str:
    """Where the same configuration and size measured with two windows gives decisions that
    disagree (opposite decided directions, or CIs that do not overlap), each window's
    comparison: the per-size clauses keep one window per size, so a flip is said here."""
    if rows.empty or "duration_s" not in rows or rows["duration_s"].nunique() < 2:
        return ""
    labels = rows.apply(lambda r: where(r.to_dict()), axis=1)
    out = []
    for (cfg, size), g in rows.groupby([labels, "size"], sort=False):
        g = g.sort_values("duration_s")
        if g["duration_s"].nunique() < 2:
            continue
        recs = g.to_dict("records")
        pairs = [(a, b) for i, a in enumerate(recs) for b in recs[i + 1:]
                 if {a["decision"], b["decision"]} == {"greater", "less"}
                 or a["hi"] < b["lo"] or b["hi"] < a["lo"]]
        if pairs:
            a, b = pairs[0]
            out.append(f"at {fmt_size(size)} ({cfg}) the decision changes with the window: "
                       f"{a['duration_s']:g} s windows {ci(a, True)} ({WORDS[a['decision']]}), "
                       f"{b['duration_s']:g} s windows {ci(b, True)} ({WORDS[b['decision']]})"
                       + ("; the CIs do not overlap" if a["hi"] < b["lo"] or b["hi"] < a["lo"]
                          else ""))
    return "; ".join(out)


def method_text(rows: pd.DataFrame, method: str, baseline: str,
                windows: pd.DataFrame | None = None) -> str:
    """One method against a baseline over its configurations: the verdict phrase, then
    the counts and the extreme decided ratios with their CIs, and any decision that flips
    with the window."""
    p = pattern(rows)
    ext = extremes(rows)
    flips = window_flips(rows if windows is None else windows)
    return (f"{verdict(p, method, baseline)} ({counts(rows)}{'; ' + ext if ext else ''})"
            + (f"; {flips}" if flips else ""))


def pair_finding(rows: pd.DataFrame, method: str, baseline: str, topic: str, lead: str,
                 figure: str, table: str, windows: pd.DataFrame | None = None) -> Finding | None:
    """One method against one baseline over every configuration of ``rows``; ``windows``:
    every comparison of the method, single-size cells at other windows included, where a
    decision that changes with the window is looked for."""
    d = rows[rows["method"] == method]
    if d.empty:
        return None
    w = None if windows is None or windows.empty else windows[windows["method"] == method]
    v = method_text(d, method, baseline, w)
    return Finding(topic, ", ".join(pattern(d).by_config), f"{lead}{v[0].upper()}{v[1:]}.",
                   figure, bool((d["decision"] != "inconclusive").any()), table)


def copied_text(copied: Mapping[str, tuple[int, int]], transports: Sequence[str]) -> str:
    """"the kernel copied 1,234 of 1,234 zero-copy completions (loopback, veth)"."""
    have = [(t, copied[t]) for t in transports if t in copied and copied[t][1] > 0]
    if not have:
        return ""
    c, n = sum(x[1][0] for x in have), sum(x[1][1] for x in have)
    return (f"the kernel copied {c:,} of {n:,} zero-copy completions "
            f"({', '.join(t for t, _ in have)})")


def zero_copy_finding(vs_sendmsg: pd.DataFrame, copied: Mapping[str, tuple[int, int]],
                      local: bool, figure: str, table: str) -> Finding | None:
    """The zero-copy methods against `sendmsg` (the same copies as `send` minus its
    user-space memcpy), on local TCP paths (``local``) or where nothing is delivered.
    `vmsplice` is worded apart: its pages are referenced at send, so it avoids the
    sender's copy even where the data are delivered locally."""
    udp = (vs_sendmsg["protocol"] == "udp" if "protocol" in vs_sendmsg
           else pd.Series(False, index=vs_sendmsg.index))
    d = vs_sendmsg[~udp] if local else vs_sendmsg[udp]
    d = d[d["method"].isin(ZERO_COPY)]
    if d.empty:
        return None
    trans = sorted(d["transport"].unique())
    cp = copied_text(copied, trans)
    zc = [m for m in ("zerocopy", "uring-zc") if (d["method"] == m).any()]
    if local:
        lead = ("On a local path the data are delivered to a local socket and "
                + (cp + ", so" if cp else "the kernel copies them anyway, so")
                + " zero-copy sends avoid no copy there; against `sendmsg` (the same kernel "
                "copy, no user-space memcpy): ")
    else:
        lead = ("Where nothing is delivered locally (UDP forwarded to a blackhole route"
                + (f"; {cp}" if cp else "") + "), against `sendmsg`: ")
    parts = [method_text(d[d["method"] == m], m, "sendmsg") for m in zc]
    text = lead + "; ".join(parts) + "."
    if (d["method"] == "vmsplice").any():
        text += (" `vmsplice` hands the kernel references to the message's pages, so it "
                 "skips the sender's copy even on a local path: "
                 + method_text(d[d["method"] == "vmsplice"], "vmsplice", "sendmsg") + ".")
    return Finding("zero-copy", ", ".join(trans), text, figure,
                   bool((d["decision"] != "inconclusive").any()), table)


def attribution(best: Mapping[str, Any], vs_send: pd.DataFrame, vs_sendmsg: pd.DataFrame,
                copied: Mapping[str, tuple[int, int]]) -> str:
    """Which copy a gain over `send` comes from: `sendmsg`'s gain in the same configuration
    and size, and the method against `sendmsg` there."""
    m = best["method"]
    if m == "sendmsg":
        return ("`sendmsg` makes the same kernel copy as `send`: the gain is skipping "
                "`send`'s user-space memcpy.")
    key = {f: best.get(f) for f in ("transport", "protocol", "placement", "threads",
                                    "duration_s", "size") if f in vs_send}

    def pick(df: pd.DataFrame, meth: str) -> Mapping[str, Any] | None:
        if df.empty:
            return None
        sel = df[df["method"] == meth]
        for k, v in key.items():
            if k in sel:
                sel = sel[sel[k] == v]
        return sel.iloc[0].to_dict() if len(sel) else None

    sm, over = pick(vs_send, "sendmsg"), pick(vs_sendmsg, m)
    out = []
    if sm is not None:
        out.append(f"`sendmsg`, which avoids no kernel copy, is {WORDS[sm['decision']]} than "
                   f"`send` there ({ci(sm, True)})".replace("equivalent than", "equivalent to")
                   .replace("undecided than", "undecided against"))
    if over is not None:
        out.append(f"`{m}` against `sendmsg` is {ci(over, True)} ({WORDS[over['decision']]})")
    if over is None:
        return ("; ".join(out) + ". ") if out else ""
    c = copied.get(str(best.get("transport")), (0, 0))
    # a completion the kernel copied (MSG_ZEROCOPY, io_uring zero-copy) shows the kernel
    # made its copy anyway; vmsplice has no completions, so it gets no such fact
    fact = (f"the kernel copied {c[0]:,} of {c[1]:,} zero-copy completions on "
            f"{best.get('transport')}" if m in COMPLETION_METHODS and c[1] and c[0] == c[1]
            else "")
    if over["decision"] == "greater":
        why = ("so part of the gain is beyond skipping `send`'s user-space memcpy"
               + (f", although {fact}" if fact else ""))
    elif over["decision"] == "inconclusive":
        why = ("so the run cannot tell whether any of the gain is beyond skipping `send`'s "
               "user-space memcpy, which `sendmsg` skips too"
               + (f"; {fact}, so no kernel copy was avoided" if fact else ""))
    else:
        why = ("so the run shows no gain beyond skipping `send`'s user-space memcpy, which "
               "`sendmsg` skips too"
               + (f", and {fact}: the gain is that memcpy, not a kernel copy avoided"
                  if fact else ""))
    return "; ".join(out) + f", {why}. "


def placement_scope(best: Mapping[str, Any], rows: pd.DataFrame) -> str:
    """The same method and path at the other placements: where the gain does not hold, or
    flips, say so."""
    same = rows[(rows["method"] == best["method"])]
    for f in ("scenario", "transport", "cache", "protocol"):
        if f in same and f in best:
            same = same[same[f] == best[f]]
    other = same[same["placement"] != best["placement"]]
    out = []
    for pl, g in other.groupby("placement"):
        at = g[g["size"] == best["size"]]
        size = fmt_size(best["size"])
        here = (f"{ci(at.iloc[0], True)} ({WORDS[at.iloc[0]['decision']]}) at {size}"
                if len(at) else f"not measured at {size}")
        slower = g[g["decision"] == "less"]
        txt = f"{pl} it is {here}"
        if len(slower):
            txt += (f" and slower at {spans(list(slower['size']), list(g['size']))} "
                    f"({fmt_num(slower['ratio'].min())}–{fmt_num(slower['ratio'].max())}×)")
        out.append(txt)
    if not out:
        return ""
    flips = (other["decision"] == "less").any()
    return (f" This holds only {best['placement']}: " + "; ".join(out)
            + (" — the gain flips with placement." if flips else "."))


def best_gain(cmp: pd.DataFrame) -> pd.Series | None:
    g = cmp[cmp["decision"] == "greater"] if len(cmp) else cmp
    return g.loc[g["ratio"].idxmax()] if len(g) else None


def path_finding(files: pd.DataFrame, scenario: str, figure: str, table: str
                 ) -> Finding | None:
    """The file methods of one path (file → socket, file → file) against `read-write`:
    each method's decision, with the configurations it was decided in."""
    d = files[files["scenario"] == scenario] if len(files) else files
    if d.empty:
        return None
    parts = [method_text(d[d["method"] == m], m, "read-write")
             for m in d["method"].drop_duplicates()]
    lead = f"{scenario.replace('→', ' → ').capitalize()}, against `read-write` (the copy " \
        "through a user buffer): "
    return Finding("file", scenario, lead + "; ".join(parts) + ".", figure,
                   bool((d["decision"] != "inconclusive").any()), table)


def key_findings(vs_send: pd.DataFrame, vs_sendmsg: pd.DataFrame, files: pd.DataFrame,
                 copied: Mapping[str, tuple[int, int]], extra: Sequence[Finding | None],
                 labels: Mapping[str, str], windows: pd.DataFrame | None = None
                 ) -> list[Finding]:
    """The headlines, at most :data:`MAX_FINDINGS`: `sendmsg` against `send`; the zero-copy
    methods against `sendmsg` on local paths and where nothing is delivered; each file path
    against `read-write`; then ``extra`` (the claims) while room is left. ``labels``: the
    figure and table label of each (keys ``send``, ``sendmsg``, ``files`` + ``-fig`` /
    ``-tab``)."""
    tcp = vs_send[vs_send["protocol"] != "udp"] if len(vs_send) else vs_send
    if windows is not None and len(windows):
        windows = windows[windows["protocol"] != "udp"]
    found = [
        pair_finding(tcp, "sendmsg", "send", "message",
                     "A message in separate fields, gathered by the kernel (`sendmsg`) or "
                     "first copied into one buffer (`send`): ",
                     labels["send-fig"], labels["send-tab"], windows) if len(tcp) else None,
        zero_copy_finding(vs_sendmsg, copied, True, labels["sendmsg-fig"],
                          labels["sendmsg-tab"]) if len(vs_sendmsg) else None,
        zero_copy_finding(vs_sendmsg, copied, False, labels["sendmsg-fig"],
                          labels["sendmsg-tab"]) if len(vs_sendmsg) else None,
        path_finding(files, "file→socket", labels["files-fig"], labels["files-tab"]),
        path_finding(files, "file→file", labels["files-fig"], labels["files-tab"]),
        *extra,
    ]
    return [f for f in found if f is not None][:MAX_FINDINGS]


def abstract_results(vs_send: pd.DataFrame, vs_sendmsg: pd.DataFrame, files: pd.DataFrame,
                     verdicts: pd.DataFrame, kind: str | None, n_trials: int, hours: float,
                     testbed: str, copied: Mapping[str, tuple[int, int]] | None = None) -> str:
    """The abstract's results sentences, worded from the decided comparisons; ``testbed``
    names the machine as its manifest describes it ("one 2-CPU virtual machine")."""
    if kind:
        return (f"This build comes from a run that cannot support results "
                f"({UNSUPPORTED_KINDS[kind]}); the reference run's abstract states them.")
    copied = copied or {}
    out = [f"On {testbed} ({n_trials:,} measured trials, {fmt_hours(hours)}),"]
    if len(vs_send):
        n = Tally.of(vs_send)  # the count's owner (analysis.counts) tallies it
        threads = ", ".join(str(int(t)) for t in sorted(vs_send["threads"].unique()))
        out.append(f"of {n.n} comparisons of a copy-avoiding message method with "
                   f"two-copy `send` (method × size × transport × placement, {threads} "
                   f"thread{'s' if threads != '1' else ''}), "
                   f"{n.greater} {plural(n.greater, 'is', 'are')} faster, {n.less} slower, "
                   f"{n.equivalent} equivalent within ±3 % and "
                   f"{n.undecided} undecided.")
        b = best_gain(vs_send)
        if b is not None:
            out.append(f"The largest decided gain over `send` is `{b['method']}` at "
                       f"{fmt_size(b['size'])} ({where(b.to_dict())}): {ci(b, True)}; "
                       + attribution(b.to_dict(), vs_send, vs_sendmsg, copied))
        slower = {m: g for m, g in vs_send.groupby("method")
                  if not (g["decision"] == "greater").any() and (g["decision"] == "less").any()}
        # "never" only for a method whose every comparison is decided
        never = [m for m, g in slower.items() if not (g["decision"] == "inconclusive").any()]
        open_ = {m: g for m, g in slower.items() if m not in never}
        if never:
            out.append("Never faster than `send` in any configuration measured: "
                       + ", ".join(f"`{m}`" for m in never) + ".")
        if open_:
            out.append("Not decided faster than `send` at any size, but undecided at some: "
                       + "; ".join(f"`{m}` ({Tally.of(g).by_outcome()})"
                                   for m, g in open_.items()) + ".")
    if len(files):
        b = best_gain(files)
        if b is not None:
            out.append(f"Among file methods the largest decided gain over `read-write` is "
                       f"`{b['method']}` ({where(b.to_dict())}, {fmt_size(b['size'])}): "
                       f"{ci(b, True)}." + placement_scope(b.to_dict(), files))
    if len(verdicts):
        out.append(f"Of {len(verdicts)} verdicts on {verdicts['claim'].nunique()} published "
                   f"claims tested here, {verdict_counts(verdicts)}.")
    return " ".join(x.strip() if i else x for i, x in enumerate(out)).replace("  ", " ")

"""The front page's findings: at most :data:`MAX_FINDINGS`, each at most :data:`MAX_WORDS`
words as a reader reads it (pure functions of the comparison tables; no I/O).

One finding per copy-avoiding message method against two-copy ``send``, and one per file
path (file → socket, file → file) for the method with the most comparisons decided faster
than ``read-write`` there (ties: the larger decided gain). Each says the decision, the sizes
it was decided at, the configurations, one ratio with its CI and where the decision map shows
it. The words come from the decisions only:

* "use M at Z–T" only where, in each configuration named, every size measured from Z up
  is decided faster; T is the largest size measured there (a recommendation never reaches
  past the sizes measured);
* a direction decided with its size open (the CI excludes 1 but crosses the band's edge)
  counts as that direction (:func:`by_direction`): the findings speak of direction, the
  decision map shows the size;
* "never beats" only where every comparison of the method is decided and none is faster;
* "at A–B" only where every comparison measured between A and B in the configurations
  named is decided that way; where the decided sizes differ between configurations, each
  configuration's own ("at 256 KiB (loopback same-core), 1 MiB (veth same-core)") when
  that takes two groups or fewer; else "most sizes in A–B" where more than half are, else
  "some sizes in A–B";
* a method with an undecided comparison says "undecided elsewhere" (or "undecided at every
  size"), and one whose decision changes with the window says so.

The details (every configuration and window, each comparison with its CI and rounds) are
the results chapter's tables.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import pandas as pd

from analysis.words import counts as CN
from analysis.words.counts import read_rows
from analysis.words.findings import Finding
from analysis.statistics.fmt import fmt_size
from analysis.words.headlines import window_flips
from analysis.words.phrases import (configuration, copied_share, never_beats, never_faster,
                                    ratio_ci, size_runs, size_span)

MAX_FINDINGS = 6
MAX_WORDS = 40
#: the factors of a configuration as the findings name it (with the transport first; the
#: path is said by the finding's lead, the window and threads by its table)
CONFIG = ("transport", "protocol", "placement", "cache")
#: the factors of one panel of the decision map
PANEL = ("transport", "protocol", "placement")


def read_words(markdown: str) -> int:
    """The words a reader reads in one finding's Markdown: a ``{ref}`text <label>``` role
    counts as its text, a number with its unit or CI bracket as the tokens it prints."""
    text = re.sub(r"\{ref\}`([^<`]*?)\s*<[^>]*>`", r"\1", markdown)
    text = re.sub(r"^\s*\d+\.\s+", "", text).replace("`", "").replace("*", "")
    return len(text.split())


def one_per_size(rows: pd.DataFrame) -> pd.DataFrame:
    """One comparison per configuration and size, the decision map's own
    (:func:`analysis.words.counts.one_per_size`: a size measured with two windows keeps the
    one with more rounds), each named by its configuration (``config``), in order of method,
    configuration and size."""
    if rows.empty:
        return rows.assign(config=pd.Series(dtype=object))
    d = CN.one_per_size(rows)
    d = d.assign(config=d.apply(lambda r: configuration(r, CONFIG), axis=1))
    return d.sort_values(["method", "config", "size"], kind="stable")


def scope(configs: Sequence[str], rows: pd.DataFrame) -> str:
    """The configurations ``configs`` named as briefly as is exact: a transport whose every
    measured configuration is among them is named alone ("loopback; veth same-core")."""
    have = set(configs)
    if have >= set(rows["config"]) and rows["config"].nunique() > 1:
        return "every configuration measured"
    out = []
    for t, g in rows.groupby(rows["transport"].fillna(""), sort=False):
        own = list(dict.fromkeys(g["config"]))
        inside = [c for c in own if c in have]
        if inside and len(inside) == len(own) and len(own) > 1:
            out.append(str(t))
        else:
            out.extend(inside)
    return "; ".join(out)


def sizes_phrase(d: pd.DataFrame, rows: pd.DataFrame) -> str:
    """The sizes of the comparisons ``d`` (one decision) among ``rows`` (every comparison of
    the method in the same configurations): "64 B", "64 KiB–1 MiB" (every size measured in
    that range), "most sizes in 64 B–1 MiB" (more than half of them), "some sizes in ..."."""
    lo, hi = float(d["size"].min()), float(d["size"].max())
    if lo == hi:
        return size_span(lo, hi)
    within = rows[rows["config"].isin(set(d["config"])) & rows["size"].between(lo, hi)]
    share = len(d) / max(len(within), 1)
    if share >= 1:
        return size_span(lo, hi)
    return f"{'most' if share > 0.5 else 'some'} sizes in {size_span(lo, hi)}"


def by_config(d: pd.DataFrame, rows: pd.DataFrame, most: int = 2) -> str | None:
    """The sizes of the comparisons ``d`` configuration by configuration, where they differ
    between configurations: "256 KiB (loopback same-core), 1 MiB (veth same-core)" (runs of
    consecutive measured sizes of each configuration; configurations with the same sizes
    named together); None where that takes more than ``most`` groups."""
    groups: dict[str, list[str]] = {}
    first: dict[str, float] = {}
    for cfg, g in d.groupby("config", sort=False):
        own = rows.loc[rows["config"] == cfg, "size"]
        sp = size_runs(list(g["size"]), list(own))
        groups.setdefault(sp, []).append(str(cfg))
        first[sp] = min(first.get(sp, float(g["size"].min())), float(g["size"].min()))
    if len(groups) > most:
        return None
    return ", ".join(f"{sp} ({scope(cfgs, rows)})"
                     for sp, cfgs in sorted(groups.items(), key=lambda kv: first[kv[0]]))


def spans_by_config(d: pd.DataFrame, rows: pd.DataFrame) -> str:
    """The sizes of the comparisons ``d`` configuration by configuration, each a
    :func:`sizes_phrase` of that configuration's own sizes, configurations with the same
    phrase named together: "16 KiB–32 KiB (udp-forward (UDP), same-core), some sizes in
    64 KiB–1 MiB (veth, cross-core)". Every size it names is measured in each configuration
    it names it for."""
    groups: dict[str, list[str]] = {}
    first: dict[str, float] = {}
    for cfg, g in d.groupby("config", sort=False):
        sp = sizes_phrase(g, rows)
        groups.setdefault(sp, []).append(str(cfg))
        first[sp] = min(first.get(sp, float(g["size"].min())), float(g["size"].min()))
    return ", ".join(f"{sp} ({scope(cfgs, rows)})"
                     for sp, cfgs in sorted(groups.items(), key=lambda kv: first[kv[0]]))


def measured_in_each(d: pd.DataFrame, rows: pd.DataFrame) -> bool:
    """Whether the smallest and the largest size of ``d`` are measured in each configuration
    of ``d`` (then one span may name them all)."""
    lo, hi = float(d["size"].min()), float(d["size"].max())
    return all({lo, hi} <= set(rows.loc[rows["config"] == c, "size"].astype(float))
               for c in set(d["config"]))


def _from_up(d: pd.DataFrame, rows: pd.DataFrame) -> float | None:
    """Z where, in each configuration of ``d`` (decided faster), the sizes decided faster are
    every size measured from Z up, one Z for all."""
    zs = set()
    for cfg, g in d.groupby("config"):
        mine = rows[rows["config"] == cfg]
        z = float(g["size"].min())
        if set(g["size"].astype(float)) != set(mine.loc[mine["size"] >= z, "size"].astype(float)):
            return None
        zs.add(z)
    return zs.pop() if len(zs) == 1 else None


def by_direction(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each comparison whose direction is decided but whose size is open
    (``decision`` inconclusive, ``direction`` faster or slower) read as that direction
    (``greater``, ``less``); rows without a ``direction`` column are returned as they are."""
    if rows.empty or "direction" not in rows:
        return rows
    open_ = rows["decision"] == "inconclusive"
    dec = rows["decision"].mask(open_ & (rows["direction"] == "faster"), "greater")
    dec = dec.mask(open_ & (rows["direction"] == "slower"), "less")
    return rows.assign(decision=dec)


def method_advice(rows: pd.DataFrame, method: str, baseline: str,
                  windows: pd.DataFrame | None = None, copied: str = "") -> str:
    """One method against its baseline over every configuration of ``rows``, in one sentence
    of at most :data:`MAX_WORDS` words with its figure's link: see the module's rules. Where
    the whole sentence would be longer, it is said more briefly, in this order: a list of
    three configurations or more becomes "several configurations" (every one: "everywhere"), the equivalent sizes join the
    undecided ones ("equivalent or undecided elsewhere"), the sizes a decision changes
    with the window at become "some sizes", the ratio's configuration goes, the extreme
    ratio goes (its figure shows it), sizes said configuration by configuration (where one
    span would name a size not measured in a configuration) become "most (some) sizes
    measured".
    ``windows``: every window's comparison, where a decision that changes with the window is
    looked for. ``copied``: for a zero-copy method, the share of its completions the kernel
    copied per transport (:func:`analysis.words.phrases.copied_share`), said after the
    decision and counted in the words."""
    rows = by_direction(rows)
    windows = by_direction(windows) if windows is not None else None
    note = f" The kernel copied {copied}." if copied else ""
    for brief in range(7):
        text = _advice(rows, method, baseline, windows, brief) + note
        if read_words(text) <= MAX_WORDS - 1:  # and "(figure)"
            break
    return text


def _advice(rows: pd.DataFrame, method: str, baseline: str, windows: pd.DataFrame | None,
            brief: int) -> str:
    r = one_per_size(rows)
    g, l_ = r[r["decision"] == "greater"], r[r["decision"] == "less"]
    e, u = r[r["decision"] == "equivalent"], r[r["decision"] == "inconclusive"]
    m, b = f"`{method}`", f"`{baseline}`"
    # an undecided comparison at another window of a size counts: "never" and the absence of
    # "undecided elsewhere" need every comparison of the method decided, not one per size
    every = rows if windows is None or windows.empty or "method" not in windows else \
        pd.concat([rows, windows[windows["method"] == method]])
    open_ = bool(len(u)) or bool((every["decision"] == "inconclusive").any())

    def where(d: pd.DataFrame) -> str:
        s = scope(list(dict.fromkeys(d["config"])), r)
        if brief >= 1 and s == "every configuration measured":
            return "everywhere"
        return "several configurations" if brief >= 1 and s.count(";") >= 2 else s

    def at(d: pd.DataFrame) -> str:
        phrase = sizes_phrase(d, r)
        # "most/some sizes in A–B" says less than the decisions: configuration by
        # configuration where that takes two groups or fewer (kept until the last way of
        # saying it more briefly)
        exact = by_config(d, r) if phrase.startswith(("most ", "some ")) and brief < 4 \
            else None
        if exact:
            return f"at {exact}"
        # a span names only sizes measured in every configuration it is said for; said
        # most briefly, the sizes go (the decision map shows them)
        if measured_in_each(d, r):
            return f"at {phrase} ({where(d)})"
        if brief >= 6:
            share = len(d) / max(int(r["config"].isin(set(d["config"])).sum()), 1)
            return f"at {'most' if share > 0.5 else 'some'} sizes measured ({where(d)})"
        return f"at {spans_by_config(d, r)}"

    if len(g) and not len(l_):
        z = _from_up(g, r)
        # the largest size measured in each configuration named: one for all, or the
        # sizes are said configuration by configuration
        tops = set(r[r["config"].isin(set(g["config"]))].groupby("config")["size"].max())
        lead = (f"use {m} rather than {b} at {size_span(z, tops.pop())} ({where(g)})"
                if z is not None and len(tops) == 1 else f"use {m} rather than {b} {at(g)}"
                if z is not None else f"{m} is faster than {b} {at(g)}")
    elif len(g):
        lead = f"{m} against {b}: faster {at(g)}, slower {at(l_)}"
    elif never_faster(every["decision"]) and not len(e):
        lead = (f"{never_beats([method], baseline)}: slower at every size measured "
                f"({where(r)})")
    elif len(l_):
        lead = f"{m} is slower than {b} {at(l_)}"
    elif len(e) and not len(u):
        lead = f"{m} is equivalent to {b} wherever measured"
    else:
        lead = f"{m} against {b} is undecided at every size measured"
    tail = []
    merged = brief >= 2 and len(e) and len(u)
    if len(e) and (len(g) or len(l_) or len(u)) and not merged:
        tail.append(f"equivalent {at(e)}")
    if open_ and (len(g) or len(l_) or len(e)):
        tail.append("equivalent or undecided elsewhere" if merged else "undecided elsewhere")
    flips = window_flips(windows[windows["method"] == method]) \
        if windows is not None and len(windows) and "duration_s" in windows else ""
    if flips:
        at_ = list(dict.fromkeys(re.findall(r"at ([^(]+?) \(", flips)))
        tail.append("changes with the window at "
                    + (", ".join(at_) if brief < 3 or len(at_) == 1 else "some sizes"))
    ext = (g.loc[g["ratio"].idxmax()] if len(g) else l_.loc[l_["ratio"].idxmin()] if len(l_)
           else None)
    best = (f"; {'best' if len(g) else 'down to'} {ratio_ci(ext)} at {fmt_size(ext['size'])}"
            + (f" ({ext['config']})" if r["config"].nunique() > 1 and brief < 4 else "")
            if ext is not None and brief < 5 else "")
    text = lead + "".join(f"; {t}" for t in tail) + best
    return text[0].upper() + text[1:] + "."


def best_method(rows: pd.DataFrame) -> str | None:
    """The method with the most comparisons decided faster (ties: the larger decided gain);
    None when no method is decided faster anywhere."""
    g = rows[rows["decision"] == "greater"]
    if g.empty:
        return None
    score = g.groupby("method").agg(n=("ratio", "size"), top=("ratio", "max"))
    return str(score.sort_values(["n", "top"], ascending=False).index[0])


def readable(rows: pd.DataFrame | None, rounds_min: int | None) -> pd.DataFrame | None:
    """The comparisons a finding may read: those resting on at least ``rounds_min`` rounds
    (``n``; None: every one). A comparison with fewer is shown in the maps and tables, never
    cited."""
    if rows is None or rounds_min is None:
        return rows
    return read_rows(rows, rounds_min)


def front_findings(vs_send: pd.DataFrame, files: pd.DataFrame, methods: Sequence[str],
                   figure: str, file_figure: str, windows: pd.DataFrame | None = None,
                   rounds_min: int | None = None,
                   copied: Mapping[str, Mapping[str, tuple[int, int]]] | None = None
                   ) -> list[Finding]:
    """The front page's findings: one per message method of ``methods`` against `send`
    (``vs_send``; linked to ``figure``, the decision map), then one per file path for its
    best method against `read-write` (linked to ``file_figure``). At most
    :data:`MAX_FINDINGS`. ``rounds_min``: the design's minimum rounds; a comparison resting
    on fewer is not read (:func:`readable`). ``copied``: per zero-copy method, per transport,
    (completions the kernel copied, completions): its finding says the share."""
    vs_send, files = readable(vs_send, rounds_min), readable(files, rounds_min)
    windows = readable(windows, rounds_min)
    out: list[Finding] = []
    for meth in methods:
        d = vs_send[vs_send["method"] == meth] if len(vs_send) else vs_send
        if d.empty:
            continue
        share = copied_share((copied or {}).get(meth, {}), " of its completions", ", ")
        out.append(Finding("message", "", method_advice(d, meth, "send", windows, share),
                           figure,
                           bool((d["decision"] != "inconclusive").any())))
    for path in ("file→socket", "file→file"):
        d = files[files["scenario"] == path] if len(files) else files
        if d.empty:
            continue
        meth = best_method(d) or str(d["method"].iloc[0])
        text = method_advice(d[d["method"] == meth], meth, "read-write")
        lead = path.replace("→", " → ").capitalize()
        out.append(Finding("file", path, f"{lead}: {text[0].lower()}{text[1:]}", file_figure,
                           bool((d.loc[d["method"] == meth, "decision"]
                                 != "inconclusive").any())))
    return out[:MAX_FINDINGS]


def findings_list(findings: Sequence[Finding]) -> str:
    """The numbered Markdown list of the front page, each item ending with its figure's
    link."""
    if not findings:
        return "This run has no comparisons from which a finding could be worded."
    return "\n".join(f"{i}. {f.text} ({{ref}}`figure <{f.figure}>`)"
                     for i, f in enumerate(findings, 1))


def map_data(vs_send: pd.DataFrame) -> pd.DataFrame:
    """The decision map's comparisons: one per transport x placement (``panel``), method
    and size (:func:`one_per_size`: of two windows at one size, the one with more rounds),
    panels ordered by transport, then placement."""
    if vs_send.empty:
        return vs_send.assign(panel=pd.Series(dtype=object))
    d = one_per_size(vs_send)
    d = d.assign(panel=d.apply(lambda r: configuration(r, PANEL), axis=1))
    order = {t: i for i, t in enumerate(("loopback", "veth", "udp-forward"))}
    return d.sort_values(["transport", "placement", "size"],
                         key=lambda s: s.map(order).fillna(len(order)) if s.name == "transport"
                         else s).reset_index(drop=True)

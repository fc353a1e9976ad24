"""The abstract's results sentences, worded from a run's decided comparisons, and a
decision that changes with the window, which the front page's findings
(:mod:`analysis.words.advice`) say too (pure functions of the tables the findings notebook
computes; no I/O). A ratio with its CI, a configuration's name and a span of sizes are
written by :mod:`analysis.words.phrases`.

A copy-avoiding message method is set against `sendmsg` as well as against `send`: `sendmsg`
makes the same kernel copy as `send` without `send`'s user-space memcpy, so a gain over
`send` that `sendmsg` shares comes from skipping that memcpy, not from avoiding a copy in the
kernel. The exhaustive per-configuration list stays in :mod:`analysis.words.findings` (the results
chapter).

A superlative is worded from decided comparisons within a stated scope: "the largest decided
gain" only where its CI lies above every other decided gain's, "the fastest" (or "the
lowest") method of one configuration and size only where it is decided so against every
other method there (:func:`leader_text`), "flips with placement" only where one size is
decided faster in one placement and slower in the other; otherwise the sentence names what
the leader is not separated from, or says the flip is undecided.
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from analysis.claims import baselines as BL
from analysis.loading import run as A
from analysis.words.counts import Tally
from analysis.words.findings import UNSUPPORTED_KINDS, verdict_counts
from analysis.statistics import stats as S
from analysis.statistics.fmt import fmt_band, fmt_est, fmt_hours, fmt_num, fmt_size, plural
from analysis.words.phrases import (configuration, never_beats, never_faster, ratio_ci,
                                    size_runs)

#: what each decision of a "direction" rule means, in the headlines' words
WORDS = {"greater": "faster", "less": "slower", "equivalent": "equivalent",
         "inconclusive": "undecided"}
#: the methods whose sends complete with a notification saying whether the kernel copied
COMPLETION_METHODS = ("zerocopy", "uring-zc")
#: the factors the headlines name a configuration by (the window and threads are said apart)
WHERE = ("scenario", "transport", "protocol", "placement", "cache")


def window_flips(rows: pd.DataFrame) -> str:
    """Where the same configuration and size measured with two windows gives decisions that
    disagree (opposite decided directions, or CIs that do not overlap), each window's
    comparison: the per-size clauses keep one window per size, so a flip is said here."""
    if rows.empty or "duration_s" not in rows or rows["duration_s"].nunique() < 2:
        return ""
    labels = rows.apply(lambda r: configuration(r.to_dict(), WHERE), axis=1)
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
                       f"{a['duration_s']:g} s windows {ratio_ci(a, True)} "
                       f"({WORDS[a['decision']]}), {b['duration_s']:g} s windows "
                       f"{ratio_ci(b, True)} ({WORDS[b['decision']]})"
                       + ("; the CIs do not overlap" if a["hi"] < b["lo"] or b["hi"] < a["lo"]
                          else ""))
    return "; ".join(out)


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
                   f"`send` there ({ratio_ci(sm, True)})"
                   .replace("equivalent than", "equivalent to")
                   .replace("undecided than", "undecided against"))
    if over is not None:
        out.append(f"`{m}` against `sendmsg` is {ratio_ci(over, True)} "
                   f"({WORDS[over['decision']]})")
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
    """The same method and path at the other placements: where the gain is not decided, say
    so; "flips with placement" only where a size measured in both placements is decided
    faster in one and slower in the other, and where the sizes measured in both leave that
    open, that it is undecided."""
    same = rows[(rows["method"] == best["method"])]
    for f in ("scenario", "transport", "cache", "protocol"):
        if f in same and f in best:
            same = same[same[f] == best[f]]
    here = same[same["placement"] == best["placement"]]
    other = same[same["placement"] != best["placement"]]
    out, flip_at, open_at, undecided = [], [], [], set()
    for pl, g in other.groupby("placement"):
        at = g[g["size"] == best["size"]]
        size = fmt_size(best["size"])
        txt = (f"{pl} it is {ratio_ci(at.iloc[0], True)} ({WORDS[at.iloc[0]['decision']]}) "
               f"at {size}"
               if len(at) else f"{pl} it is not measured at {size}")
        slower = g[g["decision"] == "less"]
        if len(slower):
            txt += (f" and slower at {size_runs(list(slower['size']), list(g['size']))} "
                    f"({fmt_num(slower['ratio'].min())}–{fmt_num(slower['ratio'].max())}×)")
            alone = sorted(set(slower["size"]) - set(here["size"]))
            if alone:
                txt += (f", {'a size' if len(alone) == 1 else 'sizes'} not measured "
                        f"{best['placement']}")
        out.append(txt)
        for s, h in here.groupby("size"):
            t = g[g["size"] == s]
            if t.empty:
                continue
            pair = {h.iloc[0]["decision"], t.iloc[0]["decision"]}
            if pair == {"greater", "less"}:
                flip_at.append(s)
            elif "inconclusive" in pair:
                open_at.append(s)
                undecided.update(p for p, d in ((best["placement"], h.iloc[0]["decision"]),
                                                (pl, t.iloc[0]["decision"]))
                                 if d == "inconclusive")
    if not out:
        return ""
    gain_there = (other["decision"] == "greater").any()
    lead = (" At the other placements: " if gain_there
            else f" The gain is decided only {best['placement']}: ")
    tail = "."
    if flip_at:
        tail = (f" — the gain flips with placement at "
                f"{size_runs(flip_at, list(same['size']))}.")
    elif (other["decision"] == "less").any():
        shared = sorted(set(here["size"]) & set(other["size"]))
        if open_at and len(shared) == 1:
            tail = (f"; whether the gain flips with placement is undecided: "
                    f"{fmt_size(shared[0])} is the only size measured in both placements, and "
                    f"{' and '.join(sorted(undecided))} it is undecided there.")
        elif open_at:
            tail = (f"; whether the gain flips with placement is undecided: no size measured "
                    f"in both placements ({size_runs(shared, list(same['size']))}) is decided "
                    f"faster in one and slower in the other, and at "
                    f"{size_runs(open_at, list(same['size']))} a comparison is undecided.")
        elif shared:
            tail = "; at the sizes measured in both placements the decisions do not flip."
        else:
            tail = "; no size is measured in both placements, so no flip is decided."
    return lead + "; ".join(out) + tail


def best_gain(cmp: pd.DataFrame) -> pd.Series | None:
    g = cmp[cmp["decision"] == "greater"] if len(cmp) else cmp
    return g.loc[g["ratio"].idxmax()] if len(g) else None


def gain_rank(b: pd.Series, cmp: pd.DataFrame, baseline: str, where_first: bool = False) -> str:
    """The words before the largest decided gain ``b`` of ``cmp``: "the largest decided gain"
    only where its CI lies above every other decided gain's; else the largest estimate, and
    the decided gains whose CIs overlap it (not separated from it)."""
    g = cmp[(cmp["decision"] == "greater") & (cmp.index != b.name)]
    near = g[g["hi"] >= b["lo"]]
    if g.empty:
        return f"The only decided gain over `{baseline}` is"
    if near.empty:
        return f"The largest decided gain over `{baseline}`, its CI above every other's, is"
    names = (f"those of the other {len(near)}" if len(near) == len(g) and len(near) > 1
             else "the other's" if len(near) == len(g) else
             ("that of " if len(near) == 1 else "those of ")
             + "; ".join(f"`{r['method']}` at {fmt_size(r['size'])}, "
                         f"{configuration(r.to_dict(), WHERE)}: {ratio_ci(r)}"
                         for _, r in near.iterrows()))
    return (f"Of the {len(g) + 1} decided gains over `{baseline}`, none is decided the largest "
            f"(the largest estimate's CI overlaps {names}); the largest estimate is")


#: a decision of one method against another in the words of a ranking (higher is better,
#: lower is better)
RANK_WORDS = {False: {"greater": "faster", "less": "slower", "equivalent": "equivalent",
                      "inconclusive": "undecided"},
              True: {"greater": "higher", "less": "lower", "equivalent": "equivalent",
                     "inconclusive": "undecided"}}
_FLIP = {"greater": "less", "less": "greater"}


def pair_of(pairs: pd.DataFrame, a: str, b: str) -> dict[str, Any] | None:
    """``a`` against ``b`` from a table of pairs (``method`` against ``baseline``): its row,
    or the row of ``b`` against ``a`` inverted (ratio, CI and decision)."""
    if pairs.empty:
        return None
    for m, base, inv in ((a, b, False), (b, a, True)):
        sel = pairs[(pairs["method"] == m) & (pairs["baseline"] == base)]
        if len(sel):
            r = sel.iloc[0].to_dict()
            if inv:
                r.update(ratio=1 / r["ratio"], lo=1 / r["hi"], hi=1 / r["lo"],
                         decision=_FLIP.get(r["decision"], r["decision"]))
            return r
    return None


def leader_text(scope: str, medians: pd.DataFrame, pairs: pd.DataFrame, unit: str,
                what: str = "median", lower: bool = False) -> str:
    """Which method leads one scope (one configuration and size, named by ``scope``), worded
    from the decided comparisons of every pair of methods measured there (``pairs``, at that
    size, :func:`analysis.claims.baselines.pairwise`; ``medians``: each method's median with
    its CI, which orders them only): a method is "the fastest" (``lower``: "the lowest") only
    where it is decided faster (lower) than every other method there; otherwise the sentence
    gives the method with the best median and names each method it is not decided
    faster (lower) than, with the ratio and its decision."""
    if medians.empty:
        return f"{scope}: no method measured"
    words = RANK_WORDS[lower]
    better = "less" if lower else "greater"
    med = medians.sort_values("median", ascending=lower)
    methods = [str(m) for m in med["method"]]

    def est(m: str) -> str:
        r = med[med["method"] == m].iloc[0]
        return fmt_est(S.Estimate(r["median"], r["lo"], r["hi"], int(r["n"])), unit)

    if len(methods) == 1:
        return f"{scope}, only `{methods[0]}` is measured: {est(methods[0])}"
    vs = {m: {o: pair_of(pairs, m, o) for o in methods if o != m} for m in methods}
    top = next((m for m in methods
                if all(p is not None and p["decision"] == better for p in vs[m].values())),
               None)
    sup = "lowest" if lower else "fastest"
    if top is not None and len(methods) == 2:
        other, p = next(iter(vs[top].items()))
        return (f"{scope}, `{top}` is the {sup}: {est(top)}, decided {words[better]} than "
                f"`{other}`, the only other method measured there ({ratio_ci(p)})")
    if top is not None:
        return (f"{scope}, `{top}` is the {sup}: {est(top)}, decided {words[better]} than each "
                f"of the other {len(methods) - 1} methods measured there")
    lead = methods[0]
    open_ = {o: p for o, p in vs[lead].items() if p is None or p["decision"] != better}
    done = [o for o in vs[lead] if o not in open_]
    named = [f"`{o}` (" + (f"{ratio_ci(p)}, {words[p['decision']]}" if p is not None
                           else "not compared: fewer than two trials") + ")"
             for o, p in open_.items()]
    text = (f"{scope}, `{lead}` has the {'lowest' if lower else 'highest'} {what}, "
            f"{est(lead)}, but no method is decided the {sup}: `{lead}` is not decided "
            f"{words[better]} than " + (", ".join(named[:-1]) + " or " + named[-1]
                                        if len(named) > 1 else named[0]))
    if done:
        text += (f"; it is decided {words[better]} than "
                 + ", ".join(f"`{o}`" for o in done))
    return text


def abstract_results(vs_send: pd.DataFrame, vs_sendmsg: pd.DataFrame, files: pd.DataFrame,
                     verdicts: pd.DataFrame, kind: str | None, n_trials: int, hours: float,
                     testbed: str, copied: Mapping[str, tuple[int, int]] | None = None,
                     post_hoc: bool = False) -> str:
    """The abstract's results sentences, worded from the decided comparisons; ``testbed``
    names the machine as its manifest describes it ("one 2-CPU virtual machine");
    ``post_hoc``: the run was made before the band of "equivalent" in force
    (:func:`analysis.words.revisions.post_hoc`), and the count says so."""
    if kind:
        return (f"This build comes from a run that cannot support results "
                f"({UNSUPPORTED_KINDS[kind]}); the reference run's abstract states them.")
    copied = copied or {}
    out = [f"On {testbed} ({n_trials:,} measured trials, {fmt_hours(hours)}),"]
    if len(vs_send):
        n = Tally.of(vs_send)  # the count's owner (analysis.words.counts) tallies it
        threads = ", ".join(str(int(t)) for t in sorted(vs_send["threads"].unique()))
        out.append(f"of {n.n} comparisons of a copy-avoiding message method with "
                   f"two-copy `send` (method × size × transport × placement, {threads} "
                   f"thread{'s' if threads != '1' else ''}), "
                   f"{n.greater} {plural(n.greater, 'is', 'are')} faster, {n.less} slower, "
                   f"{n.equivalent} equivalent within {fmt_band()}"
                   f"{' (post hoc)' if post_hoc else ''}"
                   # the directions decided with their size open, so the parts add up
                   + (f", {n.faster_open + n.slower_open} decided in direction with the size "
                      f"open" if n.faster_open + n.slower_open else "")
                   + f" and {n.undecided} undecided.")
        b = best_gain(vs_send)
        if b is not None:
            out.append(f"{gain_rank(b, vs_send, 'send')} `{b['method']}` at "
                       f"{fmt_size(b['size'])} ({configuration(b.to_dict(), WHERE)}): "
                       f"{ratio_ci(b, True)}; "
                       + attribution(b.to_dict(), vs_send, vs_sendmsg, copied))
        slower = {m: g for m, g in vs_send.groupby("method")
                  if not (g["decision"] == "greater").any() and (g["decision"] == "less").any()}
        # "never" only for a method whose every comparison is decided
        never = [m for m, g in slower.items() if never_faster(g["decision"])]
        open_ = {m: g for m, g in slower.items() if m not in never}
        if never:
            out.append(never_beats(never, "send") + " in any configuration measured.")
        if open_:
            out.append("Not decided faster than `send` at any size, but undecided at some: "
                       + "; ".join(f"`{m}` ({Tally.of(g).by_outcome()})"
                                   for m, g in open_.items()) + ".")
        # a method none of whose comparisons is decided is named too, so the undecided
        # count has its owner in the text
        undecided = [(m, len(g)) for m, g in vs_send.groupby("method")
                     if (g["decision"] == "inconclusive").all()]
        if undecided:
            out.append("Undecided at every size: " + "; ".join(
                f"`{m}` ({n} comparison{'s' if n != 1 else ''})" for m, n in undecided) + ".")
    if len(files):
        b = best_gain(files)
        if b is not None:
            rank = gain_rank(b, files, "read-write")
            out.append(f"Among file methods, {rank[0].lower()}{rank[1:]} "
                       f"`{b['method']}` ({configuration(b.to_dict(), WHERE)}, "
                       f"{fmt_size(b['size'])}): {ratio_ci(b, True)}."
                       + placement_scope(b.to_dict(), files))
    if len(verdicts):
        out.append(f"Of {len(verdicts)} verdicts on {verdicts['claim'].nunique()} published "
                   f"claims tested here, {verdict_counts(verdicts)}.")
    return " ".join(x.strip() if i else x for i, x in enumerate(out)).replace("  ", " ")


def file_leader_text(run: A.Run, d: pd.DataFrame) -> str:
    """The largest size's leader among the file methods of ``d`` (one path's cells) in the
    configuration of its highest median (warm cache), "fastest" only where decided faster
    than every other method there (:func:`leader_text`)."""
    if d.empty:
        return "n/a (not in this run)"
    d = d[(d["cache"] == "warm") | (d["cache"] == "n/a")] if (d["cache"] == "warm").any() else d
    s = d["size"].max()
    tab = A.summarize_cells(A.select(d, size=s), "gbit_per_s",
                            ["method", "transport", "placement"]).sort_values(
        "median", ascending=False)
    top = tab.iloc[0]
    cfg = d
    for k in ("transport", "placement"):
        cfg = cfg[cfg[k] == top[k]] if isinstance(top[k], str) else cfg[cfg[k].isna()]
    where = ", ".join(str(top[k]) for k in ("transport", "placement") if isinstance(top[k], str))
    pairs = BL.pairwise(run, cfg, A.FILE_METHODS, BL.FILE_FACTORS)
    return leader_text(f"{fmt_size(s)} ({str(cfg['cache'].iloc[0])}, {where})",
                       A.summarize_cells(A.select(cfg, size=s), "gbit_per_s", ["method"]),
                       A.select(pairs, size=s) if len(pairs) else pairs, "Gbit/s")

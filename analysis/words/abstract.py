"""The abstract: at most :data:`MAX_WORDS` words, whose first sentence answers the paper's
question ("when does avoiding a copy pay?") for the testbed: the methods, sizes, transports
and placements where a copy-avoiding method was decided faster by more than the band, with
how many comparisons of how many that is, then what was measured and how the data were checked,
what the kernel copied anyway, `sendmsg`, the file methods and the published claims (pure
functions of the tables the findings notebook computes; no I/O).

What the abstract may cite:

* "paid" is a comparison decided faster by more than the band (``greater``, what the decision
  map draws as decided faster); one equivalent, or faster with its size open, is not;
* every count says what it counts (comparisons, measured trials);
* the message comparisons are the decision map's rows (:func:`analysis.words.advice.map_data`:
  one per method, size, transport and placement), counted once, with their unit;
* a comparison with fewer rounds than the run's declared ``rounds_min`` is counted in the
  map's rows (the map shows it) but never read as decided here, never cited for a ratio and
  never the largest of anything (:func:`readable`);
* a superlative only where it is decided (the largest decided file gain "lies above every
  other's" only where its CI does).

The detailed results paragraph (every method's tally, the file gains that are not separated,
both readings of the claims) is :func:`analysis.words.headlines.abstract_results`, shown
with the comparisons it counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import pandas as pd

from analysis.comparison import stability as ST
from analysis.statistics.fmt import fmt_hours, fmt_pct, fmt_size, plural
from analysis.words.counts import UNTESTED, fallback_rows, read_rows
from analysis.words.findings import UNSUPPORTED_KINDS
from analysis.words.phrases import configuration, copied_share, ratio_ci, size_runs
from decision.band import SESOI

MAX_WORDS = 200
#: `--verify sample` checks the content of one received chunk in this many (src/pattern.c,
#: verify_stream: ``(chunks & 15) == 0``); over TCP the sink also checks, in every mode, that
#: it received as many bytes as were sent (src/sender.c, collect_receiver)
VERIFY_SAMPLE_EVERY = 16
#: the primitives the study measures, in the reader's names
PRIMITIVES = ("`send`, `sendmsg`, `MSG_ZEROCOPY`, io_uring zero-copy send, `vmsplice`, "
              "`read`/`write`, `mmap`+`write`, `sendfile`, `splice` and `copy_file_range`")
#: the transports in the reader's words
TRANSPORT_WORDS = {"loopback": "loopback", "veth": "a veth pair",
                   "udp-forward": "a UDP forwarding path", "remote": "a link to another host"}
_NUMBER = re.compile(r"\d[\d,.]*")
#: how many primitives PRIMITIVES names, in words
_PRIMITIVE_COUNT = "ten"


@dataclass(frozen=True)
class Stability:
    """The verdicts across the committed runs that test the claims (the replication
    appendix's stability table, :mod:`analysis.comparison.stability`)."""

    runs: int
    classes: tuple[str, ...]  # the CPU classes measured, in the catalog's wording
    rows: int  # verdicts: a claim's reading and placement over the runs
    same: int  # decided alike on every class that decided them
    unstable: tuple[str, ...]  # "C13 (same-core and cross-core)": decided differently within one class
    holding: tuple[str, ...]  # "C1 same-core": claims holding on every class measured


def stability_of(table: pd.DataFrame, classes: Sequence[str], runs: int) -> Stability:
    """The abstract's :class:`Stability` from the stability table and its runs."""
    n = ST.counts(table)
    bad = table[table["label"] == ST.UNSTABLE] if len(table) else table
    return Stability(runs, tuple(classes), len(table), n[ST.SAME],
                     _by_claim(list(dict.fromkeys(zip(bad["claim"], bad["placement"])))),
                     _by_claim(ST.holding_everywhere(table)))


def _by_claim(places: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """(claim, placement) pairs in words, a claim's placements together: "C1 same-core",
    "C9 (same-core and cross-core)", "C2" where a claim has no placement."""
    groups: dict[str, list[str]] = {}
    for claim, placement in places:
        groups.setdefault(claim, []).append(placement)
    return tuple(c if ps in (["—"], [""]) else f"{c} {ps[0]}" if len(ps) == 1
                 else f"{c} ({' and '.join(ps)})" for c, ps in groups.items())


@dataclass(frozen=True)
class Facts:
    """What the abstract says of the run besides its comparisons."""

    testbed: str  # "one 2-CPU virtual machine" (analysis.words.findings.testbed_text)
    trials: int  # measured trials (run.measured: profiled, failed and excluded ones aside)
    hours: float
    verified: int  # measured trials whose receiver checked content (verify sample or full)
    rounds_min: int  # the design's minimum rounds (the run's plan)
    post_hoc: bool = False  # read under a rule made after the run
    transports: tuple[str, ...] = ()
    #: per transport: (completions the kernel copied, completions) of the zero-copy methods
    copied: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: the verdicts across the committed runs (None: no other run tests the claims)
    stability: Stability | None = None


#: the comparisons the abstract may read: those resting on at least the design's minimum
#: rounds (the count owner's test, as the findings apply it)
readable = read_rows


def _faster(rows: pd.DataFrame) -> int:
    """Comparisons decided faster (beyond the band, or the direction decided with its size
    open)."""
    if rows.empty:
        return 0
    d = rows["direction"] if "direction" in rows else rows["decision"].map(
        {"greater": "faster", "less": "slower"})
    return int(((rows["decision"] == "greater") | (d == "faster")).sum())


def _slower(rows: pd.DataFrame) -> int:
    if rows.empty:
        return 0
    d = rows["direction"] if "direction" in rows else rows["decision"].map(
        {"greater": "faster", "less": "slower"})
    return int(((rows["decision"] == "less") | (d == "slower")).sum())


def numbers(sentence: str) -> int:
    """How many numbers a sentence prints (each run of digits, with its commas and points)."""
    return len(_NUMBER.findall(sentence.replace("`", "")))


def word_count(text: str) -> int:
    """The abstract's words: whitespace-separated, code marks dropped."""
    return len(text.replace("`", "").split())


#: how many places (methods, sizes and configuration) the first sentence names for each of
#: messages and files; the rest are counted, and the findings name them
MAX_PLACES = 4
#: the factors that name where a comparison was measured: a message comparison's transport
#: and placement, a file comparison's path, transport, placement and cache
MESSAGE_WHERE = ("transport", "protocol", "placement")
FILE_WHERE = ("scenario", "transport", "placement", "cache")


def beyond_band(rows: pd.DataFrame) -> pd.DataFrame:
    """The comparisons decided faster by more than the band (``greater``): the only ones the
    abstract counts as paying; a direction decided with its size open, or equivalent, is no
    difference by the rule, and the decision map draws only these as decided faster."""
    return rows[rows["decision"] == "greater"] if len(rows) else rows


def paid_places(rows: pd.DataFrame, where: Sequence[str]) -> list[str]:
    """Where avoiding a copy paid, from the comparisons ``rows`` (all of one baseline): per
    configuration (``where``), the methods decided faster beyond the band and their sizes,
    each a run of consecutive sizes measured for that method there (:func:`size_runs`), so
    no unmeasured size is named; methods with the same sizes in one configuration are named
    together: "`splice` and `sendfile` at 64 KiB–1 MiB (file → file, same-core)"."""
    paid = beyond_band(rows)
    if paid.empty:
        return []
    conf = rows.apply(lambda r: configuration(r.to_dict(), where), axis=1)
    groups: dict[tuple[str, str], list[str]] = {}
    for (cfg, meth), g in paid.groupby([conf[paid.index], paid["method"]], sort=False):
        measured = rows.loc[(conf == cfg) & (rows["method"] == meth), "size"]
        groups.setdefault((str(cfg), size_runs(list(g["size"]), list(measured))),
                          []).append(f"`{meth}`")
    return [f"{' and '.join(ms) if len(ms) < 3 else ', '.join(ms[:-1]) + ' and ' + ms[-1]} "
            f"at {sizes}" + (f" ({cfg})" if cfg else "")
            for (cfg, sizes), ms in groups.items()]


def _places(places: list[str], most: int) -> str:
    """The first ``most`` places, and how many more the findings name."""
    shown = places[:most]
    more = len(places) - len(shown)
    if not shown:
        return f"at {more} place{'s' if more != 1 else ''} the findings name"
    text = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]
    return text + (f" (and {more} more place{'s' if more != 1 else ''} the findings name)"
                   if more else "")


def paid(rows: pd.DataFrame, rounds_min: int) -> tuple[int, int]:
    """(decided faster by more than the band, of how many): the comparisons of ``rows`` a
    finding may read (:func:`readable`) that a copy-avoiding method won beyond the band, and
    every comparison of ``rows``; the abstract's first sentence counts these."""
    return len(beyond_band(readable(rows, rounds_min))), len(rows)


def answer(map_rows: pd.DataFrame, files: pd.DataFrame, facts: Facts,
           most: int = MAX_PLACES) -> str:
    """The first sentence: when avoiding a copy paid, for messages (the map's rows against
    two-copy `send`) and for files (against `read-write`): the methods, sizes, transports and
    placements decided faster by more than the band (on at least ``rounds_min`` rounds, which
    the next sentence says), with how many comparisons of how many that is; "read post hoc"
    where the rule is newer than the run. ``most``: the places named of each (the rest are
    counted)."""
    lead = "Read post hoc, on this testbed" if facts.post_hoc else "On this testbed"
    band = f"by more than {fmt_pct(SESOI, 0)}"
    parts = []
    for what, rows, where, unit in (
            ("messages", map_rows, MESSAGE_WHERE,
             "comparisons of a copy-avoiding method with two-copy `send`"),
            ("files", files, FILE_WHERE, "file comparisons with `read-write`")):
        if not len(rows):
            continue
        read = readable(rows, facts.rounds_min)
        places = paid_places(read, where)
        k, _ = paid(rows, facts.rounds_min)
        who = "avoiding a copy" if not parts else "it"
        # the band is said once, in the first part
        faster = f", decided faster {band}" if not parts else ""
        parts.append(f"{who} paid for {what} in {k} of the {len(rows)} {unit}{faster}: "
                     f"{_places(places, most)}" if places else
                     f"{who} did not pay for {what}: none of the {len(rows)} {unit} is "
                     f"decided faster {band}")
    if not parts:
        return f"{lead}, no comparison of a copy-avoiding method was measured."
    return f"{lead}, " + "; ".join(parts) + "."


def _measured(facts: Facts, short: bool = False) -> str:
    """What was measured, where, how much and how checked; ``short``: the primitives counted,
    not named (the title and the introduction name them)."""
    ts = [TRANSPORT_WORDS.get(t, t) for t in facts.transports]
    over = (f" over {', '.join(ts[:-1])} and {ts[-1]}" if len(ts) > 1 else
            f" over {ts[0]}" if ts else "")
    check = (f"; the receiver counted every byte over TCP and, in {facts.verified:,} of the "
             f"measured trials, checked the content of one chunk in {VERIFY_SAMPLE_EVERY}"
             if facts.verified else "")
    what = f"the {_PRIMITIVE_COUNT} primitives" if short else PRIMITIVES
    return (f"We measured {what}{over} on {facts.testbed} ({facts.trials:,} measured "
            f"trials in randomized blocks, "
            f"{fmt_hours(facts.hours)}; a decision rests on at least {facts.rounds_min} "
            f"rounds){check}.")


def _zerocopy(map_rows: pd.DataFrame, facts: Facts) -> str:
    """The copied fraction of the zero-copy methods' completions per transport, and how the
    zero-copy methods fared against `send` where the kernel copied them all."""
    have = {t: c for t, c in facts.copied.items() if c[1] > 0}
    if not have:
        return ""
    frac = {t: c[0] / c[1] for t, c in have.items()}
    text = f"Of the zero-copy sends' completions, the kernel copied {copied_share(have)}"
    full = [t for t, x in frac.items() if x >= 1.0]
    rows = fallback_rows(readable(map_rows, facts.rounds_min), full)
    if full and len(rows):
        text += (f"; where it copied all, those methods ran their copying fallback, slower than "
                 f"`send` in {_slower(rows)} of {len(rows)} comparisons")
    return text + "."


def _sendmsg(map_rows: pd.DataFrame, facts: Facts) -> str:
    rows = readable(map_rows, facts.rounds_min)
    rows = rows[rows["method"] == "sendmsg"] if len(rows) else rows
    if rows.empty:
        return ""
    f, s = _faster(rows), _slower(rows)
    parts = [f"{w} in {k}" for w, k in (("faster", f), ("slower", s),
                                          ("undecided", len(rows) - f - s)) if k]
    what = ("undecided in all" if not f and not s else
            ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])
    return (f"`sendmsg` (`send`'s kernel copy without its user-space memcpy) is {what} of "
            f"its {len(rows)} comparisons with `send`.")


def _files(files: pd.DataFrame, facts: Facts) -> str:
    rows = readable(files, facts.rounds_min)
    g = rows[rows["decision"] == "greater"] if len(rows) else rows
    if g.empty:
        return ""
    b = g.loc[g["ratio"].idxmax()]
    conf = configuration(b.to_dict(), ("scenario", "transport", "placement", "cache"))
    where = f"`{b['method']}`, {conf}, {fmt_size(b['size'])}"
    others = g[g.index != b.name]
    near = others[others["hi"] >= b["lo"]]
    if others.empty:
        return f"The one decided file gain: {where}, {ratio_ci(b)}."
    if near.empty:
        return f"File gains reach {ratio_ci(b)} ({where}), decided the largest."
    return (f"File gains reach {ratio_ci(b)} ({where}), not decided larger than {len(near)} "
            f"other{'s' if len(near) != 1 else ''}.")


def _claims(verdicts: pd.DataFrame) -> str:
    if verdicts.empty:
        return ""
    v = verdicts["verdict"].value_counts()
    nt = int(v.get("not testable here", 0))
    testable = verdicts[~verdicts["verdict"].isin(UNTESTED)]
    parts = [f"{int(v.get('holds', 0))} hold", f"{int(v.get('refuted', 0))} are refuted",
             f"{int(v.get('inconclusive', 0))} {plural(int(v.get('inconclusive', 0)), 'is', 'are')}"
             " inconclusive"]
    und = int(v.get("undetermined", 0))
    if und:
        parts.append(f"{und} {plural(und, 'is', 'are')} undetermined")
    text = (f"Of the {len(testable)} verdicts on published claims testable here, "
            + ", ".join(parts[:-1]) + " and " + parts[-1])
    if nt:
        text += f"; {nt} more {plural(nt, 'is', 'are')} not testable here"
    return text + "."


def _stability(facts: Facts, unstable: bool = True) -> str:
    """What holds on every CPU class measured over the committed runs that test the claims,
    and (``unstable``) what was decided differently within one class."""
    st = facts.stability
    if st is None or st.runs < 2:
        return ""
    where = (f"{st.runs} runs on {len(st.classes)} CPU classes ({' and '.join(st.classes)})"
             if len(st.classes) > 1 else f"{st.runs} runs on one CPU class ({st.classes[0]})")
    held = (f"{_listed(st.holding)} {plural(len(st.holding), 'holds', 'hold')} on every class "
            "measured" if st.holding else "no claim holds on every class measured")
    shaky = (f"; {_listed(st.unstable)} {plural(len(st.unstable), 'is', 'are')} unstable "
             "within a class" if st.unstable and unstable else "")
    return f"Over {where}, {held}{shaky}."


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def abstract(map_rows: pd.DataFrame, files: pd.DataFrame, verdicts: pd.DataFrame,
             facts: Facts, kind: str | None = None) -> str:
    """The abstract (Markdown). ``map_rows``: the decision map's comparisons with `send`;
    ``files``: the file methods against `read-write`; ``verdicts``: the claims' verdict
    table; ``kind``: a run that cannot support results (the abstract says so)."""
    if kind:
        return (f"This build comes from a run that cannot support results "
                f"({UNSUPPORTED_KINDS[kind]}); the reference run's abstract states them.")
    parts = [answer(map_rows, files, facts), _measured(facts), _zerocopy(map_rows, facts),
             _sendmsg(map_rows, facts), _files(files, facts), _claims(verdicts),
             _stability(facts)]
    text = " ".join(p for p in parts if p)
    # said more briefly where it would be too long: `sendmsg` (the findings say it), then
    # the largest file gain go, the copied share goes, the primitives are counted (the title
    # names them), the unstable verdicts go (the replication appendix names them), then the
    # answer names fewer places (a part's index, or the places the answer names)
    shorter = {1: lambda: _measured(facts, short=True),
               6: lambda: _stability(facts, unstable=False)}
    for drop, most in ((3, None), (4, None), (2, None), (1, None), (6, None), (None, 2),
                       (None, 1), (None, 0)):
        if word_count(text) <= MAX_WORDS:
            break
        if most is not None:  # fewer places in the answer: the findings name every one
            parts[0] = answer(map_rows, files, facts, most)
        else:
            parts[drop] = shorter[drop]() if drop in shorter else ""
        text = " ".join(p for p in parts if p)
    # a percentage never parts from its number at a line's end ("100" | "% on loopback")
    return text.replace(" %", "\u00a0%")

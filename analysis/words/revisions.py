"""The one table of the rules' revisions (the artifact appendix): for each version of the
claims' decision rules (:data:`analysis.claims.rules.REVISIONS`), of the rule by which a
reviewer's run reproduces the reference (:data:`analysis.comparison.reproduce.REVISIONS`) and of the
top-up's order (:data:`decision.schedule.ORDER_REVISED`) and of the rules that have no
module of their own (:data:`REVISIONS`: the band of "equivalent" outside the claims, the A/A
control), when it took effect, what changed, and which committed runs were made while it
was in force. Every chapter states the rules in force; only this table says how they came to be. Pure: the
runs' names and times are given.
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

import pandas as pd

from analysis.comparison import reproduce as RP
from analysis.claims import rules as RU
from analysis.statistics.fmt import fmt_band, fmt_pct
from analysis.loading.run import instant
from decision import parity as PA
from decision import reading as RD
from decision import schedule as SC

#: the rules that have revisions, as the book names them
CLAIM_RULES = "claim decision rules"
REPRODUCED_RULE = "Results Reproduced rule"
TOPUP_ORDER = "top-up order"
#: what the top-up order's one revision changed (its rule is in the method chapter)
ORDER_CHANGE = ("which block's next look the top-up's budget buys: a verdict now counts as "
                "decided when one comparison it reads is decided contrary to the claim, or "
                "when every comparison is decided and none is contrary (before: only when every "
                "comparison was decided, and one comparison with little chance removed the "
                "verdict from the order); revised after a simulation on the structure of a "
                "run made before it, before any run used it")
BAND_RULE = "band of 'equivalent' outside the claims"
AA_CONTROL = "A/A control"
PARITY_RULE = "parity of copybench with iperf3"
READING_RULE = "reading of a throughput comparison"
#: the revisions of the rules that have no module of their own: (when, rule, what changed)
REVISIONS: tuple[tuple[str, str, str], ...] = (
    ("2026-11-27T08:53Z", BAND_RULE,
     "one band of 'equivalent' for every direction reading: the decision map, the findings, "
     "the abstract's counts, the comparison of two runs and the gaps of the why-they-differ "
     "table read a ratio against the claims' band (12 %, derived from the measured noise and "
     "the design's last look) in place of a declared ±3 % that had no derivation and that the "
     "testbed cannot resolve (none of the reference run's 105 message comparisons was "
     "equivalent within it); runs made before it are re-read post hoc"),
    ("2026-11-27T08:53Z", AA_CONTROL,
     "the A/A pair runs on the claims' transport (veth, send at 16 KiB cross-core, its twin in "
     "that claim block) for as many rounds as the claims' first look (10; before: 6 rounds on "
     "loopback, where no claim runs), and its CI is read against the claims' band besides "
     "containing 1 (before: against ±3 %)"),
    (SC.ONE_EDGE_REVISED, BAND_RULE,
     "direction and size apart: the decision map, the findings and the placement question's "
     "table read a comparison's direction from its CI against 1 (faster, slower) and its size "
     "from the band (by more than 12 %, equivalent within it, or open); before, a CI that "
     "excluded 1 but crossed an edge of the band read 'undecided' (9 of the reference run "
     "20261127T121419Z-paper-ebfc's comparisons, all slower); runs made before it are "
     "re-read post hoc"),
    (SC.ONE_EDGE_REVISED, AA_CONTROL,
     "the A/A pair runs the rounds at which a true ratio of 1 reads 'equivalent' at 95 % with "
     "80 % probability at its block's noise-model sd (at most the design's maximum, and its "
     "block runs as many), and the book gives that chance beside it; before, it ran the "
     "claims' first look (10 rounds), where that chance was between 0.001 and 0.47 at the "
     "sds measured, so it could not read 'equivalent' by design"),
    (PA.EARLIER.declared, PARITY_RULE,
     f"declared before the run that reads it: copybench send / iperf3 at each size from "
     f"{PA.SIZES[0] >> 10} KiB to {PA.SIZES[-1] >> 20} MiB (loopback, cross-core, paired by "
     f"round, 95 % CI) reads 'at parity' inside ±{fmt_pct(PA.MARGIN, 0)} (the claims' band), "
     f"'not at parity' wholly outside it, else 'undecided'; each size runs the rounds a CI of "
     f"±{fmt_pct(PA.PLANNED_HALF_WIDTH, 0)} needs at the noise model's sd, in a block of its "
     "own, copybench warming up for the second iperf3 omits; runs made before it are read "
     "post hoc"),
    (PA.IN_FORCE.declared, PARITY_RULE,
     f"copybench {PA.METHOD} / iperf3 is read in place of {PA.EARLIER.method} / iperf3: "
     f"{PA.EARLIER.method} copies the message's fields into one buffer before the kernel's "
     f"copy, while iperf3 writes one buffer (the kernel's copy alone), as {PA.METHOD} does; the "
     f"stream-peers blocks hold {PA.METHOD}, {PA.GAP_METHOD} and iperf3, and "
     f"{PA.GAP_METHOD} / {PA.METHOD} paired by round is the cost of {PA.GAP_METHOD}'s copy; "
     "margin, sizes, configuration and rounds unchanged. Mended after the reference run "
     "20261128T171229Z-paper-5394 was seen (send / iperf3 0.541 [0.532, 0.551] at 1 MiB, not "
     "at parity, its sender at 0.27 CPU-s/GB against iperf3's 0.145), so the next reference "
     "run is its first real test; a run whose stream-peers blocks hold no sendmsg beside "
     "iperf3 (5394 and every run before it) is read under the earlier declaration, send / "
     "iperf3, and says so"),
    (RD.IN_FORCE, READING_RULE,
     "one reading per comparison, made by the decision: a comparison resting on fewer rounds "
     "than the design's minimum reads 'not read' (the decision map draws it marked, never "
     "coloured as decided, and no count counts it as decided); one of sender rates resting on "
     "a cell whose rate copybench's receiver set (busy at least 90 % of the window; same-core, "
     "the larger share of the CPU) reads 'receiver-bound: not a test of the sender', neither "
     "faster nor slower, and a claim verdict that rests on such a cell, not refuted by a size "
     "that tests the sender, reads it too (not testable here); before, both were read as "
     "decided. Mended after the reference run 20261128T171229Z-paper-5394 was seen (7 of its "
     "map's 11 comparisons under 6 rounds drawn decided; copybench's receiver set the rate in "
     "26 of its 160 TCP stream cells), so every run made before it is read under it post hoc"),
    (RD.FILE_SOCKET_IN_FORCE, READING_RULE,
     "the sides of a file sent into a socket (sendfile, read-write and the other file methods "
     "into copybench's receiver) are read as a message stream's are; before, only message "
     "stream cells were, so a claim about file senders could rest unlabelled on a cell whose "
     "rate copybench's receiver set: C13 same-core read 'refuted' in every run, its sendfile "
     "sender busy 8 % of the window and its receiver 92 % in the reference run "
     "20261128T171229Z-paper-5394, and now reads receiver-bound (not testable here). Mended "
     "after that run and the claims run 20261129T195203Z-claims were seen, so every run made "
     "before it is read under it post hoc"),
)
#: every rule the table lists, in its order
RULES = (CLAIM_RULES, REPRODUCED_RULE, TOPUP_ORDER, BAND_RULE, AA_CONTROL, PARITY_RULE,
         READING_RULE)
COLUMNS = ["in force from (UTC)", "rule", "what changed", "runs made under it"]


def versions() -> list[tuple[str, datetime, str]]:
    """Every version of every rule (:data:`RULES`), oldest first: (rule, when it took
    effect, what changed)."""
    out = [(CLAIM_RULES, instant(w), what) for w, what in RU.REVISIONS]
    out += [(REPRODUCED_RULE, instant(r.when), r.what) for r in RP.REVISIONS]
    out.append((TOPUP_ORDER, instant(SC.ORDER_REVISED), ORDER_CHANGE))
    out.append((TOPUP_ORDER, instant(SC.ONE_EDGE_REVISED), SC.ONE_EDGE_REVISION))
    out += [(rule, instant(w), what) for w, rule, what in REVISIONS]
    return sorted(out, key=lambda v: v[1])


def post_hoc(rule: str, made: datetime | None) -> bool:
    """Whether a run made at ``made`` is read under a version of ``rule`` that took effect
    after it: its readings under the rule in force are then post hoc."""
    latest = max((when for r, when, _ in versions() if r == rule), default=None)
    return made is not None and latest is not None and made < latest


def parity_post_hoc(declaration: PA.Declaration, made: datetime | None) -> bool:
    """Whether a run made at ``made`` is read post hoc under the parity ``declaration`` it is
    read under (:func:`decision.parity.declaration`): made before that declaration. A run
    read under the earlier declaration, made after it, is not post hoc, though a later one
    is in force."""
    return made is not None and made < instant(declaration.declared)


def band_label(made: datetime | None) -> str:
    """The band of "equivalent" as a chapter names it for a run made at ``made``: "±12 %",
    with "(post hoc)" where the run was made before the band's rule in force."""
    return fmt_band() + (" (post hoc)" if post_hoc(BAND_RULE, made) else "")


def table(runs: Sequence[tuple[str, datetime | None]]) -> pd.DataFrame:
    """One row per version of each rule; ``runs``: (run id, when it was made) of the
    committed runs the book judges. A run made before a rule's first listed version is
    named in that version's row as "(before it: ...)"."""
    vs = versions()
    rows = []
    for rule in RULES:
        mine = [v for v in vs if v[0] == rule]
        for i, (_, when, what) in enumerate(mine):
            end = mine[i + 1][1] if i + 1 < len(mine) else None
            made = [rid for rid, t in runs if t is not None and t >= when
                    and (end is None or t < end)]
            before = [rid for rid, t in runs if t is not None and t < when] if i == 0 else []
            names = ", ".join(made) or "none"
            if before:
                names += f" (made before it: {', '.join(before)})"
            rows.append({"in force from (UTC)": when.strftime("%Y-%m-%d %H:%M"), "rule": rule,
                         "what changed": what, "runs made under it": names})
    return pd.DataFrame(rows, columns=COLUMNS)


def in_force_text(run_made: datetime | None) -> str:
    """The sentence under the table: which version judges the book's runs, and which of its
    verdicts are post hoc."""
    latest = max(v[1] for v in versions() if v[0] == CLAIM_RULES)
    when = "" if run_made is None else (
        " This book's run was made before the claim decision rules in force: its verdicts "
        "carry the label post hoc." if run_made < latest else
        " This book's run was made under the claim decision rules in force.")
    return ("Every run in this book is judged by the last version of each rule; a verdict "
            "of a run made before that version is labelled post hoc beside it." + when)

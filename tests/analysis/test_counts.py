"""One owner for every count the book prints (analysis/words/counts.py): the sets are defined
once, every page quotes them, and a second source of a count cannot creep back in."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from analysis.words import counts as CN
from analysis.words import headlines as H
from analysis.statistics.fmt import fmt_band

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ["greater"] * 3 + ["less"] * 5 + ["equivalent"] + ["inconclusive"] * 4


def _tab() -> pd.DataFrame:
    return pd.DataFrame({"scenario": "message", "transport": "loopback", "protocol": "tcp",
                         "placement": "cross-core", "threads": 1, "duration_s": 1.0,
                         "method": "sendmsg", "size": [2 ** i for i in range(len(DECISIONS))],
                         "ratio": 1.0, "lo": 0.9, "hi": 1.1, "n": 10, "design": "paired",
                         "decision": DECISIONS, "why": ""})


def test_tally_counts_each_decision() -> None:
    t = CN.Tally.of(_tab())
    assert (t.n, t.greater, t.less, t.equivalent, t.undecided) == (13, 3, 5, 1, 4)
    assert t.text() == ("3 faster by more than 12 %, 5 slower by more than 12 %, 0 faster (size "
                        "open), 0 slower (size open), 1 equivalent (within ±12 %) and 4 "
                        "undecided of 13 comparisons")
    assert CN.Tally.of(pd.DataFrame()).text() == "no comparison"


def test_a_configuration_at_one_size_is_not_in_the_counted_set() -> None:
    tab = pd.concat([_tab(), _tab().iloc[:1].assign(duration_s=3.0)])
    assert len(CN.with_sizes(tab, CN.MSG_FACTORS)) == len(DECISIONS)


def test_the_abstract_prints_the_owners_tally() -> None:
    tab = _tab()
    t = CN.Tally.of(tab)
    a = H.abstract_results(tab, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                           1.0, "one machine")
    assert (f"of {t.n} comparisons of a copy-avoiding message method with two-copy `send`"
            in a)
    assert (f"{t.greater} are faster, {t.less} slower, {t.equivalent} equivalent within "
            f"{fmt_band()} and {t.undecided} undecided" in a)
    # a run made before the band in force says its count is post hoc
    a = H.abstract_results(tab, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                           1.0, "one machine", post_hoc=True)
    assert f"{t.equivalent} equivalent within {fmt_band()} (post hoc) and" in a


def test_the_glue_names_every_count() -> None:
    n = CN.BookCounts(CN.Tally.of(_tab()), CN.Tally(4, 1, 1, 0, 2), "loopback, cross-core",
                      (1,), {"holds": 2, "refuted": 3, "inconclusive": 1}, 4)
    g = n.glue()
    assert g["count_verdicts"] == "6" and g["count_claims"] == "4"
    assert g["count_holds"] == "2" and g["count_not_testable_here"] == "0"
    assert g["count_ref_undecided"] == "2 of 4" and g["count_msg_undecided"] == "4"


def _sources() -> dict[str, str]:
    pages = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")}
    pages.update({p.name: p.read_text(encoding="utf-8")
                  for p in (ROOT / "notebooks").glob("*.py")})
    return pages


def test_every_page_quotes_the_counts_from_the_owner() -> None:
    """The introduction's verdict counts, the replication chapter's count in the reference
    configuration and the claims chapter's comparison counts are the owner's glue (they once
    came from other sets: 32 verdicts in the introduction against 47 in the abstract, 91
    comparisons on the claims page against 105 in the abstract)."""
    src = _sources()
    intro = src["intro.md"]
    for name in ("count_verdicts", "count_holds", "count_refuted", "count_inconclusive",
                 "count_not_testable_here"):
        assert f"claims.ipynb::{name}:s" in intro, name
    assert "claims.ipynb::count_ref_config:s" in src["replication.py"]
    assert "claims.ipynb::count_ref_undecided:s" in src["replication.py"]
    # no page glues a count that the owner does not make
    glued = set(re.findall(r"::(\w+):s", "\n".join(src.values())))
    assert not {g for g in glued if re.fullmatch(r"n_(verdicts|holds|refuted|inconclusive|"
                                                 r"not_testable_here)|sendcmp_\w+", g)}
    # the owner's counts are counted once, in the Study, and glued from its facts
    assert "CN.book_counts(run, results, readings)" in (
        ROOT / "analysis" / "study" / "__init__.py").read_text(encoding="utf-8")
    for nb in ("claims.py", "findings.py"):
        assert 'study.facts["counts"]' in src[nb] and "book_counts(" not in src[nb], nb
    assert "CN.reference_comparisons(run)" in src["message.py"]
    assert "send_comparisons(" not in src["message.py"] + src["claims.py"]


def test_the_unread_comparisons_are_counted_by_why() -> None:
    """Under the minimum rounds and receiver-bound are two counts, never one sum said as
    "fewer rounds" (the front page once counted 21 receiver-bound comparisons as under it)."""
    t = CN.Tally(n=99, less=40, undecided=27, not_read=11, receiver_bound=21)
    assert t.unread_text(6) == (
        "Of the decision map's 99 comparisons, 11 rest on fewer than 6 rounds, the design's "
        "minimum, and 21 rest on a cell copybench's receiver set the rate of (not a test of "
        "the sender): the map and the tables show them, the findings do not read them.")
    assert "21" not in CN.Tally(n=9, not_read=2).unread_text(6)
    assert CN.Tally(n=9, less=9).unread_text(6).startswith("Every comparison of the decision")

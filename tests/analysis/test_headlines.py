"""analysis/words/headlines.py: the headline findings and the abstract from decided comparison
tables with a planted truth. A gain over `send` is set against `sendmsg`; a finding that
holds in one placement says so; one that goes both ways is a flip; at most six findings,
each linked to its figure and table."""

from __future__ import annotations

import pandas as pd

from analysis.words import advice as AD
from analysis.words import headlines as H

MiB = 1 << 20


def rows(method: str, placement: str, decisions: dict[int, tuple[str, float]],
         scenario: str = "message", transport: str = "loopback", n: int = 6,
         protocol: str = "tcp") -> list[dict]:
    return [dict(scenario=scenario, transport=transport, protocol=protocol,
                 placement=placement, cache="warm" if scenario != "message" else None,
                 threads=1, duration_s=1.0, method=method, size=s, ratio=r, lo=r * 0.9,
                 hi=r * 1.1, n=n, decision=d) for s, (d, r) in decisions.items()]


# sendfile against read-write: faster same-core at 100 MB, slower cross-core at 1-64 MiB
FILES = pd.DataFrame(
    rows("sendfile", "same-core", {100_000_000: ("greater", 2.06)}, "file→socket")
    + rows("sendfile", "cross-core", {MiB: ("less", 0.63), 16 * MiB: ("less", 0.70),
                                      64 * MiB: ("less", 0.74),
                                      100_000_000: ("inconclusive", 0.966)}, "file→socket"))
# uring-zc gains over send at 64 MiB, and so does sendmsg: the gain is the user memcpy
VS_SEND = pd.DataFrame(
    rows("uring-zc", "cross-core", {16 * MiB: ("inconclusive", 1.2), 64 * MiB: ("greater", 1.71)},
         n=3)
    + rows("sendmsg", "cross-core", {16 * MiB: ("greater", 1.2), 64 * MiB: ("greater", 1.34)},
           n=3))
VS_SENDMSG = pd.DataFrame(
    rows("uring-zc", "cross-core", {16 * MiB: ("inconclusive", 1.0),
                                    64 * MiB: ("inconclusive", 1.27)}, n=3)
    + rows("zerocopy", "cross-core", {16 * MiB: ("less", 0.8), 64 * MiB: ("less", 0.7)})
    + rows("zerocopy", "same-core", {1024: ("greater", 1.3)}, transport="udp-forward",
           protocol="udp"))


def test_a_gain_shared_by_sendmsg_is_the_user_memcpy() -> None:
    a = H.abstract_results(VS_SEND, VS_SENDMSG, pd.DataFrame(), pd.DataFrame(), None, 10,
                           1.0, "one machine", {"loopback": (100, 100)})
    # its CI lies above sendmsg's two decided gains: the superlative is decided
    assert "The largest decided gain over `send`, its CI above every other's, is `uring-zc` " \
           "at 64 MiB" in a
    assert "1.71× [1.54, 1.88], 3 rounds" in a
    assert "`sendmsg`, which avoids no kernel copy, is faster than `send` there" in a
    assert "`uring-zc` against `sendmsg` is 1.27× [1.14, 1.40], 3 rounds (undecided)" in a
    # undecided against sendmsg: the run cannot say the gain is only that memcpy, but the
    # completions still say no kernel copy was avoided
    assert "cannot tell whether any of the gain is beyond skipping `send`'s user-space" in a
    assert ("the kernel copied 100 of 100 zero-copy completions on loopback, so no kernel "
            "copy was avoided") in a
    assert "shows no gain beyond" not in a and "the gain is that memcpy" not in a
    equal = VS_SENDMSG.copy()
    equal.loc[(equal["method"] == "uring-zc") & (equal["size"] == 64 * MiB),
              "decision"] = "equivalent"
    a = H.abstract_results(VS_SEND, equal, pd.DataFrame(), pd.DataFrame(), None, 10, 1.0,
                           "one machine", {"loopback": (100, 100)})
    assert "shows no gain beyond skipping `send`'s user-space memcpy" in a
    assert ("and the kernel copied 100 of 100 zero-copy completions on loopback: the gain is "
            "that memcpy, not a kernel copy avoided") in a


def test_a_gain_beyond_sendmsg_says_so() -> None:
    beyond = VS_SENDMSG.copy()
    beyond.loc[(beyond["method"] == "uring-zc") & (beyond["size"] == 64 * MiB),
               "decision"] = "greater"
    a = H.abstract_results(VS_SEND, beyond, pd.DataFrame(), pd.DataFrame(), None, 10, 1.0,
                           "one machine", {"loopback": (100, 100)})
    assert "part of the gain is beyond skipping `send`'s user-space memcpy" in a
    assert "although the kernel copied 100 of 100 zero-copy completions on loopback" in a


def test_a_file_gain_of_one_placement_is_no_flip_where_the_shared_size_is_undecided() -> None:
    a = H.abstract_results(pd.DataFrame(), pd.DataFrame(), FILES, pd.DataFrame(), None, 10,
                           1.0, "one machine")
    assert "`sendfile` (file → socket, loopback, same-core, 100 MB): 2.06×" in a
    assert "The gain is decided only same-core: cross-core it is 0.966× [0.869, 1.06], 6 rounds " \
           "(undecided) at 100 MB and slower at 1 MiB–64 MiB (0.630–0.740×), sizes not " \
           "measured same-core" in a
    # the one size measured in both placements is undecided cross-core: no flip is decided
    assert "— the gain flips" not in a
    assert "whether the gain flips with placement is undecided" in a


def test_a_gain_only_for_large_sizes() -> None:
    d = pd.DataFrame(rows("vmsplice", "same-core", {64: ("less", 0.1), 4096: ("less", 0.5),
                                                    MiB: ("greater", 1.3)})
                     + rows("vmsplice", "cross-core", {64: ("less", 0.2),
                                                       MiB: ("inconclusive", 1.1)}))
    t = AD.method_advice(d, "vmsplice", "sendmsg")
    # one decided gain (1 MiB same-core, undecided cross-core) is no "use ... from 1 MiB
    # up": the decisions are listed where they were reached
    assert t.startswith("`vmsplice` against `sendmsg`: faster at 1 MiB"), t
    assert "pays" not in t and "from 1 MiB up" not in t and "undecided elsewhere" in t


def test_an_undecided_gain_over_sendmsg_is_not_attributed() -> None:
    """vmsplice beats send, but neither sendmsg against send nor vmsplice against sendmsg is
    decided: the run cannot say where the gain comes from, and vmsplice (no completions) is
    not described by the zero-copy completions the kernel copied."""
    vs_send = pd.DataFrame(rows("vmsplice", "cross-core", {64 * 1024: ("greater", 1.76)})
                           + rows("sendmsg", "cross-core", {64 * 1024: ("inconclusive", 1.15)}))
    vs_sendmsg = pd.DataFrame(rows("vmsplice", "cross-core", {64 * 1024: ("inconclusive", 1.53)}))
    a = H.abstract_results(vs_send, vs_sendmsg, pd.DataFrame(), pd.DataFrame(), None, 10, 1.0,
                           "one machine", {"loopback": (100, 100)})
    assert "`vmsplice` against `sendmsg` is 1.53× [1.38, 1.68], 6 rounds (undecided)" in a
    assert "cannot tell whether any of the gain is beyond skipping `send`'s user-space memcpy" in a
    assert "not a kernel copy avoided" not in a
    assert "completions" not in a


def test_the_abstract_counts_verdicts_in_one_sentence() -> None:
    verdicts = pd.DataFrame([dict(claim="C1", verdict="refuted", basis="copybench"),
                             dict(claim="C6", verdict="not testable here", basis="copybench"),
                             dict(claim="C6", verdict="not testable here", basis="their program")])
    a = H.abstract_results(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), verdicts, None, 10,
                           1.0, "one machine")
    assert "Of 3 verdicts on 2 published claims tested here," in a
    assert "1 is not testable here." in a and "here here" not in a


def test_the_abstract_counts_in_words_a_reader_says() -> None:
    """One comparison "is" faster, and an 8-minute run lasts "8 min", not "0.1 h"."""
    one = VS_SEND[VS_SEND["decision"] == "greater"].head(1)
    a = H.abstract_results(one, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                           8 / 60, "one 2-CPU virtual machine")
    assert "1 is faster" in a and "1 are" not in a
    assert "(10 measured trials, 8 min)" in a and "0.1 h" not in a
    many = H.abstract_results(VS_SEND, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                              1 + 26 / 60, "one 2-CPU virtual machine")
    assert "1 h 26 min" in many


def test_fmt_hours() -> None:
    from analysis.statistics.fmt import fmt_hours
    assert [fmt_hours(h) for h in (0.01, 8 / 60, 1.0, 1 + 26 / 60)] == \
        ["36 s", "8 min", "1 h", "1 h 26 min"]

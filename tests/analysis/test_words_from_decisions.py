"""Words from decisions only: a sentence that says "never", "only", "from Z up", "pays" or
"because" is generated from decided comparisons that cover exactly its scope, or is not
written; an undecided comparison is called undecided; a decision that flips with the window
is reported as a flip. One test per example the reference run's book got wrong."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.words import advice as AD
from analysis.words import headlines as H
from analysis.words import prose as PR
from analysis.words.findings import method_clause

KiB, MiB = 1024, 1 << 20
ROOT = Path(__file__).resolve().parents[2]


def row(method: str, size: int, decision: str, ratio: float, lo: float, hi: float,
        placement: str = "same-core", transport: str = "veth", scenario: str = "message",
        window: float = 1.0, n: int = 30) -> dict:
    return dict(scenario=scenario, transport=transport, protocol="tcp", placement=placement,
                cache=None if scenario == "message" else "warm", threads=1,
                duration_s=window, method=method, size=size, ratio=ratio, lo=lo, hi=hi, n=n,
                decision=decision)


def test_an_undecided_size_is_not_written_as_never_beats() -> None:
    # veth, same-core: sendmsg slower at two sizes, 1.06 [1.01, 1.12] undecided at a third
    rows = pd.DataFrame([row("sendmsg", 512, "less", 0.8, 0.75, 0.85),
                         row("sendmsg", 4 * KiB, "less", 0.9, 0.86, 0.94),
                         row("sendmsg", 64 * KiB, "inconclusive", 1.06, 1.01, 1.12)])
    text, decided = method_clause(rows, "send")
    assert decided and "never" not in text, text
    assert "undecided at 64 KiB" in text
    # every size decided against a gain: "never beats here" is exact
    done = rows.assign(decision=["less", "less", "equivalent"])
    assert "`sendmsg` never beats `send` here" in method_clause(done, "send")[0]


def test_never_beats_in_any_configuration_needs_every_comparison_decided() -> None:
    # vmsplice against sendmsg: slower in one configuration, 1.53 [0.986, 2.36] undecided
    # in another
    rows = pd.DataFrame([row("vmsplice", 4 * KiB, "less", 0.6, 0.5, 0.7, "same-core"),
                         row("vmsplice", 64 * KiB, "less", 0.7, 0.6, 0.8, "same-core"),
                         row("vmsplice", 64 * MiB, "inconclusive", 1.53, 0.986, 2.36,
                             "cross-core")])
    text = AD.method_advice(rows, "vmsplice", "sendmsg")
    assert "never" not in text, text
    assert "undecided elsewhere" in text
    assert "`vmsplice` never beats `sendmsg`" in AD.method_advice(
        rows.assign(decision=["less", "less", "less"]), "vmsplice", "sendmsg")


def test_the_abstract_says_never_faster_only_of_a_fully_decided_method() -> None:
    # uring-zc slower at 16 MiB, 0.995 [0.68, 1.46] undecided at 64 MiB
    vs_send = pd.DataFrame([row("uring-zc", 16 * MiB, "less", 0.8, 0.7, 0.9, "cross-core"),
                            row("uring-zc", 64 * MiB, "inconclusive", 0.995, 0.68, 1.46,
                                "cross-core"),
                            row("zerocopy", 16 * MiB, "less", 0.7, 0.6, 0.8, "cross-core"),
                            row("zerocopy", 64 * MiB, "less", 0.8, 0.7, 0.9, "cross-core")])
    a = H.abstract_results(vs_send, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                           1.0, "one machine")
    assert "`zerocopy` never beats `send` in any configuration measured." in a, a
    assert "`uring-zc` never" not in a and "and `uring-zc`" not in a
    assert "`uring-zc` (slower by more than 12 % in 1, undecided in 1 of 2 comparisons)" in a


def test_from_z_up_only_where_every_size_from_z_up_is_decided() -> None:
    # splice against read-write: faster at 64 KiB only, undecided at the four larger sizes
    sizes = [4 * KiB, 64 * KiB, MiB, 16 * MiB, 64 * MiB, 100_000_000]
    dec = ["inconclusive", "greater", "inconclusive", "inconclusive", "inconclusive",
           "inconclusive"]
    rows = pd.DataFrame([row("splice", s, d, 1.2 if d == "greater" else 1.05,
                             1.1 if d == "greater" else 0.9, 1.3 if d == "greater" else 1.2,
                             scenario="file→socket", transport="loopback")
                         for s, d in zip(sizes, dec)])
    text = AD.method_advice(rows, "splice", "read-write")
    assert "from 64 KiB up" not in text and "use `splice`" not in text.lower(), text
    assert "faster than `read-write` at 64 KiB" in text
    # every size from 64 KiB up decided faster: the advice is exact, up to the largest
    # size measured (never "from 64 KiB up")
    full = rows.assign(decision=["inconclusive"] + ["greater"] * 5)
    assert "Use `splice` rather than `read-write` at 64 KiB–100 MB" in AD.method_advice(
        full, "splice", "read-write")


def test_no_pays_only_for_large_sizes_from_two_decided_comparisons() -> None:
    # sendmsg against send: slower at 512 B, faster at 256 KiB and 1 MiB, undecided elsewhere
    sizes = [512, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 16 * MiB]
    dec = ["less", "inconclusive", "inconclusive", "inconclusive", "greater", "greater",
           "inconclusive"]
    rows = pd.DataFrame([row("sendmsg", s, d, 1.0, 0.9, 1.1) for s, d in zip(sizes, dec)])
    text = AD.method_advice(rows, "sendmsg", "send")
    assert "pays" not in text and "from 256 KiB up" not in text and " only " not in text, text
    assert "`sendmsg` against `send`: faster at 256 KiB–1 MiB" in text, text
    assert "undecided elsewhere" in text


def test_a_decision_that_flips_with_the_window_is_reported() -> None:
    # sendmsg/send, 16 KiB, loopback, cross-core: 1 s windows 0.930 [0.861, 1.005],
    # 3 s windows 1.68 [1.19, 2.36]: disjoint CIs
    rows = pd.DataFrame([row("sendmsg", 16 * KiB, "inconclusive", 0.930, 0.861, 1.005,
                             "cross-core", "loopback", window=1.0),
                         row("sendmsg", 16 * KiB, "greater", 1.68, 1.19, 2.36, "cross-core",
                             "loopback", window=3.0, n=12),
                         row("sendmsg", 64 * KiB, "greater", 1.3, 1.2, 1.4, "cross-core",
                             "loopback")])
    flips = H.window_flips(rows)
    assert ("at 16 KiB (loopback, cross-core) the decision changes with the window: 1 s "
            "windows 0.930× [0.861, 1.00], 30 rounds (undecided), 3 s windows 1.68× "
            "[1.19, 2.36], 12 rounds (faster); the CIs do not overlap") in flips, flips
    assert "changes with the window at 16 KiB" in AD.method_advice(rows, "sendmsg", "send",
                                                                   rows)
    # two windows that agree are not a flip
    same = rows.assign(ratio=[1.5, 1.68, 1.3], lo=[1.3, 1.19, 1.2], hi=[1.7, 2.36, 1.4],
                       decision=["greater", "greater", "greater"])
    assert "changes with the window" not in AD.method_advice(same, "sendmsg", "send", same)


def test_the_threats_chapter_does_not_deny_the_top_up() -> None:
    plan = {"design": {"target": 0.05, "descriptive_target": 0.1,
                       "sequential": {"rounds_max": 90}},
            "blocks": {"a": {"rounds": 6}, "b": {"rounds": 30}}}
    t = PR.rounds_text(plan, True, {"a": 48})
    assert "no block" not in t and "ran longer because of what they measured" in t, t
    assert "48 more rounds to 1 block" in t and "up to 54 rounds a block" in t
    # a fixed design says so
    fixed = {"design": {"target": 0.05, "descriptive_target": 0.1},
             "blocks": {"a": {"rounds": 6}}}
    assert "no block stopped early or ran longer" in PR.rounds_text(fixed, True, {})


def test_udp_forward_is_titled_by_what_it_measures() -> None:
    # zerocopy there is 0.55-0.73x sendmsg and its sender CPU per byte 1.11 [0.983, 1.58]:
    # no saving was measured, so no title or sentence states one
    nb = (ROOT / "notebooks" / "zerocopy.py").read_text()
    threats = (ROOT / "book" / "threats.md").read_text()
    assert "saving" not in nb and "sender-side saving" not in " ".join(threats.split())


def test_a_copy_count_that_did_not_validate_is_undetermined_not_untestable(monkeypatch) -> None:
    """C15 fails when the copy calibration does not validate: a result of the method, not a
    condition of the testbed. It is "undetermined", counted apart, and judged undecided by
    the Results Reproduced rule."""
    from types import SimpleNamespace

    from analysis import claims as C
    from analysis.comparison import reproduce as RP
    from analysis.claims import copies

    profiles = SimpleNamespace(empty=False, windows=pd.DataFrame({"x": [1]}))
    run = SimpleNamespace(profiles=profiles)
    monkeypatch.setattr(copies.CP, "analyse", lambda run: (None, None, []))
    monkeypatch.setattr(copies, "c15_details", lambda val, groups: pd.DataFrame(
        {"identifiable": [False], "group_reason": ["leave-one-out misses the known count"],
         "size": [MiB]}))
    r = copies.c15(run)
    assert r.verdict == C.UNDETERMINED, r.verdict
    assert r.reason.startswith("undetermined: the copy count did not validate")
    assert C.UNDETERMINED in C.VERDICTS and C.UNDETERMINED != C.NOT_TESTABLE
    assert RP.judge(r, r).status == RP.BOTH_UNDECIDED
    counted = C.verdict_counts([r])[C.COPYBENCH]
    assert counted[C.UNDETERMINED] == 1 and counted[C.NOT_TESTABLE] == 0


def test_the_headline_finds_a_flip_in_a_single_size_window() -> None:
    # the 3 s window measured 16 KiB only: the finding's curves leave it out, the flip not
    curve = pd.DataFrame([row("sendmsg", 16 * KiB, "inconclusive", 0.930, 0.861, 1.005,
                              "cross-core", "loopback"),
                          row("sendmsg", 64 * KiB, "greater", 1.3, 1.2, 1.4, "cross-core",
                              "loopback")])
    every = pd.concat([curve, pd.DataFrame([row("sendmsg", 16 * KiB, "greater", 1.68, 1.19,
                                                2.36, "cross-core", "loopback", window=3.0)])])
    text = AD.method_advice(curve, "sendmsg", "send", every)
    assert "changes with the window at 16 KiB" in text, text
    assert "changes with the window" not in AD.method_advice(curve, "sendmsg", "send")


def test_an_undecided_size_at_another_window_is_named() -> None:
    # 1 KiB slower at 1 s and undecided at 2 s: the finding keeps one window per size, but
    # "never" and the undecided tail read every window's comparison
    rows = pd.DataFrame([row("zerocopy", 1024, "less", 0.55, 0.41, 0.73, n=30),
                         row("zerocopy", 1024, "inconclusive", 0.9, 0.7, 1.1, window=2.0,
                             n=6),
                         row("zerocopy", 4 * KiB, "less", 0.6, 0.5, 0.7)])
    text = AD.method_advice(rows, "zerocopy", "sendmsg", rows)
    assert "never" not in text and "undecided elsewhere" in text, text
    # the two windows' CIs overlap and neither decides the other way: no flip to report
    assert "changes with the window" not in text, text

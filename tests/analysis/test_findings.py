"""analysis/words/findings.py: findings and abstract worded from decided comparison tables with a
planted truth (fast, no run needed). Each sentence must say what the table decided, and
nothing it did not."""

from __future__ import annotations

import pandas as pd

from analysis.words import findings as F
from analysis.words import headlines as H
from analysis.statistics.fmt import fmt_band

SIZES = [64, 4096, 65536, 262144]


def table(decisions: dict[str, list[str]], ratios: dict[str, list[float]],
          transport: str = "loopback", placement: str = "cross-core") -> pd.DataFrame:
    rows = []
    for m, decs in decisions.items():
        for s, dec, r in zip(SIZES, decs, ratios[m]):
            rows.append(dict(transport=transport, protocol="tcp", placement=placement,
                             threads=1, method=m, size=s, ratio=r, lo=r * 0.97, hi=r * 1.03,
                             decision=dec))
    return pd.DataFrame(rows)


PLANT = table({"sendmsg": ["less", "equivalent", "greater", "greater"],
               "zerocopy": ["less", "less", "less", "inconclusive"]},
              {"sendmsg": [0.8, 1.0, 1.2, 1.3], "zerocopy": [0.3, 0.5, 0.7, 0.98]})


def test_a_method_that_pays_from_a_size_up() -> None:
    f = F.comparison_findings(PLANT, "send", ("transport", "protocol", "placement", "threads"),
                              "message", "fig", methods=["sendmsg", "zerocopy"])
    assert len(f) == 1 and f[0].decided
    t = f[0].text
    assert "`sendmsg` beats `send` from 64 KiB up" in t
    assert "1.30× [1.26, 1.34] at 256 KiB" in t
    assert "slower at 64 B" in t and f"equivalent (within {fmt_band()}) at 4 KiB" in t
    assert "loopback, cross-core, 1 thread" in f[0].config


def test_a_method_that_never_pays_and_an_undecided_size() -> None:
    t = F.comparison_findings(PLANT, "send", ("transport", "placement"), "message", "fig",
                              methods=["zerocopy"])[0].text
    # 256 KiB is undecided (0.98): "never beats" would outrun the decisions
    assert "never" not in t and "`zerocopy` is slower than `send` at 64 B–64 KiB" in t
    assert "undecided at 256 KiB" in t
    assert "beats `send` from" not in t  # nothing asserted that was not decided


def test_nothing_decided_is_flagged() -> None:
    t = table({"vmsplice": ["inconclusive"] * 4}, {"vmsplice": [1.0, 1.1, 0.9, 1.0]})
    f = F.comparison_findings(t, "send", ("transport",), "message", "fig")
    assert not f[0].decided
    md = F.findings_markdown(f, None)
    assert "nothing decided here" in md and "{ref}`figure <fig>`" in md
    md = F.findings_markdown([F.Finding("m", "c", "t.", "fig", True, "tab")], None)
    assert md == "1. t. ({ref}`figure <fig>`, {ref}`table <tab>`)"


def test_a_crossover_must_agree_with_the_decided_comparisons() -> None:
    # sendmsg crosses send between 4 KiB and 64 KiB and is decided faster above: drawn;
    # zerocopy "crosses" at 4 KiB but is decided slower at 64 KiB above it: not drawn
    xo = pd.DataFrame([dict(transport="loopback", placement="cross-core", method=m,
                            crossover=c, lo=c / 2, hi=c * 2)
                       for m, c in (("sendmsg", 20000.0), ("zerocopy", 3000.0))])
    a = F.crossover_agreement(xo, PLANT, ("transport", "placement"))
    assert list(a["agrees"]) == [True, False]
    assert "decided slower at 4 KiB–64 KiB above it" in a["why"].iloc[1]
    assert "no size above it is decided faster" in a["why"].iloc[1]
    t = F.comparison_findings(PLANT, "send", ("transport", "placement"), "message", "fig",
                              a, ["zerocopy"])[0].text
    assert "crossover" not in t


def test_crossover_is_quoted_with_its_ci_only_where_a_measured_size_lies_in_it() -> None:
    def text(lo: float, hi: float) -> str:
        xo = pd.DataFrame([dict(transport="loopback", protocol="tcp", placement="cross-core",
                                threads=1, method="sendmsg", crossover=20000.5, lo=lo,
                                hi=hi)])
        return F.comparison_findings(PLANT, "send", ("transport", "protocol", "placement",
                                                     "threads"),
                                     "message", "fig", xo, ["sendmsg"])[0].text

    assert "crossover at about 19.5 KiB, CI 2 KiB–32 KiB" in text(2048.0, 32768.0)
    # measured at 4 KiB and 64 KiB: a CI between them is the interpolation's, not the data's
    t = text(8192.0, 32768.0)
    assert "crossover between the measured sizes 4 KiB and 64 KiB" in t and "19.5" not in t, t


def test_runs_that_cannot_support_findings_say_so() -> None:
    assert F.run_kind({"synthetic": True}, None) == "synthetic"
    assert F.run_kind({}, {"design": {"rehearsal": True}}) == "rehearsal"
    assert F.run_kind({}, {"profile": {"name": "smoke"}}) == "smoke"
    assert F.run_kind({}, {"profile": {"name": "paper"}, "design": {}}) is None
    f = F.comparison_findings(PLANT, "send", ("transport",), "message", "fig")
    assert F.findings_markdown(f, "smoke").startswith("This run cannot support findings")
    assert "cannot support results" in H.abstract_results(PLANT, pd.DataFrame(),
                                                          pd.DataFrame(), pd.DataFrame(),
                                                          "smoke", 10, 0.1, "one machine")


def test_abstract_counts_and_best_gain() -> None:
    v = pd.DataFrame({"claim": ["C1", "C2", "C3"],
                      "verdict": ["holds", "refuted", "not testable here"]})
    a = H.abstract_results(PLANT, pd.DataFrame(), pd.DataFrame(), v, None, 1234, 1.4,
                           F.testbed_text({"cpu": {"count": 2},
                                           "virtualization": {"hypervisor_flag": True}}))
    assert a.startswith("On one 2-CPU virtual machine (1,234 measured trials, 1 h 24 min)")
    assert "verdicts on 3 published claims" in a
    assert "of 8 comparisons" in a and "2 are faster, 4 slower, 1 equivalent" in a
    assert "`sendmsg` at 256 KiB" in a and "1.30×" in a
    assert "the gain is skipping `send`'s user-space memcpy" in a
    # zerocopy is undecided at 256 KiB: not "never faster", but said undecided there
    assert "never beat" not in a
    assert ("Not decided faster than `send` at any size, but undecided at some: `zerocopy` "
            "(slower by more than 12 % in 3, undecided in 1 of 4 comparisons).") in a
    assert "1 holds, 1 is refuted, 0 are inconclusive and 1 is not testable" in a
    assert F.testbed_text({}) == "one machine"
    tex = F.markdown_to_latex(a)
    assert r"\texttt{sendmsg}" in tex and "`" not in tex and r"$\times$" in tex


def test_the_abstract_names_a_method_undecided_at_every_size() -> None:
    """The undecided count has its owners in the text: a method none of whose comparisons is
    decided is named with its count, not left out."""
    plant = table({"sendmsg": ["inconclusive"] * 4,
                   "zerocopy": ["less", "less", "less", "inconclusive"]},
                  {"sendmsg": [0.9, 1.0, 1.05, 1.1], "zerocopy": [0.3, 0.5, 0.7, 0.98]})
    a = H.abstract_results(plant, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10,
                           0.1, "one machine")
    assert "5 undecided" in a and "Undecided at every size: `sendmsg` (4 comparisons)." in a
    assert "`zerocopy` (slower by more than 12 % in 3, undecided in 1 of 4 comparisons)" in a
    assert "Undecided at every size" not in H.abstract_results(
        PLANT, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 10, 0.1, "one machine")


def test_the_control_finding() -> None:
    aa = pd.DataFrame([{"method": "send", "configuration": "loopback, cross-core", "rounds": 9,
                        "ratio": 1.01, "lo": 0.98, "hi": 1.04, "contains 1": True}])
    assert "contains 1, as it must" in F.control_finding(aa).text
    # no decision against a band in the table: read as undecided against the claims' band
    assert f"reaching past the claims' band {fmt_band()}" in F.control_finding(aa).text
    aa.loc[0, ["lo", "contains 1"]] = [1.02, False]
    assert "misses 1" in F.control_finding(aa).text

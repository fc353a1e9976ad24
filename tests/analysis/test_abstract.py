"""The abstract (analysis/words/abstract.py): at most 200 words, a first sentence that answers
the paper's question (where avoiding a copy was decided faster by more than the band), and
nothing read from a comparison resting on fewer rounds than the design's minimum."""

from __future__ import annotations

import itertools
import re

import pandas as pd
import pytest

from analysis.words import abstract as AB
from analysis.words import advice as V

KiB, MiB = 1024, 1 << 20
SIZES = [64, 512, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 16 * MiB]
CONFIGS = [("loopback", "cross-core"), ("loopback", "same-core"), ("veth", "cross-core"),
           ("veth", "same-core"), ("udp-forward", "same-core")]
METHODS = ["sendmsg", "zerocopy", "uring-zc", "vmsplice"]


def msg(method: str, size: int, decision: str, ratio: float, transport: str = "veth",
        placement: str = "same-core", n: int = 10, direction: str | None = None) -> dict:
    lo, hi = {"greater": (ratio * 0.9, ratio * 1.1), "less": (ratio * 0.9, ratio * 1.1),
              "inconclusive": (ratio * 0.7, ratio * 1.4)}[decision]
    return dict(scenario="message", transport=transport,
                protocol="udp" if transport == "udp-forward" else "tcp", placement=placement,
                threads=1, duration_s=1.0, method=method, size=size, ratio=ratio, lo=lo, hi=hi,
                n=n, decision=decision,
                direction=direction or {"greater": "faster", "less": "slower"}.get(
                    decision, "undecided"))


def fil(method: str, size: int, decision: str, ratio: float, n: int = 10,
        scenario: str = "file→file") -> dict:
    lo, hi = {"greater": (ratio * 0.95, ratio * 1.05), "less": (ratio * 0.9, ratio * 1.1),
              "inconclusive": (ratio * 0.7, ratio * 1.4)}[decision]
    return dict(scenario=scenario, transport="loopback" if scenario == "file→socket" else None,
                placement="same-core", cache="warm", method=method, size=size, ratio=ratio,
                lo=lo, hi=hi, n=n, decision=decision,
                direction={"greater": "faster", "less": "slower"}.get(decision, "undecided"))


def facts(**kw) -> AB.Facts:  # noqa: ANN003
    base = dict(testbed="one 2-CPU virtual machine", trials=2839, hours=1.47, verified=1994,
                rounds_min=6, post_hoc=True, transports=("loopback", "veth", "udp-forward"),
                copied={"loopback": (100, 100), "veth": (50, 50), "udp-forward": (0, 70)})
    base.update(kw)
    return AB.Facts(**base)


def verdicts() -> pd.DataFrame:
    states = ["holds"] * 18 + ["refuted"] * 13 + ["inconclusive"] * 4 + ["undetermined"] \
        + ["not testable here"] * 11
    return pd.DataFrame({"claim": [f"C{i % 15 + 1}" for i in range(len(states))],
                         "verdict": states, "basis": "copybench"})


def busy() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every method in every configuration at every size, decisions cycling: the longest
    abstract the rules can make."""
    decs = itertools.cycle(["less", "inconclusive", "less", "greater", "inconclusive"])
    rows = [msg(m, s, d, {"greater": 1.4, "less": 0.6}.get(d, 1.0), t, p)
            for m, (t, p), s in itertools.product(METHODS, CONFIGS, SIZES)
            for d in [next(decs)]]
    files = pd.DataFrame([fil(m, s, d, {"greater": 1.5 + i / 100, "less": 0.7}.get(d, 1.0),
                              scenario=sc)
                          for i, (m, s, sc) in enumerate(itertools.product(
                              ["splice", "sendfile", "mmap-write"], [64 * KiB, MiB, 16 * MiB],
                              ["file→file", "file→socket"]))
                          for d in [next(decs)]])
    return V.map_data(pd.DataFrame(rows)), files


def first_sentence(text: str) -> str:
    # a sentence ends at ". " followed by a capital (never inside "1.5×" or "[1.2, 1.4]")
    return re.split(r"(?<=\.)\s+(?=[A-Z`])", text, maxsplit=1)[0]


def test_the_abstract_is_at_most_200_words_even_for_the_busiest_run() -> None:
    rows, files = busy()
    text = AB.abstract(rows, files, verdicts(), facts())
    assert AB.word_count(text) <= AB.MAX_WORDS == 200, (AB.word_count(text), text)


@pytest.mark.parametrize("post_hoc", [True, False])
def test_the_first_sentence_answers_the_question(post_hoc) -> None:  # noqa: ANN001
    rows, files = busy()
    text = AB.abstract(rows, files, verdicts(), facts(post_hoc=post_hoc))
    first = first_sentence(text)
    assert "avoiding a copy" in first and ("pay" in first or "paid" in first), first
    # a reading under a rule made after the run says so in the answer itself
    assert ("post hoc" in first) == post_hoc, first
    # the count is the map's rows, with its unit
    assert f"of the {len(rows)} comparisons of a copy-avoiding method with two-copy" in first


def test_no_message_method_decided_faster_reads_did_not_pay() -> None:
    rows = V.map_data(pd.DataFrame([msg("zerocopy", s, "less", 0.5) for s in SIZES]))
    first = first_sentence(AB.abstract(rows, pd.DataFrame(), pd.DataFrame(), facts()))
    assert "did not pay for messages: none of the 8 comparisons" in first, first


def test_a_comparison_under_the_design_minimum_is_never_read() -> None:
    """A 2-round comparison decided faster, with the largest ratio of all, is counted among
    the map's rows but neither counted as decided nor cited for its ratio."""
    rows = [msg("zerocopy", s, "less", 0.5) for s in SIZES]
    rows.append(msg("vmsplice", 16 * MiB, "greater", 2.06, n=2))
    files = pd.DataFrame([fil("splice", MiB, "greater", 1.73),
                          fil("mmap-write", 64 * MiB, "greater", 2.06, n=2,
                              scenario="file→socket")])
    text = AB.abstract(V.map_data(pd.DataFrame(rows)), files, pd.DataFrame(), facts())
    first = first_sentence(text)
    assert "did not pay for messages: none of the 9 comparisons" in first, first
    assert "in 1 of the 2 file comparisons with `read-write`" in first, first
    assert "2.06" not in text and "mmap-write" not in text, text
    assert "1.73×" in text, text


def test_the_copied_fraction_is_stated_per_transport() -> None:
    rows = V.map_data(pd.DataFrame([msg("zerocopy", s, "less", 0.5, t, p)
                                    for s in SIZES for t, p in CONFIGS]))
    text = AB.abstract(rows, pd.DataFrame(), pd.DataFrame(), facts())
    assert "100\u00a0% on loopback and veth" in text and "0\u00a0% on udp-forward" in text, text
    assert "copying fallback" in text, text


def test_the_verification_says_what_sample_checks() -> None:
    text = AB.abstract(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), facts())
    assert "verifies every byte" not in text and "counted every byte over TCP" in text, text
    assert f"one chunk in {AB.VERIFY_SAMPLE_EVERY}" in text and "1,994 of the measured trials" in text, text
    assert "2,839 measured trials" in text, text


def test_the_sample_stride_is_the_c_programs() -> None:
    """VERIFY_SAMPLE_EVERY words what src/pattern.c's verify_stream checks in sample mode."""
    from pathlib import Path
    src = (Path(__file__).resolve().parents[2] / "src" / "pattern.c").read_text()
    mask = re.search(r"VERIFY_SAMPLE && \(v->chunks & (\d+)\) == 0", src)
    assert mask and int(mask.group(1)) + 1 == AB.VERIFY_SAMPLE_EVERY


def test_claim_counts_say_of_how_many_testable_here() -> None:
    text = AB.abstract(pd.DataFrame(), pd.DataFrame(), verdicts(), facts())
    assert "Of the 36 verdicts on published claims testable here, 18 hold" in text, text
    assert "11 more are not testable here" in text, text


def test_only_a_comparison_beyond_the_band_paid_and_the_answer_says_where() -> None:
    """Equivalent, or faster with its size open, is no difference by the rule: not counted as
    paying; the answer names each method, its measured sizes and the configuration."""
    files = pd.DataFrame([fil("splice", 64 * KiB, "greater", 1.18), fil("splice", MiB, "greater", 1.38),
                          fil("splice", 16 * MiB, "inconclusive", 1.05) | dict(
                              decision="equivalent", lo=1.02, hi=1.08, direction="faster"),
                          fil("sendfile", 64 * KiB, "inconclusive", 1.24) | dict(
                              lo=1.12, hi=1.38, direction="faster", scenario="file→socket",
                              transport="loopback")])
    rows = V.map_data(pd.DataFrame([msg("vmsplice", 64 * KiB, "greater", 1.66, "veth", "cross-core"),
                                    msg("vmsplice", 256 * KiB, "greater", 1.70, "veth", "cross-core"),
                                    msg("vmsplice", MiB, "inconclusive", 1.1, "veth", "cross-core",
                                        direction="faster"),
                                    msg("vmsplice", 4 * KiB, "less", 0.5, "veth", "cross-core")]))
    first = first_sentence(AB.abstract(rows, files, pd.DataFrame(), facts(post_hoc=False)))
    assert "paid for messages in 2 of the 4 comparisons" in first, first
    assert "`vmsplice` at 64 KiB–256 KiB (veth, cross-core)" in first, first
    assert "paid for files in 2 of the 4 file comparisons" in first, first
    assert "`splice` at 64 KiB–1 MiB (file → file, same-core)" in first, first
    assert "16 MiB" not in first and "sendfile" not in first, first


def test_the_abstract_names_what_holds_on_every_class_measured() -> None:
    """Over the committed runs: the claims holding on every class measured by name, the
    unstable ones by name where the words allow; still at most 200 words for the busiest
    run; no such sentence for a run without others beside it."""
    rows, files = busy()
    st = AB.Stability(13, ("Intel Xeon", "AMD EPYC"), 66, 41,
                      ("C1 cross-core", "C13 (same-core and cross-core)"), ("C2", "C5 cross-core"))
    text = AB.abstract(rows, files, verdicts(), facts(stability=st))
    assert ("Over 13 runs on 2 CPU classes (Intel Xeon and AMD EPYC), C2 and C5 cross-core hold "
            "on every class measured") in text
    assert AB.word_count(text) <= AB.MAX_WORDS, (AB.word_count(text), text)
    short = AB.abstract(rows.head(3), files.head(2), verdicts(), facts(stability=st))
    assert "C1 cross-core and C13 (same-core and cross-core) are unstable within a class" in short
    alone = AB.Stability(1, ("AMD EPYC",), 30, 20, (), ())
    assert "Over " not in AB.abstract(rows, files, verdicts(), facts(stability=alone))
    none = AB.Stability(4, ("AMD EPYC",), 30, 20, (), ())
    assert ("Over 4 runs on one CPU class (AMD EPYC), no claim holds on every class measured."
            in AB.abstract(rows.head(3), files.head(2), verdicts(), facts(stability=none)))


def test_the_stability_facts_group_placements_by_claim() -> None:
    t = pd.DataFrame([{"claim": c, "reading": "—", "placement": p, "basis": "copybench",
                       "AMD EPYC: r1": v, "Intel Xeon: r2": v, "label": lab}
                      for c, p, v, lab in [("C1", "same-core", "holds", "the same on every class measured"),
                                           ("C9", "same-core", "holds", "the same on every class measured"),
                                           ("C9", "cross-core", "holds", "the same on every class measured"),
                                           ("C13", "same-core", "holds", "unstable"),
                                           ("C13", "cross-core", "refuted", "unstable")]])
    st = AB.stability_of(t, ["AMD EPYC", "Intel Xeon"], 2)
    assert st.holding == ("C1 same-core", "C9 (same-core and cross-core)")
    assert st.unstable == ("C13 (same-core and cross-core)",)
    assert (st.rows, st.same) == (5, 3)
    assert AB._by_claim([("C2", "—"), ("C9", "same-core")]) == ("C2", "C9 same-core")

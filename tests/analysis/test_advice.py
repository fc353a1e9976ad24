"""The front page's findings (analysis/words/advice.py): at most six, each at most 40 words as a
reader reads it, each word from the decisions it states."""

from __future__ import annotations

import itertools
import re

import pandas as pd

from analysis.words import advice as V

KiB, MiB = 1024, 1 << 20
SIZES = [64, 512, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 16 * MiB]
CONFIGS = [("loopback", "cross-core"), ("loopback", "same-core"), ("veth", "cross-core"),
           ("veth", "same-core"), ("udp-forward", "same-core")]
METHODS = ["sendmsg", "zerocopy", "uring-zc", "vmsplice"]


def row(method: str, size: int, decision: str, ratio: float = 1.0, transport: str = "veth",
        placement: str = "same-core", window: float = 1.0, n: int = 6,
        scenario: str = "message") -> dict:
    lo, hi = {"greater": (ratio * 0.9, ratio * 1.1), "less": (ratio * 0.9, ratio * 1.1),
              "equivalent": (0.99, 1.01), "inconclusive": (0.8, 1.2)}[decision]
    return dict(scenario=scenario, transport=transport,
                protocol="udp" if transport == "udp-forward" else "tcp", placement=placement,
                cache=None if scenario == "message" else "warm", threads=1, duration_s=window,
                method=method, size=size, ratio=ratio, lo=lo, hi=hi, n=n, decision=decision)


def busy_run() -> pd.DataFrame:
    """Every method in every configuration at every size, the decisions cycling through all
    four, and a second window at some sizes: the longest sentences the rules can make."""
    decs = itertools.cycle(["greater", "less", "inconclusive", "less", "equivalent",
                            "greater", "inconclusive"])
    rows = []
    for m, (t, p), s in itertools.product(METHODS, CONFIGS, SIZES):
        d = next(decs)
        rows.append(row(m, s, d, {"greater": 1.4, "less": 0.6}.get(d, 1.0), t, p))
        if s in (16 * KiB, MiB):
            rows.append(row(m, s, "greater" if d == "less" else "less", 1.0, t, p, 2.0, 3))
    return pd.DataFrame(rows)


def files_run() -> pd.DataFrame:
    rows = [row(m, s, d, r, "loopback", "cross-core", scenario="file→socket")
            for m, d, r in (("sendfile", "greater", 1.3), ("splice", "inconclusive", 1.0),
                            ("mmap-write", "less", 0.8))
            for s in (64 * KiB, MiB, 16 * MiB)]
    rows += [row("splice", s, "greater", 1.2, None, "same-core", scenario="file→file")
             for s in (64 * KiB, MiB)]
    return pd.DataFrame(rows)


def test_at_most_six_findings_of_at_most_40_words_each() -> None:
    msg = busy_run()
    found = V.front_findings(msg, files_run(), METHODS, "fig-map", "fig-files", windows=msg)
    assert 1 <= len(found) <= V.MAX_FINDINGS == 6
    lines = V.findings_list(found).splitlines()
    assert len(lines) == len(found)
    for line in lines:
        assert V.read_words(line) <= V.MAX_WORDS == 40, (V.read_words(line), line)
        assert "{ref}`figure <fig-" in line  # each links its figure
    # seven methods still give six findings
    more = pd.concat([msg, msg.assign(method="splice"), msg.assign(method="extra")])
    assert len(V.front_findings(more, files_run(), METHODS + ["splice", "extra"], "f", "g",
                                windows=more)) == 6


def test_words_counts_what_a_reader_reads() -> None:
    assert V.read_words("1. `splice` is faster at 64 B–1 MiB ({ref}`figure <fig-x>`).") == 8


def test_never_only_where_every_comparison_is_decided() -> None:
    rows = pd.DataFrame([row("zerocopy", s, "less", 0.5) for s in SIZES[:3]])
    assert "`zerocopy` never beats `send`" in V.method_advice(rows, "zerocopy", "send")
    open_ = rows.assign(decision=["less", "less", "inconclusive"])
    text = V.method_advice(open_, "zerocopy", "send")
    assert "never" not in text and "undecided elsewhere" in text, text


def test_a_range_is_every_size_only_where_every_size_is_decided() -> None:
    rows = pd.DataFrame([row("vmsplice", s, d, 1.5 if d == "greater" else 1.0)
                         for s, d in zip(SIZES[:4], ["greater", "greater", "inconclusive",
                                                     "greater"])])
    text = V.method_advice(rows, "vmsplice", "send")
    # the sizes decided, exactly (a range only over consecutive decided sizes)
    assert "faster than `send` at 64 B–512 B, 16 KiB (veth, same-core)" in text, text
    assert "64 B–16 KiB" not in text and "undecided elsewhere" in text, text
    assert "use" not in text.split(";")[0].lower()  # no "use from Z": 4 KiB is undecided
    full = rows.assign(decision="greater")
    assert V.method_advice(full, "vmsplice", "send").startswith(
        "Use `vmsplice` rather than `send` at 64 B–16 KiB (veth, same-core)")


def _sizes_said(text: str) -> list[float]:
    """Every size a sentence names ("1 MiB", "64 KiB", "100 MB"), in bytes."""
    unit = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "kB": 1e3, "MB": 1e6,
            "GB": 1e9}
    return [float(n) * unit[u] for n, u in
            re.findall(r"(\d+(?:\.\d+)?) (B|KiB|MiB|GiB|kB|MB|GB)\b", text)]


def test_a_recommendation_never_reaches_past_the_largest_size_measured() -> None:
    """"use M from 1 MiB up" said of sizes measured only up to 16 MiB claims sizes nobody
    measured: the scope is read from the decisions it cites."""
    sizes = [65536, 1 << 20, 16 << 20]
    rows = pd.DataFrame([row("splice", s, "greater", 1.6) for s in sizes])
    text = V.method_advice(rows, "splice", "read-write")
    assert " up" not in text and "from" not in text, text
    said = _sizes_said(text.split(";")[0])
    assert said and max(said) <= max(sizes) and min(said) >= min(sizes), text
    assert "64 KiB–16 MiB" in text, text


def test_a_direction_decided_with_its_size_open_is_a_decided_direction() -> None:
    """A CI wholly below parity that crosses the band's edge decides "slower" (its size
    open): the finding does not call the method undecided there."""
    rows = pd.DataFrame([row("sendmsg", s, "inconclusive", 0.93) for s in SIZES[:3]])
    rows["direction"] = ["slower", "undecided", "undecided"]
    text = V.method_advice(rows, "sendmsg", "send")
    assert "undecided at every size" not in text, text
    assert "slower than `send` at 64 B" in text and "undecided elsewhere" in text, text


def test_the_scope_names_a_whole_transport_only_when_all_of_it_is_in() -> None:
    rows = pd.DataFrame([row("sendmsg", 64, "less", 0.7, t, p) for t, p in CONFIGS[:4]]
                        + [row("sendmsg", 64, "inconclusive", 1.0, "udp-forward",
                               "same-core")])
    rows.loc[3, "decision"] = "inconclusive"  # veth same-core undecided
    text = V.method_advice(rows, "sendmsg", "send")
    assert "(loopback; veth, cross-core)" in text, text


def test_the_map_has_one_comparison_per_panel_method_and_size() -> None:
    msg = busy_run()
    m = V.map_data(msg)
    assert not m.duplicated(["panel", "method", "size"]).any()
    assert set(m["panel"]) == {"loopback, cross-core", "loopback, same-core", "veth, cross-core",
                               "veth, same-core", "udp-forward (UDP), same-core"}
    # of two windows at one size, the one with more rounds
    k = m[(m["panel"] == "veth, same-core") & (m["method"] == "sendmsg") & (m["size"] == MiB)]
    assert int(k["n"].iloc[0]) == 6


def test_no_finding_reads_a_comparison_under_the_design_minimum() -> None:
    """A comparison resting on fewer rounds than the design's minimum is shown in the maps
    and tables but never read by a finding: a 2-round comparison decided faster, with the
    largest ratio, neither makes its method "faster" nor gives the finding its ratio."""
    rows = pd.DataFrame([row("vmsplice", s, "inconclusive", 1.0) for s in SIZES[:4]]
                        + [row("vmsplice", SIZES[4], "greater", 2.06, n=2)])
    found = V.front_findings(rows, pd.DataFrame(), ["vmsplice"], "fig", "fig-files",
                             rounds_min=6)
    assert len(found) == 1
    text = found[0].text
    assert "2.06" not in text and "faster" not in text, text
    assert "undecided at every size" in text, text
    # without the minimum, the same rows would read it
    loose = V.front_findings(rows, pd.DataFrame(), ["vmsplice"], "fig", "fig-files")
    assert "2.06" in loose[0].text


def test_the_zero_copy_finding_states_the_copied_share() -> None:
    """Where the kernel copied the zero-copy sends' data anyway (loopback, veth), the
    finding says so beside the decision: the comparison is of the copying fallback."""
    rows = pd.DataFrame([row("zerocopy", s, "less", 0.5, t, p) for s in SIZES[:4]
                         for t, p in CONFIGS[:2]])
    found = V.front_findings(rows, pd.DataFrame(), ["zerocopy"], "fig", "fig-files",
                             copied={"zerocopy": {"loopback": (40, 40), "veth": (0, 0),
                                                  "udp-forward": (0, 25)}})
    text = found[0].text
    assert ("The kernel copied 100\u00a0% of its completions on loopback, 0\u00a0% on "
            "udp-forward") in text, text
    assert V.read_words(text) <= V.MAX_WORDS - 1, (V.read_words(text), text)


def test_a_zero_copy_finding_with_both_directions_and_its_copied_share_fits() -> None:
    """The shape of a reference run's `uring-zc`: faster at one size where nothing is copied,
    slower across every configuration elsewhere, and the copied share of three transports
    said after it. Every earlier way of saying it more briefly left 41 words; the sentence
    drops its extreme ratio last, never the copied share."""
    rows = [row("uring-zc", 32 * KiB, "greater", 1.10, "udp-forward", "same-core")]
    rows += [row("uring-zc", s, "less", 0.3, t, p) for s in SIZES[:6] for t, p in CONFIGS]
    rows += [row("uring-zc", 16 * KiB, "inconclusive", 1.0, "udp-forward", "same-core")]
    found = V.front_findings(pd.DataFrame(rows), pd.DataFrame(), ["uring-zc"], "fig",
                             "fig-files",
                             copied={"uring-zc": {"loopback": (9, 9), "veth": (9, 9),
                                                  "udp-forward": (0, 9)}})
    text = found[0].text
    assert V.read_words(text) <= V.MAX_WORDS - 1, (V.read_words(text), text)
    assert "100\u00a0% of its completions on loopback and veth, 0\u00a0% on udp-forward" in text
    assert "faster" in text and "slower" in text

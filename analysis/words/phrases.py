"""The phrases the book's sentences share, each written here once: a configuration's name
(:func:`configuration`), a span of sizes (:func:`size_span`, :func:`size_runs`), a ratio
with its CI (:func:`ratio_ci`) and the sentence that a method never beats its baseline
(:func:`never_beats`, said only where :func:`never_faster` holds). The findings, the
headlines and the front page's advice call these; a test keeps a second way of writing
them from coming back (pure functions; no I/O).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from analysis.statistics.fmt import fmt_pct, fmt_ratio_ci, fmt_size

#: the factors of a configuration in the order its name gives them
CONFIG_FIELDS = ("scenario", "transport", "protocol", "placement", "cache", "duration_s",
                 "threads")


def _given(v: Any) -> bool:
    """Whether a table's cell holds a value (not None, NaN or NA)."""
    return v is not None and not bool(pd.isna(v))


def configuration(conf: Mapping[str, Any], fields: Sequence[str] = CONFIG_FIELDS) -> str:
    """A configuration's name from the factors ``fields`` that ``conf`` holds, in the order
    of :data:`CONFIG_FIELDS`, joined by commas: "file → socket, loopback, same-core",
    "udp-forward (UDP), same-core, 1 s windows, 1 thread", "loopback, cross-core, cold
    cache". The message scenario, the warm cache (the default) and a cache that does not
    apply are not named."""
    unknown = set(fields) - set(CONFIG_FIELDS)
    if unknown:
        raise ValueError(f"no wording for configuration factors {sorted(unknown)}")
    want = set(fields)
    parts: list[str] = []
    scen = conf.get("scenario")
    if "scenario" in want and isinstance(scen, str) and scen != "message":
        parts.append(scen.replace("→", " → "))
    t = conf.get("transport")
    if "transport" in want and isinstance(t, str):
        udp = "protocol" in want and conf.get("protocol") == "udp"
        parts.append(f"{t} (UDP)" if udp else t)
    pl = conf.get("placement")
    if "placement" in want and isinstance(pl, str):
        parts.append(pl)
    c = conf.get("cache")
    if "cache" in want and isinstance(c, str) and c not in ("warm", "n/a"):
        parts.append(f"{c} cache")
    w = conf.get("duration_s")
    if "duration_s" in want and isinstance(w, (int, float)) and _given(w):
        parts.append(f"{w:g} s windows")
    th = conf.get("threads")
    if "threads" in want and _given(th):
        parts.append(f"{int(th)} thread{'s' if int(th) != 1 else ''}")
    return ", ".join(parts)


def size_span(lo: float, hi: float) -> str:
    """A span of sizes: "64 KiB–1 MiB", or one size where ``lo`` is ``hi``."""
    return fmt_size(lo) if float(lo) == float(hi) else f"{fmt_size(lo)}–{fmt_size(hi)}"


def size_runs(sizes: Iterable[float], all_sizes: Iterable[float]) -> str:
    """``sizes`` as runs of consecutive sizes of ``all_sizes`` (those measured), each run a
    :func:`size_span`: "64 B, 1 MiB–64 MiB"."""
    order = sorted({float(x) for x in all_sizes})
    want = {float(x) for x in sizes}
    runs: list[list[float]] = []
    for i, x in enumerate(order):
        if x in want and runs and i and runs[-1][-1] == order[i - 1]:
            runs[-1].append(x)
        elif x in want:
            runs.append([x])
    return ", ".join(size_span(r[0], r[-1]) for r in runs)


def ratio_ci(r: Mapping[str, Any], rounds: bool = False) -> str:
    """A row's ratio with its CI, ``1.71× [1.11, 2.64]`` (with ``, 3 rounds`` when asked and
    the row holds its rounds ``n``). An unbounded CI (:func:`decision.rule.unbounded`) is
    said as one, with the rounds that gave it whenever the row holds them: ``1.30× (CI
    unbounded from 2 rounds: its ends more than 1,000× apart)``."""
    from decision.rule import unbounded

    n = r.get("n")
    known = _given(n) and (rounds or unbounded(r["lo"], r["hi"]))
    return fmt_ratio_ci(r["ratio"], r["lo"], r["hi"], rounds=int(n) if known else None)


def never_faster(decisions: Iterable[str]) -> bool:
    """Whether "never beats" may be said of a method from its decisions against the
    baseline: every one decided (none inconclusive), none faster, at least one slower."""
    d = list(decisions)
    return ("less" in d and "greater" not in d and "inconclusive" not in d)


def never_beats(methods: Sequence[str], baseline: str) -> str:
    """"`zerocopy` never beats `send`", "`zerocopy` and `uring-zc` never beat `send`": the
    head of the sentence; the caller says where (and by how much)."""
    names = [f"`{m}`" for m in methods]
    if not names:
        raise ValueError("never_beats: no method")
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{who} {'never beats' if len(names) == 1 else 'never beat'} `{baseline}`"


def copied_share(copied: Mapping[str, tuple[int, int]], of: str = "",
                 joiner: str = " and ") -> str:
    """What share of the zero-copy sends' completions the kernel copied, per transport
    (``copied``: transport -> (completions copied, completions)), transports of one share
    named together: "100 % on loopback and veth and 0 % on udp-forward" ("" when no
    transport has a completion); ``of`` follows the first share ("100 % of its completions
    on ..."), ``joiner`` joins the shares."""
    groups: dict[str, list[str]] = {}
    for t, (c, n) in copied.items():
        if n > 0:
            # the percentage never parts from its number at a line's end
            groups.setdefault(fmt_pct(c / n, 0).replace(" ", "\u00a0"), []).append(str(t))
    # "100 % of its completions on loopback, 0 % on udp-forward": ``of`` after the first only
    return joiner.join(f"{p}{of if i == 0 else ''} on {' and '.join(ts)}"
                       for i, (p, ts) in enumerate(groups.items()))


def crossover_phrase(at: float, lo: float, hi: float, measured: Iterable[float]) -> str:
    """A crossover size as the data support it: "at about 64 KiB, CI 48 KiB–96 KiB" only where a
    measured size lies within the CI; otherwise "between the measured sizes 4 KiB and 64 KiB"
    (the measured sizes around it), since a CI narrower than the gap between the measured
    sizes around a crossover is the interpolation's, not the data's. "" when ``at`` is not a
    size (no crossover)."""
    import math

    if not (isinstance(at, (int, float)) and math.isfinite(at)):
        return ""
    sizes = sorted({float(s) for s in measured})
    below = [s for s in sizes if s <= at]
    above = [s for s in sizes if s >= at]
    bounded = all(isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi))
    if bounded and any(lo <= s <= hi for s in sizes):
        return f"at about {fmt_size(at)}, CI {size_span(lo, hi)}"
    if below and above:
        return f"between the measured sizes {fmt_size(below[-1])} and {fmt_size(above[0])}"
    return f"at about {fmt_size(at)}, outside the measured sizes"

"""The paper says exactly what it decided, checked on the reference run 5394 (the run an
artifact evaluation read): the abstract counts as paying only the comparisons decided faster
beyond the band, and says where; a finding names only sizes measured in the configurations
it names; a crossover's CI is printed only where a measured size lies within it."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.claims.base import stream_cells
from analysis.claims.baselines import crossovers, file_comparisons
from analysis.loading import run as A
from analysis.words import abstract as AB
from analysis.words import advice as V
from analysis.words import counts as CN
from analysis.words import findings as F
from analysis.words.phrases import configuration
from decision import reading as RD

pytestmark = pytest.mark.reference

RUN = Path(__file__).resolve().parents[2] / "data" / "raw" / "20261128T171229Z-paper-5394"
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "kB": 10 ** 3, "MB": 10 ** 6,
         "GB": 10 ** 9}
SIZE = r"\d+(?:\.\d+)? (?:GiB|MiB|KiB|GB|MB|kB|B)"


def size_of(text: str) -> float:
    v, u = text.split()
    return float(v) * UNITS[u]


@pytest.fixture(scope="module")
def tables() -> dict:
    if not RUN.is_dir():
        pytest.skip(f"the reference run {RUN.name} is not in this checkout")
    run = A.load_run(RUN)
    msg = CN.message_table(run)
    curve = CN.message_comparisons(run, msg)
    cells = stream_cells(run, udp=True)
    one = cells[cells["threads"] == cells["threads"].min()]
    xo = F.crossover_agreement(crossovers(run, one, "send", A.MESSAGE_METHODS, CN.MSG_FACTORS),
                               msg, CN.MSG_FACTORS)
    return {"run": run, "msg": msg, "curve": curve, "map": V.map_data(curve),
            "files": file_comparisons(run), "xo": xo}


def test_the_abstract_counts_only_file_comparisons_decided_beyond_the_band(tables) -> None:  # noqa: ANN001
    run, files, rows = tables["run"], tables["files"], tables["map"]
    read = CN.read_rows(files, run.rounds_min)
    # the decision tables: 9 decided faster beyond the band; splice 16 MiB and splice2 1 MiB
    # (file -> file) are equivalent, sendfile 64 KiB (file -> socket) inconclusive
    assert int((read["decision"] == "greater").sum()) == 9
    facts = AB.Facts("one 2-CPU virtual machine", len(run.measured), 1.4, 1, run.rounds_min)
    first = AB.answer(rows, files, facts)
    assert "in 9 of the 32 file comparisons with `read-write`" in first, first
    greater = int((CN.read_rows(rows, run.rounds_min)["decision"] == "greater").sum())
    assert f"in {greater} of the {len(rows)} comparisons" in first, first
    # the map draws a square decided faster beyond the band only where its reading is that
    # decision (not read and receiver-bound squares are drawn white, hatched): the
    # abstract's count is what a reader counts on the map
    drawn = int(((rows["decision"] == "greater") & ~rows["read"].isin(RD.UNREAD)).sum())
    assert drawn == greater, (drawn, greater)
    # when it paid: the methods, their sizes and configurations
    assert "`mmap-write` at 1 MiB–16 MiB (file → socket, loopback, cross-core)" in first, first
    assert "`vmsplice` at 64 KiB–256 KiB (veth, cross-core)" in first, first
    assert "splice2" not in first and "16 MiB (file → file" not in first, first


def _named_configs(scope: str, rows: pd.DataFrame) -> list[str]:
    """The configurations a finding's parenthesis names (advice.scope's words)."""
    configs = list(dict.fromkeys(rows["config"]))
    if scope in ("every configuration measured", "everywhere"):
        return configs
    out = []
    for part in scope.split("; "):
        if part in configs:
            out.append(part)
        elif part in set(rows["transport"].dropna()):
            out.extend(c for c in configs if c.startswith(part))
        else:
            return []  # "several configurations": names none
    return out


def _balanced(text: str, start: int) -> str:
    """The text inside the parenthesis opening at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
    return text[start + 1:]


def test_every_front_finding_names_only_sizes_measured_where_it_says(tables) -> None:  # noqa: ANN001
    """"faster at most sizes in 16 KiB–1 MiB (udp-forward (UDP), same-core; veth,
    cross-core)" named 1 MiB for udp-forward, measured only up to 32 KiB there."""
    run, curve = tables["run"], tables["curve"]
    found = V.front_findings(curve, tables["files"], [m for m in A.MESSAGE_METHODS
                                                      if m != "send"],
                             "fig", "fig-files", windows=tables["msg"],
                             rounds_min=run.rounds_min)
    assert found
    bad = []
    for f in found:
        if f.topic != "message":
            continue
        meth = re.search(r"`([^`]+)`", f.text).group(1)
        rows = V.one_per_size(CN.read_rows(curve[curve["method"] == meth], run.rounds_min))
        every = V.one_per_size(curve[curve["method"] == meth])  # every size measured
        for m in re.finditer(rf"((?:{SIZE})(?:(?:–|, )(?:{SIZE}))*) \(", f.text):
            named = _named_configs(_balanced(f.text, m.end() - 1), rows)
            for cfg in named:
                measured = set(every.loc[every["config"] == cfg, "size"].astype(float))
                for s in re.findall(SIZE, m.group(1)):
                    if size_of(s) not in measured:
                        bad.append(f"{s} named for {cfg}: {f.text}")
    assert not bad, "\n".join(bad)


def test_no_crossover_ci_is_narrower_than_the_measured_gap_around_it(tables) -> None:  # noqa: ANN001
    """The per-configuration findings print a crossover's CI only where a measured size lies
    within it; else the measured sizes around it (vmsplice, veth cross-core: between 4 KiB
    and 64 KiB, not "about 34.5 KiB, CI 32.3–37.1 KiB")."""
    curve, xo = tables["curve"], tables["xo"]
    every = F.comparison_findings(curve, "send", CN.MSG_FACTORS, "message", "fig", xo,
                                  [m for m in A.MESSAGE_METHODS if m != "send"])
    measured: dict[str, set[float]] = {}
    for _, r in curve.iterrows():
        measured.setdefault(configuration(r.to_dict()), set()).add(float(r["size"]))
    texts = {f.config: f.text for f in every}
    checked = 0
    for cfg, text in texts.items():
        for lo, hi in re.findall(rf"crossover at about {SIZE}, CI ({SIZE})–({SIZE})", text):
            checked += 1
            assert any(size_of(lo) <= s <= size_of(hi) for s in measured[cfg]), (cfg, text)
    veth = texts["veth, cross-core, 1 s windows, 1 thread"]
    assert "crossover between the measured sizes 4 KiB and 64 KiB" in veth, veth
    udp = texts["udp-forward (UDP), same-core, 1 s windows, 1 thread"]
    assert "crossover between the measured sizes 1 KiB and 16 KiB" in udp, udp
    assert "2.9 KiB" not in udp and "34.5 KiB" not in veth

"""The parity rule of copybench against iperf3 (decision/parity.py), on constructed CIs, and
its declarations: sendmsg / iperf3 in force (both writes the kernel's copy alone), send /
iperf3 for a run that holds no sendmsg beside iperf3; a margin of its own, equal to the band it
was derived from, planned rounds narrower than it, and a row per declaration in the table of
the rules' revisions."""

from __future__ import annotations

import math

import pytest

from analysis.loading.run import instant
from analysis.words import revisions as RV
from decision import band
from decision import parity as PA


@pytest.mark.parametrize("lo,hi,want", [
    (0.95, 1.05, PA.AT_PARITY), (0.88, 1.12, PA.AT_PARITY),      # inside, edges included
    (0.80, 1.05, PA.UNDECIDED), (0.95, 1.20, PA.UNDECIDED),      # crosses one edge
    (0.70, 1.30, PA.UNDECIDED),                                  # crosses both
    (1.13, 1.40, PA.NOT_AT_PARITY), (0.60, 0.87, PA.NOT_AT_PARITY),  # wholly outside
    (math.nan, 1.0, PA.UNDECIDED), (0.9, math.inf, PA.UNDECIDED),
])
def test_reading_of_a_ci(lo: float, hi: float, want: str) -> None:
    assert PA.reading(lo, hi) == want


def test_a_narrower_margin_reads_the_same_ci_otherwise() -> None:
    assert PA.reading(0.93, 1.06, margin=0.05) == PA.UNDECIDED
    assert PA.reading(0.93, 1.06, margin=0.10) == PA.AT_PARITY


def test_the_range_is_at_parity_only_where_every_size_is() -> None:
    assert PA.overall([PA.AT_PARITY] * 4) == PA.AT_PARITY
    assert PA.overall([PA.AT_PARITY, PA.UNDECIDED]) == PA.UNDECIDED
    assert PA.overall([PA.AT_PARITY, PA.NOT_AT_PARITY, PA.UNDECIDED]) == PA.NOT_AT_PARITY
    assert PA.overall([]) == PA.UNDECIDED


def test_the_margin_is_the_band_it_was_derived_from_and_wider_than_the_planned_ci() -> None:
    # derived from the claims' band as it stood when declared: a revision of the band must
    # decide on the margin too (this test then says so)
    assert PA.MARGIN == band.SESOI
    assert PA.PLANNED_HALF_WIDTH < PA.MARGIN
    assert PA.SIZES == (16384, 65536, 262144, 1048576)


def test_chance_to_read_parity() -> None:
    # wider CIs (more noise, fewer rounds) or a true ratio near an edge: less chance
    assert PA.chance(1.0, 0.205, 21) < PA.chance(1.0, 0.12, 21) < 1
    assert PA.chance(0.90, 0.12, 21) < PA.chance(1.0, 0.12, 21)
    assert PA.chance(1.0, 0.205, 3) == 0.0  # the CI cannot fit inside the margin
    assert math.isnan(PA.chance(1.0, 0.2, 1))


def test_the_rule_in_force_reads_sendmsg_and_a_run_without_it_the_earlier_send() -> None:
    assert (PA.METHOD, PA.GAP_METHOD) == ("sendmsg", "send")
    assert PA.declaration(["sendmsg", "send", "iperf3"]) is PA.IN_FORCE
    assert PA.declaration({"sendmsg"}) is PA.IN_FORCE
    # a run whose stream-peers hold send only (the reference run 5394): the earlier one
    assert PA.declaration({"send"}) is PA.EARLIER and PA.EARLIER.method == "send"
    # nothing beside iperf3: the statement in force (there is nothing to read)
    assert PA.declaration([]) is PA.IN_FORCE
    assert instant(PA.EARLIER.declared) < instant(PA.IN_FORCE.declared)
    assert PA.DECLARATIONS == (PA.EARLIER, PA.IN_FORCE) and PA.DECLARED == PA.IN_FORCE.declared


def test_each_declaration_is_a_row_of_the_revisions_table() -> None:
    rows = [(r, w) for r, w, _ in RV.versions() if r == RV.PARITY_RULE]
    assert rows == [(RV.PARITY_RULE, instant(d.declared)) for d in PA.DECLARATIONS]
    what = [w for r, _, w in RV.versions() if r == RV.PARITY_RULE][-1]
    assert "sendmsg" in what and "20261128T171229Z-paper-5394" in what
    assert "next reference run" in what
    # a run is post hoc only against the declaration it is read under
    ebfc, r5394 = instant("2026-11-27T12:14Z"), instant("2026-11-28T17:12Z")
    assert RV.parity_post_hoc(PA.EARLIER, ebfc)
    assert not RV.parity_post_hoc(PA.EARLIER, r5394)
    assert RV.parity_post_hoc(PA.IN_FORCE, r5394)
    assert not RV.parity_post_hoc(PA.IN_FORCE, instant("2026-12-01T00:00Z"))
    assert not RV.parity_post_hoc(PA.IN_FORCE, None)

"""A ratio figure draws a crossover's CI only where a measured size lies within it; else it
shades the gap between the measured sizes around the crossover and draws no crossover line."""

from __future__ import annotations

import math

from analysis.figures.plots import crossover_span

KIB = 1024


def test_a_ci_holding_a_measured_size_is_drawn_with_its_crossover() -> None:
    assert crossover_span(40 * KIB, 20 * KIB, 70 * KIB, [4 * KIB, 64 * KIB]) == \
        (20 * KIB, 70 * KIB, True)


def test_a_ci_between_two_measured_sizes_becomes_the_gap() -> None:
    # vmsplice on veth cross-core: about 34.5 KiB, CI 32.3-37.1 KiB, measured 4 and 64 KiB
    assert crossover_span(34.5 * KIB, 32.3 * KIB, 37.1 * KIB, [4 * KIB, 64 * KIB, 1024 * KIB]) \
        == (4 * KIB, 64 * KIB, False)


def test_an_unbounded_ci_becomes_the_gap() -> None:
    assert crossover_span(2.9 * KIB, math.nan, math.inf, [KIB, 16 * KIB]) == \
        (KIB, 16 * KIB, False)


def test_a_crossover_outside_the_measured_sizes_is_not_drawn() -> None:
    assert crossover_span(512.0, 400.0, 600.0, [KIB, 16 * KIB]) is None

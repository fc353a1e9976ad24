"""The CPU each thread of each side gets (runner.host.pinning), for machines of 1 to 64 CPUs given
as a fake affinity: a CPU per thread and side where there are enough, today's two-CPU layout
(every thread of a side on one CPU) where there are not."""

from __future__ import annotations

import pytest

from runner.host.pinning import Cpus, cpus_for, cpus_needed


def ids(spec: str | None) -> list[int]:
    return [int(c) for c in spec.split(",")] if spec else []


def thread_cpus(spec: str | None, threads: int) -> list[int]:
    """What copybench does with a list: thread i on the (i mod n)-th CPU."""
    cl = ids(spec)
    return [cl[i % len(cl)] for i in range(threads)]


@pytest.mark.parametrize("n_cpus", [1, 2, 4, 16, 64])
@pytest.mark.parametrize("threads", [1, 2, 4, 8])
def test_cross_core_gives_each_thread_of_each_side_its_own_cpu_when_it_can(n_cpus, threads):
    aff = list(range(n_cpus))
    c = cpus_for("cross-core", True, threads, aff)
    snd, snk = thread_cpus(c.sender, threads), thread_cpus(c.sink, threads)
    if n_cpus >= 2 * threads:
        assert len(set(snd + snk)) == 2 * threads  # no two threads of the trial share a CPU
        assert max(snd) < n_cpus // 2 <= min(snk)  # sender in the first half, sink the second
        assert cpus_needed("cross-core", True, threads) <= n_cpus
    else:  # too few: the sender on the first CPU, the sink on the second, as on 2 CPUs
        assert c == Cpus("0", "1" if n_cpus > 1 else "0")
        assert cpus_needed("cross-core", True, threads) > n_cpus


@pytest.mark.parametrize("n_cpus", [1, 2, 4, 16, 64])
@pytest.mark.parametrize("threads", [1, 2, 4, 8])
def test_same_core_pairs_sender_thread_i_with_sink_thread_i(n_cpus, threads):
    aff = list(range(n_cpus))
    c = cpus_for("same-core", True, threads, aff)
    snd, snk = thread_cpus(c.sender, threads), thread_cpus(c.sink, threads)
    assert snd == snk  # thread i of both sides on one CPU
    if n_cpus >= threads:
        assert len(set(snd)) == threads
    else:
        assert c == Cpus("0", "0")


def test_the_two_cpu_machine_keeps_its_layout():
    """On 2 CPUs only same-core at 2 threads changes (it now has a CPU per thread pair);
    every other cell keeps the committed runs' layout."""
    assert cpus_for("same-core", True, 2, [0, 1]) == Cpus("0,1", "0,1")
    for t in (1, 2, 4, 8):
        if t != 2:
            assert cpus_for("same-core", True, t, [0, 1]) == Cpus("0", "0")
        assert cpus_for("same-core", False, t, [0, 1]) == Cpus("0", None)
        assert cpus_for("cross-core", False, t, [0, 1]) == Cpus("0,1", None)
    assert cpus_for("cross-core", True, 1, [0, 1]) == Cpus("0", "1")


def test_sixteen_cpus_table():
    aff = list(range(16))
    assert cpus_for("cross-core", True, 8, aff) == Cpus("0,1,2,3,4,5,6,7",
                                                        "8,9,10,11,12,13,14,15")
    assert cpus_for("cross-core", True, 4, aff) == Cpus("0,1,2,3", "8,9,10,11")
    assert cpus_for("cross-core", True, 1, aff) == Cpus("0", "8")
    assert cpus_for("same-core", True, 8, aff) == Cpus("0,1,2,3,4,5,6,7", "0,1,2,3,4,5,6,7")
    assert cpus_for("cross-core", False, 1, aff) == Cpus("0,1", None)  # splice2's 2nd thread


def test_an_affinity_that_is_not_from_zero():
    assert cpus_for("cross-core", True, 2, [4, 5, 6, 7]) == Cpus("4,5", "6,7")
    assert cpus_for("same-core", True, 2, [3, 9]) == Cpus("3,9", "3,9")


def test_unpinned_and_bad_placement():
    assert cpus_for("unpinned", True, 8, [0, 1]) == Cpus(None, None)
    assert cpus_needed("unpinned", True, 8) == 0
    with pytest.raises(ValueError, match="unknown placement"):
        cpus_for("elsewhere", True, 1, [0, 1])

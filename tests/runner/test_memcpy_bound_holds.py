"""The memcpy bound is a bound on this machine: at every working-set size
the runner measures it at (runner/manifest.py: each size of a committed profile from
MEMCPY_MIN_SIZE up, and the 64 MiB headline), ``copybench memcpy`` reads above the fastest of
copybench's own single-thread copying methods at that size, both measured live here; and its
output states where the buffers sat, so a manifest records it.

Before the buffers were page-aligned, copybench memcpy copied between two consecutive mallocs:
at 64 KiB (below glibc's mmap threshold) the destination sat 16 bytes past the source modulo
4096, where glibc's ``rep movsb`` runs ~20x slower on AMD Zen 3, and the 64 KiB "bound" read
~15 Gbit/s, below copy_file_range's ~22 Gbit/s at the same size.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from runner.host import manifest as M
from runner.plan import profile as P

#: copybench copy's methods that copy on one thread (splice2 uses a second thread on a second
#: CPU, which a one-CPU memcpy does not bound)
COPY_METHODS = ("read-write", "sendfile", "splice", "copy_file_range")
#: short windows (the test has about 20 s for all sizes); best of a few readings on each side,
#: so that a neighbour's burst on this shared 2-CPU machine lowers neither side's peak alone
MEMCPY_READINGS, MEMCPY_SECONDS = 3, 0.1
COPY_READINGS, COPY_SECONDS, COPY_WARMUP = 2, 0.15, 0.05


def bound_sizes() -> list[int]:
    """The working-set sizes memcpy bounds are measured at in a run of any committed profile."""
    sizes = {M.MEMCPY_DEFAULT_SIZE}
    for name in P.available():
        for e in P.load(name).experiments:
            sizes |= {int(s) for s in e.sizes if s >= M.MEMCPY_MIN_SIZE}
    return sorted(sizes)


#: copybench's exit status for a measured window it missed (descheduled on a busy machine):
#: a reading to take again, not a result; the test is about the bound, not about timing
EXIT_WINDOW_MISSED, WINDOW_TRIES = 3, 5


def _json(argv: list[str]) -> dict:
    for _ in range(WINDOW_TRIES):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        if r.returncode != EXIT_WINDOW_MISSED:
            break
    assert r.returncode == 0, (argv, r.stderr[-500:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def memcpy_gbit(binary: Path, size: int) -> float:
    return max(_json([str(binary), "memcpy", "--size", str(size), "--cpus", "0",
                      "--duration", f"{MEMCPY_SECONDS:g}"])["bound_gbit_per_s"]
               for _ in range(MEMCPY_READINGS))


def copy_gbit(binary: Path, method: str, size: int) -> float:
    best = 0.0
    for _ in range(COPY_READINGS):
        d = _json([str(binary), "copy", "--method", method, "--size", str(size), "--cpus", "0",
                   "--duration", f"{COPY_SECONDS:g}", "--warmup", f"{COPY_WARMUP:g}",
                   "--verify", "off", "--counters", "rusage", "--dir", M.COPY_DIR])
        assert d["status"] == "ok", d
        best = max(best, d["result"]["gbit_per_s"])
    return best


def test_the_runners_bound_sizes_are_the_profiles() -> None:
    sizes = bound_sizes()
    assert 65536 in sizes and M.MEMCPY_DEFAULT_SIZE in sizes
    assert min(sizes) >= M.MEMCPY_MIN_SIZE


@pytest.mark.slow  # about 20-35 s of live measurements: make test-slow
@pytest.mark.parametrize("size", bound_sizes())
def test_memcpy_bound_is_above_every_copying_method(runner_copybench: Path, size: int) -> None:
    copies = {m: copy_gbit(runner_copybench, m, size) for m in COPY_METHODS}
    bound = memcpy_gbit(runner_copybench, size)
    fastest = max(copies, key=copies.get)
    assert bound > copies[fastest], (
        f"memcpy is no bound at {size} B: {bound:.1f} Gbit/s, {fastest} {copies[fastest]:.1f} "
        f"Gbit/s (all: {copies})")


@pytest.mark.parametrize("size", [65536, 1 << 20])
def test_memcpy_states_where_the_buffers_sat(runner_copybench: Path, size: int) -> None:
    d = _json([str(runner_copybench), "memcpy", "--size", str(size), "--duration", "0.01"])
    # page-aligned, the destination 0 bytes past the source modulo 4096, whatever the size
    # (64 KiB comes from malloc's heap, 1 MiB from its mmap path)
    assert (d["src_offset_mod_4096"], d["dst_offset_mod_4096"]) == (0, 0), d
    m = M.memcpy_bandwidth(runner_copybench, sizes=[size])
    assert m["dst_offset_mod_4096"] == 0 and m["at_sizes"][0]["dst_offset_mod_4096"] == 0

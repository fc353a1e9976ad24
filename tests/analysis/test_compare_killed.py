"""``make compare`` killed with SIGKILL while its notebook runs leaves nothing: no kernel
process, no kernel connection file (it holds the key to run code in the kernel) in $TMPDIR or
anywhere, and no partial report beside the output. A real compare of a real (small) run with
itself, killed once its kernel runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from conftest import ROOT, another_run_like, copy_run

pytestmark = pytest.mark.slow  # a notebook kernel starts (about 10 s on a loaded 2-CPU machine)


def _kernels(p: psutil.Process) -> list[psutil.Process]:
    out = []
    for c in p.children(recursive=True):
        try:
            if "ipykernel" in " ".join(c.cmdline()):
                out.append(c)
        except psutil.Error:
            continue
    return out


def test_sigkill_of_compare_leaves_nothing(runner_small_run: Path, tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run")
    ref = another_run_like(runner_small_run, tmp_path / "ref")  # not the run itself: refused
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    home = tmp_path / "home"  # the Jupyter runtime directory would be under it
    home.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir), HOME=str(home), PYTHONPATH=str(ROOT))
    env.pop("JUPYTER_RUNTIME_DIR", None)
    out = tmp_path / "reports" / "report"
    p = subprocess.Popen([sys.executable, "-m", "analysis.compare_report", str(run), str(ref),
                          "--out", str(out)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    me = psutil.Process(p.pid)
    deadline = time.monotonic() + 180
    while not (kernels := _kernels(me)):
        assert p.poll() is None and time.monotonic() < deadline, "no kernel ever ran"
        time.sleep(0.05)
    time.sleep(1.0)  # the kernel is up and has its connection file
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    _, alive = psutil.wait_procs(kernels, timeout=20)
    try:
        assert alive == [], f"kernel still running: {[k.pid for k in alive]}"
        deadline = time.monotonic() + 20
        while list((tmp_path / "reports").iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list((tmp_path / "reports").iterdir()) == []  # no partial .report.XXXX/
        left = [str(f) for d in (tmpdir, home) for f in d.rglob("*") if f.is_file()]
        # matplotlib's font cache, built on a fresh machine's first plot, is no kernel's file
        assert not [f for f in left if f.endswith(".json") and "/.cache/matplotlib/" not in f], left
    finally:
        for k in alive:
            k.kill()  # the kernel this test's compare started

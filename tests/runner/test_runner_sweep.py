"""End-to-end sweeps with the real copybench: the smoke profile on loopback and veth, an
interrupted sweep resumed to completion, a run killed mid-trial leaving nothing behind, and
failing trials recorded while the sweep goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import tomllib
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from decision.quantities import primary
from runner.plan import profile as prof_mod
from runner.plan.adaptive import decide
from runner.plan.profile import Repetitions

from conftest import (ROOT, run_runner, runner_cmd, runner_env, runner_namespaces,
                      runner_root_links, runner_tagged_pids, write_sweep_profile)

pytestmark = pytest.mark.sweep


def _records(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "trials.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _verify(run_dir: Path) -> None:
    try:
        from rundir.verify import verify
    except ImportError:
        return
    report = verify(run_dir)
    assert report.ok, report.problems[:10]


def _expect_complete(run_dir: Path) -> list[dict[str, Any]]:
    """Every planned trial exactly once; adaptive rounds contiguous; order_index 0..n-1."""
    plan = json.loads((run_dir / "plan.json").read_text())
    recs = _records(run_dir)
    ids = [r["trial_id"] for r in recs]
    dup = [k for k, v in Counter(ids).items() if v > 1]
    assert not dup, f"duplicated trials: {dup}"
    fixed = {t for rnd in plan["rounds"] for t in rnd}
    assert fixed <= set(ids), f"missing: {sorted(fixed - set(ids))[:5]}"
    reps_by_cell: dict[str, list[int]] = {}
    for r in recs:
        if r["repetition"] >= 1:
            reps_by_cell.setdefault(r["cell"], []).append(r["repetition"])
    lo, hi = plan["repetitions"]["min"], plan["repetitions"]["max"]
    assert set(reps_by_cell) == set(plan["cells"])
    for cell, reps in reps_by_cell.items():
        assert sorted(reps) == list(range(1, len(reps) + 1)), (cell, reps)
        assert lo <= len(reps) <= hi
    assert sorted(r["order_index"] for r in recs) == list(range(len(recs)))
    return recs


def _adaptive_count(cell_recs: list[dict[str, Any]], reps: Repetitions) -> int:
    """How many repetitions the adaptive rule gives a cell whose repetitions in order are
    ``cell_recs``: the first count after which it asks for no more."""
    runs = sorted((x for x in cell_recs if x["repetition"] >= 1), key=lambda x: x["repetition"])
    values = [primary(x) for x in runs]
    n = 1
    while decide(n, [v for v in values[:n] if v is not None], reps, runs[0]["cell"]).more:
        n += 1
    return n


def _ours(names: set[str], tag: str | None) -> set[str]:
    """Namespaces that are not another live sweep's (other people may run sweeps on the same
    machine): their owner pid (``cb<pid>-``) is dead, or is one of our tagged processes."""
    tagged = runner_tagged_pids(tag) if tag else set()
    out = set()
    for n in names:
        pid = n[2:].split("-")[0]
        if not pid.isdigit() or int(pid) in tagged or not Path(f"/proc/{pid}").exists():
            out.add(n)
    return out


def _no_leftovers(tag: str | None = None, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _ours(runner_namespaces(), tag) and not (tag and runner_tagged_pids(tag)):
            break
        time.sleep(0.1)
    left = _ours(runner_namespaces(), tag)
    assert not left, f"namespaces left: {left}"
    assert not runner_root_links(), f"links left: {runner_root_links()}"
    if tag:
        assert not runner_tagged_pids(tag), "processes left behind"


def _profile(tmp_path: Path, body: str, name: str = "t", reps: str = "min = 1\nmax = 1",
             duration: float = 0.2) -> Path:
    """The shared sweep profile with this test's experiments (``body``, TOML) and
    repetitions (``reps``, TOML)."""
    return write_sweep_profile(tmp_path, name, duration_s=duration,
                               repetitions=tomllib.loads(reps),
                               experiments=tomllib.loads(body)["experiment"])


# --- the smoke profile ---------------------------------------------------------------------

@pytest.mark.slow  # in make test-slow: make test stays under 15 min
@pytest.mark.root
def test_smoke_end_to_end_loopback_and_veth(runner_copybench: Path, runner_root: None,
                                            tmp_path: Path) -> None:
    run_dir = tmp_path / "smoke"
    t0 = time.monotonic()
    r = run_runner("sweep", "--profile", "smoke", "--run-dir", str(run_dir), timeout=240)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    assert wall < 90, f"smoke took {wall:.0f} s"
    for f in ("plan.json", "manifest.json", "trials.jsonl", "sessions.json",
              "profiles/smoke.toml"):
        assert (run_dir / f).is_file(), f
    recs = _expect_complete(run_dir)
    by = Counter((r["config"]["kind"], r["config"]["transport"]) for r in recs
                 if r["status"] == "ok")
    assert by[("copybench", "loopback")] >= 4
    assert by[("copybench", "veth")] >= 4
    assert by[("copybench", "udp-forward")] >= 2
    assert by[("copybench", None)] >= 2  # file -> file copy
    assert by[("peer:iperf3", "loopback")] >= 2 and by[("peer:iperf3", "veth")] >= 2
    assert by[("peer:sockperf", "loopback")] >= 2
    bad = [(r["trial_id"], r["error"]) for r in recs if r["status"] != "ok"]
    assert not bad, bad
    for rec in recs:
        for key in ("run_id", "trial_id", "cell", "order_index", "repetition", "started_at",
                    "loadavg", "config", "status", "error", "result"):
            assert key in rec
        c = rec["config"]
        for key in ("kind", "transport", "placement", "cache"):
            assert key in c
        assert rec["run_id"] == run_dir.name and len(rec["loadavg"]) == 3
        if c["kind"] == "copybench":
            assert rec["tool"] == "copybench"
            assert rec["result"]["gbit_per_s"] > 0
    # placement applied: cross-core sender on CPU 0, sink on CPU 1
    cc = [r for r in recs if r["config"]["kind"] == "copybench"
          and r["config"]["placement"] == "cross-core" and r["config"]["transport"] == "veth"]
    assert cc and all("--cpus" in r["invocation"]["sender"] for r in cc)
    assert all(r["invocation"]["sink"][-2:] == ["--cpus", "1"] for r in cc)
    # zerocopy on udp-forward: real zero copy (nothing copied)
    udp = [r for r in recs if r["config"]["transport"] == "udp-forward"]
    assert all(r["result"]["zerocopy"]["copied"] == 0 for r in udp)
    assert all(r["result"]["zerocopy"]["completions"] > 0 for r in udp)
    # the profiled trial: a reduced perf profile stored next to the trials
    prof = [r for r in recs if r["repetition"] == 0]
    assert len(prof) == 1 and prof[0]["config"]["profiled"] is True
    pp = prof[0]["perf_profile"]
    assert "error" not in pp, pp
    reduced = json.loads((run_dir / pp["path"]).read_text())
    assert reduced["samples"] > 0 and "copy" in reduced["groups"]
    assert not list(run_dir.rglob("*.perf.data"))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["run_id"] == run_dir.name
    assert manifest["memcpy"]["memcpy_gbit_per_s"] > 0
    assert isinstance(manifest["pmu"]["available"], bool)
    assert json.loads((run_dir / "plan.json").read_text())["seed"] == 1
    assert "sweep summary" in r.stderr
    assert (run_dir / "SHA256SUMS").is_file()
    _verify(run_dir)
    _no_leftovers()


# --- interrupted and resumed ---------------------------------------------------------------

RESUME_BODY = """
[[experiment]]
name = "m"
command = "send"
methods = ["send", "sendmsg"]
sizes = ["1K", "16K"]
transports = ["loopback", "veth"]
placements = ["cross-core"]
"""


@pytest.mark.root
@pytest.mark.slow  # 21 s; resumes after SIGKILL and a torn record stay in make test
def test_sigint_mid_run_then_resume_completes_exactly_once(
        runner_copybench: Path, runner_root: None, tmp_path: Path) -> None:
    # target 0.0001: nearly every cell takes all max = 3 repetitions, so adaptive rounds run
    prof = _profile(tmp_path, RESUME_BODY, reps="min = 2\nmax = 3\ntarget_rel_ci = 0.0001")
    run_dir = tmp_path / "run"
    tag = uuid.uuid4().hex
    log = open(tmp_path / "first.log", "w")
    # A non-interactive shell starts background jobs (a CI script run with &) with SIGINT
    # ignored, and Python keeps an inherited SIG_IGN: give the sweep the default disposition a
    # user's terminal gives it, or the SIGINT below is (rightly) ignored.
    p = subprocess.Popen(runner_cmd("sweep", "--profile", str(prof), "--run-dir",
                                    str(run_dir)), stdout=log, stderr=subprocess.STDOUT,
                         cwd=str(ROOT), env=runner_env(RUNNER_TEST_TAG=tag),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trials = run_dir / "trials.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if trials.exists() and len(trials.read_text().splitlines()) >= 5:
            break
        time.sleep(0.05)
    time.sleep(0.15)  # most likely mid-trial now
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=60)
    log.close()
    assert rc == 130, (tmp_path / "first.log").read_text()[-2000:]
    first = _records(run_dir)
    assert 5 <= len(first) < 24
    assert "--resume" in (tmp_path / "first.log").read_text()
    _no_leftovers(tag)
    r = run_runner("sweep", "--resume", "--run-dir", str(run_dir), timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = _expect_complete(run_dir)
    assert all(x["status"] == "ok" for x in recs), [x["error"] for x in recs if x["error"]]
    # exactly the trials an uninterrupted run has: each cell's count replays the adaptive
    # rule on its recorded values (two values 0.01 % apart stop a cell at 2: e8c3 had 4 such
    # pairs in 2550, so about 1 run in 80 of this test has 23 trials, not 24)
    reps = prof_mod.load(str(prof)).repetitions
    got = Counter(x["cell"] for x in recs if x["repetition"] >= 1)
    want = {c: _adaptive_count([x for x in recs if x["cell"] == c], reps) for c in got}
    assert len(want) == 8 and want == dict(got), (want, got)
    assert max(want.values()) == 3  # adaptive rounds ran (and so were resumed)
    assert [x["trial_id"] for x in recs[:len(first)]] == [x["trial_id"] for x in first]
    sessions = json.loads((run_dir / "sessions.json").read_text())
    assert [s["complete"] for s in sessions] == [False, True]
    assert sessions[0]["interrupted"] == "SIGINT"
    assert (run_dir / "manifest.json").is_file()
    _verify(run_dir)
    # a second resume of a complete run runs nothing more
    r = run_runner("sweep", "--resume", "--run-dir", str(run_dir), timeout=120)
    assert r.returncode == 0
    assert len(_records(run_dir)) == 24


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
def test_resume_of_a_torn_record(runner_copybench: Path, tmp_path: Path) -> None:
    body = RESUME_BODY.replace('["loopback", "veth"]', '["loopback"]')
    prof = _profile(tmp_path, body, reps="min = 2\nmax = 2")
    run_dir = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run_dir), timeout=120)
    assert r.returncode == 0, r.stderr
    lines = (run_dir / "trials.jsonl").read_text().splitlines(keepends=True)
    # simulate a crash while writing the last record, and one whole record never written
    # (a run interrupted so is not sealed: --resume refuses a sealed run that has changed)
    (run_dir / "trials.jsonl").write_text("".join(lines[:-2]) + lines[-2][:40])
    (run_dir / "SHA256SUMS").unlink()
    r = run_runner("sweep", "--resume", "--run-dir", str(run_dir), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "torn" in r.stderr
    assert len(_expect_complete(run_dir)) == 8


def test_run_dir_not_reused_without_resume(runner_copybench: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "x").write_text("")
    r = run_runner("sweep", "--profile", "smoke", "--run-dir", str(run_dir), timeout=60)
    assert r.returncode == 2 and "--resume" in r.stderr
    r = run_runner("sweep", "--resume", "--run-dir", str(tmp_path / "nope"), timeout=60)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


# --- killed mid-trial ----------------------------------------------------------------------

KILL_BODY = """
[[experiment]]
name = "veth"
command = "send"
methods = ["sendmsg"]
sizes = ["16K"]
transports = ["veth"]
placements = ["cross-core"]

[[experiment]]
name = "udp"
command = "send"
methods = ["zerocopy"]
sizes = ["16K"]
transports = ["udp-forward"]
placements = ["same-core"]
"""


@pytest.mark.root
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_mid_trial_leaves_nothing(runner_copybench: Path, runner_root: None,
                                         tmp_path: Path, sig: int) -> None:
    prof = _profile(tmp_path, KILL_BODY, reps="min = 2\nmax = 2", duration=5.0)
    run_dir = tmp_path / "run"
    tag = uuid.uuid4().hex
    p = subprocess.Popen(runner_cmd("sweep", "--profile", str(prof), "--run-dir",
                                    str(run_dir), "--no-progress"),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(ROOT),
                         env=runner_env(RUNNER_TEST_TAG=tag))
    # wait until a copybench sender runs inside one of the sweep's namespaces
    deadline = time.monotonic() + 30
    running = False
    while time.monotonic() < deadline and not running:
        for ns in runner_namespaces(f"cb{p.pid}-"):
            out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                 text=True).stdout.split()
            cmdlines = []
            for pid in out:
                try:
                    cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
                except OSError:
                    pass
            if any(b"copybench\0send" in c for c in cmdlines):
                running = True
        time.sleep(0.05)
    assert running, "no trial started"
    p.send_signal(sig)
    p.wait(timeout=30)
    _no_leftovers(tag)
    if sig == signal.SIGTERM:
        assert p.returncode == 143
        assert p.stderr is not None and "resume" in p.stderr.read().decode()


# --- failing trials -------------------------------------------------------------------------

FAIL_BODY = """
[[experiment]]
name = "good"
command = "send"
methods = ["sendmsg"]
sizes = ["1K"]
transports = ["loopback"]
placements = ["cross-core"]

[[experiment]]
name = "too-slow"
command = "send"
methods = ["send"]
sizes = ["1K"]
transports = ["loopback"]
placements = ["same-core"]
duration_s = 30
timeout_s = 1.5
"""


def test_failing_trials_recorded_and_sweep_goes_on(runner_copybench: Path,
                                                   tmp_path: Path) -> None:
    """A trial that fails on its own (its timeout) is recorded and the sweep goes on; the
    complete run exits 0 (a failure outside the method exits 3: test_sweep_exit.py; a
    profile dir that is not there is refused first: test_one_design.py)."""
    prof = _profile(tmp_path, FAIL_BODY, reps="min = 2\nmax = 2")
    run_dir = tmp_path / "run"
    tag = uuid.uuid4().hex
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run_dir), timeout=180,
                   RUNNER_TEST_TAG=tag)
    assert r.returncode == 0, r.stderr[-2000:]
    recs = _expect_complete(run_dir)
    assert len(recs) == 4
    by = {}
    for rec in recs:
        by.setdefault(rec["config"]["experiment"], []).append(rec)
    assert all(x["status"] == "ok" and x["error"] is None for x in by["good"])
    for x in by["too-slow"]:
        assert x["status"] == "timeout"
        assert "timed out" in x["error"]
        assert x["invocation"]["wall_s"] < 10
    # the good trials ran after a failure too (the sweep went on)
    order = sorted(recs, key=lambda x: x["order_index"])
    first_bad = next(i for i, x in enumerate(order) if x["status"] != "ok")
    assert any(x["status"] == "ok" for x in order[first_bad + 1:])
    _verify(run_dir)
    _no_leftovers(tag)


# --- without root ---------------------------------------------------------------------------

NOROOT_BODY = """
[[experiment]]
name = "m"
command = "send"
methods = ["sendmsg"]
sizes = ["1K"]
transports = ["loopback", "veth", "udp-forward"]
placements = ["same-core"]
"""


def test_without_root_namespaces_skipped_with_one_line(runner_copybench: Path,
                                                       tmp_path: Path) -> None:
    import shutil
    import tempfile

    from runner.host.netns import can_create_netns
    prefix: list[str] = []
    work = Path(tempfile.mkdtemp(prefix="runner-noroot-", dir="/tmp"))
    try:
        if can_create_netns():  # drop every capability: no namespaces can be made
            if shutil.which("setpriv") is None:
                pytest.skip("setpriv (util-linux) is needed to run the sweep unprivileged")
            prefix = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all",
                      "--bounding-set=-all", "--"]
        prof = work / "noroot.toml"
        prof.write_text(_profile(tmp_path, NOROOT_BODY).read_text())
        os.chmod(prof, 0o644)
        run_dir = work / "run"
        r = subprocess.run(prefix + runner_cmd("sweep", "--profile", str(prof), "--run-dir",
                                               str(run_dir), "--no-progress"),
                           capture_output=True, text=True, cwd=str(ROOT), timeout=120,
                           env=runner_env(HOME=str(work)))
        assert r.returncode == 0, r.stderr
        root_lines = [ln for ln in r.stderr.splitlines() if "not root" in ln
                      or "namespace" in ln]
        assert len(root_lines) == 1, r.stderr
        assert "veth" in root_lines[0] and "udp-forward" in root_lines[0]
        recs = _records(run_dir)
        assert [x["config"]["transport"] for x in recs] == ["loopback"]
        assert recs[0]["status"] == "ok", recs[0]["error"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
@pytest.mark.root
def test_failed_trial_on_veth_gets_fresh_namespaces(runner_copybench: Path, runner_root: None,
                                                    tmp_path: Path) -> None:
    body = """
[[experiment]]
name = "slow"
command = "send"
methods = ["sendmsg"]
sizes = ["1K"]
transports = ["veth"]
placements = ["cross-core"]
duration_s = 30
timeout_s = 1.5

[[experiment]]
name = "good"
command = "send"
methods = ["send"]
sizes = ["1K"]
transports = ["veth"]
placements = ["cross-core"]
"""
    prof = _profile(tmp_path, body, reps="min = 2\nmax = 2")
    run_dir = tmp_path / "run"
    tag = uuid.uuid4().hex
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run_dir), timeout=120,
                   RUNNER_TEST_TAG=tag)
    assert r.returncode == 0, r.stderr[-2000:]
    recs = sorted(_expect_complete(run_dir), key=lambda x: x["order_index"])
    status = {x["config"]["experiment"]: set() for x in recs}
    for x in recs:
        status[x["config"]["experiment"]].add(x["status"])
    assert status == {"slow": {"timeout"}, "good": {"ok"}}
    # after each timeout the namespaces were removed: the next trial ran in new ones
    ns = [x["invocation"]["sender"][3] for x in recs]
    for i, x in enumerate(recs[:-1]):
        if x["status"] == "timeout":
            assert ns[i + 1] != ns[i]
    _no_leftovers(tag)

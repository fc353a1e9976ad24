"""runner.originals: the reports' own programs, fetched pinned, built and run here.

Real archives (../shared/seed-repos), real builds with their Makefiles, real runs of their
programs in namespaces; no mocks. Tests that need the archives skip, saying so, only when
../shared/seed-repos is absent; tests that need namespaces skip when not root.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runner.originals import OriginalsError, adapters, fetch, program_run, published, sources
from runner.originals import build as build_mod
from runner.originals.privs import proc_identity, run_as
from runner.host.proc import Janitor
from runner.host.netns import leftovers
from rundir.schemas import TRIAL_SCHEMA, load_schema, schema_problems, validator_for

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "originals"
SEED = ROOT.parent / "shared" / "seed-repos"
OUTPUTS = sorted((FIX / "output").glob("*.json"))


def _cli(*args: str, timeout: float = 120, prefix: tuple[str, ...] = (),
         **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("COPYBENCH_ORIGINALS")}
    e["PYTHONPATH"] = str(ROOT)
    e.update(env)
    return subprocess.run([*prefix, sys.executable, "-m", "runner.originals", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                          env=e, check=False)


def _need_seed() -> None:
    """The archives beside the checkout (marker ``shared``: not in make test)."""
    if not SEED.is_dir():
        msg = f"needs the archives in {SEED} (../shared/seed-repos beside the clone)"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


def _need_root() -> None:
    if os.geteuid() != 0:
        msg = "needs root: network namespaces and dropping to the unprivileged user"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


def _listening_here(port: int = adapters.PORT) -> bool:
    return program_run._listening(os.getpid(), port)


# --- the pin ---------------------------------------------------------------------------

def test_pin_refuses_the_tampered_archive_and_keeps_nothing(tmp_path: Path) -> None:
    pins = sources.load(FIX / "SOURCES.tsv")
    with pytest.raises(OriginalsError) as e:
        fetch.fetch(pins["TAMPERED"], archives=FIX / "archives", cache=tmp_path)
    msg = str(e.value)
    assert "\n" not in msg
    assert "refusing" in msg and pins["TAMPERED"].tree in msg
    assert "1338e064943f5a80d8035151d7fea4688791e74e" in msg  # the tampered tree, computed
    assert list(tmp_path.rglob("*.c")) == [] and list(tmp_path.rglob("Makefile")) == []


def test_pin_accepts_the_matching_archive_then_refuses_an_edited_cache(tmp_path: Path) -> None:
    pins = sources.load(FIX / "SOURCES.tsv")
    good = fetch.fetch(pins["GOOD"], archives=FIX / "archives", cache=tmp_path)
    assert good.tree == pins["GOOD"].tree
    assert (good.dir / "Makefile").is_file() and not (good.dir / ".git").exists()
    assert fetch.fetch(pins["GOOD"], cache=tmp_path).origin == "cache"
    (good.dir / "hello.c").write_text("int main(void) { return 1; }\n")
    with pytest.raises(OriginalsError, match="changed after fetching"):
        fetch.fetch(pins["GOOD"], cache=tmp_path)


def test_cli_pin_refusal_is_one_line_exit_1(tmp_path: Path) -> None:
    r = _cli("fetch", "TAMPERED", "--pins", str(FIX / "SOURCES.tsv"), "--archives",
             str(FIX / "archives"), "--cache", str(tmp_path))
    assert r.returncode == 1, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "refusing" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_bad_usage_exit_2(tmp_path: Path) -> None:
    for args in (["fetch", "S7"], ["run", "--method", "S1:four-copy"],
                 ["run", "--method", "S1:two-copy", "--size", "100"],
                 ["fetch", "--archives", str(tmp_path / "nope")]):
        r = _cli(*args, "--cache", str(tmp_path))
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_default_is_github_and_fails_in_one_line_without_it(tmp_path: Path) -> None:
    """No --archives and no $COPYBENCH_ORIGINALS_ARCHIVES: GitHub's archive URL. Where GitHub
    is unreachable (this VM) that is one line naming the URL and the way out."""
    r = _cli("fetch", "S3", "--cache", str(tmp_path), timeout=180)
    src = sources.load()["S3"]
    if r.returncode == 0:  # a machine with GitHub: the download was verified like any other
        assert "github.com" in r.stdout
        return
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1, r.stderr
    assert src.url in r.stderr and "--archives" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / src.key / "source").exists()


# --- fetch and build from the local archives ------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """All three repositories fetched from ../shared/seed-repos and built (once)."""
    _need_seed()
    cache = tmp_path_factory.mktemp("originals")
    out = {}
    for src in sources.select(None):
        f = fetch.fetch(src, archives=SEED, cache=cache)
        out[src.id] = {"fetched": f, "build": build_mod.build(f)}
    return out


@pytest.mark.shared
def test_fetch_from_the_local_directory_needs_no_network(tmp_path: Path) -> None:
    _need_seed()
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0 and shutil.which("unshare"):
        prefix = ("unshare", "--net")  # a network namespace with no interface at all
    r = _cli("fetch", "--cache", str(tmp_path), prefix=prefix,
             COPYBENCH_ORIGINALS_ARCHIVES=str(SEED))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3
    for src, line in zip(sources.select(None), lines):
        assert line.startswith(f"{src.id} {src.repository}@{src.commit[:12]} tree "
                               f"{src.tree[:12]} ok ({SEED / src.archive_name})")
        assert fetch.tree_hash(tmp_path / src.key / "source") == src.tree


@pytest.mark.shared
def test_builds_as_published_unprivileged(built: dict[str, dict[str, object]]) -> None:
    for sid, b in ((k, v["build"]) for k, v in built.items()):
        assert b["ok"], (sid, b["reason"], b["stderr_tail"])
        assert b["reason"] is None and b["returncode"] == 0
        assert str(b["compiler"]).startswith(("gcc", "cc"))
        assert set(b["binaries"]) == set(adapters.binaries(sid))
        assert b["warning_count"] == len(b["warnings"])
        for name in b["binaries"]:
            st = (Path(b["dir"]) / name).stat()
            if os.geteuid() == 0:
                assert st.st_uid == run_as().uid != 0, name  # made by the unprivileged user
    s1, s2, s3 = (built[k]["build"] for k in ("S1", "S2", "S3"))
    assert s1["flags"] == ["-pthread", "-Wall"]           # their Makefile: no -O
    assert "-O2" in s2["flags"] and "-Wextra" in s2["flags"]
    assert "-O2" in s3["flags"] and "-lpthread" in s3["flags"]
    assert any("unused variable" in w for w in s1["warnings"])
    # the verified copy stays untouched: building happened in a copy
    assert fetch.tree_hash(built["S1"]["fetched"].dir) == sources.load()["S1"].tree


def test_a_failed_build_is_a_record_not_a_crash(tmp_path: Path) -> None:
    b = build_mod.build_tree(FIX / "broken", tmp_path / "b", expect=["prog"])
    assert b["ok"] is False and b["returncode"] == 2
    assert "missing.c" in b["reason"] and "\n" not in b["reason"]
    assert b["binaries"] == {}


# --- parsers on their real output -------------------------------------------------------

@pytest.mark.parametrize("path", OUTPUTS, ids=[p.stem for p in OUTPUTS])
def test_parser_on_captured_output(path: Path) -> None:
    fx = json.loads(path.read_text())
    prog = adapters.program(fx["method"])
    cfg = fx["config"]
    size, dur = cfg["size"], cfg["duration_s"]
    res = prog.parse(fx["client_outputs"], size, dur, fx["server_output"], cfg["server_args"])
    assert res["bytes"] > 0 and res["gbit_per_s"] > 0 and res["seconds"] > 0
    text = fx["client_outputs"][0]
    if prog.source == "S1":
        assert fx["client_argvs"][0][4] == str(size // 8)        # per-field argument
        assert f"{size // 8} bytes/field" in text
        gbps = float(re.search(r"Throughput: ([0-9.]+) Gbps", text).group(1))
        # their "Gbps" is MiB*8/(duration*1000): ours (SI) is 1.048576 times it
        assert res["gbit_per_s"] == pytest.approx(gbps * 1.048576, rel=2e-3, abs=1e-4)
        # their latency is the window over the messages received, not a round trip
        assert res["latency_us"] == pytest.approx(dur * 1e6 / res["messages"], rel=2e-3)
        assert res["seconds"] == dur
    elif prog.source == "S2":
        assert len(fx["client_outputs"]) == cfg["threads"]       # one process per thread
        assert fx["client_argvs"][0][2] == str(size)             # per-message argument
        firsts = [int(re.search(r"Total bytes received: (\d+)", t).group(1))
                  for t in fx["client_outputs"]]
        assert res["bytes"] == sum(firsts)
        assert res["published_gbps"] == res["clients"][0]["throughput_gbps"]
        for c in res["clients"]:
            assert c["bytes"] == c["messages"] * size             # whole messages only
        assert res["stopped_early"] == (res["seconds"] < dur - 0.5)
        if dur >= 3:
            # their server returns from main 2 s after the last accept
            assert res["stopped_early"] and res["seconds"] < 2.6
            assert res["server"]["elapsed_s"] < 2.6
    else:
        gbps = float(re.search(r"Throughput: ([0-9.]+) Gbps", text).group(1))
        assert res["gbit_per_s"] == pytest.approx(gbps, rel=1e-5)
        assert res["seconds"] <= dur + 0.5
        assert res["message_bytes_sent"] == size
        assert res["stopped_early"] == (res["seconds"] < dur - 1)


#: S3's zero-copy client, 64 KiB, 4 threads, 2 s asked: its output in trial 101d77eaef6c-1 of
#: the reference run 20261123T151436Z-paper-f0ed (every connection ended after 26 ms)
S3_EARLY = ("Starting 4 client receiver threads...\n\nTest complete.\nTotal bytes received: "
            "34471936\nTest Duration (Actual): 0.026100 seconds\nThroughput: 10.566111 Gbps\n"
            "Average Latency: 164.669145 us\n")


def test_s3_flags_a_window_that_ended_before_its_tv_sec_rule_allows() -> None:
    res = adapters.parse_s3([S3_EARLY], 65536, 2)
    assert res["stopped_early"] and res["seconds"] == pytest.approx(0.0261)
    full = S3_EARLY.replace("0.026100", "1.518724")
    assert not adapters.parse_s3([full], 65536, 2)["stopped_early"]


def test_parsers_name_the_missing_line() -> None:
    for name, text in (("S1:two-copy", "Starting Client (A1)\nThroughput: 1.0 Gbps\n"),
                       ("S2:two-copy", "=== Client Statistics ===\nTotal bytes received: 8\n"),
                       ("S3:two-copy", "Test complete.\n")):
        with pytest.raises(adapters.ParseError) as e:
            adapters.program(name).parse([text], 512, 2)
        assert "no '" in str(e.value) and "line" in str(e.value)


def test_size_mapping() -> None:
    assert adapters.program("S1:two-copy").client_argvs("h", 512, 2, 3)[0] == \
        ["./client_a1", "h", "8080", "2", "64", "3"]
    assert adapters.program("S2:one-copy").server_argv(4096, 4, 3) == \
        ["./MT25018_Part_A2_Server", "4096", "4"]
    assert len(adapters.program("S2:one-copy").client_argvs("h", 4096, 4, 3)) == 4
    assert adapters.program("S3:zero-copy").server_argv(1024, 4, 3) == \
        ["./zero_copy_server", "1024", "3"]
    assert adapters.program("S3:zero-copy").server_argv(1024, 4, 3, "script") == \
        ["./zero_copy_server"]


# --- their published numbers ------------------------------------------------------------

@pytest.mark.shared
def test_published_numbers_from_their_csvs(built: dict[str, dict[str, object]]) -> None:
    rows, missing = published.read({k: v["fetched"].dir for k, v in built.items()})
    c1 = {r["method"]: r["value"] for r in rows if r["claim"] == "C1"}
    # CLAIMS.md: 58.82 / 99.93 / 7111.74 us, 64 B per field, 1 thread
    assert c1 == pytest.approx({"S1:two-copy": 58.8188, "S1:one-copy": 99.9315,
                                "S1:zero-copy": 7111.7433})
    c6 = sorted((r["threads"], r["value"]) for r in rows if r["claim"] == "C6")
    assert [t for t, _ in c6] == [1, 2, 4, 8]
    assert {m["claim"] for m in missing if m["source"] == "S3"} >= {"C8", "C9", "C10"}


# --- running their programs --------------------------------------------------------------

def _processes_of(uid: int) -> list[int]:
    """Pids of live processes whose real uid is ``uid`` (to show nothing was left)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            ident = proc_identity(int(d))
            if ident.get("uid", [None])[0] == uid:
                out.append(int(d))
    return out


def _no_leftovers(uid: int, listening_before: bool) -> None:
    assert leftovers(os.getpid()) == []
    assert _processes_of(uid) == []
    assert _listening_here() == listening_before


SMOKE = [("S1:two-copy", "loopback", 2, 512, 1), ("S1:zero-copy", "veth", 1, 512, 1),
         ("S2:zero-copy", "loopback", 2, 4096, 1), ("S2:one-copy", "veth", 1, 65536, 1),
         ("S3:one-copy", "loopback", 2, 16384, 2), ("S3:two-copy", "veth", 1, 1024, 2)]


@pytest.mark.parametrize("name,transport,threads,size,duration", SMOKE,
                         ids=[f"{s[0]}-{s[1]}" for s in SMOKE])
@pytest.mark.shared
def test_smoke_run_leaves_nothing_behind(built: dict[str, dict[str, object]], name: str,
                                         transport: str, threads: int, size: int,
                                         duration: int) -> None:
    _need_root()
    prog = adapters.program(name)
    who = run_as()
    before = _listening_here()
    j = Janitor()
    try:
        rec = program_run.run_program(prog, Path(built[prog.source]["build"]["dir"]), transport,
                                "cross-core", threads, size, duration, janitor=j, who=who)
    finally:
        j.close()
    assert rec.status == "ok", rec.error
    res = rec.result
    assert res is not None and res["bytes"] > 0 and res["gbit_per_s"] > 0
    assert rec.config["server_cpus"] != rec.config["client_cpus"]  # cross-core
    ns = rec.config["namespaces"]
    assert (ns["server"] == ns["client"]) == (transport == "loopback")
    assert rec.identity
    for who_, ident in rec.identity.items():
        assert ident["uid"] == [who.uid] * 4 and who.uid != 0, who_
        # pinned by taskset as placement says: server = sender's CPU, client = sink's
        want = rec.config["server_cpus" if who_ == "server" else "client_cpus"]
        assert ident["cpus"] == want, (who_, ident["cpus"], want)
        assert ident["cap_eff"] == "0000000000000000" and ident["no_new_privs"], who_
    _no_leftovers(who.uid, before)


@pytest.mark.shared
def test_their_processes_run_without_root(built: dict[str, dict[str, object]]) -> None:
    """Read /proc/<pid>/status of their server and client while they run."""
    _need_root()
    seen: dict[str, object] = {}

    def look(server: int, clients: list[int]) -> None:
        seen["server"] = (Path(f"/proc/{server}/comm").read_text().strip(),
                          proc_identity(server))
        seen["clients"] = [(Path(f"/proc/{c}/comm").read_text().strip(), proc_identity(c))
                           for c in clients]

    prog = adapters.program("S1:one-copy")
    rec = program_run.run_program(prog, Path(built["S1"]["build"]["dir"]), "loopback",
                            "same-core", 1, 512, 1, on_running=look)
    assert rec.status == "ok", rec.error
    comm, ident = seen["server"]
    assert comm == "server_a2"
    assert all(u != 0 for u in ident["uid"]) and all(g != 0 for g in ident["gid"])
    assert ident["groups"] == [] and ident["cap_eff"] == "0000000000000000"
    for comm, ident in seen["clients"]:
        assert comm == "client_a2" and all(u != 0 for u in ident["uid"])


@pytest.mark.shared
def test_s2_server_stops_sending_early(built: dict[str, dict[str, object]]) -> None:
    """Their server returns from main 2 s after its last accept: with a 4 s window the
    client sees EOF after about 2 s, and the record says so."""
    _need_root()
    prog = adapters.program("S2:two-copy")
    rec = program_run.run_program(prog, Path(built["S2"]["build"]["dir"]), "loopback",
                            "same-core", 1, 4096, 4)
    assert rec.status == "ok", rec.error
    assert rec.result and rec.result["stopped_early"] and 1.5 < rec.result["seconds"] < 2.6
    assert rec.exit and rec.exit["server_ran_to_window_end"] is False


@pytest.mark.shared
def test_cli_run_writes_a_record(built: dict[str, dict[str, object]], tmp_path: Path) -> None:
    _need_root()
    cache = Path(built["S3"]["fetched"].dir).parent.parent
    out = tmp_path / "trials.jsonl"
    r = _cli("run", "--method", "S3:zero-copy", "--transport", "veth", "--size", "4096",
             "--duration", "2", "--cache", str(cache), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert re.match(r"S3:zero-copy veth same-core t=1 size=4096 \(message arg 4096\): "
                    r"[0-9.]+ Gbit/s", r.stdout)
    (rec,) = [json.loads(x) for x in out.read_text().splitlines()]
    # the same record shape as a sweep's trials.jsonl: valid under the trial schema
    assert schema_problems(validator_for(load_schema(TRIAL_SCHEMA)), rec, "record") == []
    assert rec["tool"] == "S3:zero-copy" and rec["status"] == "ok"
    pin = sources.load()["S3"]
    assert rec["tool_version"] == f"{pin.repository}@{pin.commit[:12]}"
    assert rec["config"]["kind"] == "original:S3" and rec["config"]["size_arg"] == 4096
    assert rec["result"]["gbit_per_s"] > 0 and rec["identity"]["server"]["uid"][0] != 0


@pytest.mark.shared
def test_sigkilled_runner_leaves_nothing_behind(built: dict[str, dict[str, object]]) -> None:
    """SIGKILL the runner in the middle of a window: the parent-death signal and the reaper
    remove their processes and the namespaces."""
    _need_root()
    import signal
    import time
    who = run_as()
    before = _listening_here()
    cache = Path(built["S1"]["fetched"].dir).parent.parent
    e = {k: v for k, v in os.environ.items() if not k.startswith("COPYBENCH_ORIGINALS")}
    e["PYTHONPATH"] = str(ROOT)
    p = subprocess.Popen([sys.executable, "-m", "runner.originals", "run", "--method",
                          "S1:two-copy", "--transport", "veth", "--duration", "30",
                          "--cache", str(cache)], cwd=str(ROOT), env=e,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while len(_processes_of(who.uid)) < 2:  # server and client both running
            assert p.poll() is None and time.monotonic() < deadline, "run did not start"
            time.sleep(0.05)
        assert leftovers(p.pid)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 15
        while (_processes_of(who.uid) or leftovers(p.pid)) and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_of(who.uid) == []
        assert leftovers(p.pid) == []
        assert _listening_here() == before
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def _python_for(uid: int) -> str | None:
    """A Python >= 3.11 the unprivileged user can execute (ours may live under /root)."""
    for cand in (sys.executable, "/usr/bin/python3"):
        r = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                            "--reset-env", "env", cand, "-c",
                            "import sys; assert sys.version_info >= (3, 11)"],
                           capture_output=True, check=False)
        if r.returncode == 0:
            return cand
    return None


@pytest.fixture
def request_cleanup():
    paths: list[Path] = []
    yield paths
    for p in paths:
        shutil.rmtree(p, ignore_errors=True)


@pytest.mark.shared
def test_an_unprivileged_runner_builds_and_runs_as_itself(request_cleanup: list[Path]
                                                          ) -> None:
    """Without root: their code runs as the caller, loopback in the caller's namespace (here
    a fresh one from unshare, so port 8080 is free), and veth is a one-line usage error."""
    _need_root()
    _need_seed()
    who = run_as()
    py = _python_for(who.uid)
    if py is None or not shutil.which("unshare"):
        pytest.skip("no Python >= 3.11 the unprivileged user can run, or no unshare")
    import tempfile
    cache = Path(tempfile.mkdtemp(prefix="cb-orig-unpriv-"))  # outside root's 0700 tmp
    os.chown(cache, who.uid, who.gid)
    request_cleanup.append(cache)
    drop = ["setpriv", f"--reuid={who.uid}", f"--regid={who.gid}", "--clear-groups",
            "--reset-env", "env", f"PYTHONPATH={ROOT}", py, "-m", "runner.originals", "run",
            "--method", "S1:two-copy", "--duration", "1", "--cache", str(cache),
            "--archives", str(SEED)]
    script = (f"ip link set lo up && {' '.join(drop)} && "
              f"{' '.join(drop)} --transport veth; echo rc=$?")
    r = subprocess.run(["unshare", "--net", "sh", "-c", script], capture_output=True,
                       text=True, timeout=120, cwd=str(ROOT), check=False)
    assert f"[uid {who.uid}]" in r.stdout, r.stdout + r.stderr
    assert "rc=2" in r.stdout
    assert r.stderr.strip().splitlines() == [
        "python -m runner.originals: transport veth needs root (network namespaces)"]
    assert all(p.stat().st_uid == who.uid for p in cache.rglob("*"))


def test_runner_cli_delegates_to_originals(tmp_path: Path) -> None:
    e = {k: v for k, v in os.environ.items() if not k.startswith("COPYBENCH_ORIGINALS")}
    e["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, "-m", "runner", "originals", "fetch", "TAMPERED",
                        "--pins", str(FIX / "SOURCES.tsv"), "--archives", str(FIX / "archives"),
                        "--cache", str(tmp_path)], capture_output=True, text=True,
                       cwd=str(ROOT), env=e, timeout=60, check=False)
    assert r.returncode == 1
    assert r.stderr.startswith("python -m runner originals: TAMPERED fixture/demo@")
    h = subprocess.run([sys.executable, "-m", "runner", "--help"], capture_output=True,
                       text=True, cwd=str(ROOT), env=e, timeout=60, check=False)
    assert "originals" in h.stdout


def test_a_trial_refused_before_it_runs_is_a_failed_record(tmp_path: Path) -> None:
    """In a sweep, a trial of theirs that cannot start (binaries missing, arguments refused)
    is a failed record naming why, never an exception that would stop the sweep."""
    from rundir.records import TrialRecord
    from runner.plan.cells import Cell
    from runner.originals.original_trial import run_original
    from runner.trial.trialrecord import finish
    cell = Cell(kind="original:S2", command="send", method="S2:one-copy",
                transport="loopback", placement="cross-core", mode="stream", size=4096,
                threads=1, cache=None, duration_s=1.0, warmup_s=0.0, verify="off", fields=8,
                mtu=None, block_as="abc")
    prep = {"S2": {"dir": str(tmp_path / "no-build"),
                   "source": {"repository": "o/r", "commit": "0" * 40}}}
    base = TrialRecord(run_id="r", trial_id="x-1", cell=cell.id, order_index=0, repetition=1,
                       started_at="t", loadavg=[0.0, 0.0, 0.0])
    rec = finish(base, run_original(prep, cell, {"kind": cell.kind}, {"size": 4096})).to_json()
    assert rec["status"] == "failed" and rec["result"] is None
    assert "not built" in rec["error"] and rec["tool_version"] == "o/r@000000000000"

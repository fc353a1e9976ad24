"""Every entry point a user runs, given damaged or hostile input, ends in one line.

The entry points: every script in ``scripts/``, ``studies/`` and ``bench/``, every
``python -m`` module of the packages (``runner``, ``rundir``, ``decision``, ``analysis``)
that has a ``main`` (a package's ``__main__.py``, or a module with a ``main`` run under
``if __name__ == "__main__"``), and ``notebooks/finalize.py``. :data:`TOOLS` says how each is given a run (or
its input path) and an output path; :func:`test_every_entry_point_is_listed` fails when one
is added without a row here.

Each is run as a real process, on a small synthetic run (tests/fixtures/make_synthetic_run.py),
with:

* ``--help``: exit 0 and a usage text on stdout;
* a path that does not exist, an empty directory, a run whose one record holds ``NaN``:
  exit 2 (:data:`Tool.bad` where a tool documents another status), one line on stderr, no
  traceback;
* an output path that is a symbolic link to a user's file: refused the same way before any
  work, the link still a link and the file it points to unchanged.

A tool that needs root or a real machine to measure (``bench/*``, ``runner sweep``,
``studies/cwnd_after_pause.py``) gets only the bad-input cases: they must be refused before
it measures anything.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT

#: too slow for make test (every entry point started as a process, about 120 of them):
#: make test-slow runs it
pytestmark = pytest.mark.slow

PY = sys.executable
#: a case that hangs (a FIFO read, a measurement begun) fails instead of stalling the suite
TIMEOUT_S = 90
#: the content of the file the output link points to; it must never change
PRECIOUS = "the user's own file, never to be overwritten\n"

#: the packages whose ``python -m`` modules are entry points
PACKAGES = ("runner", "rundir", "decision", "analysis")

Args = Callable[["Paths", Path], list[str]]


@dataclass(frozen=True)
class Paths:
    """The inputs every case draws on (made once per session)."""

    run: Path      # a good synthetic run
    other: Path    # a second good run (a reference beside ``run``)
    scratch: Path  # a directory for new outputs


@dataclass(frozen=True)
class Tool:
    """How to start one entry point and how it is given its inputs.

    ``run`` builds the arguments naming a run (or the tool's input path) ``x``; ``out`` the
    arguments naming a good run and the output path ``x``; None where the tool has no such
    input or output. ``bad`` is the exit status of a refused input (2, the project's rule;
    a tool that documents another says why in :data:`TOOLS`), said in one line on
    ``says_on``. ``help`` is False where the entry point has no options of its own."""

    argv: tuple[str, ...]
    run: Args | None = None
    out: Args | None = None
    help: bool = True
    bad: tuple[int, ...] = (2,)
    says_on: str = "stderr"


def script(name: str, folder: str = "scripts") -> tuple[str, ...]:
    path = ROOT / folder / name
    return (str(path),) if not name.endswith(".py") else (PY, str(path))


def study(name: str) -> tuple[str, ...]:
    return script(name, "studies")


def bench(name: str) -> tuple[str, ...]:
    return (PY, str(ROOT / "bench" / name))


def module(name: str, *sub: str) -> tuple[str, ...]:
    return (PY, "-m", name, *sub)


#: the small settings a bench is started with in the output case: were the link not
#: refused first, it would measure for seconds, not minutes
FIDELITY_SMALL = ["--sizes", "64", "--transports", "loopback", "--placements", "cross-core",
                  "--rounds", "3", "--duration", "0.5", "--warmup", "0"]
HARDENED_SMALL = ["--rounds", "5", "--duration", "1", "--methods", "send"]
SENDER_SMALL = ["--rounds", "1", "--seconds", "0.5", "--size", "16M",
                "--placements", "cross-core"]

TOOLS: dict[str, Tool] = {
    # scripts/ and studies/ (scripts/setup and scripts/fresh-root build environments: see
    # EXCLUDED)
    "scripts/bundle": Tool(script("bundle"), out=lambda p, x: [str(x)]),
    "scripts/bundle_wheels.py": Tool(
        script("bundle_wheels.py"),
        run=lambda p, x: [str(x), str(p.scratch / "wheels-new"), "rich"],
        out=lambda p, x: [str(ROOT / "requirements.lock"), str(x), "rich"]),
    "studies/check_noise_model.py": Tool(study("check_noise_model.py"),
                                         run=lambda p, x: [str(p.run), str(x)]),
    "studies/cwnd_after_pause.py": Tool(study("cwnd_after_pause.py")),
    "scripts/findings_text.py": Tool(
        script("findings_text.py"), run=lambda p, x: [str(x), str(p.scratch / "text-new")],
        out=lambda p, x: [str(p.run), str(x)]),
    "studies/noise_sources.py": Tool(study("noise_sources.py"), run=lambda p, x: [str(x)]),
    "scripts/plan_dump.py": Tool(script("plan_dump.py"), out=lambda p, x: [str(x)]),
    "studies/reproduction_criterion.py": Tool(
        study("reproduction_criterion.py"), run=lambda p, x: ["--pair", str(x), str(p.run)]),
    "studies/run_targets.py": Tool(study("run_targets.py"), run=lambda p, x: [str(x)]),
    "studies/shared_time.py": Tool(study("shared_time.py"), run=lambda p, x: [str(x)]),
    "studies/shared_time_criteria.py": Tool(study("shared_time_criteria.py"),
                                            run=lambda p, x: ["--criteria", str(x)]),
    "studies/simulate_designs.py": Tool(
        study("simulate_designs.py"),
        run=lambda p, x: ["--run", str(x), "--effects", str(p.other), "--runs", "2"],
        out=lambda p, x: ["--run", str(p.run), "--effects", str(p.other), "--runs", "2",
                          "--out", str(x)]),
    "studies/simulate_topup.py": Tool(study("simulate_topup.py")),
    # bench/: they measure, so only refusals before measuring
    "bench/fidelity": Tool(bench("fidelity"), run=lambda p, x: ["--bin", str(x)],
                           out=lambda p, x: [*FIDELITY_SMALL, "--json", str(x)]),
    "bench/hardened": Tool(bench("hardened"), run=lambda p, x: ["--plain", str(x)],
                           out=lambda p, x: [*HARDENED_SMALL, "--json", str(x)]),
    "bench/sink-profile": Tool(bench("sink-profile"), run=lambda p, x: ["--bin", str(x)]),
    "bench/sender-profile": Tool(bench("sender-profile"), run=lambda p, x: ["--bin", str(x)],
                                 out=lambda p, x: [*SENDER_SMALL, "--json", str(x)]),
    # python -m modules
    "runner": Tool(module("runner")),
    "runner noise": Tool(module("runner", "noise"), run=lambda p, x: [str(x)],
                         out=lambda p, x: ["--out", str(x), str(p.run)]),
    "runner planning": Tool(
        module("runner", "planning"), run=lambda p, x: ["--profile", "claims", str(x)],
        out=lambda p, x: ["--profile", "claims", "--out", str(x), str(p.run)]),
    "runner sweep": Tool(module("runner", "sweep"),
                         run=lambda p, x: ["--resume", "--run-dir", str(x)]),
    "runner plan": Tool(module("runner", "plan"),
                        run=lambda p, x: ["--profile", str(x)]),
    "runner notebook": Tool(module("runner", "notebook")),
    "runner env": Tool(module("runner", "env")),
    "runner.originals": Tool(module("runner.originals"),
                             run=lambda p, x: ["published", "--pins", str(x)]),
    # ``rundir check`` documents 1 for a run that cannot be read or does not verify
    "rundir": Tool(module("rundir"), run=lambda p, x: ["check", str(x)], bad=(1, 2)),
    # the shell scripts' check: its one line is on stdout, which they capture
    "rundir.outpath": Tool(module("rundir.outpath"), out=lambda p, x: ["dir", str(x), "OUT"],
                           says_on="stdout"),
    "analysis.compare_report": Tool(
        module("analysis.compare_report"),
        run=lambda p, x: [str(x), str(p.other), "--out", str(p.scratch / "cmp-new")],
        out=lambda p, x: [str(p.run), str(p.other), "--out", str(x)]),
    "analysis.comparison.compare_report": Tool(
        module("analysis.comparison.compare_report"),
        run=lambda p, x: [str(x), str(p.other), "--out", str(p.scratch / "cmp-new")],
        out=lambda p, x: [str(p.run), str(p.other), "--out", str(x)]),
    # the notebooks' Study of a run, made before they read it
    "analysis.study": Tool(module("analysis.study"), run=lambda p, x: ["build", str(x)]),
    # the book's step after papermill: reads and rewrites the executed notebook in place
    "notebooks/finalize.py": Tool((PY, str(ROOT / "notebooks" / "finalize.py")),
                                  run=lambda p, x: [str(x)], out=lambda p, x: [str(x)]),
}

#: entry points that are not a user's command, with the reason
EXCLUDED = {
    "scripts/setup": "builds the environment (apt, pip); covered by tests/packaging",
    "scripts/fresh-root": "builds a Debian root as root (mmdebstrap); covered by .ci",
    "runner.host.reaper": "the sweep's watchdog, fed over a pipe by the sweep; no arguments",
}


def _defines_main(path: Path) -> bool:
    """The module has a ``main`` at its top level (defined or imported) and runs it as
    ``__main__``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    has_main = any(
        (isinstance(n, ast.FunctionDef) and n.name == "main")
        or (isinstance(n, ast.ImportFrom) and any((a.asname or a.name) == "main"
                                                  for a in n.names))
        for n in tree.body)
    runs = any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body)
    return has_main and runs


def _files(*folders: str) -> list[str]:
    """The files of ``folders`` as a clone has them (git's list; a file left beside them,
    such as an editor's backup, is no entry point), or as they are outside a checkout."""
    r = subprocess.run(["git", "ls-files", "--", *folders], cwd=ROOT, capture_output=True,
                       text=True, check=False)
    if r.returncode == 0 and r.stdout.strip():
        return r.stdout.split()
    return [p.relative_to(ROOT).as_posix() for d in folders for p in (ROOT / d).iterdir()
            if p.is_file()]


def discovered() -> set[str]:
    """Every entry point in the checkout: the keys :data:`TOOLS` and :data:`EXCLUDED` use
    (a script whose name starts with ``_`` is the scripts' helper module, and a folder's
    README.md its documentation: neither is a command)."""
    found = {f for f in _files("scripts", "studies", "bench")
             if f.count("/") == 1 and not Path(f).name.startswith("_")
             and Path(f).name != "README.md"}
    found.add("notebooks/finalize.py")
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            dotted = ".".join(p.relative_to(ROOT).with_suffix("").parts)
            if p.name == "__main__.py":
                found.add(dotted.removesuffix(".__main__"))
            elif _defines_main(p):
                found.add(dotted)
    return found


def _covered(name: str) -> bool:
    return name in EXCLUDED or any(k == name or k.startswith(f"{name} ") for k in TOOLS)


def test_every_entry_point_is_listed() -> None:
    """A new script or ``python -m`` module gets a row in TOOLS (or a reason in EXCLUDED)."""
    found = discovered()
    # a module whose main is the program of another's __main__ (rundir.cli for rundir)
    programs = {"rundir.cli", "runner.sweep.cli", "runner.originals.commands"}
    missing = sorted(n for n in found - programs if not _covered(n))
    assert not missing, f"entry points without a row in TOOLS or EXCLUDED: {missing}"
    assert {"runner", "rundir", "analysis.compare_report", "runner.originals"} <= found


# ---------------------------------------------------------------------------- the inputs

@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    base = tmp_path_factory.mktemp("entry")
    run, other = base / "runs" / "synthetic-a", base / "runs" / "synthetic-b"
    for d, seed in ((run, "1"), (other, "2")):
        subprocess.run([PY, str(ROOT / "tests" / "fixtures" / "make_synthetic_run.py"),
                        str(d), "--small", "--blocks", "--seed", seed], check=True,
                       capture_output=True, timeout=120)
    (base / "scratch").mkdir()
    return Paths(run, other, base / "scratch")


def nan_run(good: Path, where: Path) -> Path:
    """A copy of ``good`` whose sixth record's throughput is ``NaN``."""
    shutil.copytree(good, where)
    lines = (where / "trials.jsonl").read_text().splitlines()
    rec = json.loads(lines[5])
    rec["result"]["gbit_per_s"] = float("nan")
    lines[5] = json.dumps(rec)  # json writes NaN as the bare token NaN
    (where / "trials.jsonl").write_text("\n".join(lines) + "\n")
    return where


def _cases() -> list[tuple[str, str]]:
    out = []
    for name, tool in TOOLS.items():
        if tool.help:
            out.append((name, "help"))
        if tool.run is not None:
            out += [(name, "missing"), (name, "empty"), (name, "nan")]
        if tool.out is not None:
            out.append((name, "link"))
    return out


def _start(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str] | None:
    """The finished process, or None when it ran past :data:`TIMEOUT_S` (then killed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "NO_COLOR": "1",
           "COLUMNS": "200"}
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S,
                              cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return None


@dataclass(frozen=True)
class Case:
    """One case made ready: the command line, where it runs, and the link of an output case
    with the user's file it points to."""

    argv: list[str]
    cwd: Path
    link: Path | None = None
    target: Path | None = None


def prepare(name: str, case: str, paths: Paths, here: Path) -> Case:
    """The inputs of one case, made in its own directory ``here``."""
    tool = TOOLS[name]
    here.mkdir(parents=True)
    if case == "help":
        return Case([*tool.argv, "--help"], here)
    if case == "link":
        assert tool.out is not None
        target, link = here / "users-file", here / "out-link"
        target.write_text(PRECIOUS)
        link.symlink_to(target)
        return Case([*tool.argv, *tool.out(paths, link)], here, link, target)
    assert tool.run is not None
    if case == "missing":
        x = here / "no-such-run"
    elif case == "empty":
        x = here / "empty-run"
        x.mkdir()
    else:
        x = nan_run(paths.run, here / "nan-run")
    return Case([*tool.argv, *tool.run(paths, x)], here)


#: cases run side by side (each is mostly a Python start-up)
WORKERS = max(2, min(4, os.cpu_count() or 1))


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, paths: Paths,
             tmp_path_factory: pytest.TempPathFactory
             ) -> dict[tuple[str, str], tuple[Case, subprocess.CompletedProcess[str] | None]]:
    """Every selected case of :func:`test_entry_point`, run side by side once; each test
    then checks its own."""
    wanted = [(i.callspec.params["name"], i.callspec.params["case"])
              for i in request.session.items
              if getattr(i, "originalname", None) == "test_entry_point"]
    base = tmp_path_factory.mktemp("cases")
    cases = {key: prepare(*key, paths, base / str(n)) for n, key in enumerate(wanted)}
    with ThreadPoolExecutor(WORKERS) as pool:
        done = dict(zip(cases, pool.map(lambda c: _start(c.argv, c.cwd), cases.values())))
    return {key: (cases[key], done[key]) for key in cases}


@pytest.mark.parametrize("name,case", _cases(), ids=[f"{n}-{c}" for n, c in _cases()])
def test_entry_point(name: str, case: str, outcomes: dict) -> None:
    tool = TOOLS[name]
    c, r = outcomes[(name, case)]
    if r is None:
        pytest.fail(f"{' '.join(c.argv)}: still running after {TIMEOUT_S} s (a hang, or work "
                    "begun before the input was checked)", pytrace=False)
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    if case == "help":
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
        assert "usage" in r.stdout.lower(), r.stdout[:2000]
        return
    said = [ln for ln in getattr(r, tool.says_on).splitlines() if ln.strip()]
    assert r.returncode in tool.bad, (r.returncode, r.stdout[-1500:], r.stderr[-1500:])
    assert len(said) == 1, f"not one line on {tool.says_on}: {said[:12]}"
    if c.link is not None and c.target is not None:
        assert c.link.is_symlink(), "the link was replaced"
        assert c.target.read_text() == PRECIOUS, "written through the link"


# ---------------------------------------------------------------------------- beyond the sweep

def test_copybench_version_takes_no_arguments() -> None:
    from conftest import copybench_or_fail

    for argv in (["--version", "extra"], ["--build-info", "x"], ["--help", "x"]):
        r = subprocess.run([str(copybench_or_fail()), *argv], capture_output=True, text=True,
                           timeout=10, check=False)
        assert r.returncode == 2 and not r.stdout, (argv, r.returncode, r.stdout)
        assert r.stderr.strip() == f"copybench: {argv[0]} takes no arguments (got '{argv[1]}')"


def test_cwnd_after_pause_refuses_an_unknown_congestion_control_at_once(tmp_path: Path) -> None:
    """Before any namespace or process is made (it printed a traceback, waited 30 s for its
    sink and left it running)."""
    r = _start([*TOOLS["studies/cwnd_after_pause.py"].argv, "--congestion", "bogus"], tmp_path)
    assert r is not None, "still running"
    said = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(said) == 1, r.stderr[-2000:]
    assert said[0].startswith("cwnd_after_pause: --congestion bogus: not available here"), said


def _namespaces() -> set[str]:
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return {ln.split()[0] for ln in r.stdout.splitlines() if ln.strip()}


def _sinks() -> set[str]:
    """The processes of cwnd_after_pause's roles (sink and sender) now running."""
    r = subprocess.run(["pgrep", "-f", "cwnd_after_pause.py --role"], capture_output=True,
                       text=True, check=False)
    return set(r.stdout.split())


@pytest.mark.root
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_cwnd_after_pause_leaves_nothing_when_stopped(sig: str, tmp_path: Path) -> None:
    """Stopped mid-measurement, it kills its sink and sender (their own process groups)
    and removes its namespaces before it exits (its sink was left running for 37 min)."""
    import signal
    import time

    if shutil.which("ip") is None:
        pytest.skip("iproute2's ip is not installed (apt-get install iproute2)")
    before, running = _namespaces(), _sinks()
    p = subprocess.Popen([*TOOLS["studies/cwnd_after_pause.py"].argv, "--pauses", "0.1",
                          "--repeats", "1000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=str(tmp_path))
    try:
        assert p.stdout is not None
        line = p.stdout.readline()  # the sink listens and the sender has begun
        assert line.startswith("tcp_slow_start_after_idle="), (line, p.stderr.read()[-2000:]
                                                               if p.stderr else "")
        made = {n for n in _namespaces() - before if n.startswith(f"cbcw{p.pid}")}
        assert len(made) == 2, made
        time.sleep(0.5)
        p.send_signal(getattr(signal, sig))
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == {"SIGINT": 130, "SIGTERM": 143}[sig], p.returncode
    assert not made & _namespaces(), "namespaces left"
    left = _sinks() - running
    assert not left, f"processes left: {left}"

"""Shared fixtures and the test-selection policy. The runner's fixtures are prefixed
``runner_``.

Tests mirror the packages (``tests/runner/``, ``tests/rundir/``, ``tests/analysis/``,
``tests/book/``, ``tests/c/``, ``tests/packaging/``) and are selected by markers, never by
file lists: ``make test`` runs every test *without* one of the markers below, so a new test
file runs there by default. The markers say what a test needs beyond a checkout and a build
(the make target that provides it selects them, see mk/book.mk and mk/runner.mk):

* ``slow``: too slow for ``make test`` (sweeps with the reports' own programs, a browser);
  run by ``make test-slow``;
* ``reference``: reads the whole committed reference run; ``make test-slow``;
* ``sshd``: starts a real OpenSSH server (the remote transport); ``make test-slow``;
* ``book``: checks a built book (``COPYBENCH_BOOK_RUN`` names its run): ``make test-book``
  on a smoke run, ``make test-slow`` on the reference run (``browser``, ``pdf``: the parts
  that need Chromium or the PDF build);
* ``compare_report``: checks a ``make compare`` report (``COPYBENCH_COMPARE_REPORT``);
* ``shared``: reads ``../shared`` beside the checkout (the reports' archives in
  ``../shared/seed-repos``, the design's pin in ``../shared/DESIGN.md``), which a clone
  elsewhere does not have; ``make test-slow`` (``make test-shared``);
* ``root``: needs root (network namespaces, perf); skipped, saying why, without it;
* ``sweep``: runs real sweeps (in ``make test``; the Nix sandbox check leaves them out).
* ``heavy``: starts scripts or command lines as processes, builds file trees, renders figures
  or simulates designs: in ``make test``, left out of ``make check`` (the fast tier).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

import pytest

T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
# helper modules beside the tests (conftest, fixtures/) import by name from any subfolder
for _p in (Path(__file__).resolve().parent, Path(__file__).resolve().parent / "fixtures"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

#: markers whose tests ``make test`` leaves to another target (see the module doc)
ELSEWHERE = ("slow", "reference", "sshd", "book", "compare_report", "shared")

#: copybench's exit status for a measured window it missed (descheduled on a busy machine):
#: a reading to take again, not a result
EXIT_WINDOW_MISSED = 3
#: how often a test takes such a reading before it fails (src/tests/run_tests.sh: 3; a
#: trial here is shorter and the machine may be busier)
WINDOW_TRIES = 5


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``root`` test without root is skipped with the reason printed (never silently)."""
    if os.geteuid() == 0:
        return
    why = "needs root: network namespaces / perf record -a (run as root to include it)"
    for item in items:
        if item.get_closest_marker("root") is not None:
            item.add_marker(pytest.mark.skip(reason=why))


#: the markers whose tests read the Studies `make book` kept in the repository's own cache
#: (book/_generated/study): the book's tests and those of a whole committed run
READS_BOOK_CACHE = ("book", "reference")


@pytest.fixture(autouse=True)
def _study_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Every other test (and the programs it starts) keeps its Studies in one cache of the
    session's own: a test's runs (tmp_path/run, a hostile RUN name) never land in the
    repository's book/_generated/study."""
    if any(request.node.get_closest_marker(m) for m in READS_BOOK_CACHE):
        return
    if "COPYBENCH_STUDY_DIR" not in os.environ:
        monkeypatch.setenv("COPYBENCH_STUDY_DIR", str(tmp_path_factory.getbasetemp() / "study"))


def _copybench_bin() -> Path | None:
    env = os.environ.get("COPYBENCH_BIN")
    if env:
        return Path(env).resolve() if Path(env).is_file() else None
    p = ROOT / "src" / "build" / "copybench"
    return p if p.is_file() and os.access(p, os.X_OK) else None


def copybench_or_fail() -> Path:
    """The real copybench program; a test that needs it fails when it is not built (``make
    test`` builds it first), it never skips."""
    p = _copybench_bin()
    if p is None:
        pytest.fail("copybench is not built: run `make build` or `make -C src` (make test "
                    "builds it first), or set COPYBENCH_BIN", pytrace=False)
    return p


def until_window_met(attempt: Callable[[], T], missed: Callable[[T], bool]) -> T:
    """``attempt()`` again while ``missed`` says its window was missed (the machine was busy:
    a timing, not the property a test checks), at most :data:`WINDOW_TRIES` times; the last
    outcome, which the test then checks."""
    for _ in range(WINDOW_TRIES - 1):
        out = attempt()
        if not missed(out):
            return out
    return attempt()


@pytest.fixture(scope="session")
def copybench() -> Path:
    """The real copybench program (src/build/copybench, or $COPYBENCH_BIN), for the C
    program's own tests (tests/c)."""
    return copybench_or_fail()


@pytest.fixture
def runner_copybench() -> Path:
    """The real copybench program (built by `make build`)."""
    return copybench_or_fail()


@pytest.fixture
def runner_root() -> None:
    """Tests that create network namespaces or record system-wide perf profiles."""
    if os.geteuid() != 0:
        msg = "needs root: network namespaces / perf record -a (run as root to include it)"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


# --- sweep profiles for the tests ------------------------------------------------------------

#: the experiment most sweep tests run: two message methods at two sizes, loopback, cross-core
PAIR_EXPERIMENT: dict[str, Any] = {
    "name": "m", "command": "send", "methods": ["send", "sendmsg"], "sizes": ["1K", "16K"],
    "transports": ["loopback"], "placements": ["cross-core"]}


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string has JSON's escapes
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):  # an inline table (keys quoted: "a/b" is one)
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}"
                                for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def _toml_table(header: str, table: Mapping[str, Any]) -> str:
    return "\n".join([header, *(f"{k} = {_toml_value(v)}" for k, v in table.items())]) + "\n"


def sweep_profile(name: str = "t", *, seed: int = 42, duration_s: float = 0.2,
                  warmup_s: float = 0.05,
                  repetitions: Mapping[str, Any] | None = {"min": 2, "max": 2},
                  design: Mapping[str, Any] | None = None,
                  experiments: Sequence[Mapping[str, Any]] = (PAIR_EXPERIMENT,),
                  **profile: Any) -> str:
    """The TOML of a sweep profile (runner/README.md, "Profiles"): its ``[profile]`` table
    (name, seed, short windows by default, and any other key given), ``[repetitions]`` (the
    adaptive design, two rounds by default) or ``[design]`` (the block design: give it and
    ``repetitions=None``), and its experiments (by default :data:`PAIR_EXPERIMENT`)."""
    parts = [_toml_table("[profile]", {"name": name, "seed": seed, "duration_s": duration_s,
                                       "warmup_s": warmup_s, **profile})]
    if repetitions is not None:
        parts.append(_toml_table("[repetitions]", repetitions))
    if design is not None:
        parts.append(_toml_table("[design]", design))
    parts += [_toml_table("[[experiment]]", e) for e in experiments]
    return "\n".join(parts)


def write_sweep_profile(directory: Path, name: str = "t", **kw: Any) -> Path:
    """:func:`sweep_profile` written to ``directory/<name>.toml``; its path."""
    path = directory / f"{name}.toml"
    path.write_text(sweep_profile(name, **kw))
    return path


def runner_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "runner", *args]


def runner_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_runner(*args: str, timeout: float = 300, cwd: Path | None = None,
               **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(runner_cmd(*args), capture_output=True, text=True, timeout=timeout,
                          cwd=str(cwd or ROOT), env=runner_env(**env), check=False)


def runner_namespaces(prefix: str = "cb") -> set[str]:
    try:
        return {n for n in os.listdir("/run/netns") if n.startswith(prefix)}
    except FileNotFoundError:
        return set()


def runner_root_links(prefix: str = "cb") -> set[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True,
                         check=False).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(":")
        if len(parts) > 1:
            names.add(parts[1].strip().split("@")[0])
    return {n for n in names if n.startswith(prefix)}


def runner_tagged_pids(tag: str) -> set[int]:
    """Processes whose environment carries RUNNER_TEST_TAG=tag (a sweep and its children)."""
    needle = f"RUNNER_TEST_TAG={tag}".encode()
    pids = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.add(int(d))
        except OSError:
            continue
    return pids


def committed_reference_run() -> Path | None:
    """The rule of mk/book.mk: the newest data/raw/<time>-paper[-<hex>]/ whose SHA256SUMS git tracks;
    None outside a git checkout."""
    if not (ROOT / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "ls-files", "data/raw/*-paper/SHA256SUMS",
                              "data/raw/*-paper-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]/SHA256SUMS"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    return ROOT / sorted(out)[-1].rsplit("/", 1)[0] if out else None


def trials_and_theirs(run_dir: Path) -> tuple[int, int]:
    """A run's records (packed or not), and how many of them are the reports' own programs'
    (config kind ``original:<source>``), read through :mod:`rundir.records`."""
    from rundir import records
    path = records.trials_file(run_dir)
    assert path is not None, f"{run_dir}: no trials file"
    kinds = [str((r.get("config") or {}).get("kind", "")) for r in records.read(path)]
    return len(kinds), sum(1 for k in kinds if k.startswith("original:"))


# --- one small finished run, shared (copied before a test changes it) -------------------------

#: the shared run: 4 cells (PAIR_EXPERIMENT) x 3 rounds of 0.2 s windows, 12 trials
SMALL_RUN_TRIALS = 12


@pytest.fixture(scope="session")
def runner_small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished, sealed run made by a real sweep (12 trials, about 10 s), made once per
    session: tests copy it (:func:`copy_run`) before they change anything."""
    copybench_or_fail()
    d = tmp_path_factory.mktemp("small-run")
    prof = write_sweep_profile(d, "small", seed=11, repetitions={"min": 3, "max": 3})
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(d / "run"),
                   "--no-progress", timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return d / "run"


def copy_run(run: Path, dest: Path, drop: int = 0) -> Path:
    """A copy of ``run`` at ``dest``; with ``drop`` > 0, as if interrupted before its last
    ``drop`` trials (records cut, not sealed, its last session interrupted by SIGINT)."""
    shutil.copytree(run, dest)
    if drop:
        lines = (dest / "trials.jsonl").read_text().splitlines(keepends=True)
        (dest / "trials.jsonl").write_text("".join(lines[:-drop]))
        (dest / "SHA256SUMS").unlink()
        sessions = json.loads((dest / "sessions.json").read_text())
        sessions[-1].update(complete=False, interrupted="SIGINT")
        (dest / "sessions.json").write_text(json.dumps(sessions, indent=1) + "\n")
    return dest


def another_run_like(run: Path, dest: Path) -> Path:
    """A copy of ``run`` at ``dest`` that is another run to ``compare_report`` (which refuses
    a run compared with its own copy: the same plan.json): its plan made a second later,
    re-sealed as the sweep seals. For tests of the compare's own workings, where what the two
    runs measured does not matter."""
    from datetime import datetime, timedelta
    from rundir.verify import write_seal
    copy_run(run, dest)
    plan = json.loads((dest / "plan.json").read_text())
    made = datetime.fromisoformat(plan["created_at"]) + timedelta(seconds=1)
    plan["created_at"] = made.isoformat(timespec="seconds")
    (dest / "plan.json").write_text(json.dumps(plan, indent=1) + "\n")
    write_seal(dest)
    return dest


def tree_digest(d: Path) -> dict[str, str]:
    """Every file under ``d`` (hidden ones too) -> its SHA-256: a directory left as it was
    has the same digest."""
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


@contextmanager
def running_sink(copybench: Path, cpu: int | None = None,
                 nice: int = 0) -> Iterator[tuple["subprocess.Popen[str]", int]]:
    """A copybench sink on 127.0.0.1 (a free port; pinned to ``cpu`` when given; at ``nice``): its process
    and the port it listens on (its first stdout line); continued (a test may have stopped it)
    and stopped with SIGTERM (then SIGKILL after 10 s) when the block ends."""
    pin = [] if cpu is None else ["--cpus", str(cpu)]
    p = subprocess.Popen([str(copybench), "sink", "--bind", "127.0.0.1", "--port", "0", *pin],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
                         preexec_fn=(lambda: os.nice(nice)) if nice else None)
    try:
        assert p.stdout is not None
        yield p, json.loads(p.stdout.readline())["port"]
    finally:
        p.send_signal(signal.SIGCONT)  # a stopped sink does not act on SIGTERM
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

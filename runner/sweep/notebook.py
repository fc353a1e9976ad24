"""``python -m runner notebook``: a sweep executed as a notebook (papermill), so the run keeps
its own record: ``<run-dir>/sweep.ipynb`` holds the plan and its estimated time, the
progress lines and the summary of trials, failures and exclusions.

The notebook (``notebooks/sweep.ipynb``, source ``notebooks/sweep.py``) calls the same
library as ``python -m runner sweep`` (:mod:`runner.sweep.session`). papermill writes the executed
copy in this process's temporary directory while it runs (a run directory must be empty
when a new run starts) and it is copied in when papermill has finished writing it; the run
is then sealed with it. A resumed run keeps each session's notebook
(``sweep.resume-<n>.ipynb``). A runner error inside the notebook ends here as the runner's
own one-line error and exit code, not as papermill's traceback. A run that ``--resume`` would
refuse (:mod:`runner.sweep.runstate`) is refused before the kernel starts, and whatever the sweep
refuses (exit 2) gets no notebook: a refusal writes nothing into the run.

This process (the driver) holds the run directory's lock from before the kernel starts until
the notebook is in and the run sealed, and lends it to the sweep in the kernel
(:mod:`runner.sweep.runlock`), which dies with the driver. The kernel's connection file (it holds
the key that lets a client run code in the kernel) and the notebook being written live in the
driver's temporary directory (:class:`runner.host.proc.Janitor`): the reaper removes it if the
driver is killed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Iterator

import nbformat
import papermill
import psutil
from jupyter_client import AsyncKernelManager
from traitlets.config import Config

from rundir import atomic, layout
from rundir.lock import RunLock
from rundir.verify import seal
from runner.plan import profile as profile_mod
from runner.sweep import runlock, runstate, session
from runner.host.binary import repo_root
from runner.host.errors import RunnerError, UsageError
from runner.host.inventory import RemoteSpec, spec_to_json
from runner.host.proc import Janitor, die_with_parent

NOTEBOOK = Path("notebooks") / "sweep.ipynb"
#: exceptions raised in the notebook that are the runner's own one-line errors -> exit code
_EXIT = {"UsageError": 2, "ProfileError": 2, "StateError": 2, "PlanError": 2,
         "RunnerError": 1, "RunDirError": 1, "TopologyError": 1,
         "RemoteError": 1, "SshError": 1}
#: what the notebook's last cell prints: ``sweep-exit: <code>`` (130/143 when interrupted)
EXIT_MARK = "sweep-exit: "


def executed_name(run_dir: Path) -> str:
    """``sweep.ipynb`` for the first session of a run, ``sweep.resume-<n>.ipynb`` after."""
    n = 0
    while (run_dir / layout.sweep_notebook_name(n)).exists():
        n += 1
    return layout.sweep_notebook_name(n)


def _exit_code(nb_path: Path) -> int | None:
    nb = nbformat.read(nb_path, as_version=4)
    for cell in reversed(nb.cells):
        for out in cell.get("outputs", []):
            for line in str(out.get("text", "")).splitlines():
                if line.startswith(EXIT_MARK):
                    return int(line[len(EXIT_MARK):])
    return None


def execute(profile: str | None, run_dir: Path | None, seed: int | None,
            resume: bool, rehearsal: bool = False, remote: RemoteSpec | None = None,
            without_originals: bool = False) -> int:
    """``remote``: the other host (two hosts), handed to the notebook as JSON;
    ``without_originals``: a new run leaves the reports' programs out (the kernel is told
    through ``$COPYBENCH_WITHOUT_ORIGINALS``)."""
    target = session.resolve_run_dir(profile, run_dir, resume).resolve()
    if resume and not (target / layout.PLAN).is_file():  # before a lock creates anything
        raise UsageError(f"--resume: {target} has no {layout.PLAN} (not a run directory)")
    if not resume:  # what the sweep would refuse is refused before a kernel starts
        assert profile is not None  # resolve_run_dir refused a new run without one
        session.check_new(profile_mod.load(profile),
                          session.hosts_for(remote is not None, without_originals))
    lock = runlock.take(target, "python -m runner notebook")
    if resume:  # a run the sweep would refuse is refused before a kernel starts
        try:
            prof, plan, _ = runstate.reopen(target, profile)
            session.check_resume(target, prof, plan, without_originals)
        except BaseException:
            lock.release()
            raise
    janitor = Janitor()
    assert janitor.tmp is not None
    told = {session.WITHOUT_ORIGINALS_ENV: "1"} if without_originals else {}
    os.environ.update(told)
    try:
        return _execute(target, lock, janitor.tmp, {
            "profile": profile or "", "run_dir": str(target),
            "seed": seed,  # None: the profile's own; -1 is a seed like any other
            "resume": resume, "rehearsal": rehearsal,
            "remote": json.dumps(spec_to_json(remote)) if remote else ""})
    finally:
        for k in told:
            os.environ.pop(k, None)
        janitor.close()
        lock.release()


class KernelDyingWithDriver(AsyncKernelManager):  # type: ignore[misc]
    """The notebook's kernel, started with ``PR_SET_PDEATHSIG`` (``start_kernel``'s keywords
    go to Popen): it is killed the moment the driver dies, so it never writes to a run whose
    lock is gone, nor writes its connection file again after the reaper removed it."""

    async def start_kernel(self, **kw: object) -> None:
        kw.setdefault("preexec_fn", die_with_parent)
        await super().start_kernel(**kw)


@contextmanager
def _lent(lock: RunLock) -> Iterator[None]:
    """The kernel papermill starts inherits this environment: it may run under the lock."""
    lent = runlock.lend_env(lock)
    os.environ.update(lent)
    try:
        yield
    finally:
        for k in lent:
            os.environ.pop(k, None)


#: a Unix socket's path holds at most 107 bytes (sun_path, 108 with its NUL)
_SUN_PATH_MAX = 107


def kernel_transport(connection_file: Path) -> str:
    """How the notebook kernel talks to this process: over Unix sockets ("ipc", no
    plain-text TCP warning from ipykernel) where their paths fit, else over TCP on
    localhost. jupyter_client names the sockets after the connection file: "kernel.json"
    gives "kernel-ipc-1" .. "kernel-ipc-5", one byte longer, beside it; a checkout at a long
    path would otherwise fail with "File name too long"."""
    return "ipc" if len(os.fsencode(connection_file)) + 1 <= _SUN_PATH_MAX else "tcp"

def _execute(target: Path, lock: RunLock, tmp: Path, parameters: dict[str, object]) -> int:
    """papermill on the sweep notebook, its exit code, the notebook kept, the run sealed."""
    root = repo_root()
    partial = tmp / f"{target.name}.sweep.ipynb"
    print(f"runner: executing {NOTEBOOK} for {target} (papermill; the executed notebook is "
          "kept in the run directory)", file=sys.stderr, flush=True)
    code: int | None
    connection = tmp / "kernel.json"
    old = _forward_signals()
    try:
        with _lent(lock):
            papermill.execute_notebook(
                str(root / NOTEBOOK), str(partial), cwd=str(root), kernel_name="python3",
                progress_bar=False, log_output=False, stdout_file=sys.stdout,
                stderr_file=sys.stderr, parameters=parameters,
                kernel_manager_class=KernelDyingWithDriver,
                # over Unix sockets, not TCP: ipykernel warns of plain-text TCP on every start
                config=Config({"KernelManager": {"connection_file": str(connection),
                                                 "transport": kernel_transport(connection)}}))
        code = _exit_code(partial)
    except papermill.PapermillExecutionError as exc:
        code = _EXIT.get(exc.ename)
        if code is None:  # not one of the runner's errors: a bug, keep papermill's report
            raise
        print(f"runner: {exc.evalue}", file=sys.stderr)
    except KeyboardInterrupt:
        code = 130
        print("runner: interrupted (SIGINT)", file=sys.stderr)
    except OSError as exc:
        raise RunnerError(f"{exc.filename or partial}: {exc.strerror or exc}") from exc
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)
    _keep(partial, target, refused=code == 2)
    if code in (0, session.EXIT_OUTSIDE):  # complete (the notebook says what failed and why)
        seal(target)  # again: the sweep sealed before its notebook was complete
    elif code in (130, 143) or (code == 1 and (target / layout.PLAN).is_file()):
        print(f"runner: resume with: python -m runner notebook --resume --run-dir {target}",
              file=sys.stderr)
    return 1 if code is None else code


def _forward_signals() -> dict[int, object]:
    """SIGINT/SIGTERM go to the kernel, where the sweep stops cleanly after the current trial
    (its own handlers: records flushed, namespaces removed) and the notebook's last cells
    still run; papermill then ends normally. A second SIGINT stops the driver itself."""
    seen: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGINT and seen.count(signal.SIGINT):
            raise KeyboardInterrupt
        seen.append(signum)
        print(f"runner: {signal.Signals(signum).name}: stopping the sweep after this trial",
              file=sys.stderr, flush=True)
        for child in psutil.Process().children():
            try:
                child.send_signal(signum)
            except psutil.Error:
                pass

    return {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}


def _keep(partial: Path, target: Path, refused: bool) -> None:
    """Copy the executed notebook into the run directory (when there is one; whole or not
    at all, :mod:`rundir.atomic`). A run the sweep refused (exit 2: a packed, damaged or
    edited run, bad usage) gets nothing: the refusal wrote nothing into it, and a notebook
    added to a sealed run would make it fail ``verify``; the refusal was printed."""
    if not partial.exists():
        return
    if not refused and (target / layout.PLAN).is_file():  # nothing planned: nothing to keep
        atomic.write_bytes(target / executed_name(target), partial.read_bytes())
    partial.unlink()

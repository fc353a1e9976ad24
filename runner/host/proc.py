"""Child processes of a sweep: own process group, killed with the sweep, never left behind.

Every trial process starts in a new session (its own process group, so a timeout kills the
whole tree: ``ip netns exec`` -> ``perf`` -> ``copybench``), gets ``PR_SET_PDEATHSIG``
(SIGKILL when the sweep dies), and is registered with the reaper (``runner.host.reaper``), which
removes whatever is still registered when the sweep's pipe to it closes.

Temporary files live in one directory per process that starts a reaper
(:attr:`Janitor.tmp`, ``$TMPDIR/copybench-<pid>-*``): the trials' output files, perf's
copies of the vDSO (:func:`private_tmp`), the notebook kernel's connection file. The reaper
removes it when its process dies, and every new :class:`Janitor` removes those of processes
that are gone (a reaper killed too).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Sequence

PR_SET_PDEATHSIG = 1
CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
#: the name of a process's temporary directory: ``copybench-<pid>-<random>``
TMP_PREFIX = "copybench-"
_libc = ctypes.CDLL(None, use_errno=True)


def _pdeathsig() -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def die_with_parent() -> None:
    """SIGKILL this process when its parent dies (``PR_SET_PDEATHSIG``)."""
    _pdeathsig()


def private_tmp(directory: Path) -> Callable[[], None]:
    """A ``preexec_fn``: the child dies with the sweep, and sees ``directory`` as ``/tmp``.

    perf copies the vDSO to ``/tmp/perf-vdso.so-XXXXXX`` (the name is compiled in; TMPDIR is
    not read) and removes it only when it exits normally: a perf killed with the sweep would
    leave it. In a mount namespace of its own (``unshare(CLONE_NEWNS)``, mounts made private
    so nothing propagates back) with ``directory`` bind-mounted on ``/tmp``, the copy lands
    in the sweep's temporary directory, which the reaper removes. Without CAP_SYS_ADMIN the
    child runs as it is (the copy is then only left when perf is killed)."""
    target = os.fsencode(str(directory))

    def setup() -> None:
        _pdeathsig()
        if _libc.unshare(CLONE_NEWNS) != 0:
            return
        if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0:
            _libc.mount(target, b"/tmp", None, MS_BIND, None)

    return setup


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp() -> None:
    """Remove the temporary directories (``copybench-<pid>-*``) of processes that are gone."""
    root = Path(tempfile.gettempdir())
    for d in root.glob(f"{TMP_PREFIX}*-*"):
        pid = d.name[len(TMP_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and d.is_dir() and not d.is_symlink():
            shutil.rmtree(d, ignore_errors=True)


class Janitor:
    """The sweep's side of the reaper pipe, and the process's temporary directory
    (:attr:`tmp`, registered with the reaper; None when disabled)."""

    def __init__(self, enabled: bool = True) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self.tmp: Path | None = None
        if enabled:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "runner.host.reaper"], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                cwd=str(Path(__file__).resolve().parents[2]))
            remove_stale_temp()
            self.tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-"))
            self.note(f"+dir {self.tmp}")

    def note(self, line: str) -> None:
        if self._proc and self._proc.stdin:
            try:
                self._proc.stdin.write((line + "\n").encode())
                self._proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def close(self, wait: float = 10.0) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.note(f"-dir {self.tmp}")
            self.tmp = None
        if self._proc is None:
            return
        if self._proc.stdin:
            try:
                self._proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self._proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._proc = None


@dataclass(frozen=True)
class Answer:
    """What a one-shot question to a program gave (:func:`ask`): its exit status and output,
    or, when there is no answer, why (``problem``: it could not start, or did not answer in
    time; ``returncode`` is then None)."""

    returncode: int | None
    stdout: str
    stderr: str
    problem: str | None = None

    @property
    def text(self) -> str | None:
        """Its stdout (else stderr) stripped; None when it gave no answer or printed nothing."""
        if self.problem is not None:
            return None
        return (self.stdout or self.stderr).strip() or None


def ask(argv: Sequence[str], timeout: float = 10.0, cwd: Path | None = None,
        env: dict[str, str] | None = None, stdin: IO[bytes] | int = subprocess.DEVNULL
        ) -> Answer:
    """Ask a program one question (a tool's ``--version``, ``perf stat -- true``, ``make
    -n``): it runs as the leader of a process group of its own (and dies with this process),
    and the whole group is killed once it answered or ``timeout`` s passed, so nothing it
    started outlives the question. ``subprocess.run(timeout=)`` killed only the direct child:
    a tool that had started a child of its own (a ``perf`` that runs ``sleep 999 &``) left it
    running and, holding the output pipe, made the run wait for it; the TimeoutExpired it
    raised was a traceback where it was not caught. The one helper for such questions."""
    name = str(argv[0]) if argv else "?"
    try:
        p = subprocess.Popen(list(map(str, argv)), stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True,
                             preexec_fn=_pdeathsig)
    except OSError as e:
        return Answer(None, "", "", f"{name}: {e.strerror or e}")
    problem = None
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        problem = f"{name} did not answer within {timeout:g} s"
    finally:
        kill_group(p.pid)  # the leader's pid names the group while any member lives
    if problem is not None:
        try:  # the group is gone: its pipes end; what it printed is not an answer
            p.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a member that left the group holds a pipe
            for f in (p.stdout, p.stderr):
                if f is not None:
                    f.close()
        p.wait()
        return Answer(None, "", "", problem)
    return Answer(p.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


def spawn(argv: Sequence[str], janitor: Janitor | None, stdout: IO[bytes] | int | None,
          stderr: IO[bytes] | int | None, env: dict[str, str] | None = None,
          cwd: Path | None = None, stdin: int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a process group of its own (registered with the reaper), killed
    when the sweep dies (PR_SET_PDEATHSIG)."""
    p = subprocess.Popen(list(argv), stdin=stdin, stdout=stdout, stderr=stderr, env=env,
                         cwd=cwd, start_new_session=True, preexec_fn=_pdeathsig)
    if janitor:
        janitor.note(f"+pg {p.pid}")
    return p


def stop(p: subprocess.Popen[bytes], janitor: Janitor | None, grace: float = 2.0) -> int:
    """Wait ``grace`` s for ``p`` to exit, then SIGTERM, then SIGKILL its process group.

    The group is always killed at the end so no grandchild survives."""
    rc: int | None = None
    try:
        rc = p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        kill_group(p.pid, signal.SIGTERM)
        try:
            rc = p.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            kill_group(p.pid)
            rc = p.wait()
    kill_group(p.pid)
    if janitor:
        janitor.note(f"-pg {p.pid}")
    return rc


def kill(p: subprocess.Popen[bytes], janitor: Janitor | None) -> int:
    kill_group(p.pid)
    rc = p.wait()
    if janitor:
        janitor.note(f"-pg {p.pid}")
    return rc


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal a whole process group (every process of a trial: ``ip netns exec`` -> ``perf``
    -> copybench); one that is gone already is no error. The one kill helper of the runner:
    trials, the remote transport's ssh clients and the reaper all end groups with it."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_for_line(path: Path, p: subprocess.Popen[bytes], predicate, timeout: float
                  ) -> tuple[str | None, str]:
    """Poll a file that ``p`` writes until a line satisfies ``predicate``.

    Returns (line, "") or (None, why)."""
    deadline = time.monotonic() + timeout
    seen = 0
    buf = ""
    while True:
        try:
            with open(path, "rb") as f:
                f.seek(seen)
                raw = f.read()
        except FileNotFoundError:
            raw = b""
        if raw:
            seen += len(raw)
            buf += raw.decode(errors="replace")
            *lines, buf = buf.split("\n")
            for line in lines:
                if predicate(line):
                    return line, ""
        if p.poll() is not None:
            if buf and predicate(buf):
                return buf, ""
            return None, f"exited with status {p.returncode} before it was ready"
        if time.monotonic() > deadline:
            return None, f"not ready after {timeout:.0f} s"
        time.sleep(0.01)


def tail(path: Path, lines: int = 20, chars: int = 2000) -> str:
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return ""
    return tail_text(text, lines, chars)


def tail_text(text: str, lines: int = 20, chars: int = 2000) -> str:
    """The last ``lines`` lines of ``text``, at most ``chars`` characters."""
    out = "\n".join(text.rstrip().splitlines()[-lines:])
    return out[-chars:]

"""scripts/setup never fails silently: each failure a fresh machine can meet (a
package missing without root, dpkg, apt, pip, a Python the lock does not fit) ends with one
line ``setup: <what failed>: <what to do>`` and a non-zero exit.

The failing tools are faked on ``PATH`` (``dpkg-query``, ``apt-get``); pip is the real pip of
a real venv, pointed at no index (``PIP_NO_INDEX``), so its install fails as an unreachable
index makes it fail; the Python check runs the real interpreter against a copy of the lock
whose header names another Python. The script runs from a copy of the checkout's
``scripts/setup``, ``requirements.lock`` and ``pyproject.toml`` in a scratch directory, so the
checkout's ``.venv`` is never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup"
NOBODY = 65534

# dpkg-query -W -f='${Package}\t${Status}\n' PKG...: every package installed except those in
# $FAKE_MISSING, which it reports as dpkg does (on stderr) and then exits 1, as the real one
# does on a fresh machine. $FAKE_DPKG_STATUS > 1: dpkg itself is broken.
FAKE_DPKG_QUERY = r"""#!/bin/sh
if [ "${FAKE_DPKG_STATUS:-1}" -gt 1 ]; then
  echo "dpkg-query: error: parsing file '/var/lib/dpkg/status' near line 1: fake corruption" >&2
  exit "$FAKE_DPKG_STATUS"
fi
shift 2  # -W -f=...
rc=0
for p in "$@"; do
  case " $FAKE_MISSING " in
    *" $p "*) echo "dpkg-query: no packages found matching $p" >&2; rc=1 ;;
    *) printf '%s\tinstall ok installed\n' "$p" ;;
  esac
done
exit $rc
"""

# apt-get: `update` exits $FAKE_APT_UPDATE, `install` exits $FAKE_APT_INSTALL, with apt's words
FAKE_APT_GET = r"""#!/bin/sh
case " $* " in
  *" update "*)
    [ "${FAKE_APT_UPDATE:-0}" = 0 ] && exit 0
    echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Could not resolve 'deb.debian.org'" >&2
    exit "$FAKE_APT_UPDATE" ;;
  *" install "*)
    [ "${FAKE_APT_INSTALL:-0}" = 0 ] && exit 0
    echo "E: Unable to locate package sockperf" >&2
    exit "$FAKE_APT_INSTALL" ;;
esac
exit 0
"""


@contextmanager
def _tree_ctx() -> Iterator[Path]:
    """A scratch checkout (the script, the lock, pyproject.toml) and a bin/ of fakes, readable
    by an unprivileged user (pytest's own tmp_path is private to root when run as root)."""
    top = Path(tempfile.mkdtemp(prefix="copybench-setup-"))
    try:
        top.chmod(0o755)
        repo = top / "repo"
        (repo / "scripts").mkdir(parents=True)
        shutil.copy2(SETUP, repo / "scripts" / "setup")
        for name in ("requirements.lock", "pyproject.toml"):
            shutil.copy2(ROOT / name, repo / name)
        fakes = top / "bin"
        fakes.mkdir()
        for name, text in (("dpkg-query", FAKE_DPKG_QUERY), ("apt-get", FAKE_APT_GET)):
            (fakes / name).write_text(text, encoding="utf-8")
            (fakes / name).chmod(0o755)
        for p in (top, repo, repo / "scripts", fakes):
            p.chmod(0o755)
        yield repo
    finally:
        shutil.rmtree(top, ignore_errors=True)


def run_setup(repo: Path, *, as_nobody: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("FAKE_", "PIP_", "VIRTUAL_ENV"))}
    # the fakes first; the real tools (python3, sha256sum, awk, ...) after them
    e["PATH"] = f"{repo.parent / 'bin'}:{e.get('PATH', '/usr/bin:/bin')}"
    e.update(env)
    cmd = [str(repo / "scripts" / "setup")]
    if as_nobody and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("setpriv (util-linux) missing: cannot run setup as an unprivileged user here")
        cmd = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *cmd]
        e["HOME"] = "/nonexistent"
    return subprocess.run(cmd, cwd=repo, env=e, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines, f"setup exited {done.returncode} and printed nothing (stdout: {done.stdout!r})"
    return lines[-1]


def test_missing_package_without_root_is_named() -> None:
    # the real script on a fresh machine without root: dpkg-query exits 1 for what is missing
    with _tree_ctx() as repo:
        done = run_setup(repo, as_nobody=True, FAKE_MISSING="sockperf liburing-dev")
    assert done.returncode == 1, done.stderr
    line = last_line(done)
    assert line.startswith("setup: missing system packages: liburing-dev sockperf "), line
    assert "apt-get install liburing-dev sockperf" in line, line


def test_broken_dpkg_is_named() -> None:
    with _tree_ctx() as repo:
        done = run_setup(repo, as_nobody=True, FAKE_DPKG_STATUS="2")
    assert done.returncode == 1, done.stderr
    line = last_line(done)
    assert line.startswith("setup: dpkg-query failed (exit 2)"), line
    assert "dpkg --audit" in line, line


@pytest.mark.root
def test_apt_get_update_failure_is_named() -> None:
    with _tree_ctx() as repo:
        done = run_setup(repo, FAKE_MISSING="sockperf", FAKE_APT_UPDATE="100")
    assert done.returncode == 1, done.stderr
    line = last_line(done)
    assert line.startswith("setup: apt-get update failed (exit 100): check the apt sources"), line
    assert "E: Failed to fetch" in done.stderr  # apt's own words stay visible above it


@pytest.mark.root
def test_apt_get_install_failure_is_named() -> None:
    with _tree_ctx() as repo:
        done = run_setup(repo, FAKE_MISSING="sockperf", FAKE_APT_INSTALL="100")
    assert done.returncode == 1, done.stderr
    line = last_line(done)
    assert line.startswith("setup: apt-get install failed (exit 100) for sockperf:"), line
    assert "E: Unable to locate package sockperf" in done.stderr


def _debian_python() -> str:
    return shutil.which("python3") or sys.executable


def test_pip_failure_is_named(tmp_path: Path) -> None:
    """The real pip of the new .venv, with no index to install from."""
    with _tree_ctx() as repo:
        done = run_setup(repo, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path), PYTHON=_debian_python())
        assert not (repo / ".venv" / ".lock-sha256").exists()  # the next run tries again
    assert done.returncode == 1, done.stderr
    line = last_line(done)
    assert line.startswith("setup: pip install -r requirements.lock into .venv failed (exit 1):"), line
    assert "PIP_INDEX_URL" in line, line


@pytest.mark.parametrize("delta", ["minor", "patch"])
def test_python_the_lock_does_not_fit_is_named(delta: str, tmp_path: Path) -> None:
    """The real interpreter against a lock made for a newer one: refused before any venv."""
    python = _debian_python()
    have = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    major, minor, patch = (int(x) for x in have.split("."))
    other = f"{major}.{minor + 1}.0" if delta == "minor" else f"{major}.{minor}.{patch + 1}"
    with _tree_ctx() as repo:
        lock = repo / "requirements.lock"
        text = lock.read_text(encoding="utf-8")
        assert re.search(r"--python-version \d+\.\d+\.\d+", text)
        lock.write_text(re.sub(r"--python-version \d+\.\d+\.\d+", f"--python-version {other}", text, count=1),
                        encoding="utf-8")
        # no index: the script of today's main, which has no such check, fails at pip instead
        done = run_setup(repo, PYTHON=python, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path))
        assert not (repo / ".venv").exists()
    assert done.returncode == 2, done.stderr
    line = last_line(done)
    assert line.startswith(f"setup: {python} is Python {have}, but requirements.lock is made for Python "
                           f"{other.rsplit('.', 1)[0]} ({other} or a newer"), line
    assert "PYTHON=" in line, line


def test_lock_fits_debian_12_python() -> None:
    """The lock is compiled for the Python a fresh Debian 12 has (python3 3.11.2)."""
    header = "".join(line for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()[:6])
    assert "--python-version 3.11.2 " in header, header



# a Python for the lock (it says the lock's version) whose venv's pip hangs until Ctrl-C, then
# exits as pip does when interrupted ("Operation cancelled by user", status 1), leaving no
# process behind (a non-interactive shell's background sleep ignores SIGINT: without the kill
# it held the pipes open for its 60 s, and the test's wait timed out on a loaded machine)
FAKE_PYTHON = r"""#!/bin/sh
case "$1" in
  -c) echo "$FAKE_LOCK_VERSION" ;;
  -m) mkdir -p .venv/bin && cat > .venv/bin/python <<'PIP'
#!/bin/sh
trap 'kill "$!" 2>/dev/null; echo "ERROR: Operation cancelled by user" >&2; exit 1' INT
: > "$FAKE_PIP_STARTED"
sleep 60 & wait
PIP
      chmod 755 .venv/bin/python ;;
esac
"""


def test_ctrl_c_is_said_as_what_it_is(tmp_path: Path) -> None:
    """Ctrl-C while pip installs is said as an interrupt, not as "pip install ... failed (exit
    1): ... check the network". A terminal's Ctrl-C goes to the whole process group: so here."""
    import signal
    import time
    lock_version = re.search(r"--python-version (\d+\.\d+\.\d+)",
                             (ROOT / "requirements.lock").read_text(encoding="utf-8"))[1]
    with _tree_ctx() as repo:
        fake = repo.parent / "bin" / "fake-python3"
        fake.write_text(FAKE_PYTHON, encoding="utf-8")
        fake.chmod(0o755)
        started = tmp_path / "pip-started"
        e = {k: v for k, v in os.environ.items() if not k.startswith(("FAKE_", "PIP_"))}
        e.update(PATH=f"{repo.parent / 'bin'}:{e.get('PATH', '/usr/bin:/bin')}",
                 PYTHON=str(fake), FAKE_LOCK_VERSION=lock_version,
                 FAKE_PIP_STARTED=str(started), COPYBENCH_SETUP_OPTIONAL="0")
        p = subprocess.Popen([str(repo / "scripts" / "setup")], cwd=repo, env=e,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True,
                             # SIGINT's default action, as at a terminal: a shell started
                             # with SIGINT ignored (a background job) cannot trap it
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 60
            while not started.exists():
                assert p.poll() is None and time.monotonic() < deadline, p.communicate()
                time.sleep(0.05)
            os.killpg(p.pid, signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    done = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    assert done.returncode == 130, err
    line = last_line(done)
    assert line.startswith("setup: interrupted (SIGINT)"), line
    assert "network" not in err, err


def test_a_checkout_set_up_by_another_user_is_one_line() -> None:
    """``runuser -u nobody -- scripts/setup`` in a checkout root has set up says why in one
    line, not one error per file of the root-owned .venv (31,755 lines)."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the checkout is root's, setup runs as nobody")
    with _tree_ctx() as repo:
        venv = repo / ".venv"
        (venv / "lib").mkdir(parents=True)
        (venv / "bin").mkdir()
        for i in range(500):
            (venv / "lib" / f"module{i}.py").write_text("")
        # a Python nobody may not run (root's own, as under /root): the venv must be rebuilt
        (venv / "bin" / "python").symlink_to("/root/.no-such-python/bin/python3")
        done = run_setup(repo, as_nobody=True, COPYBENCH_SETUP_OPTIONAL="0",
                         PYTHON=_debian_python())
        assert sorted(p.name for p in (venv / "lib").iterdir())[:1] == ["module0.py"]
        assert len(list((venv / "lib").iterdir())) == 500
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 1, done.stderr[-2000:]
    assert len(lines) == 1 and "belongs to root, not to nobody" in lines[0], lines[:5]


def _interpreter(python: str) -> str:
    """The interpreter a Python command runs, its links resolved."""
    return subprocess.run([python, "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _version(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _two_pythons() -> tuple[str, str]:
    """Two interpreters of the lock's Python X.Y: Debian's python3, and the one this test runs
    under (the checkout's .venv is made from it)."""
    a = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else _debian_python()
    b = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    if _interpreter(a) == _interpreter(b):
        pytest.skip(f"one Python interpreter here ({_interpreter(a)}): no other to give as PYTHON")
    if _version(a).rsplit(".", 1)[0] != _version(b).rsplit(".", 1)[0]:
        pytest.skip(f"{a} is Python {_version(a)}, {b} is {_version(b)}: not one X.Y for one lock")
    return a, b


def _current_venv(repo: Path, python: str, lock_version: str) -> Path:
    """A .venv made by ``python`` (without pip: nothing is installed into it) that setup takes
    as current: its stamps match the lock and pyproject.toml, the lock made for lock_version."""
    lock = repo / "requirements.lock"
    lock.write_text(re.sub(r"--python-version \d+\.\d+\.\d+", f"--python-version {lock_version}",
                           lock.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    venv = repo / ".venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    for stamp, source in ((".lock-sha256", lock), (".pyproject-sha256", repo / "pyproject.toml")):
        digest = subprocess.run(["sha256sum", str(source)], capture_output=True, text=True,
                                check=True).stdout.split()[0]
        (venv / stamp).write_text(digest + "\n", encoding="utf-8")
    return venv


def test_given_python_other_than_the_venvs_rebuilds_it(tmp_path: Path) -> None:
    """``PYTHON=`` given while .venv is current was ignored (exit 0, the old interpreter kept):
    a .venv of another interpreter is rebuilt from the one given (here pip, pointed at no index,
    then fails as an unreachable index makes it fail; the point is that it ran)."""
    made_by, given = _two_pythons()
    lowest = min(_version(made_by), _version(given), key=lambda v: tuple(map(int, v.split("."))))
    with _tree_ctx() as repo:
        _current_venv(repo, made_by, lowest)
        kept = run_setup(repo, PYTHON=made_by, COPYBENCH_SETUP_OPTIONAL="0")
        done = run_setup(repo, PYTHON=given, COPYBENCH_SETUP_OPTIONAL="0", PIP_NO_INDEX="1",
                         PIP_FIND_LINKS=str(tmp_path))
    # the .venv's own interpreter given: nothing to do
    assert kept.returncode == 0 and "creating .venv" not in kept.stderr, kept.stderr
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"setup: creating .venv from requirements.lock (Python {_version(given)}," in done.stderr
    said = [ln for ln in done.stderr.splitlines() if ln.startswith(f"setup: PYTHON={given} ")]
    assert len(said) == 1 and _interpreter(made_by) in said[0], done.stderr[-2000:]
    assert last_line(done).startswith("setup: pip install -r requirements.lock into .venv failed")


def test_given_python_the_lock_does_not_fit_keeps_the_venv() -> None:
    """Another interpreter given that the lock does not fit: one line, exit 2, and the .venv
    (current, of an interpreter that fits) is left as it was."""
    a, b = _two_pythons()
    older, newer = sorted((a, b), key=lambda p: tuple(map(int, _version(p).split("."))))
    if _version(older) == _version(newer):
        pytest.skip(f"{older} and {newer} are both Python {_version(older)}")
    with _tree_ctx() as repo:
        venv = _current_venv(repo, newer, _version(newer))  # a lock the older one does not fit
        before = sorted(p.relative_to(venv).as_posix() for p in venv.rglob("*"))
        done = run_setup(repo, PYTHON=older, COPYBENCH_SETUP_OPTIONAL="0")
        after = sorted(p.relative_to(venv).as_posix() for p in venv.rglob("*"))
    assert done.returncode == 2, done.stderr[-2000:]
    line = last_line(done)
    assert line.startswith(f"setup: {older} is Python {_version(older)}, but requirements.lock"), line
    assert before == after

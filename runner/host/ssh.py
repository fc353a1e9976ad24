"""The system's OpenSSH client, one multiplexed connection per sweep.

Every call is ``ssh -o BatchMode=yes -o ControlMaster=auto -o ControlPath=DIR/%C
-o ControlPersist=60 ...`` (plus ``-F FILE`` when given), so the user's ``~/.ssh/config``
(host aliases, users, keys, jump hosts) applies, nothing ever waits for a password, and every
call after the first reuses the first one's connection. ``close`` ends the master
(``ssh -O exit``); the reaper does the same if the sweep dies first.

ssh's own failures (exit status 255) become one line naming the host and the kind of
failure: unreachable, key refused, host key, name not resolved.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from runner.host.errors import RunnerError

CONTROL_PERSIST_S = 60
CONNECT_TIMEOUT_S = 10


class SshError(RunnerError):
    """ssh could not reach or log in to the remote host: one line."""


def classify(target: str, stderr: str) -> str:
    """ssh's stderr (exit 255) -> one line naming the host and what went wrong."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()
             and not ln.startswith("Warning: Permanently added")]
    last = lines[-1] if lines else "no message"
    low = stderr.lower()
    if "permission denied" in low:
        kind = "ssh refused the login (key not accepted; BatchMode: no password is asked)"
    elif "host key verification failed" in low or "remote host identification has changed" in low:
        kind = "host key not known or changed (check known_hosts)"
    elif "could not resolve hostname" in low or "name or service not known" in low:
        kind = "host name not resolved"
    elif any(s in low for s in ("timed out", "no route to host", "network is unreachable",
                                "connection refused", "connection closed", "connection reset")):
        kind = "unreachable"
    else:
        kind = "ssh failed"
    return f"remote {target}: {kind} ({last})"


@dataclass
class Ssh:
    target: str
    config: str | None = None
    control_dir: Path = field(default_factory=lambda: Path(
        tempfile.mkdtemp(prefix="cbssh-", dir="/tmp")))

    @property
    def control_path(self) -> str:
        return str(self.control_dir / "%C")

    def options(self) -> list[str]:
        opts = ["-F", self.config] if self.config else []
        return opts + ["-o", "BatchMode=yes", "-o", "ControlMaster=auto",
                       "-o", f"ControlPath={self.control_path}",
                       "-o", f"ControlPersist={CONTROL_PERSIST_S}",
                       "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}",
                       "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
                       "-o", "LogLevel=ERROR"]

    def argv(self, remote_argv: Sequence[str], exec_: bool = False) -> list[str]:
        """ssh argv running ``remote_argv`` on the host (quoted for its shell)."""
        cmd = " ".join(shlex.quote(a) for a in remote_argv)
        return ["ssh", *self.options(), self.target, "--", ("exec " if exec_ else "") + cmd]

    def script_argv(self, script: str, args: Sequence[str] = ()) -> list[str]:
        """ssh argv running a POSIX sh script (given inline) with arguments."""
        return self.argv(["sh", "-c", script, "sh", *args])

    def run(self, remote_argv: Sequence[str], timeout: float = 60, script: bool = False,
            args: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
        argv = self.script_argv(remote_argv[0], args) if script else self.argv(remote_argv)
        if shutil.which("ssh") is None:
            raise SshError("ssh not found: install the OpenSSH client (Debian: openssh-client)")
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                               check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise SshError(f"remote {self.target}: no answer within {timeout:g} s") from None
        if r.returncode == 255:
            raise SshError(classify(self.target, r.stderr))
        return r

    def close(self) -> None:
        """End the master connection (if any) and remove the control directory."""
        subprocess.run(["ssh", *self.options(), "-O", "exit", self.target],
                       capture_output=True, check=False, timeout=15,
                       stdin=subprocess.DEVNULL)
        shutil.rmtree(self.control_dir, ignore_errors=True)

    def reaper_line(self) -> str:
        """What the reaper needs to end this connection (``+ssh`` line, runner.host.reaper)."""
        return "+ssh " + shlex.join([*self.options(), self.target])


#: what the reaper kills over ssh: only a process still running one of these (a pid the remote
#: host has since given to something else is left alone)
REAPED = ("copybench", "iperf3", "sockperf")


def reap(options_and_target: list[str], pids: Sequence[int]) -> None:
    """For the reaper: kill the remote servers still registered (their process group, only if
    still one of :data:`REAPED`), then end the ssh master."""
    if pids:
        test = " ".join(f"-e {name}" for name in REAPED)
        script = (f'for p in "$@"; do grep -q {test} /proc/$p/cmdline '
                  '2>/dev/null && { kill -KILL -- -$p 2>/dev/null || kill -KILL $p; }; done; true')
        *opts, target = options_and_target
        try:
            subprocess.run(["ssh", *opts, target, "--", "sh -c " + shlex.quote(script) + " sh "
                            + " ".join(str(p) for p in pids)], capture_output=True,
                           check=False, timeout=20, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            pass
    exit_master(options_and_target)


def exit_master(options_and_target: list[str]) -> None:
    """``ssh -O exit`` for a connection described by ``Ssh.reaper_line`` (used by the reaper)."""
    *opts, target = options_and_target
    try:
        subprocess.run(["ssh", *opts, "-O", "exit", target], capture_output=True, check=False,
                       timeout=15, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        pass
    for i, o in enumerate(opts):
        if o.startswith("ControlPath="):
            d = os.path.dirname(o.split("=", 1)[1])
            if os.path.basename(d).startswith("cbssh-"):
                shutil.rmtree(d, ignore_errors=True)

"""Their code runs without root.

The runner may be root (it needs CAP_SYS_ADMIN for the namespaces). Code nobody here wrote
must not be: every build step and every process of theirs runs as the system user
``copybench-originals`` (created with ``useradd --system`` when absent; ``$COPYBENCH_ORIGINALS_USER``
names another existing user), with no supplementary groups, an empty capability bounding
set and no-new-privs. Root only creates the namespaces, enters them (``ip netns exec``) and
then ``setpriv`` drops to that user before ``taskset`` and their program are executed.
Without root the runner is already unprivileged and runs their code as itself.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass

from runner.originals import OriginalsError

DEFAULT_USER = "copybench-originals"
USER_ENV = "COPYBENCH_ORIGINALS_USER"


@dataclass(frozen=True)
class RunAs:
    user: str
    uid: int
    gid: int

    def prefix(self) -> list[str]:
        """argv prefix that runs the rest as this user (empty when we already are it)."""
        if os.geteuid() == self.uid:
            return []
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]

    def env(self) -> dict[str, str]:
        """A small clean environment for their processes."""
        return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "LANG": "C",
                "HOME": "/nonexistent" if os.geteuid() != self.uid else
                os.environ.get("HOME", "/"), "USER": self.user, "LOGNAME": self.user}

    def chown_tree(self, path: str | os.PathLike[str]) -> None:
        if os.geteuid() != 0 or os.geteuid() == self.uid:
            return
        for dirpath, dirnames, filenames in os.walk(path):
            os.chown(dirpath, self.uid, self.gid)
            for n in filenames:
                os.chown(os.path.join(dirpath, n), self.uid, self.gid, follow_symlinks=False)


def run_as() -> RunAs:
    """The unprivileged identity for their code (created if needed when we are root)."""
    if os.geteuid() != 0:
        pw = pwd.getpwuid(os.geteuid())
        return RunAs(pw.pw_name, pw.pw_uid, pw.pw_gid)
    name = os.environ.get(USER_ENV) or DEFAULT_USER
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        if name != DEFAULT_USER:
            raise OriginalsError(f"${USER_ENV}: no user {name!r}") from None
        if shutil.which("useradd") is None:
            raise OriginalsError(f"no user {name!r} and no useradd to create it") from None
        r = subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir",
                            "/nonexistent", "--shell", "/usr/sbin/nologin", name],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise OriginalsError(f"useradd {name}: {r.stderr.strip() or r.returncode}") from None
        pw = pwd.getpwnam(name)
    if pw.pw_uid == 0:
        raise OriginalsError(f"user {name!r} has uid 0; their code must not run as root")
    if shutil.which("setpriv") is None:
        raise OriginalsError("setpriv (util-linux) is not installed; it drops root for their "
                             "code")
    return RunAs(pw.pw_name, pw.pw_uid, pw.pw_gid)


def proc_identity(pid: int) -> dict[str, object]:
    """Uid/Gid (real, effective, saved, fs), groups, effective capabilities and allowed CPUs
    of a process, read from /proc/<pid>/status."""
    out: dict[str, object] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, val = line.partition(":")
                if key in ("Uid", "Gid"):
                    out[key.lower()] = [int(x) for x in val.split()]
                elif key == "Groups":
                    out["groups"] = [int(x) for x in val.split()]
                elif key == "CapEff":
                    out["cap_eff"] = val.strip()
                elif key == "NoNewPrivs":
                    out["no_new_privs"] = val.strip() == "1"
                elif key == "Cpus_allowed_list":
                    out["cpus"] = val.strip()
    except OSError:
        return {}
    return out

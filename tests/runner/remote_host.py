"""A "remote host" for tests: a real OpenSSH server (Debian's sshd) in a network namespace,
reached over a veth pair from a second namespace where the runner runs.

Addresses come from 198.18.0.0/15 (RFC 2544, benchmarking) and exist only in the two
namespaces: 198.18.100.1 (the runner's), 198.18.100.3 (a second address there, for a
stranger), 198.18.100.2 (the remote). The remote has its own copybench path and working
directory (``<tmp>/remote/...``), a host key and an authorized key generated for the test,
and a wrong key that it refuses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

RUNNER_ADDR = "198.18.100.1"
STRANGER_ADDR = "198.18.100.3"
REMOTE_ADDR = "198.18.100.2"
UNREACHABLE_ADDR = "198.18.100.9"
SSHD = "/usr/sbin/sshd"


def _run(argv: list[str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def sshd_missing() -> str | None:
    """Why the test cannot run (None: it can)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, sshd)"
    if not os.path.exists(SSHD) or shutil.which("ssh") is None or \
            shutil.which("ssh-keygen") is None:
        return ("OpenSSH server/client not installed (Debian: apt-get install "
                "openssh-server openssh-client; scripts/setup installs them)")
    return None


class RemoteHost:
    def __init__(self, tmp: Path, copybench: Path) -> None:
        self.tmp = tmp
        tag = f"rt{os.getpid() % 100000}"
        self.ns_runner, self.ns_remote = f"{tag}a", f"{tag}b"
        self.links = (f"{tag}va", f"{tag}vb")
        self.remote_dir = tmp / "remote"            # the remote's "working directory"
        self.copybench = self.remote_dir / "opt" / "copybench" / "bin" / "copybench"
        self.ssh_config = tmp / "ssh_config"
        self.alias = "cbremote"
        self.sshd: subprocess.Popen[bytes] | None = None
        self.local_copybench = copybench

    # --- set-up ---------------------------------------------------------------------
    def start(self) -> "RemoteHost":
        t = self.tmp
        for ns in (self.ns_runner, self.ns_remote):
            _run(["ip", "netns", "add", ns])
        a, b = self.links
        _run(["ip", "link", "add", "name", a, "netns", self.ns_runner, "type", "veth",
              "peer", "name", b, "netns", self.ns_remote])
        for ns, link, addrs in ((self.ns_runner, a, (RUNNER_ADDR, STRANGER_ADDR)),
                                (self.ns_remote, b, (REMOTE_ADDR,))):
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
            _run(["ip", "-n", ns, "link", "set", link, "up"])
            for addr in addrs:
                _run(["ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", link])
        for name in ("hostkey", "id", "wrong"):
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"copybench-test-{name}",
                  "-f", str(t / name)])
        (t / "authorized_keys").write_text((t / "id.pub").read_text())
        (t / "known_hosts").write_text(f"{REMOTE_ADDR} {(t / 'hostkey.pub').read_text()}")
        (t / "sshd_config").write_text(
            f"Port 22\nListenAddress {REMOTE_ADDR}\nHostKey {t / 'hostkey'}\n"
            f"PidFile {t / 'sshd.pid'}\nAuthorizedKeysFile {t / 'authorized_keys'}\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
            "PermitRootLogin prohibit-password\nStrictModes no\nMaxSessions 50\n"
            "MaxStartups 50\n")
        self.write_client_config()
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        self.copybench.parent.mkdir(parents=True)
        shutil.copy2(self.local_copybench, self.copybench)
        self.sshd = subprocess.Popen(
            ["ip", "netns", "exec", self.ns_remote, SSHD, "-D", "-e", "-f",
             str(t / "sshd_config")], stdout=subprocess.DEVNULL,
            stderr=open(t / "sshd.log", "wb"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._port_open():
                return self
            if self.sshd.poll() is not None:
                raise RuntimeError("sshd exited: " + (t / "sshd.log").read_text()[-500:])
            time.sleep(0.1)
        raise RuntimeError("sshd did not listen within 10 s")

    def _port_open(self) -> bool:
        r = subprocess.run(["ip", "netns", "exec", self.ns_remote, "ss", "-Hltn",
                            "sport = :22"], capture_output=True, text=True, check=False)
        return REMOTE_ADDR in r.stdout

    def write_client_config(self, key: str = "id", host: str = REMOTE_ADDR,
                            path: Path | None = None) -> Path:
        t = self.tmp
        path = path or self.ssh_config
        path.write_text(
            f"Host {self.alias}\n  HostName {host}\n  User root\n  IdentityFile {t / key}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {t / 'known_hosts'}\n"
            "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n"
            "  PasswordAuthentication no\n")
        return path

    # --- use ------------------------------------------------------------------------
    def in_runner_ns(self, argv: list[str], **kw) -> subprocess.CompletedProcess[str]:
        kw.setdefault("check", True)
        return subprocess.run(["ip", "netns", "exec", self.ns_runner, *argv],
                              capture_output=True, text=True, **kw)

    def ssh(self, command: str, config: Path | None = None,
            timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Run a command on the remote over ssh from the runner's namespace (the test's own
        multiplexed connection, not the runner's)."""
        mux = [] if config else ["-o", "ControlMaster=auto", "-o",
                                 f"ControlPath={self.tmp}/test-%C", "-o", "ControlPersist=60"]
        return self.in_runner_ns(["ssh", "-F", str(config or self.ssh_config), "-o",
                                  "BatchMode=yes", *mux, self.alias, "--", command],
                                 check=False, timeout=timeout)

    def remote_copybench_processes(self) -> list[str]:
        """Processes running the remote copybench, or a peer server on the remote's data
        address, listed over ssh."""
        r = self.ssh(f"pgrep -af -- '^{self.copybench} '; "
                     f"pgrep -af -- '^(iperf3|sockperf|taskset) .*{REMOTE_ADDR}'; true")
        assert r.returncode == 0, r.stderr
        return [ln for ln in r.stdout.splitlines() if ln.strip()]

    def stop(self) -> None:
        if self.sshd is not None:
            self.sshd.kill()
            self.sshd.wait()
        for ns in (self.ns_runner, self.ns_remote):
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True,
                                  check=False).stdout.split()
            for p in pids:
                try:
                    os.kill(int(p), 9)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True, check=False)


def connect_from(ns: str, src: str, dst: str, port: int, payload: bytes,
                 timeout: float = 5) -> subprocess.CompletedProcess[str]:
    """A stranger: connect from ``src`` in namespace ``ns`` and send ``payload``; prints what
    came back."""
    code = ("import socket,sys\n"
            "s=socket.socket(); s.settimeout(%r); s.bind((%r,0)); s.connect((%r,%d))\n"
            "s.sendall(%r)\n"
            "try:\n  d=s.recv(200)\nexcept OSError as e:\n  d=repr(e).encode()\n"
            "sys.stdout.write(d.decode(errors='replace'))\n") % (timeout, src, dst, port,
                                                                   payload)
    return subprocess.run(["ip", "netns", "exec", ns, "python3", "-c", code],
                          capture_output=True, text=True, check=False, timeout=timeout + 5)


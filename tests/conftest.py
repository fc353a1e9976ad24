"""Shared fixtures. The runner's are prefixed ``runner_``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _copybench_bin() -> Path | None:
    env = os.environ.get("COPYBENCH_BIN")
    if env:
        return Path(env) if Path(env).is_file() else None
    p = ROOT / "src" / "build" / "copybench"
    return p if p.is_file() and os.access(p, os.X_OK) else None


@pytest.fixture
def runner_copybench() -> Path:
    """The real copybench program (built by `make build`)."""
    p = _copybench_bin()
    if p is None:
        pytest.skip("copybench is not built (run `make build` or `make -C src`)")
    return p


@pytest.fixture
def runner_root() -> None:
    """Tests that create network namespaces or record system-wide perf profiles."""
    if os.geteuid() != 0:
        msg = "needs root: network namespaces / perf record -a (run as root to include it)"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


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

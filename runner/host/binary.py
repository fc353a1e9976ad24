"""Where the copybench program is, whether it is copybench, and which methods it was built
with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path


def repo_root() -> Path:
    here = Path(__file__).resolve().parents[2]
    if (here / "src").is_dir() and (here / "runner").is_dir():
        return here
    return Path.cwd()


def find_binary() -> Path | None:
    env = os.environ.get("COPYBENCH_BIN")
    if env:
        return Path(env)
    for root in (Path.cwd(), repo_root()):
        p = root / "src" / "build" / "copybench"
        if p.is_file() and os.access(p, os.X_OK):
            return p
    which = shutil.which("copybench")
    return Path(which) if which else None


def binary_problem(binary: Path) -> str | None:
    """Why ``binary`` cannot be the sweep's copybench (one clause naming where it came from),
    or None: it exists, is executable, and ``--build-info`` prints copybench's JSON."""
    where = (f"COPYBENCH_BIN={binary}" if os.environ.get("COPYBENCH_BIN") else str(binary))
    if not binary.exists():
        return f"{where}: no such file (build it: make -C src, or set COPYBENCH_BIN)"
    if not binary.is_file() or not os.access(binary, os.X_OK):
        return f"{where}: not an executable file (build it: make -C src)"
    try:
        r = subprocess.run([str(binary), "--build-info"], capture_output=True, text=True,
                           timeout=30, check=False)
        info = json.loads(r.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        info = None
    if not isinstance(info, dict) or info.get("tool") != "copybench":
        return (f"{where}: not copybench (its --build-info printed no copybench build "
                "information; build it: make -C src)")
    return None


def binary_methods(binary: Path | None) -> tuple[str, ...] | None:
    if binary is None:
        return None
    try:
        r = subprocess.run([str(binary), "methods", "--json"], capture_output=True, text=True,
                           timeout=30, check=False)
        d = json.loads(r.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return None
    names: list[str] = []
    items = d.get("methods", d) if isinstance(d, dict) else d
    if isinstance(items, list):
        for m in items:
            if isinstance(m, str):
                names.append(m)
            elif isinstance(m, dict) and isinstance(m.get("name"), str):
                if m.get("available", True):
                    names.append(m["name"])
    return tuple(names) or None

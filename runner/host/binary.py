"""Where the copybench program is, whether it is copybench (its build information, its method
list, and the sources it was built from against ``src/``), and which methods it was built
with.

Every question to the program runs it in a process group of its own, ended with the group
when it has answered or timed out: a program that hangs (a script that runs ``sleep``) leaves
nothing behind (a timeout that killed only the direct child left its children running).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from runner.host.proc import ask

#: how long the program may take to answer one question (--build-info, methods --json)
CHECK_TIMEOUT_S = 30.0


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


def _ask(binary: Path, *args: str) -> str | None:
    """The program's stdout for ``args``, or None (it cannot run, or did not answer within
    :data:`CHECK_TIMEOUT_S`): :func:`runner.host.proc.ask`, so nothing it started outlives
    the question."""
    a = ask([str(binary), *args], timeout=CHECK_TIMEOUT_S)
    return None if a.problem is not None else a.stdout


def _json(text: str | None) -> object:
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return None


def source_sha(src: Path) -> str | None:
    """What ``--build-info`` names as ``source_sha`` for a build of ``src``: the first 16 hex
    digits of the SHA-256 of its ``*.c`` and ``*.h`` files concatenated in name order
    (src/Makefile: ``cat $(sort $(SRCS) $(HDRS)) | sha256sum``); None without sources."""
    files = sorted([*src.glob("*.c"), *src.glob("*.h")], key=lambda p: p.name.encode())
    if not files:
        return None
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()[:16]


def binary_problem(binary: Path) -> str | None:
    """Why ``binary`` cannot be the sweep's copybench (one clause naming where it came from),
    or None: it exists, is executable, ``--build-info`` prints copybench's JSON, built from
    the sources in this checkout's ``src/`` (where there are any), and ``methods --json``
    lists its methods."""
    where = (f"COPYBENCH_BIN={binary}" if os.environ.get("COPYBENCH_BIN") else str(binary))
    if not binary.exists():
        return f"{where}: no such file (build it: make -C src, or set COPYBENCH_BIN)"
    if not binary.is_file() or not os.access(binary, os.X_OK):
        return f"{where}: not an executable file (build it: make -C src)"
    info = _json(_ask(binary, "--build-info"))
    if not isinstance(info, dict) or info.get("tool") != "copybench":
        return (f"{where}: not copybench (its --build-info printed no copybench build "
                "information; build it: make -C src)")
    src = repo_root() / "src"
    want = source_sha(src)
    if want is not None and info.get("source_sha") != want:
        return (f"{where}: built from other sources than {src} (its source_sha is "
                f"{info.get('source_sha')!r}, the sources here hash to {want!r}); rebuild "
                "it: make -C src")
    if binary_methods(binary) is None:
        return (f"{where}: not copybench (its methods --json printed no method list; build "
                "it: make -C src)")
    return None


def binary_methods(binary: Path | None) -> tuple[str, ...] | None:
    if binary is None:
        return None
    d = _json(_ask(binary, "methods", "--json"))
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

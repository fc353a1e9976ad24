"""Building their code as published: their own ``Makefile``, unchanged, default target.

The verified tree is copied to ``build/originals/<key>/build/`` (the verified copy stays
untouched, so it can be hashed again), handed to the unprivileged user and built there with
``make`` in a clean environment (no CC/CFLAGS from ours: their Makefile decides). The result
is a dict for a run's manifest: compiler and make versions, the compile commands make ran,
the flags in them, every warning line, the binaries with their SHA-256, the exit status and
time. A failed build is a result with ``ok: false`` and the reason, never an exception.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from runner.originals import adapters
from runner.originals.fetch import Fetched
from runner.originals.privs import RunAs, run_as

BUILD_TIMEOUT_S = 300.0
_COMPILE = re.compile(r"^\s*(?:\S*/)?(?:gcc|cc|clang|g\+\+|c\+\+)(?:-\d+)?\s")


def _first_line(argv: list[str]) -> str | None:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (r.stdout.strip().splitlines() or [None])[0]


def _sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_dir_for(fetched: Fetched) -> Path:
    return fetched.dir.parent / "build"


def build_tree(src_dir: Path, out_dir: Path, expect: list[str], who: RunAs | None = None,
               timeout: float = BUILD_TIMEOUT_S) -> dict[str, object]:
    """Copy ``src_dir`` to ``out_dir`` and run ``make`` there as the unprivileged user."""
    who = who or run_as()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    shutil.copytree(src_dir, out_dir, symlinks=True)
    who.chown_tree(out_dir)
    argv = [*who.prefix(), "make"]
    if who.prefix():
        argv[-1:-1] = ["--reset-env"]
    t0 = time.monotonic()
    result: dict[str, object] = {
        "dir": str(out_dir), "user": who.user, "uid": who.uid, "argv": ["make"],
        "make": _first_line(["make", "--version"]), "compiler": _first_line(["gcc", "--version"]),
    }
    try:
        r = subprocess.run(argv, cwd=out_dir, capture_output=True, text=True, check=False,
                           timeout=timeout, env=who.env(), stdin=subprocess.DEVNULL)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    except OSError as e:
        rc, out, err = None, "", str(e)
    commands = [ln.strip() for ln in out.splitlines() if _COMPILE.match(ln)]
    flags: list[str] = []
    for cmd in commands:
        for tok in cmd.split():
            if tok.startswith("-") and not tok.startswith("-o") and tok not in flags:
                flags.append(tok)
    warnings = [ln for ln in err.splitlines() if "warning:" in ln]
    bins = {}
    missing = []
    for b in expect:
        p = out_dir / b
        if p.is_file() and os.access(p, os.X_OK):
            bins[b] = _sha256(p)
        else:
            missing.append(b)
    if rc is None:
        reason = (f"make did not finish in {timeout:.0f} s" if not err else
                  f"make: {err.strip().splitlines()[-1]}")
    elif rc != 0:
        errs = [ln for ln in err.splitlines() if "error" in ln.lower()]
        reason = f"make exited {rc}: {(errs or err.strip().splitlines() or ['no output'])[0]}"
    elif missing:
        reason = f"make succeeded but did not produce {', '.join(missing)}"
    else:
        reason = None
    result.update({
        "ok": reason is None, "reason": reason, "returncode": rc,
        "seconds": round(time.monotonic() - t0, 3), "commands": commands, "flags": flags,
        "warnings": warnings, "warning_count": len(warnings), "binaries": bins,
        "stdout_tail": "\n".join(out.strip().splitlines()[-10:]),
        "stderr_tail": "\n".join(err.strip().splitlines()[-10:]),
    })
    return result


def build(fetched: Fetched, who: RunAs | None = None) -> dict[str, object]:
    """Build a fetched repository; writes ``build.json`` beside it and returns the dict."""
    out = build_dir_for(fetched)
    res = {"source": fetched.source.id, "repository": fetched.source.repository,
           "commit": fetched.source.commit, "tree": fetched.tree,
           **build_tree(fetched.dir, out, adapters.binaries(fetched.source.id), who)}
    (fetched.dir.parent / "build.json").write_text(json.dumps(res, indent=1) + "\n")
    return res


def ensure_built(fetched: Fetched) -> dict[str, object]:
    """The build record, reusing a good earlier build whose binaries are unchanged."""
    stamp = fetched.dir.parent / "build.json"
    if stamp.is_file():
        try:
            old = json.loads(stamp.read_text())
        except (OSError, ValueError):
            old = {}
        out = build_dir_for(fetched)
        if old.get("ok") and old.get("tree") == fetched.tree and all(
                (out / b).is_file() and _sha256(out / b) == h
                for b, h in old.get("binaries", {}).items()):
            return old
    return build(fetched)

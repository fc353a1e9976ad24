"""Download the pure-Python wheels of the named packages at the versions and hashes that
requirements.lock pins, for the bundle (scripts/bundle): ``bundle_wheels.py LOCK OUTDIR NAME...``.

pip checks every wheel against the lock's hashes (``--require-hashes``); ``--platform any
--abi none`` accepts only wheels that run on every CPython >= 3.11, so the bundle does not
depend on the host's Python ABI."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path


def pinned(lock: str, names: list[str]) -> list[str]:
    """The lock's requirement blocks (``name==version`` and its ``--hash`` lines) of ``names``."""
    blocks: dict[str, str] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", lock):
        m = re.match(r"([A-Za-z0-9_.-]+)==", block)
        if m:
            body = "\n".join(ln for ln in block.splitlines() if not ln.strip().startswith("#"))
            blocks[m.group(1).lower().replace("_", "-")] = body.rstrip(" \\\n")
    missing = [n for n in names if n.lower() not in blocks]
    if missing:
        raise SystemExit(f"bundle: not pinned in the lock: {', '.join(missing)}")
    return [blocks[n.lower()] for n in names]


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: bundle_wheels.py LOCK OUTDIR NAME...", file=sys.stderr)
        return 2
    lock, out, names = Path(argv[0]), Path(argv[1]), argv[2:]
    reqs = pinned(lock.read_text(), names)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(reqs) + "\n")
        f.flush()
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                            "--require-hashes", "--only-binary=:all:", "--platform", "any",
                            "--abi", "none", "--implementation", "py", "--python-version",
                            "3.11", "-d", str(out), "-r", f.name], check=False)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Download the pure-Python wheels of the named packages at the versions and hashes that
requirements.lock pins, for the bundle (scripts/bundle): ``bundle_wheels.py LOCK OUTDIR NAME...``.

pip checks every wheel against the lock's hashes (``--require-hashes``); ``--platform any
--abi none`` accepts only wheels that run on every CPython >= 3.11, so the bundle does not
depend on the host's Python ABI.

LOCK must be a regular file (a FIFO, a device or a missing file is refused in one line);
OUTDIR a new or empty directory outside any run (:func:`rundir.outpath.new_dir_problem`: a
link or a directory that holds anything is refused before pip runs)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rundir import utf8  # noqa: E402
from rundir.outpath import new_dir_problem  # noqa: E402

USAGE = "usage: bundle_wheels.py LOCK OUTDIR NAME..."


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
        print(f"bundle_wheels: not pinned in the lock: {', '.join(missing)}", file=sys.stderr)
        sys.exit(2)
    return [blocks[n.lower()] for n in names]


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(f"{USAGE}\n\n{__doc__}")
        return 0
    if len(argv) < 3:
        print(USAGE, file=sys.stderr)
        return 2
    lock, out, names = Path(argv[0]), Path(argv[1]), argv[2:]
    try:  # a regular file of bounded size, never waiting on a FIFO
        text = utf8.read(lock)
    except (OSError, ValueError) as exc:
        print(f"bundle_wheels: LOCK {lock}: cannot be read "
              f"({getattr(exc, 'strerror', None) or exc})", file=sys.stderr)
        return 2
    problem = new_dir_problem(out, "OUTDIR", "the download")
    if problem:
        print(f"bundle_wheels: {problem}; nothing downloaded", file=sys.stderr)
        return 2
    reqs = pinned(text, names)
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

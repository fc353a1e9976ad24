"""Getting the code, pinned.

``fetch(source)`` puts the repository at its pinned commit into
``build/originals/<owner>+<repo>-<commit>/source/`` and returns that directory. The archive
comes from a local directory of GitHub's archives when one is given (``archives=`` or
``$COPYBENCH_ORIGINALS_ARCHIVES``; file name ``<owner>+<repo>-<commit>.tar.gz``, as in
``../shared/seed-repos``), else from GitHub
(``https://github.com/<owner>/<repo>/archive/<commit>.tar.gz``).

The archive is extracted into a staging directory (members are checked: one top-level
directory ``<repo>-<commit>/``, no absolute paths, no ``..``, no links leaving the tree,
only files, directories and symlinks), and its git tree hash is computed the way git does
for a commit: a throw-away git directory outside the tree, ``git add -A -f`` (every file an
archive of a commit holds was tracked, so none is left out by their ``.gitignore``),
``git write-tree``, with no system or user git configuration. Anything whose hash is not
the pinned one is refused with one line and nothing is kept. A cached copy is hashed again
each time it is used, so a copy edited after fetching is refused too.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from runner.originals import OriginalsError, OriginalsUsageError
from runner.originals.sources import Source

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = ROOT / "build" / "originals"
ARCHIVES_ENV = "COPYBENCH_ORIGINALS_ARCHIVES"
CACHE_ENV = "COPYBENCH_ORIGINALS_CACHE"
DOWNLOAD_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Fetched:
    source: Source
    dir: Path       # the verified tree: build/originals/<key>/source
    origin: str     # the archive's path or URL, or "cache"
    tree: str

    def describe(self) -> dict[str, str]:
        return {"id": self.source.id, "repository": self.source.repository,
                "commit": self.source.commit, "tree": self.tree, "origin": self.origin,
                "dir": str(self.dir)}


def cache_dir(cache: Path | None = None) -> Path:
    if cache is not None:
        return Path(cache)
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else DEFAULT_CACHE


def archives_dir(archives: Path | None = None) -> Path | None:
    """The local directory of archives to use, or None for GitHub."""
    if archives is None:
        env = os.environ.get(ARCHIVES_ENV)
        if not env:
            return None
        archives = Path(env)
        what = f"${ARCHIVES_ENV}"
    else:
        what = "--archives"
    archives = Path(archives)
    if not archives.is_dir():
        raise OriginalsUsageError(f"{what} {archives}: not a directory")
    return archives


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C",
               GIT_AUTHOR_NAME="copybench", GIT_AUTHOR_EMAIL="copybench@localhost",
               GIT_COMMITTER_NAME="copybench", GIT_COMMITTER_EMAIL="copybench@localhost")
    return env


def tree_hash(tree: Path) -> str:
    """The git tree hash of the files under ``tree`` (what ``git write-tree`` prints after
    ``git init && git add -A`` there), computed with a git directory outside ``tree``."""
    if shutil.which("git") is None:
        raise OriginalsError("git is not installed (needed to check the pinned tree hash)")
    with tempfile.TemporaryDirectory(prefix="cb-orig-git-") as gitdir:
        base = ["git", f"--git-dir={gitdir}", f"--work-tree={tree}",
                "-c", "core.autocrlf=false", "-c", "core.fileMode=true",
                "-c", "core.symlinks=true", "-c", "core.excludesFile=/dev/null"]
        for args in (["init", "-q"], ["add", "-A", "-f"], ["write-tree"]):
            r = subprocess.run([*base, *args], capture_output=True, text=True,
                               env=_git_env(), cwd=tree, check=False, timeout=120)
            if r.returncode != 0:
                msg = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
                raise OriginalsError(f"git {args[0]} in {tree}: {msg}")
        return r.stdout.strip()


def _check_members(tar: tarfile.TarFile, top: str, where: str) -> None:
    for m in tar.getmembers():
        name = m.name.rstrip("/")
        parts = Path(name).parts
        if name.startswith("/") or ".." in parts:
            raise OriginalsError(f"{where}: member {m.name!r} leaves the archive's directory")
        if not parts or parts[0] != top:
            raise OriginalsError(f"{where}: member {m.name!r} is not under {top}/ (GitHub's "
                                 "archive of a commit has exactly that top-level directory)")
        if not (m.isfile() or m.isdir() or m.issym()):
            raise OriginalsError(f"{where}: member {m.name!r} is not a file, directory or "
                                 "symlink")
        if m.issym():
            target = (Path(name).parent / m.linkname)
            if m.linkname.startswith("/") or ".." in Path(os.path.normpath(target)).parts:
                raise OriginalsError(f"{where}: symlink {m.name!r} points outside the tree")


def _download(src: Source, dest: Path, timeout: float) -> None:
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(src.url, timeout=timeout) as r, open(part, "wb") as f:
            shutil.copyfileobj(r, f)
        os.replace(part, dest)
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as e:
        part.unlink(missing_ok=True)
        reason = getattr(e, "reason", None) or e
        raise OriginalsError(
            f"{src.id}: cannot download {src.url}: {reason}; without GitHub, give a directory "
            f"of the archives with --archives DIR or ${ARCHIVES_ENV}") from None


def _extract_verified(src: Source, archive: Path, dest: Path, origin: str) -> str:
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=dest.parent))
    try:
        try:
            with tarfile.open(archive, "r:*") as tar:
                _check_members(tar, src.top_dir, origin)
                # _check_members already refused escapes; the data filter (Python >= 3.11.4
                # and security backports) also drops modes such as setuid
                kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tar.extractall(staging, **kw)
        except (tarfile.TarError, EOFError, OSError) as e:
            raise OriginalsError(f"{src.id}: {origin}: not a readable tar.gz ({e})") from None
        tree = staging / src.top_dir
        if not tree.is_dir():
            raise OriginalsError(f"{src.id}: {origin}: no {src.top_dir}/ in the archive")
        got = tree_hash(tree)
        if got != src.tree:
            raise OriginalsError(
                f"{src.id} {src.repository}@{src.commit[:12]}: refusing {origin}: its git tree "
                f"is {got}, the pin is {src.tree}")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tree, dest)
        return got
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fetch(src: Source, archives: Path | None = None, cache: Path | None = None,
          timeout: float = DOWNLOAD_TIMEOUT_S) -> Fetched:
    """The pinned, verified tree of ``src`` (fetched now or found in the cache)."""
    base = cache_dir(cache) / src.key
    dest = base / "source"
    stamp = base / "fetched.json"
    if dest.is_dir() and stamp.is_file():
        got = tree_hash(dest)
        if got != src.tree:
            raise OriginalsError(
                f"{src.id}: the cached copy {dest} was changed after fetching (git tree {got}, "
                f"the pin is {src.tree}); delete {base} and fetch again")
        return Fetched(src, dest, "cache", got)
    local = archives_dir(archives)
    if local is not None:
        archive = local / src.archive_name
        if not archive.is_file():
            raise OriginalsError(f"{src.id}: no {src.archive_name} in {local}")
        origin = str(archive)
        got = _extract_verified(src, archive, dest, origin)
    else:
        base.mkdir(parents=True, exist_ok=True)
        archive = base / src.archive_name
        _download(src, archive, timeout)
        try:
            got = _extract_verified(src, archive, dest, src.url)
        finally:
            archive.unlink(missing_ok=True)
        origin = src.url
    stamp.write_text(json.dumps({"repository": src.repository, "commit": src.commit,
                                 "tree": got, "origin": origin}, indent=1) + "\n")
    return Fetched(src, dest, origin, got)

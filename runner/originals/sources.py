"""The pins: which repository, at which commit, with which git tree hash.

``sources.tsv`` (beside this file) is the project's own copy of the pins; the archives'
directory carries the same table (``../shared/seed-repos/SOURCES.tsv``). A pin names the
commit (what is downloaded) and the tree hash (what is checked after extracting).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from rundir import utf8
from runner.originals import OriginalsUsageError

SOURCES_TSV = Path(__file__).resolve().parent / "sources.tsv"
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}/[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True)
class Source:
    id: str          # S1, S2, S3 (CLAIMS.md)
    repository: str  # owner/name on GitHub
    commit: str
    tree: str        # git tree hash of that commit
    seed: str = ""   # the report's text in ../shared/seeds/

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repository.split("/", 1)[1]

    @property
    def key(self) -> str:
        """``owner+name-commit``: the archive's base name and the cache directory's name."""
        return f"{self.owner}+{self.name}-{self.commit}"

    @property
    def archive_name(self) -> str:
        return f"{self.key}.tar.gz"

    @property
    def top_dir(self) -> str:
        """The one top-level directory of GitHub's archive of a commit."""
        return f"{self.name}-{self.commit}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}/archive/{self.commit}.tar.gz"


def load(path: Path = SOURCES_TSV) -> dict[str, Source]:
    """Read a pin table (columns ``id repository commit tree [seed]``), checking each row.
    The table is read as every input file is (:func:`rundir.utf8.read`: a regular UTF-8 file
    within the cap, so a FIFO or a device such as /dev/zero is refused before a byte is read)."""
    try:
        text = utf8.read(path)
    except (OSError, utf8.NotUtf8) as e:
        raise OriginalsUsageError(f"pins {path}: {getattr(e, 'strerror', None) or e}") from None
    rows = list(csv.DictReader(text.splitlines(), delimiter="\t"))
    out: dict[str, Source] = {}
    for n, row in enumerate(rows, start=2):
        try:
            src = Source(row["id"].strip(), row["repository"].strip(), row["commit"].strip(),
                         row["tree"].strip(), (row.get("seed") or "").strip())
        except (KeyError, AttributeError):
            raise OriginalsUsageError(f"pins {path}: line {n}: needs columns id, repository, "
                                      "commit, tree") from None
        if not _REPO.match(src.repository):
            raise OriginalsUsageError(f"pins {path}: line {n}: repository {src.repository!r} "
                                      "is not owner/name")
        for what in ("commit", "tree"):
            if not _HEX40.match(getattr(src, what)):
                raise OriginalsUsageError(f"pins {path}: line {n}: {what} must be 40 lowercase "
                                          "hex digits")
        out[src.id] = src
    if not out:
        raise OriginalsUsageError(f"pins {path}: no rows")
    return out


def select(ids: list[str] | None, pins: dict[str, Source] | None = None) -> list[Source]:
    """The sources named by ``ids`` (all when empty), or a usage error naming the allowed."""
    pins = pins if pins is not None else load()
    if not ids:
        return list(pins.values())
    bad = [i for i in ids if i not in pins]
    if bad:
        raise OriginalsUsageError(f"unknown source {bad[0]!r} (allowed: {', '.join(pins)})")
    return [pins[i] for i in ids]

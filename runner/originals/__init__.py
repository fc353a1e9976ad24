"""The replicated reports' own programs (S1-S3), fetched pinned, built as published, run here.

Three of the sources in CLAIMS.md published their programs on GitHub. This package

* fetches each repository at the commit pinned in ``sources.tsv`` (from a local directory of
  GitHub's archives, or from GitHub), and refuses it unless its git tree hash is the pinned
  one (``fetch``);
* builds it with its own ``Makefile``, unchanged, as an unprivileged user, recording the
  compiler, the flags and the warnings; a failed build is a recorded failure (``build``);
* runs its server and client in a private network namespace (loopback) or across the
  runner's veth pair, pinned by the runner's placement rules, as the unprivileged user, for
  a window, then stops everything (``program_run``, one trial of a sweep:
  ``original_trial``), and parses what the client printed into a
  record, with the metric definitions taken from their code (``adapters``);
* reads the numbers their committed CSVs hold (``published``).

Their code carries no licence: it is downloaded into ``build/originals/`` (not committed)
and never copied into this repository. Every error is one line (``OriginalsError``).
"""

from __future__ import annotations


class OriginalsError(Exception):
    """A runtime failure (fetch, pin, build set-up, run set-up): one line, exit code 1."""

    exit_code = 1


class OriginalsUsageError(OriginalsError):
    """Bad input (unknown source, method, size): one line, exit code 2."""

    exit_code = 2

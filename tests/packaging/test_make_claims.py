"""``make claims`` without the reports' archives and without GitHub stops at once, in one line
that says how to provide them, instead of starting the 55-minute sweep and recording
every trial of theirs as failed.

No network is made by pointing HTTPS at a closed local port (urllib honours https_proxy);
the fetch cache is an empty directory of the test's, and the run directory it would make is
the test's too (CLAIMS_RUN), so a regression starts nothing in the checkout's data/raw."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: make's own closing line of a failed target: not one of ours
MAKE_TRAILER = re.compile(r"^make(\[\d+\])?: (\*\*\*|Leaving|Entering)")


@pytest.mark.parametrize("archives", [None, "empty-dir"])
def test_make_claims_without_their_archives_stops_in_one_line(tmp_path: Path,
                                                              archives: str | None) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    run = tmp_path / "claims-run"
    env = {**os.environ, "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "COPYBENCH_ORIGINALS_CACHE": str(cache)}
    env.pop("COPYBENCH_ORIGINALS_ARCHIVES", None)
    args = ["make", "--no-print-directory", "-s", "claims", "SETUP_DONE=1", f"CLAIMS_RUN={run}"]
    if archives:
        (tmp_path / archives).mkdir()
        args.append(f"ORIGINALS_ARCHIVES={tmp_path / archives}")
    r = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                       check=False)
    ours = [ln for ln in r.stderr.splitlines() if ln.strip() and not MAKE_TRAILER.match(ln)]
    assert r.returncode != 0, r.stderr[-2000:]
    assert len(ours) == 1 and ours[0].startswith("make claims: "), ours
    assert "ORIGINALS_ARCHIVES=DIR" in ours[0] and "nothing was run" in ours[0]
    assert not run.exists(), "the sweep was started"

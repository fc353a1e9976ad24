"""The sweep profiles' files (``runner/profiles/<name>.toml``) for the code that reads them by
path outside the runner: the analysis' reference design (:mod:`analysis.claims.sesoi`), the
noise model and design of the top-up simulation (:mod:`decision.simulation`) and the
testbed page's declared budgets. One reader, below both sides (standard library only; the
analysis never imports the runner).

It reads a profile's own file as it is: its top-level tables (``[profile]``, ``[design]``,
the noise model's ``[[sd]]``) are all there. A profile's ``include`` brings in only
``[[experiment]]`` tables, which the runner expands when it plans (``runner.plan.profile``)
and which no reader here needs.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

#: the folder of the sweep profiles, in the checkout this package lives in
PROFILES = Path(__file__).resolve().parents[1] / "runner" / "profiles"


def profile_path(name: str) -> Path:
    """The file of the profile ``name`` (``runner/profiles/<name>.toml``)."""
    return PROFILES / f"{name}.toml"


def read_profile(name: str) -> dict[str, Any]:
    """The TOML document of the profile ``name``'s own file."""
    return tomllib.loads(profile_path(name).read_text(encoding="utf-8"))

"""``plan.json``: the plan of a run, written before its first trial, under
``rundir/schema/plan.schema.json`` (checked by ``python -m rundir verify``).

The runner writes it from its plan (``runner.plan.cells.Plan``); the analysis reads what the plan
declared before the run through :class:`Declared`: the primary statistic of the block design
(``paired`` or ``unpaired``) and the interference rule (``exclude_steal_above``); and, for a
run with the sequential top-up, the design (:func:`sequential_design`) and each block's looks
(:func:`block_schedule`), so the verdicts read each comparison at its stopping look.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rundir import layout, utf8

if TYPE_CHECKING:  # imported where used: scipy takes seconds to import, and a reader that
    # only checks a run (make book's verify) needs no part of it
    from decision.sequential import Schedule

SCHEMA = Path(__file__).resolve().parent / "schema" / "plan.schema.json"
PAIRED = "paired"
UNPAIRED = "unpaired"


def read(run_dir: Path) -> dict[str, Any] | None:
    """The run's ``plan.json`` as written, or None when it has none. Read as a run's file is
    (:func:`rundir.utf8.read`: never through a link, at most 64 MiB; strict JSON)."""
    p = Path(run_dir) / layout.PLAN
    if not p.is_file():
        return None
    doc = utf8.json_loads(utf8.read(p, inside=Path(run_dir)) or "null")
    return doc if isinstance(doc, dict) else None


class BadPlan(ValueError):
    """A run's ``plan.json`` that a command cannot use: ``<file>: <what is wrong>``."""


def checked(run_dir: Path) -> dict[str, Any]:
    """The run's ``plan.json``, valid under its schema, for a command that uses what it
    declares (``runner planning``): one :class:`BadPlan` line naming the file and the first
    thing wrong when it is missing, unreadable, too large, not JSON or not a plan (``{}``
    was read as a plan that declared nothing, and moved the ratios computed from it)."""
    p = Path(run_dir) / layout.PLAN
    try:
        doc = read(run_dir)
    except (OSError, ValueError) as exc:  # a link, a FIFO, too large; not UTF-8, not JSON
        raise BadPlan(f"{p}: not a readable plan ({getattr(exc, 'strerror', None) or exc})"
                      ) from None
    if doc is None:
        raise BadPlan(f"{p}: missing, or not a JSON object (a run made by the sweep has one)")
    from rundir.schemas import load_schema, schema_problems, validator_for
    problems = schema_problems(validator_for(load_schema(SCHEMA)), doc, layout.PLAN)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BadPlan(f"{p}: not the plan the sweep writes: "
                      f"{problems[0].removeprefix(layout.PLAN + ': ')}{more}")
    return doc


@dataclass(frozen=True)
class Declared:
    """What a plan declared before its run, for the statistics."""

    primary: str  # paired (per-round ratios) | unpaired (ratio of medians)
    exclude_steal_above: float | None  # a trial with more steal in its window is excluded
    #: the fewest rounds a comparison of the design rests on (``design.rounds_min``); a
    #: comparison with fewer is shown but never read as a headline. A plan that declares
    #: none: two, the fewest a paired CI needs.
    rounds_min: int = 2

    @classmethod
    def of(cls, plan: dict[str, Any] | None) -> "Declared":
        """From a plan.json (None: a run without one declares nothing)."""
        design = (plan or {}).get("design") or {}
        steal = design.get("exclude_steal_above")
        rmin = design.get("rounds_min")
        return cls(primary=UNPAIRED if design.get("primary") == UNPAIRED else PAIRED,
                   exclude_steal_above=float(steal) if isinstance(steal, (int, float))
                   and not isinstance(steal, bool) else None,
                   rounds_min=rmin if isinstance(rmin, int) and not isinstance(rmin, bool)
                   and rmin >= 2 else 2)


def sequential_design(plan: dict[str, Any] | None) -> dict[str, Any] | None:
    """The sequential top-up's design as plan.json declares it (``design.sequential``:
    :meth:`decision.sequential.SequentialDesign.to_json` and the top-up budget), or None for a
    run with the fixed design."""
    seq = ((plan or {}).get("design") or {}).get("sequential")
    return seq if isinstance(seq, dict) else None


def block_schedule(plan: dict[str, Any] | None, block: str) -> Schedule | None:
    """The looks of one block of a sequential run (``blocks.<id>.sequential.looks``), or None
    where the block has none (the fixed design, or a block without declared comparisons)."""
    if sequential_design(plan) is None:
        return None
    b = ((plan or {}).get("blocks") or {}).get(block) or {}
    looks = (b.get("sequential") or {}).get("looks")
    if not isinstance(looks, list) or not looks:
        return None
    from decision.sequential import Schedule
    return Schedule(tuple(int(n) for n in looks))

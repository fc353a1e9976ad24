"""The JSON schemas of a run directory (``rundir/schema/``) and the one way they are checked:
a validator per schema, and a few readable lines per document that breaks it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
TRIAL_SCHEMA = SCHEMA_DIR / "trial.schema.json"
MANIFEST_SCHEMA = SCHEMA_DIR / "manifest.schema.json"
MAX_PROBLEMS_PER_RECORD = 5


def load_schema(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def validator_for(schema: dict[str, Any]) -> Any:
    """A validator for our schemas: Draft 2020-12 where jsonschema has it (4.x), else Draft 7.

    The schemas use only keywords that mean the same in both drafts, so the answer is the same.
    (jsonschema is imported here, not above: the record type, :mod:`rundir.records`, is also
    used by ``python -m runner.originals``, which runs on the standard library alone.)
    """
    import jsonschema

    cls = getattr(jsonschema, "Draft202012Validator", None) or jsonschema.Draft7Validator
    cls.check_schema(schema)
    return cls(schema)


def _where(error: Any) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "(record)"


def schema_problems(validator: Any, instance: Any, label: str) -> list[str]:
    """Human-readable schema violations of one instance, deepest first, at most a few."""
    errors = sorted(validator.iter_errors(instance), key=lambda e: (-len(e.absolute_path), _where(e)))
    out = [f"{label}: {_where(e)}: {e.message}" for e in errors[:MAX_PROBLEMS_PER_RECORD]]
    if len(errors) > MAX_PROBLEMS_PER_RECORD:
        out.append(f"{label}: ... {len(errors) - MAX_PROBLEMS_PER_RECORD} more schema errors")
    return out

"""Text files of a run and of its inputs (profiles, inventories), decoded as UTF-8 or refused
in one line that says where the first byte that is not UTF-8 is; their JSON and TOML parsed
with a bound on nesting (:data:`MAX_DEPTH`)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any


class NotUtf8(ValueError):
    """The bytes are not UTF-8: the message names the first bad byte's line and column."""


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise NotUtf8(f"line {line}, column {column}: byte 0x{data[exc.start]:02x} is not "
                      "UTF-8 (the file must be UTF-8 text)") from None


def read(path: Path) -> str:
    """The file's text; :class:`NotUtf8` (naming line and column) when it is not UTF-8."""
    return decode(Path(path).read_bytes())


#: the deepest nesting a run's JSON files or a profile's TOML may have (theirs is under 10):
#: deeper input is refused in one line before a recursive reader (the parsers themselves,
#: the schema validator) can raise RecursionError, which is a traceback, not a message
MAX_DEPTH = 64


def _too_deep(obj: Any) -> bool:
    """Whether ``obj`` nests lists and objects more than :data:`MAX_DEPTH` deep (iterative:
    this check must not recurse either)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) \
            else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _deep(what: str) -> str:
    return f"nested more than {MAX_DEPTH} levels deep (a {what} of this project nests far less)"


def json_loads(data: str | bytes) -> Any:
    """``json.loads``, with nesting deeper than :data:`MAX_DEPTH` (which makes the parser
    raise RecursionError) a :class:`json.JSONDecodeError` like any other bad input."""
    doc = data if isinstance(data, str) else ""
    try:
        obj = json.loads(data)
    except RecursionError:
        raise json.JSONDecodeError(_deep("JSON document"), doc, 0) from None
    if _too_deep(obj):
        raise json.JSONDecodeError(_deep("JSON document"), doc, 0)
    return obj


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads``, with nesting deeper than :data:`MAX_DEPTH` (which makes the parser
    raise RecursionError) a :class:`tomllib.TOMLDecodeError` like any other bad input."""
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(_deep("TOML file")) from None
    if _too_deep(doc):
        raise tomllib.TOMLDecodeError(_deep("TOML file"))
    return doc

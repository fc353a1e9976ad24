"""Text files of a run and of its inputs (profiles, inventories), decoded as UTF-8 or refused
in one line that says where the first byte that is not UTF-8 is; their JSON and TOML parsed
with a bound on nesting (:data:`MAX_DEPTH`)."""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from rundir.inside import BadInput, open_inside  # noqa: F401  (BadInput: raised here too)


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


#: the largest input file read, per kind of input (bytes): a profile or an inventory of
#: this project is a few KiB, a run's state files a few MiB at most
INPUT_CAPS = {"profile": 1 << 20, "inventory": 1 << 20, "file": 64 << 20}


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words ("a FIFO", "a device")."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a directory" if stat.S_ISDIR(mode) else "not a regular file"


def read_bytes(path: Path, kind: str = "file", inside: Path | None = None) -> bytes:
    """The bytes of an input file: the one helper every path argument of a command is read
    through. Only a regular file (a link to one is fine, except below ``inside``: see
    :func:`open_inside`) of at most ``INPUT_CAPS[kind]`` bytes is read; anything else raises
    :class:`BadInput` before a byte is read (the file is opened non-blocking, so a FIFO
    swapped in after the check cannot hang either)."""
    cap = INPUT_CAPS[kind]
    path = Path(path)
    fd = open_inside(path, inside)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(path, f"is {kind_of(st.st_mode)}; the {kind} must be a regular file")
        if st.st_size > cap:
            raise BadInput(path, f"is {st.st_size} bytes; the {kind} may be at most {cap} bytes")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                raise BadInput(path, f"is over {cap} bytes; the {kind} may be at most {cap} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read(path: Path, kind: str = "file", inside: Path | None = None) -> str:
    """The file's text (:func:`read_bytes`: a regular file within its kind's size cap, never
    through a link below ``inside``); :class:`NotUtf8` (naming line and column) when it is
    not UTF-8."""
    return decode(read_bytes(path, kind, inside))


#: the deepest nesting a run's JSON files or a profile's TOML may have (theirs is under 10):
#: deeper input is refused in one line before a recursive reader (the parsers themselves,
#: the schema validator) can raise RecursionError, which is a traceback, not a message
MAX_DEPTH = 64


def _too_deep(obj: Any) -> bool:
    """Whether ``obj`` nests lists and objects more than :data:`MAX_DEPTH` deep (iterative,
    one level of containers at a time: this check must not recurse either)."""
    level = [obj] if isinstance(obj, (dict, list)) else []
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            return True
        level = [child for item in level
                 for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, (dict, list))]
        depth += 1
    return False


def _deep(what: str) -> str:
    return f"nested more than {MAX_DEPTH} levels deep (a {what} of this project nests far less)"


class _Strict(ValueError):
    """Valid to Python's json module, not to strict JSON (RFC 8259's numbers, unique keys)."""


def _constant(name: str) -> Any:
    raise _Strict(f"{name} is not a JSON number (a run's numbers are finite)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Strict(f"{text} is out of range (read as {value}; a run's numbers are finite)")
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Strict(f"duplicate key {key!r} in one object (which value counts would be "
                          "the reader's guess)")
        obj[key] = value
    return obj


def json_loads(data: str | bytes) -> Any:
    """``json.loads`` for strict JSON: NaN, Infinity, a number out of a double's range and a
    key given twice in one object are refused, and nesting deeper than :data:`MAX_DEPTH`
    (which makes the parser raise RecursionError) too, each as a :class:`json.JSONDecodeError`
    like any other bad input. Every reader of a run's JSON (``seal``, ``verify``, the sweep,
    the analysis) reads through this, so they agree on what a valid file is."""
    doc = data if isinstance(data, str) else ""
    try:
        obj = json.loads(data, parse_constant=_constant, parse_float=_float,
                         object_pairs_hook=_pairs)
    except _Strict as exc:
        raise json.JSONDecodeError(str(exc), doc, 0) from None
    except RecursionError:
        raise json.JSONDecodeError(_deep("JSON document"), doc, 0) from None
    # a text with at most MAX_DEPTH brackets that open cannot nest deeper (most records)
    few = isinstance(data, str) and data.count("{") + data.count("[") <= MAX_DEPTH
    if not few and _too_deep(obj):
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

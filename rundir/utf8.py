"""Text files of a run and of its inputs (profiles, inventories), decoded as UTF-8 or refused
in one line that says where the first byte that is not UTF-8 is."""

from __future__ import annotations

from pathlib import Path


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

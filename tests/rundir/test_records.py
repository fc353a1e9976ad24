"""``rundir.records`` is the one reader of ``trials.jsonl``: every reader of a run's records
applies its one torn-line rule (a last line without its newline is an interrupted write:
readers skip it, the checks name it) and refuses any other line that is not a record; and
no module of the runner, the run format or the analysis opens a records file itself."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from rundir import complete, records

ROOT = Path(__file__).resolve().parents[2]


def _records(n: int) -> list[dict[str, Any]]:
    return [{"trial_id": f"t{i}", "cell": "c", "repetition": i} for i in range(n)]


def _file(path: Path, body: bytes, packed: bool) -> Path:
    if packed:
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(body, mtime=0))
    else:
        path.write_bytes(body)
    return path


def _lines(recs: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in recs)


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "packed"])
def test_a_torn_last_line_is_skipped_by_readers_and_named_by_checks(tmp_path: Path,
                                                                     packed: bool) -> None:
    """Even a torn line that parses as JSON (cut just before its newline) is no record."""
    recs = _records(3)
    body = _lines(recs[:2]) + json.dumps(recs[2]).encode()
    path = _file(tmp_path / "trials.jsonl", body, packed)
    assert list(records.read(path)) == recs[:2]
    got = list(records.lines(path))
    assert [ln.number for ln in got] == [1, 2, 3]
    assert got[-1].torn and got[-1].record is None and got[-1].problem == records.TORN
    assert records.first_problem(tmp_path) == f"{path}:3: {records.TORN}"
    assert complete._recorded(tmp_path) == {"t0", "t1"}


@pytest.mark.parametrize("bad, why", [
    (b"\n", "an empty line, not a record"),
    (b"{not json\n", "not a JSON record (column 2: "),
    (b"[1, 2]\n", "a JSON list, not a record"),
    (b'{"trial_id": "\xff"}\n', "column 15: byte 0xff is not UTF-8"),
])
def test_any_other_line_that_is_not_a_record_is_refused_by_every_reader(
        tmp_path: Path, bad: bytes, why: str) -> None:
    body = _lines(_records(1)) + bad + _lines(_records(2)[1:])
    path = _file(tmp_path / "trials.jsonl", body, packed=False)
    with pytest.raises(records.RecordError, match=r"trials\.jsonl:2: ") as err:
        list(records.read(path))
    assert why in str(err.value)
    problem = records.first_problem(tmp_path)
    assert problem is not None and problem.startswith(f"{path}:2: {why}"), problem
    assert complete._recorded(tmp_path) == {"t0", "t1"}  # what is wrong is verify's to say


def test_check_is_the_trial_schema(tmp_path: Path) -> None:
    assert records.check({"trial_id": "t0"}, "r")  # far from a record: problems
    assert all(p.startswith("r: ") for p in records.check([], "r"))


def _opens_records(source: str) -> list[int]:
    """Lines of ``source`` that open a records file other than through rundir.records:
    a call of ``open_trials``, or of ``open``/``read_bytes``/``read_text``/``gzip.open`` on an
    expression that names ``TRIALS``, ``TRIALS_PACKED`` or ``trials.jsonl``."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name == "open_trials":
            hits.append(node.lineno)
            continue
        if name not in ("open", "read_bytes", "read_text", "readlines"):
            continue
        target = ast.unparse(f.value if name in ("read_bytes", "read_text") and
                             isinstance(f, ast.Attribute) else node)
        if "TRIALS" in target or "trials.jsonl" in target:
            hits.append(node.lineno)
    return hits


def test_no_other_module_reads_a_records_file() -> None:
    found = []
    for pkg in ("runner", "rundir", "analysis", "decision"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if f == ROOT / "rundir" / "records.py":
                continue
            found += [f"{f.relative_to(ROOT)}:{n}" for n in _opens_records(f.read_text())]
    assert found == []


def test_the_check_sees_a_reader_of_its_own() -> None:
    planted = ("from rundir import layout, records\n"
               "def f(d):\n"
               "    with records.open_trials(d / 'trials.jsonl') as fh:\n"
               "        pass\n"
               "    return (d / layout.TRIALS).read_bytes().split(b'\\n')\n")
    assert _opens_records(planted) == [3, 5]

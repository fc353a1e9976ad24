"""``runner noise --out`` and ``runner planning --out`` write only where nothing is or over
their own earlier output: a symbolic link (and its target), a FIFO, a device node or a file
of something else is refused in one line, exit 2, and left as it was. The runs read are the
committed pilot and claims runs (block designs); run in this process."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT
from runner.sweep import cli

PILOT = ROOT / "data" / "raw" / "20261123T060913Z-pilot"
CLAIMS = ROOT / "data" / "raw" / "20261124T161827Z-claims"


@pytest.fixture
def runner(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str]]:
    def call(*args: str) -> tuple[int, str]:
        try:
            code = cli.main(list(args))
        except SystemExit as e:
            code = int(e.code or 0)
        return code, capsys.readouterr().err
    return call


def _make(kind: str, out: Path, tmp_path: Path) -> Callable[[], None]:
    """Something at ``out`` of the given kind; returns a check that it is as it was."""
    if kind == "symlink":
        target = tmp_path / "target.txt"
        target.write_text("the link's target\n")
        out.symlink_to(target)
        return lambda: (os.path.islink(out) and os.readlink(out) == str(target)
                        and target.read_text() == "the link's target\n") or pytest.fail(kind)
    if kind == "fifo":
        os.mkfifo(out)
        return lambda: stat.S_ISFIFO(os.lstat(out).st_mode) or pytest.fail(kind)
    if kind == "device":  # the same node as /dev/full (char 1, 7), made here
        if os.geteuid() != 0:
            pytest.skip("mknod of a device node needs root")
        os.mknod(out, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        return lambda: (stat.S_ISCHR(os.lstat(out).st_mode)
                        and os.lstat(out).st_rdev == os.makedev(1, 7)) or pytest.fail(kind)
    out.write_text("my own notes\n")
    return lambda: out.read_text() == "my own notes\n" or pytest.fail(kind)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device", "other-file"])
def test_noise_out_never_replaces_what_is_not_its_own(
        kind: str, tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    out = tmp_path / "noise.toml"
    unchanged = _make(kind, out, tmp_path)
    code, err = runner("noise", str(PILOT), "--out", str(out))
    assert code == 2, err[-2000:]
    assert len(err.strip().splitlines()) == 1 and "nothing written" in err, err
    unchanged()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("kind", ["symlink", "device"])
def test_planning_out_never_replaces_what_is_not_its_own(
        kind: str, tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    out = tmp_path / "planning.toml"
    unchanged = _make(kind, out, tmp_path)
    code, err = runner("planning", str(CLAIMS), "--profile", "claims", "--out", str(out))
    assert code == 2, err[-2000:]
    assert "planning: --out" in err and "nothing written" in err, err
    unchanged()


def test_noise_out_replaces_its_own_earlier_model(
        tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    out = tmp_path / "noise.toml"
    out.write_text("# The noise model of a block design (an older one)\n[meta]\nrun = \"x\"\n")
    code, err = runner("noise", str(PILOT), "--out", str(out))
    assert code == 0, err
    assert "[[sd]]" in out.read_text() and "an older one" not in out.read_text()


PLANNING = ROOT / "runner" / "profiles" / "planning.toml"


def _planning_copy(tmp_path: Path) -> tuple[Path, bytes]:
    out = tmp_path / "planning.toml"
    out.write_bytes(PLANNING.read_bytes())
    return out, out.read_bytes()


def test_planning_never_writes_no_comparisons_over_a_file(
        tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    """A run with none of the profile's cells (the pilot's, for the claims
    profile) gives no comparison: refused, exit 2, the planning file kept as it was."""
    out, before = _planning_copy(tmp_path)
    code, err = runner("planning", str(PILOT), "--profile", "claims", "--out", str(out))
    assert code == 2, err[-2000:]
    assert len(err.strip().splitlines()) == 1 and "0 comparisons" in err, err
    assert out.read_bytes() == before


def _synthetic(tmp_path: Path, plan: str | None) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "trials.jsonl").write_bytes((CLAIMS / "trials.jsonl").read_bytes()
                                       if (CLAIMS / "trials.jsonl").is_file()
                                       else b'{"trial_id": "t1", "cell": "x"}\n')
    if plan is not None:
        (run / "plan.json").write_text(plan)
    return run


@pytest.mark.parametrize("plan", [None, "{not json", "[" * 5000 + "]" * 5000,
                                  '{"a": ' * 100 + "1" + "}" * 100],
                         ids=["no-plan", "malformed", "deep-list", "deep-object"])
def test_planning_on_a_run_without_a_readable_plan(
        plan: str | None, tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    """No plan.json, or one that is not JSON or nests too deeply: one
    line, exit 2, no traceback, the planning file kept."""
    run = _synthetic(tmp_path, plan)
    out, before = _planning_copy(tmp_path)
    code, err = runner("planning", str(run), "--profile", "claims", "--out", str(out))
    assert code == 2, err[-2000:]
    assert len(err.strip().splitlines()) == 1 and "plan" in err, err
    assert out.read_bytes() == before


def test_noise_out_inside_a_run_is_refused(
        tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    """A file written into a run makes it fail verify: refused."""
    import shutil
    run = tmp_path / "pilot"
    shutil.copytree(PILOT, run)
    names = sorted(p.name for p in run.rglob("*"))
    code, err = runner("noise", str(PILOT), "--out", str(run / "n.toml"))
    assert code == 2 and "inside the run directory" in err, err[-2000:]
    assert sorted(p.name for p in run.rglob("*")) == names


@pytest.mark.parametrize("command", ["noise", "planning"])
def test_a_read_only_earlier_output_is_never_replaced(
        command: str, tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    """A read-only file is the user's word that it stays: refused, kept, and
    its mode too."""
    if command == "noise":
        out = tmp_path / "noise.toml"
        out.write_text("# The noise model of a block design (an older one)\n")
        args = ("noise", str(PILOT), "--out", str(out))
    else:
        out, _ = _planning_copy(tmp_path)
        args = ("planning", str(CLAIMS), "--profile", "claims", "--out", str(out))
    before = out.read_bytes()
    out.chmod(0o444)
    code, err = runner(*args)
    assert code == 2 and "read-only" in err, err[-2000:]
    assert out.read_bytes() == before and stat.S_IMODE(os.stat(out).st_mode) == 0o444


def test_a_replaced_output_keeps_its_mode(
        tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    out = tmp_path / "noise.toml"
    out.write_text("# The noise model of a block design (an older one)\n")
    out.chmod(0o600)
    code, err = runner("noise", str(PILOT), "--out", str(out))
    assert code == 0, err
    assert "[[sd]]" in out.read_text() and stat.S_IMODE(os.stat(out).st_mode) == 0o600


def _damaged_plans() -> dict[str, Callable[[dict], object]]:
    def cut(doc: dict) -> dict:
        return {k: v for k, v in doc.items() if k not in ("cells", "rounds")}

    def strings(doc: dict) -> dict:
        return {**doc, "design": "paired", "blocks": "none"}
    return {"empty-object": lambda doc: {}, "keys-cut": cut, "string-values": strings}


@pytest.mark.parametrize("damage", ["empty-object", "keys-cut", "string-values", "2-GiB"])
def test_planning_refuses_a_damaged_plan(
        damage: str, tmp_path: Path, runner: Callable[..., tuple[int, str]]) -> None:
    """``{}`` as plan.json is no plan that declares nothing (read so, a ratio moves from 1.027
    to 1.039: the run's steal rule is lost); keys cut or strings in place of objects are no
    traceback; a 2 GB one is not read into memory. Each is one
    line naming plan.json, exit 2, the planning file kept."""
    import json
    import shutil
    run = tmp_path / "claims"
    shutil.copytree(CLAIMS, run)
    plan = run / "plan.json"
    if damage == "2-GiB":
        with open(plan, "r+b") as f:  # sparse: no 2 GiB of disk
            f.truncate(2 << 30)
    else:
        plan.write_text(json.dumps(_damaged_plans()[damage](json.loads(plan.read_text()))))
    out, before = _planning_copy(tmp_path)
    import resource
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, the most this process held
    code, err = runner("planning", str(run), "--profile", "claims", "--out", str(out))
    assert code == 2, err[-2000:]
    assert len(err.strip().splitlines()) == 1 and str(plan) in err, err
    assert out.read_bytes() == before
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    assert grew < 256 * 1024, f"reading the damaged plan took {grew} KiB more memory"

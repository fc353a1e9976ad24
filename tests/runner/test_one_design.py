"""One run, one design, from validated values: ``--resume --profile P`` refuses a profile
whose expanded content differs from the run's (naming the first difference, the run's value
and the given one), a profile's values are checked against their ranges in one place, a
noise model the profile names must be there, and a profile ``dir`` that a file trial would
write in must be a directory before anything is created; each refusal is one line, exit 2,
and leaves the run directory (or its absence) as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import (copy_run, run_runner, sweep_profile, tree_digest,
                      write_sweep_profile)
from runner.host.errors import ProfileError
from runner.plan import profile as prof_mod

#: a file->file experiment (no sink, no namespaces): the smallest trial that uses ``dir``
COPY_EXPERIMENT = {"name": "f", "command": "copy", "methods": ["read-write"],
                   "sizes": ["64K"], "placements": ["same-core"]}


def _one_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err[-3000:]
    assert "Traceback" not in err
    return lines[0]


# --- resume with the run's profile edited under the same name --------------------------------

@pytest.mark.sweep
def test_resume_refuses_a_profile_edited_under_the_same_name(runner_small_run: Path,
                                                             tmp_path: Path) -> None:
    run = copy_run(runner_small_run, tmp_path / "run", drop=3)
    before = tree_digest(run)
    edited = tmp_path / "edited" / "small.toml"
    edited.parent.mkdir()
    # the shared run's profile (conftest: small, seed 11, 3 rounds) with a longer window
    edited.write_text(sweep_profile("small", seed=11, duration_s=0.3,
                                    repetitions={"min": 3, "max": 3}))
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--profile", str(edited),
                   "--no-progress", timeout=120)
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "experiment[m].duration_s" in line, line
    assert "0.2" in line and "0.3" in line, line
    assert tree_digest(run) == before


@pytest.mark.sweep
def test_resume_takes_the_same_profile_written_otherwise(runner_small_run: Path,
                                                         tmp_path: Path) -> None:
    """The same design in other words (a comment, the defaults spelt out) is the same
    profile: the resume goes on."""
    run = copy_run(runner_small_run, tmp_path / "run", drop=1)
    same = tmp_path / "same" / "small.toml"
    same.parent.mkdir()
    same.write_text("# the same design, written out\n"
                    + sweep_profile("small", seed=11, repetitions={"min": 3, "max": 3},
                                    verify="sample", fields=8))
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--profile", str(same),
                   "--no-progress", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


def test_first_difference_names_the_key_path_and_both_values() -> None:
    a = prof_mod.parse(sweep_profile("x", duration_s=0.2), "a.toml")
    b = prof_mod.parse(sweep_profile("x", duration_s=0.3), "b.toml")
    assert prof_mod.first_difference(a, a) is None
    assert prof_mod.first_difference(a, prof_mod.parse(
        "# other words\n" + sweep_profile("x", duration_s=0.2, description="said again"),
        "c.toml")) is None
    assert prof_mod.first_difference(a, b) == ("experiment[m].duration_s", 0.2, 0.3)
    more = prof_mod.parse(sweep_profile("x", experiments=[
        {"name": "m", "command": "send", "methods": ["send", "sendmsg"],
         "sizes": ["1K", "16K", "64K"], "transports": ["loopback"],
         "placements": ["cross-core"]}]), "d.toml")
    assert prof_mod.first_difference(a, more) == ("experiment[m].sizes", (1024, 16384),
                                                  (1024, 16384, 65536))


# --- one place, with the ranges --------------------------------------------------------------

@pytest.mark.parametrize("key,value,allowed", [
    ("budget_s", 0, "1 to 604800"),
    ("timeout_s", 0, "1 to 86400"),
    ("budget_s", -5, "1 to 604800"),
])
def test_plan_refuses_values_outside_their_range(tmp_path: Path, key: str, value: float,
                                                 allowed: str) -> None:
    prof = write_sweep_profile(tmp_path, "r", **{key: value})
    r = run_runner("plan", "--profile", str(prof), timeout=60)
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr
    assert f"profile.{key}" in line and allowed in line, line
    assert r.stdout == ""


def test_an_experiments_timeout_is_held_to_the_same_range() -> None:
    text = sweep_profile("r", experiments=[{**COPY_EXPERIMENT, "timeout_s": 0}])
    with pytest.raises(ProfileError, match=r"experiment\[f\]\.timeout_s.*1 to 86400"):
        prof_mod.parse(text, "r.toml")


def test_every_range_comes_from_one_table() -> None:
    """The profile's and an experiment's shared keys read the same range (RANGES)."""
    for key in ("duration_s", "warmup_s", "timeout_s", "fields"):
        lo, hi = prof_mod.RANGES[key]
        for where, text in (
                ("profile", sweep_profile("r", **{key: hi * 2})),
                ("experiment[f]", sweep_profile("r", experiments=[
                    {**COPY_EXPERIMENT, key: hi * 2}]))):
            with pytest.raises(ProfileError) as e:
                prof_mod.parse(text, "r.toml")
            assert f"{where}.{key}" in str(e.value) and f"{lo:g}" in str(e.value), str(e.value)


# --- a noise model the profile names -----------------------------------------------------------

def test_a_missing_noise_model_is_refused_with_a_command_that_exists(tmp_path: Path) -> None:
    prof = write_sweep_profile(tmp_path, "nm", repetitions=None,
                               design={"rounds_min": 2, "rounds_max": 2,
                                       "noise": "no-such-noise.toml"})
    r = run_runner("plan", "--profile", str(prof), timeout=60)
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr
    assert "design.noise" in line and "no-such-noise.toml" in line, line
    assert "runner pilot" not in line
    # the commands it names exist (python -m runner --help lists them)
    helped = run_runner("--help", timeout=60).stdout
    for cmd in ("notebook", "noise"):
        assert f"python -m runner {cmd}" in line, line
        assert cmd in helped


# --- a dir that is not there ---------------------------------------------------------------

@pytest.mark.sweep
def test_a_missing_dir_is_refused_before_the_run_is_made(runner_copybench: Path,
                                                          tmp_path: Path) -> None:
    missing = tmp_path / "not-there"
    prof = write_sweep_profile(tmp_path, "d", repetitions={"min": 1, "max": 1},
                               experiments=[COPY_EXPERIMENT], dir=str(missing))
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=120)
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr
    assert "dir" in line and str(missing) in line and "no such directory" in line, line
    assert not run.exists()


@pytest.mark.sweep
def test_a_resume_refuses_a_dir_gone_since(runner_copybench: Path, tmp_path: Path) -> None:
    """The directory was there when the run was made, and is gone when it is resumed."""
    there = tmp_path / "files"
    there.mkdir()
    prof = write_sweep_profile(tmp_path, "d", repetitions={"min": 2, "max": 2},
                               experiments=[COPY_EXPERIMENT], dir=str(there))
    run = tmp_path / "run"
    r = run_runner("sweep", "--profile", str(prof), "--run-dir", str(run), "--no-progress",
                   timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = (run / "trials.jsonl").read_text().splitlines(keepends=True)
    (run / "trials.jsonl").write_text("".join(lines[:-1]))
    (run / "SHA256SUMS").unlink()
    there.rmdir()
    before = tree_digest(run)
    r = run_runner("sweep", "--resume", "--run-dir", str(run), "--no-progress", timeout=120)
    line = _one_line(r.stderr)
    assert r.returncode == 2, r.stderr
    assert str(there) in line and "no such directory" in line, line
    assert tree_digest(run) == before

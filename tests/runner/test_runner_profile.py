"""Profiles: the shipped ones are valid; a bad one is rejected before anything runs, with
the file, the key and the allowed values named, exit code 2, no traceback, no output."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_runner
from runner.plan import profile as prof
from runner.host.errors import ProfileError

GOOD = """
[profile]
name = "t"
duration_s = 0.2
[[experiment]]
name = "m"
command = "send"
methods = ["send"]
sizes = [64]
"""


@pytest.mark.parametrize("name", ["smoke", "quick", "paper"])
def test_shipped_profiles_are_valid(name: str) -> None:
    p = prof.load(name)
    assert p.name == name
    assert p.experiments


def test_sizes_parse() -> None:
    assert prof.parse_size("4K") == 4096
    assert prof.parse_size("1M") == 1 << 20
    assert prof.parse_size(100000000) == 100000000
    assert prof.parse_size("256MiB") == 256 << 20
    for bad in ("4X", 0, "0", True, 1.5, "2G"):
        with pytest.raises(ValueError):
            prof.parse_size(bad)


BAD = [
    # (description, toml text, key that must be named, words from the allowed values)
    ("unknown top key", GOOD + "\n[extra]\nx = 1\n", "extra", "experiment"),
    ("unknown profile key", GOOD.replace('name = "t"', 'name = "t"\ncolour = "red"'),
     "profile.colour", "duration_s"),
    ("unknown experiment key", GOOD + 'colour = "red"\n', "experiment[m].colour", "methods"),
    ("bad method", GOOD.replace('["send"]', '["sendz"]'), "experiment[m].methods",
     "zerocopy"),
    ("bad placement", GOOD + 'placements = ["core-0"]\n', "experiment[m].placements",
     "cross-core"),
    ("bad transport", GOOD + 'transports = ["wifi"]\n', "experiment[m].transports",
     "udp-forward"),
    ("empty factor", GOOD.replace("sizes = [64]", "sizes = []"), "experiment[m].sizes",
     "4K"),
    ("empty methods", GOOD.replace('["send"]', "[]"), "experiment[m].methods", "sendmsg"),
    ("bad size", GOOD.replace("sizes = [64]", 'sizes = ["4X"]'), "experiment[m].sizes",
     "1M"),
    ("bad threads", GOOD + "threads = [0]\n", "experiment[m].threads", "integers"),
    ("bad duration type", GOOD.replace("duration_s = 0.2", 'duration_s = "long"'),
     "profile.duration_s", "0.05"),
    ("max below min", GOOD + "\n[repetitions]\nmin = 5\nmax = 2\n", "repetitions.max",
     "allowed"),
    ("copy with transports", GOOD.replace('command = "send"', 'command = "copy"')
     .replace('["send"]', '["sendfile"]') + 'transports = ["veth"]\n',
     "experiment[m].transports", "not applicable"),
    ("caches on message methods", GOOD + 'caches = ["warm"]\n', "experiment[m].caches",
     "file methods"),
    ("no experiments", '[profile]\nname = "t"\n', "experiment", "at least one"),
    ("bad cache", GOOD.replace('["send"]', '["sendfile"]') + 'caches = ["hot"]\n',
     "experiment[m].caches", "cold"),
    ("not TOML", "[profile\nname=", "-", "TOML"),
]


@pytest.mark.parametrize("what,text,key,allowed", BAD, ids=[b[0] for b in BAD])
def test_bad_profile_rejected_by_parser(what: str, text: str, key: str, allowed: str) -> None:
    with pytest.raises(ProfileError) as e:
        prof.parse(text, "bad.toml")
    msg = str(e.value)
    assert "bad.toml" in msg and key in msg and allowed in msg, msg


# the parser refuses every BAD in-process (above); through each command, make test takes two
# and make test-slow the rest (each a Python start-up; make test stays under 15 min)
@pytest.mark.parametrize("what,text,key,allowed",
                         [pytest.param(*b, marks=() if i < 2 else pytest.mark.slow)
                          for i, b in enumerate(BAD[:8])], ids=[b[0] for b in BAD[:8]])
@pytest.mark.parametrize("command", ["sweep", "plan"])
def test_bad_profile_cli(tmp_path: Path, what: str, text: str, key: str, allowed: str,
                         command: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    run_dir = tmp_path / "run"
    args = [command, "--profile", str(path)]
    if command == "sweep":
        args += ["--run-dir", str(run_dir)]
    r = run_runner(*args, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(path) in lines[0] and key in lines[0] and allowed in lines[0]
    assert "Traceback" not in r.stderr
    assert not run_dir.exists(), "a rejected profile must create nothing"


def test_unknown_profile_name_lists_available() -> None:
    r = run_runner("plan", "--profile", "no-such-profile", timeout=60)
    assert r.returncode == 2
    assert "smoke" in r.stderr and "quick" in r.stderr and "paper" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_help_everywhere() -> None:
    for args in ([], ["sweep"], ["plan"], ["env"]):
        r = run_runner(*args, "--help", timeout=60)
        assert r.returncode == 0 and "usage:" in r.stdout, (args, r.stderr)

"""The criteria of the shared-time validation run (runner/profiles/shared-time-criteria.toml,
analysis/statistics/adoption.py) and their checker (studies/shared_time.py RUN --criteria):
the committed file parses and declares every criterion; a broken one is named in one line;
planted runs (records written as copybench writes them, read by the analysis's loader) are
judged as planted: one that measures the same ratios with less spread adopts shared time,
and each departure fails its own criterion."""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from analysis.loading import criteria as CL
from analysis.loading import run as A
from analysis.statistics import adoption as AD
from decision.band import SESOI

#: make test runs this module, make check leaves it out (pyproject.toml: heavy)
pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "studies" / "shared_time.py"
BASE_GBIT = {"send": 5.0, "sendmsg": 5.5, "zerocopy": 4.0}


def _doc() -> dict[str, Any]:
    return tomllib.loads(CL.DEFAULT.read_text(encoding="utf-8"))


# ------------------------------------------------------------------- the criteria file

def test_the_committed_criteria_declare_every_criterion() -> None:
    c = CL.read()
    assert c.profile == "shared-time" and c.rounds == 30 and c.alpha == 0.05
    # (a) the 16 comparisons X/send, each CI at the family's level
    assert len(c.comparisons()) == c.overlap_family == 16
    assert c.overlap_level == pytest.approx(1 - 0.05 / 16)
    # (b) a margin, read at 1 - 2 alpha (TOST)
    assert 0 < c.margin < SESOI and c.tost_level == pytest.approx(0.90)
    # (c) the 8 shared-time A/As against the study's band at the A/A's 95 %
    assert len(c.aa()) == 8 and c.aa_band == SESOI and c.aa_level == pytest.approx(0.95)
    # (d) the spread
    assert c.sd_at_most == 0.8
    # (e) a tolerance per quantity, 48 connections at their family's level
    assert set(c.tolerances) == set(AD.MECHANISMS) == {"snd_cwnd", "rcvbuf", "retrans",
                                                       "bytes_per_call"}
    assert len(c.connections()) == c.mechanism_family == 48
    assert c.derivation.sd_shared == 0.13 and c.derivation.sensitivity == (0.09, 0.15)
    assert (ROOT / "data" / "raw" / c.derivation.reference_run).is_dir()


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.pop("equivalence"), "[equivalence] missing"),
    (lambda d: d["equivalence"].pop("margin"), "equivalence.margin: None"),
    (lambda d: d["criteria"].update(alpha=0.1), "criteria.alpha: 0.1 is not the study's"),
    (lambda d: d["criteria"].update(adopt="most"), "criteria.adopt: 'most'"),
    (lambda d: d["overlap"].update(family=15), "overlap.family: 15 is not the 16"),
    (lambda d: d["overlap"].update(level=0.95), "overlap.level: 0.95 is not 1 - alpha/family"),
    (lambda d: d["aa"].update(band=0.12), "aa.band: 0.12"),
    (lambda d: d["sd"].update(at_most=1.5), "sd.at_most: 1.5 is not a number in"),
    (lambda d: d["mechanisms"]["tolerance"].pop("rcvbuf"), "mechanisms.tolerance:"),
    (lambda d: d["mechanisms"].update(family=47), "mechanisms.family: 47 is not the 48"),
    (lambda d: d["comparisons"].update(methods=["sendmsg", "splice"]), "comparisons.methods:"),
    (lambda d: d["comparisons"].update(sizes=[512, "16K"]), "comparisons.sizes:"),
    (lambda d: d["sd"].update(most=0.8), "[sd] has unknown key(s) most"),
    (lambda d: d["derivation"].update(runs=True), "derivation.runs: True"),
])
def test_a_broken_criteria_document_is_named_in_one_line(edit: Any, words: str) -> None:
    doc = copy.deepcopy(_doc())
    edit(doc)
    with pytest.raises(AD.CriteriaError) as e:
        AD.parse(doc, "c.toml")
    msg = str(e.value)
    assert words in msg and msg.startswith("c.toml: ") and "\n" not in msg, msg


def test_a_file_that_is_not_toml_or_not_there_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text("[criteria\n")
    with pytest.raises(AD.CriteriaError, match="not TOML"):
        CL.read(bad)
    with pytest.raises(AD.CriteriaError, match="cannot read the criteria file"):
        CL.read(tmp_path / "absent.toml")


# ------------------------------------------------------------------- planted runs

def _side(nbytes: int, cwnd: int, rcvbuf: int, retrans: int, calls: int) -> dict[str, Any]:
    return {"threads": 1, "bytes": nbytes, "utime_s": 0.1, "stime_s": 0.2, "syscalls": calls,
            "rcvbuf_end": [rcvbuf],
            "tcp_info_start": [{"snd_cwnd": 10, "total_retrans": 0}],
            "tcp_info_end": [{"snd_cwnd": cwnd, "total_retrans": retrans}]}


class Planted:
    """A validation run written as records: every declared block (size, placement), today's
    send, sendmsg and zerocopy and the twin of send, the shared-time trials X|send and
    send|send, each round. Per-round log ratios: today's from two trials of sd
    ``sd_today / sqrt(2)``, shared time's of sd ``sd_shared`` (its A/A's ``sd_aa``); true
    ratios the same in both designs unless ``bias`` ((size, placement, method) or "all" ->
    factor of shared time's ratio) says otherwise; the mechanisms drawn alike for both designs unless ``cwnd``
    multiplies shared time's congestion windows."""

    def __init__(self, crit: AD.Criteria, seed: int, sd_today: float = 0.18,
                 sd_shared: float = 0.08, bias: dict[Any, float] | None = None,
                 aa: float = 1.0, cwnd: float = 1.0, drop: tuple[int, str, str] | None = None,
                 sd_aa: float | None = None):
        self.crit, self.rng = crit, np.random.default_rng(seed)
        self.sd_today, self.sd_shared = sd_today, sd_shared
        self.sd_aa = sd_shared if sd_aa is None else sd_aa
        self.bias, self.aa, self.cwnd, self.drop = bias or {}, aa, cwnd, drop
        self.n = 0

    def mech(self, factor: float = 1.0) -> dict[str, Any]:
        r = self.rng
        nbytes = int(6e8 * math.exp(r.normal(0, 0.1)))
        calls = int(nbytes / (60000 * math.exp(r.normal(0, 0.02))))
        cwnd = max(1, round(200 * math.exp(r.normal(0, 0.2)) * factor))
        rcvbuf = int(8e6 * math.exp(r.normal(0, 0.3)))
        retrans = int(60 * math.exp(r.normal(0, 0.3)))
        return {"sender": _side(nbytes, cwnd, 0, retrans, 0),
                "receiver": _side(nbytes, 0, rcvbuf, 0, calls), "bytes": nbytes}

    def record(self, cfg: dict[str, Any], rep: int, result: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        return {"run_id": "planted", "trial_id": f"t{self.n}", "cell": cfg.pop("cell"),
                "repetition": rep, "started_at": f"2026-12-01T00:{self.n // 60 % 60:02d}:"
                                                 f"{self.n % 60:02d}+00:00",
                "status": "ok", "error": None, "config": cfg, "result": result}

    def records(self) -> list[dict[str, Any]]:
        c, out = self.crit, []
        for size in c.sizes:
            for pl in c.placements:
                base = {"kind": "copybench", "command": "send", "mode": "stream",
                        "protocol": "tcp", "transport": "veth", "placement": pl, "size": size,
                        "threads": 1, "duration_s": 1.0, "block": f"b{size}{pl}"}
                for rep in range(1, c.rounds + 1):
                    for m, twin in (("send", 0), ("sendmsg", 0), ("zerocopy", 0), ("send", 1)):
                        g = BASE_GBIT[m] * math.exp(self.rng.normal(0, self.sd_today / 2 ** .5))
                        mech = self.mech()
                        out.append(self.record(
                            {**base, "method": m, "twin": twin, "cell": f"{m}{twin}{size}{pl}"},
                            rep, {"gbit_per_s": g, "seconds": 1.0, **mech}))
                    for m in (*c.methods, c.base):
                        if (size, pl, m) == self.drop:
                            continue
                        f = self.bias.get((size, pl, m), self.bias.get("all", 1.0)) \
                            if m != c.base else self.aa
                        g1 = BASE_GBIT["send"] * math.exp(self.rng.normal(0, 0.05))
                        sd = self.sd_shared if m != c.base else self.sd_aa
                        g0 = g1 * BASE_GBIT[m] / BASE_GBIT["send"] * f * math.exp(
                            self.rng.normal(0, sd))
                        pm = []
                        for conn, (meth, g) in enumerate(((m, g0), (c.base, g1))):
                            mech = self.mech(self.cwnd)
                            pm.append({"method": meth, "connection": conn, "gbit_per_s": g,
                                       "bytes": mech["bytes"], "sender": mech["sender"],
                                       "receiver": mech["receiver"]})
                        out.append(self.record(
                            {**base, "method": m, "twin": 0, "share_time": c.base,
                             "share_order": "AB" if rep % 2 else "BA",
                             "cell": f"{m}|send{size}{pl}"},
                            rep, {"gbit_per_s": g0 + g1, "seconds": 1.0, "bytes": 1,
                                  "share_time": {"methods": [m, c.base], "per_method": pm}}))
        return out

    def write(self, path: Path) -> Path:
        path.mkdir(parents=True)
        (path / "trials.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in self.records()), encoding="utf-8")
        (path / "manifest.json").write_text(json.dumps({"run_id": "planted"}))
        return path


def _judge(run_dir: Path, crit: AD.Criteria) -> AD.Judgement:
    run = A.load_run(run_dir)
    return AD.judge(run.measured, run.shared, crit)


def _failed(j: AD.Judgement) -> dict[str, list[str]]:
    return {o.title: list(o.lines) for o in j.outcomes if not o.holds}


def test_a_run_that_measures_the_same_ratios_with_less_spread_adopts(tmp_path: Path) -> None:
    crit = CL.read()
    j = _judge(Planted(crit, 1).write(tmp_path / "run"), crit)
    assert j.adopt, _failed(j)
    assert [o.key for o in j.outcomes] == ["a", "b", "c", "d", "e", "e", "e", "e"]
    a = j.outcomes[0]
    assert len(a.lines) == 16 and all(line.endswith(": overlap") for line in a.lines)


@pytest.mark.parametrize("planted, fails", [
    # one comparison measures a ratio 25 % off: its CIs are disjoint, the pool stays inside
    ({"bias": {(65536, "cross-core", "sendmsg"): 1.25}}, {"a"}),
    # every comparison 8 % off: no CI pair disjoint, the pooled ratio beyond the margin
    ({"bias": {"all": 1.08}}, {"b"}),
    # the shared-time A/A reads 20 % between two connections of one method
    ({"aa": 1.2}, {"c"}),
    # shared time's comparisons barely less noisy than today's (its A/A as quiet as before)
    ({"sd_shared": 0.17, "sd_aa": 0.08}, {"d"}),
    # shared time's connections keep a smaller congestion window
    ({"cwnd": 0.6}, {"e"}),
])
def test_each_departure_fails_its_own_criterion(tmp_path: Path, planted: dict[str, Any],
                                                fails: set[str]) -> None:
    crit = CL.read()
    j = _judge(Planted(crit, 2, **planted).write(tmp_path / "run"), crit)
    assert not j.adopt
    assert set(j.failed()) == fails, _failed(j)
    if "e" in fails:
        failed = [o for o in j.outcomes if not o.holds]
        assert len(failed) == 1 and failed[0].title.startswith("congestion window")


def test_a_comparison_the_run_lacks_fails_every_criterion_that_reads_it(tmp_path: Path) -> None:
    crit = CL.read()
    j = _judge(Planted(crit, 3, drop=(1048576, "same-core", "zerocopy")).write(
        tmp_path / "run"), crit)
    assert not j.adopt and set(j.failed()) == {"a", "b", "d", "e"}, _failed(j)
    a = j.outcomes[0]
    assert any("missing" in line and "zerocopy/send 1 MiB same-core" in line for line in a.lines)


# ------------------------------------------------------------------- the command line

@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> Callable[..., Ran]:
    """studies/shared_time.py's main in this process (its command line: test_the_real_
    command_line)."""
    spec = importlib.util.spec_from_file_location("shared_time_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def run(*args: str | Path) -> Ran:
        monkeypatch.setattr(sys, "argv", ["shared_time.py", *map(str, args)])
        try:
            rc = mod.main()
        except SystemExit as e:
            rc = int(e.code or 0)
        out = capsys.readouterr()
        return Ran(rc, out.out, out.err)
    return run


def test_the_real_command_line(tmp_path: Path) -> None:
    good = Planted(CL.read(), 1).write(tmp_path / "good")
    for args, rc, words in (([good, "--criteria"], 0, "adopt shared time: yes"),
                            ([tmp_path / "absent", "--criteria"], 2, "not a run directory")):
        r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert r.returncode == rc and words in r.stdout + r.stderr, r.stderr


def test_the_command_line_prints_each_criterion_and_the_decision(
        tmp_path: Path, cli: Callable[..., Ran]) -> None:
    crit = CL.read()
    good = Planted(crit, 1).write(tmp_path / "good")
    r = cli(good, "--criteria")
    assert r.returncode == 0, r.stderr
    for key in AD.KEYS:
        assert f"({key}) " in r.stdout
    assert "adopt shared time: yes (every criterion holds)" in r.stdout
    bad = Planted(crit, 2, aa=1.2).write(tmp_path / "bad")
    r = cli(bad, "--criteria", CL.DEFAULT)
    assert r.returncode == 0, r.stderr
    assert "(c) the shared-time A/A inside ±12% (t CIs at 0.95): DOES NOT HOLD" in r.stdout
    assert "adopt shared time: no (not holding: c)" in r.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, cli: Callable[..., Ran]) -> None:
    crit = CL.read()
    good = Planted(crit, 1).write(tmp_path / "good")
    broken = tmp_path / "c.toml"
    broken.write_text(CL.DEFAULT.read_text().replace("margin = ", "margins = "))
    today_only = tmp_path / "today"
    today_only.mkdir()
    (today_only / "trials.jsonl").write_text("".join(
        line + "\n" for line in (good / "trials.jsonl").read_text().splitlines()
        if '"share_time"' not in line))
    torn = tmp_path / "torn"
    torn.mkdir()
    (torn / "trials.jsonl").write_text("not json\n")
    cases = {(tmp_path / "absent", "--criteria"): "not a run directory",
             (tmp_path, "--criteria"): "no trials.jsonl",
             (torn, "--criteria"): "trials.jsonl:1: not a JSON record",
             (today_only, "--criteria"): "no comparison measured under both designs",
             (good, "--criteria", broken): "[equivalence] has unknown key(s) margins",
             (good, "--criteria", tmp_path / "none.toml"): "cannot read the criteria file"}
    for args, words in cases.items():
        r = cli(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert words in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr


def _commit(repo: Path, date: str) -> Path:
    """The committed criteria file in a git repository of its own, committed at ``date``."""
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    f = repo / "criteria.toml"
    f.write_text(CL.DEFAULT.read_text())
    for cmd in (["init", "-q"], ["add", "criteria.toml"], ["commit", "-q", "-m", "criteria"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True)
    return f


def test_git_dates_the_criteria_against_the_runs_first_record(
        tmp_path: Path, cli: Callable[..., Ran]) -> None:
    """The planted run's first record is 2026-12-01T00:00:01Z: criteria committed a day
    earlier were declared before it, a day later after it (post hoc), and a file git does
    not hold is not shown older."""
    run = Planted(CL.read(), 1).write(tmp_path / "run")
    for repo, date, words in (("early", "2026-11-30T00:00:00+00:00", "before the run's first"),
                              ("late", "2026-12-02T00:00:00+00:00", "AFTER the run's first")):
        r = cli(run, "--criteria", _commit(tmp_path / repo, date))
        assert r.returncode == 0, r.stderr
        assert words in r.stdout and "record (2026-12-01 00:00:01 UTC)" in r.stdout, r.stdout
    loose = tmp_path / "loose.toml"
    loose.write_text(CL.DEFAULT.read_text())
    r = cli(run, "--criteria", loose)
    assert "not committed in git, so not shown older than the run" in r.stdout


def test_the_committed_validation_run_is_younger_than_its_criteria() -> None:
    """The committed run of the shared-time profile was made after the criteria it is judged
    by were committed: a later edit of the criteria file would read "AFTER" (a rule mended
    after the run was seen), and the run would no longer test it."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the criteria's commit time is read from git")
    runs = sorted(p for p in (ROOT / "data" / "raw").glob("*-shared-time")
                  if (p / "trials.jsonl.gz").is_file())
    if not runs:
        pytest.skip("no validation run of the shared-time profile is committed")
    words = CL.declared_before(CL.DEFAULT, A.load_run(runs[-1]))
    assert "before the run's first record" in words, words
    assert "uncommitted" not in words, words  # an edit not committed is an edit after the run

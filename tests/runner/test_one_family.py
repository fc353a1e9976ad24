"""One family per comparison, over the plans (decision.families.one_family): every comparison
the top-up stops is stopped at the family every reader reads it at, the largest of its
readers' (the claims' verdicts, the placement question P1, the findings' sizes of one pair
of methods in one configuration). The planner's plan of every committed profile keeps it;
the reference run 0fec's committed plan.json, made before the rule, did not, and the test
says where (a post-hoc fact about that run, not a property of the rule)."""

from __future__ import annotations

import json
import tomllib

import pytest

from decision import families
from conftest import ROOT
from runner.host.capabilities import Capabilities
from runner.plan import profile as prof_mod
from runner.plan import rounds as plan_mod

#: every committed profile (the noise model and the planning file beside them are not ones)
PROFILES = sorted(p.stem for p in (ROOT / "runner" / "profiles").glob("*.toml")
                  if "profile" in tomllib.loads(p.read_text()))
#: a machine that can test every claim (a CPU per thread and side at 8 threads, counters)
WIDE = Capabilities(methods=None, root=True, cpus=16, peers={"iperf3": True, "sockperf": True},
                    perf=True)
#: the reference machine's kind (2 CPUs: C6's and C11's thread counts not testable)
TWO = Capabilities(methods=None, root=True, cpus=2, peers={"iperf3": True, "sockperf": True},
                   perf=True)
REF = ROOT / "data" / "raw" / "20261126T103800Z-paper-0fec" / "plan.json"


def _comparisons(plan: dict) -> list[dict]:
    return [c for b in (plan.get("blocks") or {}).values()
            for c in (b.get("sequential") or {}).get("comparisons") or []]


@pytest.mark.parametrize("caps", [WIDE, TWO], ids=["16 cpus", "2 cpus"])
@pytest.mark.parametrize("name", PROFILES)
def test_every_profiles_plan_stops_each_comparison_where_every_reader_reads_it(
        name: str, caps: Capabilities) -> None:
    plan = plan_mod.make(prof_mod.load(name), caps).to_json()
    assert families.plan_violations(plan) == []
    for bid, c, stop, readers in families._plan_readers(plan):
        assert stop == families.one_family(*readers.values()), (bid, c["name"], readers)
        assert all(m <= stop for m in readers.values())


def test_the_paper_plan_has_comparisons_read_by_several_families() -> None:
    """The check above is not empty: the paper profile's plan stops comparisons that a claim,
    P1 and the findings all read (C4's sendmsg/send), and file comparisons that C13 and the
    file findings read, at the largest of their families."""
    plan = plan_mod.make(prof_mod.load("paper"), TWO).to_json()
    shared = [(c, r) for _, c, _, r in families._plan_readers(plan) if len(set(r.values())) > 1]
    assert any("C4" in r and "P1" in r for _, r in shared), shared[:3]
    c13 = [(c, r) for c, r in shared if "C13" in r]
    assert c13 and all(c["family"] == r["findings"] > r["C13"] == 1 for c, r in c13), c13


def test_the_reference_run_0fec_stopped_comparisons_at_other_families_than_it_read() -> None:
    """0fec's plan (made before the rule) is re-read post hoc: under the rule
    before it each claim read its comparisons at its own family, so C4's, C9's (and C1's,
    C3's, C5's, C10's) comparisons stopped at P1's family of 44 were read at 1, 2 or 4; under
    one family they are read at 44 (where they were stopped). Two violations are left (a
    run already made cannot be stopped again): C13's comparison, stopped at 1 and read by
    the file findings at 5, and C8's send/sendmsg at 4 threads (8 blocks), stopped at 4 and
    read at 44 by P1, which searches the same cells as sendmsg/send."""
    plan = json.loads(REF.read_text())
    old = families.own_readings(plan)
    stopped_44_read_4 = {(x["reader"], x["comparison"]) for x in old
                         if x["stopped at"] == 44 and x["read at"] == 4}
    assert {r for r, _ in stopped_44_read_4} >= {"C4", "C9"}
    assert ("C4", "sendmsg/send at 1 thread") in stopped_44_read_4
    assert ("C9", "zerocopy/send at 4 threads") in stopped_44_read_4
    now = families.plan_violations(plan)
    assert now, "0fec's plan keeps violating the rule: it was made before it"
    got = sorted((x["comparison"], x["stopped at"], x["read at"]) for x in now)
    assert got == [("send/sendmsg at 4 threads", 4, 44)] * 8 + [
        ("sendfile/read-write at 1 thread", 1, 5)], got
    assert [x["readers"] for x in now if x["stopped at"] == 1] == [{"C13": 1, "findings": 5}]
    assert all(x["readers"]["C8"] == 4 and x["readers"]["P1"] == 44
               for x in now if x["stopped at"] == 4)

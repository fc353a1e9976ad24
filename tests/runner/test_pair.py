"""runner.trial.pair, the one pair runner, with real processes: a server that gets ready and is
stopped, one that never gets ready, a client past its time, several clients on their own
deadline; nothing is left running, whatever happens."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from runner.trial.pair import LineReady, Pair, RemoteSide, run_pair

PY = sys.executable
#: a server that says it is ready, then waits until it is stopped
SERVER = [PY, "-c", "import sys, time; print('ready', flush=True); time.sleep(60)"]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_a_pair_runs_its_client_and_stops_its_server() -> None:
    seen: list[int] = []
    pr = run_pair(Pair(SERVER, [[PY, "-c", "print('hello'); import sys; "
                                 "print('warn', file=sys.stderr)"]], timeout=30,
                       ready=LineReady(lambda line: line == "ready"), server_grace=0.2,
                       on_started=lambda s, c: seen.append(s.pid)), None)
    assert pr.status == "ok" and pr.problem is None
    assert pr.stdout == "hello\n" and pr.sender_rc == 0 and pr.sender_tail == "warn"
    assert pr.sink_rc is not None and pr.sink_rc != 0  # stopped: it would have slept on
    assert pr.server_ran_to_end is True and pr.remote is None
    assert seen and _gone(seen[0])


def test_a_server_that_never_gets_ready_is_a_failed_pair() -> None:
    pr = run_pair(Pair([PY, "-c", "import sys; print('no'); sys.exit(3)"], [["true"]],
                       timeout=30, ready=LineReady(lambda line: line == "ready")), None)
    assert pr.status == "failed" and pr.sink_rc == 3 and pr.clients == []
    assert pr.problem == "sink exited with status 3 before it was ready", pr.problem
    assert pr.sink_tail == "no"


def test_a_client_past_its_time_is_killed() -> None:
    t0 = time.monotonic()
    pr = run_pair(Pair(None, [[PY, "-c", "import time; time.sleep(60)"]], timeout=1.5), None)
    assert time.monotonic() - t0 < 10
    assert pr.status == "timeout" and pr.sender_rc == -9
    assert pr.problem == "timed out after 1.5 s (killed)"


def test_several_clients_get_their_own_deadline_and_names() -> None:
    started: list[list[int]] = []
    clients = [[PY, "-c", f"print({i})"] for i in range(3)]
    pr = run_pair(Pair(SERVER, clients, timeout=30, server_grace=0.0, client_limit_s=20,
                       names=("server", "client"), merge_server_output=False,
                       on_started=lambda s, cs: started.append([c.pid for c in cs])), None)
    assert pr.status == "ok" and [c.stdout for c in pr.clients] == ["0\n", "1\n", "2\n"]
    assert pr.clients_wall_s is not None and pr.clients_wall_s < 20
    assert pr.server_stdout == "ready\n" and all(_gone(p) for p in started[0])
    missing = run_pair(Pair(SERVER, [["/nonexistent/client"]], timeout=30,
                            names=("server", "client")), None)
    assert missing.status == "failed"
    assert missing.problem.startswith("cannot start the client (/nonexistent/client): ")


def test_the_remote_side_is_declared() -> None:
    peer = RemoteSide("h", "10.0.0.2", None, 42, "1")
    assert peer.to_json() == {"host": "h", "data_addr": "10.0.0.2", "sink_port": None,
                              "sink_pid": 42, "sink_cpus": "1"}
    sink = RemoteSide("h", "10.0.0.2", 5000, 42, "1", refused=0, refused_connections=[],
                      sink_exit={"reason": "once"}, copybench=True)
    assert sink.to_json()["refused"] == 0 and sink.to_json()["sink_exit"] == {"reason": "once"}


def test_a_server_argv_that_cannot_start_is_named() -> None:
    pr = run_pair(Pair(["/nonexistent/sink"], [["true"]], timeout=5), None)
    assert pr.status == "failed" and pr.sink_rc is None
    assert pr.problem.startswith("cannot start the sink (/nonexistent/sink): ")

"""The runner's copybench command lines use only options `copybench COMMAND --help` lists,
and name the protocol with `--protocol` (`--transport` is the runner's word for
loopback, veth, udp-forward, and copybench refuses it as an option)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from runner.host.pinning import Cpus
from runner.plan.cells import Cell
from runner.trial.copybench_argv import sender_argv, sink_argv


def cell(**kw: object) -> Cell:
    base = dict(kind="copybench", command="send", method="send", transport="loopback",
                placement="cross-core", mode="stream", size=1400, threads=1, cache=None,
                duration_s=1.0, warmup_s=0.25, verify="sample", fields=8, mtu=None)
    return Cell(**{**base, **kw})  # type: ignore[arg-type]


CELLS = {
    "tcp-stream": cell(),
    "tcp-pingpong": cell(mode="pingpong", size=64),
    "udp-forward": cell(transport="udp-forward", verify="off"),
    "file-send": cell(method="sendfile", size=1 << 20, cache="cold", dir="/var/tmp"),
    "tcp-sockbuf": cell(sockbuf=4 << 20),
    "tcp-alternate": cell(alternate="sendmsg"),
    "copy": cell(command="copy", method="splice", transport=None, mode=None, cache="warm"),
}


def help_options(copybench: Path, command: str) -> set[str]:
    out = subprocess.run([str(copybench), command, "--help"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return {m.group(1) for line in out.splitlines()
            if (m := re.match(r"  (--[a-z][a-z0-9-]*)", line))}


@pytest.mark.parametrize("name", list(CELLS))
def test_sender_argv_uses_only_options_copybench_lists(runner_copybench: Path,
                                                       name: str) -> None:
    c = CELLS[name]
    argv = sender_argv(runner_copybench, c, "127.0.0.1", 5201, Cpus("0", "1"), 7)
    assert argv[1] == c.command
    used = {a for a in argv[2:] if a.startswith("--")}
    assert used <= help_options(runner_copybench, c.command), \
        f"{name}: {sorted(used - help_options(runner_copybench, c.command))} not in --help"
    assert "--transport" not in argv
    if c.command == "send":
        assert argv[argv.index("--protocol") + 1] == c.protocol


@pytest.mark.parametrize("once", [True, False])  # a trial's own sink, a kept one
def test_sink_argv_uses_only_options_copybench_lists(runner_copybench: Path,
                                                     once: bool) -> None:
    argv = sink_argv(runner_copybench, 0, Cpus("0", "1"), once=once)
    used = {a for a in argv[2:] if a.startswith("--")}
    assert used <= help_options(runner_copybench, "sink")

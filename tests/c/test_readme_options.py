"""src/README.md's command-line synopsis documents exactly the options copybench's own
``--help`` lists, command by command: no option missing, none that no longer exists.

The options of a command are the ``--name`` words of its ``--help`` text: its ``usage:`` line
and the left column of its option lines (``  --name ARG  what it does``). ``copybench --help``
gives the top-level ones (``--version``, ``--build-info``). ``--help`` itself is taken by every
command and is documented once, in the sentence the README's synopsis ends with, so it is
left out of the per-command comparison (and checked on its own below).

The README's synopsis is its first fenced block: a line ``copybench COMMAND ...`` starts a
command's options, the indented lines below it continue them; ``copybench --version | ...``
is the top level.

Runs the real binary: src/build/copybench, or $COPYBENCH_BIN.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "src" / "README.md"
COMMANDS = ("methods", "sink", "send", "copy", "memcpy")
TOP = ""  # the top level: `copybench --help`, `copybench --version | --build-info`
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
HELP_SENTENCE = "Every command also takes `--help`"


def help_text(copybench: Path, command: str) -> str:
    argv = [str(copybench), *([command] if command else []), "--help"]
    r = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=30, check=False)
    assert r.returncode == 0, f"{' '.join(argv[1:])}: exit {r.returncode}: {r.stderr!r}"
    assert r.stdout.startswith("usage: copybench"), f"{' '.join(argv[1:])}: {r.stdout!r}"
    return r.stdout


def help_options(text: str) -> set[str]:
    """The ``--name`` words of a usage text's ``usage:`` line and of its option lines' left
    column (the prose of an option's help may name others, as ``--dst``'s names ``--dir``)."""
    lines = text.splitlines()
    found = set(OPTION.findall(lines[0].split("(", 1)[0]))  # not "(copybench COMMAND --help ...)"
    for line in lines[1:]:
        m = re.match(r"  (--[a-z][a-z0-9-]*)", line)
        if m:
            found.add(m.group(1))
    return found - {"--help"}


def readme_options() -> dict[str, set[str]]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"^```\n(.*?)^```", text, re.S | re.M)
    assert block, "src/README.md: no fenced synopsis block"
    out: dict[str, set[str]] = {}
    current = None
    for line in block.group(1).splitlines():
        m = re.match(r"copybench\s+(\S+)", line)
        if m:
            current = TOP if m.group(1).startswith("--") else m.group(1)
            assert current not in out, f"src/README.md: `copybench {current}` twice in the synopsis"
            out[current] = set()
        elif not line.startswith(" ") or current is None:
            pytest.fail(f"src/README.md synopsis: a line that is neither a command nor its "
                        f"continuation: {line!r}")
        out[current] |= set(OPTION.findall(line))
    return out


def test_readme_synopsis_has_every_command() -> None:
    assert set(readme_options()) == {TOP, *COMMANDS}


@pytest.mark.parametrize("command", [TOP, *COMMANDS], ids=["top-level", *COMMANDS])
def test_readme_documents_exactly_the_options_of_help(copybench: Path, command: str) -> None:
    documented = readme_options().get(command, set())
    listed = help_options(help_text(copybench, command))
    name = f"copybench {command}".strip()
    assert listed, f"{name} --help: no options found (has the usage format changed?)"
    assert not listed - documented, \
        f"src/README.md does not document {sorted(listed - documented)} of `{name} --help`"
    assert not documented - listed, \
        f"src/README.md documents {sorted(documented - listed)}, which `{name} --help` does not list"


def test_help_is_documented_once_and_taken_by_every_command(copybench: Path) -> None:
    assert HELP_SENTENCE in README.read_text(encoding="utf-8"), \
        f"src/README.md: the synopsis should end with {HELP_SENTENCE!r}"
    for command in (TOP, *COMMANDS):
        help_text(copybench, command)  # exit 0, a usage text on stdout

"""Errors the CLI turns into one line on stderr and an exit code (never a traceback), and the
argument parser whose own errors are one line too."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


class UsageError(Exception):
    """Bad input from the user (profile, arguments): exit code 2."""

    exit_code = 2


class ProfileError(UsageError):
    """A profile is invalid; the message names the file, the key and the allowed values."""

    def __init__(self, path: str, key: str, message: str) -> None:
        self.path = path
        self.key = key
        super().__init__(f"profile {path}: {key}: {message}")


class RunnerError(Exception):
    """A runtime failure of the runner itself (not of a trial): exit code 1."""

    exit_code = 1

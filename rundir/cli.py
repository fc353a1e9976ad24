"""``python -m rundir {seal|verify|pack|check} RUN_DIR`` (``make seal|verify|pack RUN=...``;
``check`` is what ``make book`` runs before it reads a run).

``seal`` seals a run never sealed, or one that still verifies against its seal apart from the
files added after sealing (:data:`rundir.verify.ADDED_AFTER_SEALING`); a changed run is
refused with the files named, or re-sealed with ``--reseal REASON`` (recorded in the run).

Exit codes: 0 ok, 1 the run does not verify (or cannot be read, or is being written), 2 bad
usage (a missing run directory, an unfinished run to seal or pack). ``verify`` of a run being
written says so (not that its ``SHA256SUMS`` is missing). ``seal`` and ``pack``
write the run, so they take its lock (:mod:`rundir.lock`) and are refused while another
process writes it; ``--final`` seals or packs a run that is not finished
(:mod:`rundir.complete`). ``check`` refuses a run whose records cannot be read, that is being
written or that does not verify; ``--unverified`` lets the last two through with a warning.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rundir import layout, lock, records, utf8
from rundir.complete import incomplete
from rundir.readiness import being_written, unverified_reason
from rundir.verify import RunDirUsageError, pack, passed_before, seal, verify

USAGE = ("usage: python -m rundir seal RUN_DIR [--final] [--reseal REASON] | pack RUN_DIR "
         "[--final] | verify RUN_DIR | check RUN_DIR [--unverified]")
#: command -> the options it takes
COMMANDS = {"seal": ("--final",), "verify": (), "pack": ("--final",),
            "check": ("--unverified",)}


def _check(run_dir: Path, unverified: bool) -> int:
    """Before a reader (the book) reads the run: one line when it must not."""
    why = being_written(run_dir)
    if why is None and passed_before(run_dir):
        return 0
    if why is None:
        problem = records.first_problem(run_dir)
        if problem:
            print(f"rundir: {problem}", file=sys.stderr)
            return 1
        why = unverified_reason(run_dir)
    if why is None:
        return 0
    if unverified:
        print(f"rundir: warning: the run is NOT verified: {why}; read anyway, as asked "
              "(UNVERIFIED)", file=sys.stderr)
        return 0
    print(f"rundir: {why}; not read (to read it anyway: UNVERIFIED=1 with make, or "
          "--unverified)", file=sys.stderr)
    return 1


def _refuse_unfinished(root: Path, command: str) -> None:
    # a line that is not a record (NaN, a key twice, bytes that are not UTF-8) is damage, not
    # an unfinished run: a resume would refuse it too. Said first (it read "not finished:
    # 24 of 25 planned trials recorded; resume it"). A torn last line is an interrupted
    # write: the run is unfinished, as said below.
    damage = records.first_problem(root)
    if damage is not None and not damage.endswith(records.TORN) \
            and records.trials_file(root) is not None:
        raise RunDirUsageError(
            f"{command}: {damage}; a damaged run is not {command}ed (every problem: python -m "
            f"rundir verify {root})")
    why = incomplete(root)
    if why:
        raise RunDirUsageError(
            f"{command}: {root} is not finished: {why}; resume it (python -m runner sweep "
            f"--resume --run-dir {root}), or {command} it as it is with: python -m rundir "
            f"{command} {root} --final (make {command} RUN={root} FINAL=1)")


def _write(command: str, run_dir: str, final: bool, reseal: str | None = None) -> int:
    """seal or pack, holding the run's lock; a run that is not finished is refused unless
    it is ``final``; a sealed run that changed is re-sealed only with a ``reseal`` reason."""
    with lock.acquire(Path(run_dir), f"python -m rundir {command}"):
        if not final:
            _refuse_unfinished(Path(run_dir), command)
        if command == "seal":
            target = seal(run_dir, reseal=reseal)
            count = len(utf8.read_bytes(target, inside=Path(run_dir)).splitlines())
            print(f"sealed {run_dir}: {count} files in {target.name}")
            return 0
        src = Path(run_dir) / layout.TRIALS
        before = src.stat().st_size if src.is_file() else 0
        packed = pack(run_dir)
        print(f"packed {run_dir}: {layout.TRIALS} {before} B -> {packed.name} "
              f"{packed.stat().st_size} B; re-sealed")
        return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["--help"], ["-h"], ["help"]):
        print(f"{USAGE}\n\n{__doc__.strip()}")
        return 0
    command = args[0] if args else ""
    reseal = None
    if command == "seal" and "--reseal" in args[2:]:
        at = args.index("--reseal", 2)
        reseal = args[at + 1].strip() if at + 1 < len(args) else ""
        if not reseal or reseal.startswith("--"):
            print("rundir: seal --reseal needs a reason (the words recorded in the run's "
                  f"reseals.json, e.g. --reseal 'record 5 corrected by hand'); {USAGE}",
                  file=sys.stderr)
            return 2
        del args[at:at + 2]
    opts = set(args[2:])
    if len(args) < 2 or command not in COMMANDS or not opts <= set(COMMANDS[command]) \
            or len(opts) != len(args) - 2:
        print(f"rundir: expected a command ({', '.join(COMMANDS)}), one RUN_DIR and its "
              f"options; {USAGE}", file=sys.stderr)
        return 2
    run_dir = args[1]
    try:
        if command == "check":
            return _check(Path(run_dir), "--unverified" in opts)
        if command in ("seal", "pack"):
            if not Path(run_dir).is_dir():
                raise RunDirUsageError(f"run directory {run_dir!r} does not exist or is not "
                                       "a directory")
            return _write(command, run_dir, "--final" in opts, reseal)
        writing = being_written(Path(run_dir)) if Path(run_dir).is_dir() else None
        if writing:  # not sealed yet, and its last line may be torn: no damage, not done
            print(f"rundir: verify: {writing}; verify it once it has ended", file=sys.stderr)
            return 1
        report = verify(run_dir)
    except RunDirUsageError as exc:
        print(f"rundir: {exc}", file=sys.stderr)
        return 2
    except lock.NotALockFile as exc:  # a link or FIFO planted at .lock: refused, untouched
        print(f"rundir: {command}: {exc.filename}: {exc.strerror}; nothing was written",
              file=sys.stderr)
        return 2
    except lock.Locked as exc:
        print(f"rundir: {command}: {exc}; nothing was written (wait for it to end)",
              file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"rundir: {exc.filename or run_dir}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for problem in report.problems:
        print(problem)
    print(report.summary())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

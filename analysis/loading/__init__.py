"""Reading a run directory (through :mod:`rundir`) into tidy tables: the trials, manifest and
plan (:mod:`.run`), CPU profiles (:mod:`.cpuprofiles`), the two hosts of a remote run
(:mod:`.hosts`) and what the peer tools reported (:mod:`.peers`). Above :mod:`analysis.statistics`
only."""

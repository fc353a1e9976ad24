"""The analysis the notebooks run on a run directory: loading (:mod:`.run`), statistics
(:mod:`.stats`, pure functions: no I/O, no plotting), CPU profiles (:mod:`.cpuprofiles`), the
claim tests (:mod:`.claims`, one module per family of claims), figures (:mod:`.plots`),
formatting and notebook output (:mod:`.fmt`, :mod:`.output`), and the comparison of two runs
(:mod:`.compare`, with its report command :mod:`.compare_report`).

It reads runs through :mod:`rundir` and never imports the sweep (:mod:`runner`).
"""

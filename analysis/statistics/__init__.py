"""The analysis' lowest layer: statistics as pure functions over arrays and tables (no I/O, no
plotting): estimates and their CIs (:mod:`.stats`), how a number or an estimate is written
(:mod:`.fmt`), the noise of a run and where it comes from (:mod:`.noise`,
:mod:`.noise_sources`), which side sets a stream's rate (:mod:`.bottleneck`) and the
calibrated copy count (:mod:`.copycount`). Imports no other folder of ``analysis``."""

"""The run directory: what a sweep leaves in ``data/raw/<run-id>/`` and how it is checked.

The one format both sides share: the runner (which writes runs) and the analysis (which
reads them) import this package, and nothing else does. It owns the trial records
(:mod:`.records`: ``trials.jsonl``, packed ``trials.jsonl.gz``, their one reader and the
record's schema check), the JSON schemas of a trial and of ``manifest.json`` (``schema/``,
checked through :mod:`.schemas`), the CPU-profile files (:mod:`.perf`), sealing,
verification and packing (:mod:`.verify`: ``SHA256SUMS``; the command line :mod:`.cli`),
what ``ok`` means (:mod:`.okrule`), the one-writer lock (:mod:`.lock`), whether a run is
finished (:mod:`.complete`) and what a reader must check first (:mod:`.readiness`). It imports
neither side.
"""

"""The analysis the notebooks run on a run directory, in layer folders, lowest first (a module
imports modules of its own folder or of lower ones, never of a higher one;
``tests/test_layout.py`` checks it):

* :mod:`.statistics`: pure functions (no I/O, no plotting), and how numbers are written;
* :mod:`.loading`: a run directory read into tidy tables, CPU profiles, hosts, peers;
* :mod:`.claims`: the claim tests (one module per family of claims) and their rules;
* :mod:`.designsim`: the claim blocks' designs simulated on a run's structure;
* :mod:`.comparison`: a run beside another (with the ``make compare`` command);
* :mod:`.figures`: the book's figures;
* :mod:`.words`: the book's generated sentences and what a notebook shows.

``analysis/compare_report.py`` is the one module outside them: the command line
``python -m analysis.compare_report`` (:mod:`.comparison.compare_report`).

It reads runs through :mod:`rundir` and never imports the sweep (:mod:`runner`).
"""

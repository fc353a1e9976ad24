"""``python -m analysis.compare_report RUN REF ...``: the command ``make compare`` runs, kept at
this name (the reports' marker and the documented command line say it); the program is
:mod:`analysis.comparison.compare_report`."""

from __future__ import annotations

import sys

from analysis.comparison.compare_report import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m rundir {seal|verify|pack|check} RUN_DIR`` (``make seal|verify|pack RUN=...``)."""

import sys

from rundir.cli import main

sys.exit(main())

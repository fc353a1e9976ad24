"""``python -m rundir {seal|verify|pack} RUN_DIR`` (``make seal|verify|pack RUN=...``)."""

import sys

from rundir.verify import main

sys.exit(main())

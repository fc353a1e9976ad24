import sys

from runner.sweep.cli import main

sys.exit(main())

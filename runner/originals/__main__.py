import sys

from runner.originals.cli import main

sys.exit(main(prog="python -m runner.originals"))

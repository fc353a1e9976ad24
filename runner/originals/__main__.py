import sys

from runner.originals.commands import main

sys.exit(main(prog="python -m runner.originals"))

# The README's commands on a fresh Debian 12: a minimal root from Debian's packages
# (mmdebstrap), a clone of HEAD in it with ../shared beside it, then `make reproduce`,
# `make test`, `make test-slow` inside it, each timed; fails past 75 min. `.ci/run` runs the
# same. As root; FRESH_ROOT_COMMANDS, FRESH_ROOT_REV, FRESH_ROOT_KEEP=1: scripts/fresh-root.
.PHONY: fresh-root
fresh-root:
	scripts/fresh-root

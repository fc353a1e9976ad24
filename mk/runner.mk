# Runner: sweep profiles -> data/raw/<run-id>/ (python -m runner). Tests need root for the
# namespace topologies and perf (they skip, saying why, when not root).

.PHONY: test-runner test-remote test-slow-sweeps test-shared smoke-run originals

# the runner's tests alone (profiles, plan, topologies, perf reduction, end-to-end sweeps);
# make test runs them with every other test (make test-py)
test-runner: build
	$(PYTEST) -m "not ($(PYTEST_ELSEWHERE))" tests/runner tests/c

# the remote transport against a real sshd in a network namespace (about 2.5 min, marker
# sshd) and the sweeps with the reports' own programs (about 40 s and a build of their code,
# marker slow): run by `make test-slow` (which .ci/run calls after `make test`)
test-remote: build
	$(PYTEST) -m sshd tests

test-slow-sweeps: build
	$(PYTEST) -m "slow and not (book or reference or sshd)" tests

# the tests that read ../shared beside the checkout (the reports' archives, the design's
# pin): not in make test, which a clone anywhere runs (marker shared)
test-shared: build
	$(PYTEST) -m "shared and not (slow or book or reference or sshd)" tests

test-slow: test-remote test-slow-sweeps test-shared

# a fresh smoke run at build/smoke-run for the book's tests (re-created each time)
smoke-run: build
	rm -rf build/smoke-run
	$(PY) -m runner sweep --profile smoke --run-dir build/smoke-run --no-progress

# The reports' own programs (S1-S3): fetch at the pinned commits (tree hash checked), build
# with their Makefiles as an unprivileged user (build/originals/, never committed). From
# GitHub by default; without GitHub: make originals ORIGINALS_ARCHIVES=../shared/seed-repos
ORIGINALS_ARCHIVES ?=
export ORIGINALS_ARCHIVES
originals: ARCHIVES_FOR := originals
originals: originals-archives
	@arch=(); [ -z "$$ORIGINALS_ARCHIVES" ] || arch=(--archives "$$ORIGINALS_ARCHIVES"); \
	echo "$(PY) -m runner originals build $${arch[*]}"; $(PY) -m runner originals build "$${arch[@]}"

# ORIGINALS_ARCHIVES (make claims, originals, bundle): checked before anything is built or run,
# in one line (otherwise a missing one surfaces after the build, as cp's or the fetch's error). ARCHIVES_FOR: the
# target that takes it; ARCHIVES_NEEDED=1: the directory must hold archives (the bundle copies
# them all; the fetch says itself which of the pinned ones are missing).
.PHONY: originals-archives
originals-archives:
	@a=$$ORIGINALS_ARCHIVES; [ -n "$$a" ] || exit 0; shopt -s nullglob; \
	if [ ! -d "$$a" ]; then why="is not a directory"; \
	elif [ ! -r "$$a" ] || [ ! -x "$$a" ]; then why="cannot be read"; \
	elif [ -n "$(ARCHIVES_NEEDED)" ] && set -- "$$a"/*.tar.gz && [ $$# = 0 ]; then why="holds no *.tar.gz"; \
	else exit 0; fi; \
	echo "make $(or $(ARCHIVES_FOR),$@): ORIGINALS_ARCHIVES=$$a $$why: give a directory of the reports' archives, <owner>+<repo>-<commit>.tar.gz (as ../shared/seed-repos); nothing was built or run" >&2; exit 2

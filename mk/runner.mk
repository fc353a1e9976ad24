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
originals:
	$(PY) -m runner originals build $(if $(ORIGINALS_ARCHIVES),--archives $(ORIGINALS_ARCHIVES))

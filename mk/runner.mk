# Runner: sweep profiles -> data/raw/<run-id>/ (python -m runner). Tests need root for the
# namespace topologies and perf (they skip, saying why, when not root).

.PHONY: test-runner test-remote smoke-run originals

# pytest on the runner's tests: profiles, plan, topologies, perf reduction, end-to-end sweeps
test-runner: build
	$(PY) -m pytest -q -rs tests/test_runner_profile.py tests/test_runner_plan.py \
	  tests/test_runner_system.py tests/test_runner_sweep.py tests/test_originals.py \
	  tests/test_runner_notebook.py tests/test_copy_safety.py \
	  tests/test_rundir_safety.py tests/test_runner_design.py tests/test_noise.py \
	  tests/test_runner_window.py

test: test-runner

# the remote transport against a real sshd in a network namespace (about 2.5 min): one of
# the slower checks, run by `make test-slow` (which .ci/run calls after `make test`)
test-remote: build
	$(PY) -m pytest -q -rs tests/test_remote.py

test-slow: test-remote test-originals-sweep

# sweeps that run the reports' own programs in copybench's blocks (about 40 s, and a fetch
# and build of their code): one of the slower checks, run by `make test-slow`
.PHONY: test-originals-sweep
test-originals-sweep: build
	$(PY) -m pytest -q -rs tests/test_originals_sweep.py

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

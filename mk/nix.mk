# Packaging: run verification (seal/verify), the Nix/citation tests, and the hooks that let
# `nix run .#reproduce` / `nix develop` drive the same targets with the flake's tools.

.PHONY: verify seal pack test-packaging

# seal and pack write into a run: they need RUN given explicitly (never the committed
# reference run by default). verify only reads: without RUN it checks the reference run.
ifneq ($(filter seal pack,$(MAKECMDGOALS)),)
# ($(value RUN): the path's text, which make never expands; a path is data, see mk/book.mk)
ifeq ($(and $(filter command line environment,$(origin RUN)),$(strip $(value RUN))),)
$(error RUN is required: make $(filter seal pack,$(MAKECMDGOALS)) RUN=data/raw/<run-id>)
endif
endif
ifneq ($(filter verify,$(MAKECMDGOALS)),)
ifeq ($(strip $(if $(filter file,$(origin RUN)),$(REFERENCE_RUN),$(value RUN))),)
$(error RUN is required (no committed reference run to default to): make verify RUN=data/raw/<run-id>)
endif
endif

# make verify [RUN=data/raw/<run-id>]: hashes (SHA256SUMS) + schema of every record;
# default: the committed reference run.
verify: setup
	@$(PY) -m rundir verify "$$RUN_PATH"

# make seal RUN=data/raw/<run-id>: write RUN/SHA256SUMS over every file of the run. A run
# that is not finished (trials of its plan missing, its last session interrupted) is refused
# unless FINAL=1; a run another process is writing is refused. A sealed run that changed
# since is refused, naming the files, unless RESEAL='<reason>' (recorded in reseals.json).
# RESEAL, like RUN, reaches the recipe through its environment (a reason is text, not code)
RESEAL_REASON := $(RESEAL)
export RESEAL_REASON
seal: setup
	@$(PY) -m rundir seal "$$RUN_PATH" $(if $(FINAL),--final) $${RESEAL_REASON:+--reseal "$$RESEAL_REASON"}

# make pack RUN=data/raw/<run-id>: before committing a finished run: verify it, gzip its
# trials.jsonl to trials.jsonl.gz (reproducibly), re-seal. Packed runs verify and analyse
# the same way; they cannot be resumed, so an unfinished run is refused unless FINAL=1.
pack: setup
	@$(PY) -m rundir pack "$$RUN_PATH" $(if $(FINAL),--final)

# Flake parse/lock/attribute checks (skipped with a printed reason where Nix is missing),
# CITATION.cff validation, and rundir (seal/verify/pack) on generated runs.
test-packaging: setup
	$(PYTEST) -m "not ($(PYTEST_ELSEWHERE))" tests/packaging tests/rundir

# Under Nix (flake.nix exports COPYBENCH_NIX=1): every tool comes from the flake, so `setup`
# installs nothing and Python is the flake's. With COPYBENCH_BIN (nix run .#reproduce/.#book)
# the program is the flake's build too, so `build` only checks it. Redefining the recipes
# here (this file is read after the Makefile) makes make print "overriding recipe" warnings.
ifeq ($(COPYBENCH_NIX),1)
PY := python3
setup:
	@echo "setup: tools from Nix ($$(command -v $(PY))); no apt, no .venv"
ifneq ($(COPYBENCH_BIN),)
BIN := $(COPYBENCH_BIN)
build:
	@test -x "$(BIN)" || { echo "build: $(BIN) is not an executable (COPYBENCH_BIN)" >&2; exit 1; }
	@echo "build: using $(BIN)"
endif
endif

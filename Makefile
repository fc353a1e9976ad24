# copybench — top-level entry points. The README's two commands are `make reproduce` and
# `make test`; both do their own set-up. Per-area targets live in mk/*.mk.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PY        := .venv/bin/python
BIN       := src/build/copybench

.PHONY: help setup build test test-c check
help:
	@echo "make reproduce [RUN=data/raw/<new-id>]  set up, build, run the quick sweep into a new run, its book (HTML)"
	@echo "make test        set up, build, run the tests: C, ASan/UBSan, pytest, the book of a smoke run"
	@echo "make check       the fast tests for everyday work (~2 min): C unit tests, the pure tests of"
	@echo "                 decision/, rundir/ and analysis/ (no sweep, no root, no book)"
	@echo "make test-slow   after make test: the reference run's book checked as a reader sees it"
	@echo "                 (figures, browser, PDF), the hardened C suite, the book at the Nix pin's"
	@echo "                 versions, the sshd tests, the sweeps with the reports' own programs"
	@echo "make claims      the reviewer's check: claims profile (~1 h 13 min of plan), its book, compare vs reference"
	@echo "make build       build src/build/copybench"
	@echo "make book [RUN=data/raw/<id>]   notebooks + book (HTML) from a run; default: the reference run"
	@echo "make pdf  [RUN=data/raw/<id>]   the same book as a PDF (pdflatex); default: the reference run"
	@echo "make compare RUN=data/raw/<id>  your run against the reference run: build/compare/"
	@echo "make verify  [RUN=data/raw/<id>] a run's files against its SHA256SUMS, its records against the schemas"
	@echo "make seal RUN=... / make pack RUN=...  seal a run (SHA256SUMS) / pack it into one archive"
	@echo "make smoke-run   a 25-trial sweep through every code path into build/smoke-run (no conclusions)"
	@echo "make originals [ORIGINALS_ARCHIVES=DIR]  fetch (or unpack) and build the reports' own programs"
	@echo "make bundle      a self-contained bundle to run the threads profile on a many-CPU machine"
	@echo "make test-book / test-figures / test-browser / test-pdf   one part of make test / test-slow"
	@echo "make test-nix-book / compare-nix-book   the book at the Nix pin's Python versions, compared"
	@echo "make notebooks-sync  the notebooks' .ipynb from their .py sources (jupytext)"
	@echo "make fresh-root  (root) the README's commands in a fresh Debian 12 root, as .ci/run does (~1 h)"

# apt packages when root, then the pinned Python environment (.venv); about 0.2 s when
# both are current. A sub-make of a target that ran it already gets SETUP_DONE=1.
setup:
	@[ "$(filter 1,$(SETUP_DONE))" = 1 ] || scripts/setup

build:
	$(MAKE) -C src

test-c: build
	$(MAKE) -C src test

# the fast tier: the C unit tests and the tests of the pure packages, without the tests that
# run sweeps, need root or read a whole committed run (markers sweep, root, and those of
# other targets), and without those that start the scripts and command lines as processes,
# build trees of files, render figures or simulate designs (marker heavy: together more than
# the rest of the tier's time on 2 CPUs); make test runs all of them
CHECK_TESTS   := tests/decision tests/rundir tests/analysis
CHECK_MARKERS = heavy or sweep or root or $(PYTEST_ELSEWHERE)
check: setup
	$(MAKE) -C src build/unit
	src/build/unit
	$(PYTEST) -m "not ($(CHECK_MARKERS))" $(CHECK_TESTS)
	@echo "make check: the fast tests passed"


# mk/*.mk add their suites as further prerequisites of `test` (e.g. `test: test-runner`).
.PHONY: test
test: setup test-c
	@echo "make test: all suites passed"

-include mk/*.mk

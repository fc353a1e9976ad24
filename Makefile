# copybench — top-level entry points. The README's two commands are `make reproduce` and
# `make test`; both do their own set-up. Per-area targets live in mk/*.mk.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PY        := .venv/bin/python
BIN       := src/build/copybench

.PHONY: help setup build test test-c
help:
	@echo "make reproduce   set up, build, run the quick sweep, execute notebooks, build the book"
	@echo "make test        set up, build, run every test (C, ASan/UBSan, pytest, book)"
	@echo "make claims      the reviewer's check: claims profile (~55 min), its book, compare vs reference"
	@echo "make build       build src/build/copybench"
	@echo "make book RUN=data/raw/<id>   notebooks + book from an existing run"
	@echo "make pdf         the book as PDF (pdflatex)"

# apt packages when root, then the pinned Python environment (.venv); about 0.2 s when
# both are current. A sub-make of a target that ran it already gets SETUP_DONE=1.
setup:
	@[ "$(SETUP_DONE)" = 1 ] || scripts/setup

build:
	$(MAKE) -C src

test-c: build
	$(MAKE) -C src test



# mk/*.mk add their suites as further prerequisites of `test` (e.g. `test: test-runner`).
.PHONY: test
test: setup test-c
	@echo "make test: all suites passed"

-include mk/*.mk

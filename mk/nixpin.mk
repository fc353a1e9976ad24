# The Nix path's two known differences from the tested pip/apt path, checked without Nix:
# the book built with the Python package versions nixpkgs (nixos-25.11) gives,
# and the C program built with the hardening flags nixpkgs' compiler wrapper adds.
#
#   make test-nix-book     .venv-nixpkgs from nix/requirements-nixpkgs*.txt (versions and
#                          evidence: nix/python-versions.tsv), then the book from the committed
#                          reference run in a copy of the tree (build/nix-book/), as
#                          `nix run .#book` would run it (COPYBENCH_NIX=1, PY and JB from the env)
#   make compare-nix-book  also the pip path's book in build/pip-book/, and every glued value
#                          of the two books compared
#   make test-c-hardened   the C tests against src/build-hardened/copybench
#   make test-nix-offline  tests/packaging/test_nix_offline.py: the installed nix runs the flake (show,
#                          check --no-build, run -- ARGS) against the stub nixpkgs
#   bench/hardened         throughput of the hardened build relative to the plain one

.PHONY: test-nix-book compare-nix-book test-c-hardened test-nix-offline nixpkgs-venv test-nix-book-skipped

# Under Nix (nix develop; nix run .#book/.#reproduce) jupyter-book is the flake's, on PATH.
ifeq ($(COPYBENCH_NIX),1)
JB := jupyter-book
endif

NIXPKGS_VENV   := .venv-nixpkgs
# Debian's python3 (3.11 on bookworm); the pin's python3 is 3.13. With a 3.13 at hand:
#   make test-nix-book NIXPKGS_PYTHON=/path/to/python3.13 NIXPKGS_VENV=.venv-nixpkgs313
# (not the default: its venv took 4.5 min to install here, against 1.5 min on 3.11).
NIXPKGS_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
NIX_BOOK_TREE  := build/nix-book

$(NIXPKGS_VENV)/.stamp: nix/requirements-nixpkgs.txt nix/requirements-nixpkgs-nodeps.txt
	rm -rf $(NIXPKGS_VENV)
	$(NIXPKGS_PYTHON) -m venv $(NIXPKGS_VENV)
	$(NIXPKGS_VENV)/bin/pip install -q --disable-pip-version-check -r nix/requirements-nixpkgs.txt
	$(NIXPKGS_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r nix/requirements-nixpkgs-nodeps.txt
	@# the bounds nixpkgs relaxes (listed in the -nodeps file) are the only conflicts allowed
	@$(NIXPKGS_VENV)/bin/pip check | grep -v -E '^(jupyter-book 1\.0\.4 has requirement (sphinx|myst-parser)|sphinx-book-theme 1\.1\.4 has requirement pydata-sphinx-theme|cffconvert 2\.0\.0 has requirement jsonschema)' \
	  | { if read -r line; then echo "pip check: $$line" >&2; cat >&2; exit 1; fi; }
	touch $@

nixpkgs-venv: $(NIXPKGS_VENV)/.stamp

# The copy holds the working tree's tracked and untracked (not ignored) files, or with
# NIX_BOOK_FROM=HEAD the last commit; the book's outputs there never touch book/_build of the
# pip path.
NIX_BOOK_FROM ?= worktree
define copy-tree
	rm -rf $(1) && mkdir -p $(1)
	if [ "$(filter HEAD,$(NIX_BOOK_FROM))" = HEAD ]; then git archive HEAD | tar -xf - -C $(1); else \
	  git ls-files -z --cached --others --exclude-standard \
	  | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C $(1); fi
endef
test-nix-book: $(NIXPKGS_VENV)/.stamp
	@if [ -z "$$REFERENCE_RUN_PATH" ]; then echo "test-nix-book: no committed reference run" >&2; exit 2; fi
	$(call copy-tree,$(NIX_BOOK_TREE))
	cd $(NIX_BOOK_TREE) && PYTHONPATH=$(CURDIR)/$(NIX_BOOK_TREE) $(MAKE) --no-print-directory book \
	  COPYBENCH_NIX=1 RUN="$(call submake-arg,REFERENCE_RUN_PATH)" \
	  PY=$(CURDIR)/$(NIXPKGS_VENV)/bin/python JB=$(CURDIR)/$(NIXPKGS_VENV)/bin/jupyter-book
	test -s $(NIX_BOOK_TREE)/book/_build/html/index.html
	@# every chapter, figure and claim verdict, as test-book checks the pip path's book (the
	@# notebook-source check is test-layout's business and needs no second toolchain)
	cd $(NIX_BOOK_TREE) && COPYBENCH_BOOK_RUN="$$REFERENCE_RUN_PATH" PYTHONPATH=$(CURDIR)/$(NIX_BOOK_TREE) \
	  $(CURDIR)/$(NIXPKGS_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/book/test_book.py \
	  --deselect tests/book/test_book.py::test_notebook_sources_in_sync_and_without_outputs
	@$(NIXPKGS_VENV)/bin/python -c 'import sys, sphinx, myst_nb, myst_parser, jupyter_book, pandas, numpy, matplotlib; print(f"test-nix-book: ok: book built with python {sys.version.split()[0]}, sphinx {sphinx.__version__}, jupyter-book {jupyter_book.__version__}, myst-nb {myst_nb.__version__}, myst-parser {myst_parser.__version__}, pandas {pandas.__version__}, numpy {numpy.__version__}, matplotlib {matplotlib.__version__}: $(NIX_BOOK_TREE)/book/_build/html/index.html")'

# The same book with the pip path's .venv in a second copy, then every glued value (each
# number and verdict the prose shows) of the two compared (nix/compare_glue.py). Not part of
# `make test` (2 more minutes); run after changing the notebooks or the pins. The second copy
# is made from the first one's sources (not the tree again, which may have moved meanwhile).
PIP_BOOK_TREE := build/pip-book
compare-nix-book: test-nix-book setup
	rm -rf $(PIP_BOOK_TREE) && mkdir -p $(PIP_BOOK_TREE)
	tar -C $(NIX_BOOK_TREE) --exclude=./book/_build --exclude=./book/_generated --exclude=./build \
	  -cf - . | tar -xf - -C $(PIP_BOOK_TREE)
	cd $(PIP_BOOK_TREE) && PYTHONPATH=$(CURDIR)/$(PIP_BOOK_TREE) $(MAKE) --no-print-directory book \
	  COPYBENCH_NIX=1 RUN="$(call submake-arg,REFERENCE_RUN_PATH)" PY=$(CURDIR)/.venv/bin/python JB=$(CURDIR)/.venv/bin/jupyter-book
	$(PY) nix/compare_glue.py $(PIP_BOOK_TREE)/book/_generated $(NIX_BOOK_TREE)/book/_generated

test-c-hardened:
	$(MAKE) -C src test-hardened

test-nix-offline: setup
	$(PYTEST) tests/packaging/test_nix_offline.py

# The hardened build's C suite (the same 189 tests a third time, about 50 s) runs in
# `make test-slow`, which .ci/run calls after `make test`: `make test` already runs them on the
# plain and the sanitized build, and stays under 15 min on 2 CPUs with a fresh .venv.
test-slow: test-c-hardened
# The book with the pin's versions builds a second venv and a whole book (5-9 min here): it
# runs in `make test-slow` (which .ci/run calls after `make test`), keeping `make test` under
# 15 min. In `nix develop` the environment already has the pin's versions: no second venv.
ifeq ($(COPYBENCH_NIX),1)
test-slow: test-nix-book-skipped
test-nix-book-skipped:
	@echo "test-nix-book: skipped under Nix (COPYBENCH_NIX=1): make book uses the pin's own packages here"
else
test-slow: test-nix-book
endif

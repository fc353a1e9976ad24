# Book: papermill notebooks (parameter run_dir) -> book/_generated/*.ipynb -> Jupyter Book
# 1.x (execute_notebooks: off) -> book/_build/html (and `make pdf`). Everything is a file
# target, so a rebuild with unchanged raw data, notebooks and book sources does nothing.
#
#   make book [RUN=data/raw/<run-id>]   default: the committed reference run under data/raw/;
#                                       a run being written, or one that does not verify, is
#                                       refused unless UNVERIFIED=1 (the build says so)
#   make pdf  [RUN=...]                 the same book as a PDF (pdflatex)
#   make reproduce                      setup, build, quick sweep into a new run, book
#   make claims [ORIGINALS_ARCHIVES=DIR] the claims profile, its book, and its compare
#                                       against the reference run (a reviewer's check)
#   make compare RUN=<run> [REF=<ref>] [THRESHOLD=<t>] [UNVERIFIED=1] (default t: the claims' band)
#                                       RUN against the reference run, cell by cell and
#                                       claim by claim: build/compare/<run>-vs-<ref>/
#   make test-py                        every test without a marker of another target
#   make test-book                      notebooks + book on a smoke run, and its checks
#   make test-slow                      the book from the committed reference run, checked as a
#                                       reader sees it: test-figures, test-browser, test-pdf;
#                                       test-reference: the tests that read the whole run

.PHONY: book pdf reproduce compare notebooks notebooks-sync \
        book-check-run book-study _book-force

BOOK_NOTEBOOKS := testbed findings message latency cpu_cost zerocopy files fidelity copies claims replication noise
BOOK_GEN       := book/_generated
BOOK_HTML      := book/_build/html
BOOK_STAMP     := book/_build/.stamp-html
BOOK_PDF       := book/_build/latex/copybench.pdf
BOOK_SOURCES   := $(wildcard book/*.md book/_static/*) book/_config.yml book/_toc.yml \
                  book/references.bib
ANALYSIS_PY    := $(wildcard analysis/*.py analysis/*/*.py rundir/*.py decision/*.py)
JB             := .venv/bin/jupyter-book

# The committed reference run: the newest data/raw/<time>-paper[-<hex>]/ (a run of the paper profile)
# whose SHA256SUMS is tracked by git (committed runs are packed: trials.jsonl.gz, see
# `make pack`); pilots and claims runs committed beside it are never the reference.
# git ls-files -z and sort -z: a name is one name whatever it holds (make's word functions
# would split one with a space, and git quotes one with a quote or a backslash).
REFERENCE_RUN := $(shell git ls-files -z -- \
                   'data/raw/*-paper/SHA256SUMS' 'data/raw/*-paper-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]/SHA256SUMS' \
                   2>/dev/null | LC_ALL=C sort -z | tail -z -n 1 | sed -z 's,/SHA256SUMS$$,,' | tr -d '\0')
RUN ?= $(REFERENCE_RUN)
REF ?= $(REFERENCE_RUN)

# A run's path is data, never recipe text: make pastes $(RUN) into a recipe before the shell
# reads it, so a directory named `z$(touch x)-paper` would run touch (and a quote in it end
# the quoting), and make's word functions ($(wildcard), $(abspath)) split a path at its
# spaces. So recipes read these from their environment ("$$RUN"), paths are worked out by the
# shell (realpath), and a sub-make is handed one on its command line with each '$' doubled
# ($(call submake-arg,VAR)), since make expands '$' there.
# They go out under names of their own (RUN_PATH, ...), made here from RUN and the rest, so
# a make started by a recipe's process (a test calling `make seal`) never takes an inherited
# value for a RUN given by its user: its RUN is its own command line's or the default.
RUN_PATH := $(RUN)
REF_PATH := $(REF)
REFERENCE_RUN_PATH := $(REFERENCE_RUN)
THRESHOLD_ARG := $(THRESHOLD)
export RUN_PATH REF_PATH REFERENCE_RUN_PATH THRESHOLD_ARG
submake-arg = $${$(1)//\$$/\$$\$$}
# the run's absolute path, as make's $(abspath) gives it (no link resolved)
RUN_ABS_SH := realpath -ms -- "$$RUN_PATH"

# RUN_CHECKED (environment): the run a parent make (book, pdf) checked already; its sub-make
# skips the check
book-check-run:
	@if [ -n "$$RUN_PATH" ] && [ "$${RUN_CHECKED-}" = "$$RUN_PATH" ]; then exit 0; fi; \
	if [ -z "$$RUN_PATH" ] && [ "$(origin RUN)" != file ]; then \
	  echo "make book: RUN is empty; give a run directory (RUN=data/raw/<run-id>), or leave RUN out for the committed reference run ($${REFERENCE_RUN_PATH:-none})" >&2; exit 2; fi; \
	if [ -z "$$RUN_PATH" ]; then \
	  echo "make book: no committed reference run under data/raw/; pass one: make book RUN=data/raw/<run-id> (or RUN=build/smoke-run after make smoke-run)" >&2; exit 2; fi; \
	if [ ! -f "$$RUN_PATH/trials.jsonl" ] && [ ! -f "$$RUN_PATH/trials.jsonl.gz" ]; then \
	  echo "make book: RUN=$$RUN_PATH has no trials.jsonl or trials.jsonl.gz (expected a run directory data/raw/<run-id>/)" >&2; exit 2; fi; \
	$(PY) -m rundir check "$$RUN_PATH" $(if $(UNVERIFIED),--unverified) 2>&1 | sed 's/^rundir: /make book: /' >&2; exit $${PIPESTATUS[0]}

BOOK_GEN_UNWRITABLE = { echo "make book: cannot write $(BOOK_GEN)/ (full, read-only or missing file system?); the run is untouched" >&2; rm -f $@; exit 1; }

# Which run the generated notebooks came from: rewritten only when RUN changes.
$(BOOK_GEN)/.run: _book-force
	@run_abs=$$($(RUN_ABS_SH) 2>/dev/null) || run_abs=$$RUN_PATH; \
	mkdir -p $(BOOK_GEN) 2>/dev/null && { printf '%s\n' "$$run_abs" | cmp -s - $@ || printf '%s\n' "$$run_abs" 2>/dev/null > $@; } \
	  || $(BOOK_GEN_UNWRITABLE)

# What the notebooks read of the run (records, manifest, plan, perf/*.json), each file's size,
# time and path: rewritten only when one of them changes, which rebuilds the notebooks. (Not
# the files themselves as prerequisites: make's file lists split a path at its spaces.) After
# .run, so that a file system that cannot take them says so once.
$(BOOK_GEN)/.run-files: _book-force | $(BOOK_GEN)/.run
	@shopt -s nullglob; list=$$(for f in "$$RUN_PATH"/trials.jsonl "$$RUN_PATH"/trials.jsonl.gz "$$RUN_PATH"/manifest.json \
	    "$$RUN_PATH"/plan.json "$$RUN_PATH"/perf/*.json; do [ ! -e "$$f" ] || stat -L -c '%s %.9Y %n' -- "$$f"; done); \
	mkdir -p $(BOOK_GEN) 2>/dev/null && { printf '%s\n' "$$list" | cmp -s - $@ || printf '%s\n' "$$list" 2>/dev/null > $@; } \
	  || $(BOOK_GEN_UNWRITABLE)

# The cause of a notebook's failure in its log: after papermill's PapermillExecutionError, the
# notebook's own exception as the cell raised it (`Name: message`, e.g. the loader's
# `BadRun: <file>:<line>: ...`); otherwise the last error line (finalize.py's `finalize: ...`
# refusal, an exception's `Name: message`, mv's).
BOOK_WHY := /^papermill\.exceptions\.PapermillExecutionError:/ { cell = 1; why = $$0; next } \
  cell && /^[A-Za-z_][A-Za-z0-9_.]*: / { why = $$0; next } \
  !cell && /^([A-Za-z_][A-Za-z0-9_.]*(Error|Exception)|OSError|mv:|finalize:)[: ]/ { why = $$0 } \
  END { print why }

# papermill writes to a temporary file first: a failed notebook leaves no up-to-date target.
# Each figure's data (CSV) and check result go to $(BOOK_GEN)/figdata/<notebook>-NN.* (see
# analysis/figures/plots.py); the notebook links the CSV, so the HTML book carries it. The
# files other pages include whole (the abstract, lists in Markdown, the front page's figure)
# a notebook glues (analysis.words.output.include); finalize.py --includes writes them here,
# and --facts every text it glued for the prose into $(BOOK_GEN)/facts/<notebook>.json (the
# build's facts: two builds compare file by file).
# Its log goes to a temporary file; a failure is one line (the notebook, the run, the error
# the notebook raised, e.g. a corrupt record's file and line) and the log is kept in build/.
# The run's Study and those of the runs beside it (analysis.study: each loaded, its claims
# evaluated and its comparisons read once, kept under $(BOOK_GEN)/study/), made once before
# the notebooks, which all read their runs from it
book-study: setup book-check-run
	@$(PY) -m analysis.study build --siblings "$$RUN_PATH" >/dev/null

$(BOOK_GEN)/%.ipynb: notebooks/%.ipynb notebooks/finalize.py $(BOOK_GEN)/.run $(BOOK_GEN)/.run-files $(ANALYSIS_PY) | setup book-check-run book-study
	@echo "papermill $< (run_dir=$$RUN_PATH)"
	@log=$$(mktemp); run_abs=$$($(RUN_ABS_SH)); \
	COPYBENCH_NOTEBOOK=$* COPYBENCH_FIGDATA="$(CURDIR)/$(BOOK_GEN)/figdata" \
	$(PY) -m papermill "$<" "$(BOOK_GEN)/$*.tmp.ipynb" -p run_dir "$$run_abs" \
	  --cwd "$(CURDIR)" -k python3 --no-progress-bar --log-level WARNING >"$$log" 2>&1 \
	  && mkdir -p "$(BOOK_GEN)/facts" 2>>"$$log" \
	  && $(PY) notebooks/finalize.py "$(BOOK_GEN)/$*.tmp.ipynb" --includes "$(BOOK_GEN)" \
	       --facts "$(BOOK_GEN)/facts/$*.json" 2>>"$$log" \
	  && mv "$(BOOK_GEN)/$*.tmp.ipynb" "$@" 2>>"$$log" \
	  && rm -f "$$log" \
	  || { rm -f "$(BOOK_GEN)/$*.tmp.ipynb" "$(BOOK_GEN)/facts/$*.json"; \
	       why=$$(sed 's/\x1b\[[0-9;]*m//g' "$$log" | LC_ALL=C awk '$(BOOK_WHY)'); \
	       keep=build/book-logs/$*.log; mkdir -p build/book-logs 2>/dev/null && cp "$$log" "$$keep" 2>/dev/null || keep="$$log"; \
	       echo "make book: notebook $* failed on $$RUN_PATH: $${why:-see the log} (log: $$keep)" >&2; exit 1; }

# the fidelity chapter reads the harness-fidelity bench's committed measurements
$(BOOK_GEN)/fidelity.ipynb: $(wildcard bench/results/fidelity-*.json)
# the CPU-cost chapter reads the newest committed sender profile (analysis.comparison.senders)
$(BOOK_GEN)/cpu_cost.ipynb: $(wildcard bench/results/sender-profile-*.json)
# the noise chapter reads the noise study's committed run (beside the run, else data/raw/),
# the shared-time design's validation run and the criteria it is judged by
$(BOOK_GEN)/noise.ipynb: $(wildcard data/raw/*-noise-study*/trials.jsonl.gz) \
  $(wildcard data/raw/*-shared-time*/trials.jsonl.gz) runner/profiles/shared-time-criteria.toml \
  data/raw/run-notes.toml

notebooks: book-check-run $(BOOK_NOTEBOOKS:%=$(BOOK_GEN)/%.ipynb)

# -W: every warning (a missing glue key, a broken reference, a bad citation) fails the build.
# --all: a page that pastes another page's glue ({glue:text}`other.ipynb::key`) is not
# rebuilt by Sphinx when only that notebook changed (another run, new code), so it would show
# the old values; every page is rebuilt whenever a notebook or a source changed.
# jupyter-book colours Sphinx's output even into a pipe or a log: NOCOLOR strips the codes
NOCOLOR := sed -u 's/\x1b\[[0-9;]*m//g'
$(BOOK_STAMP): $(BOOK_NOTEBOOKS:%=$(BOOK_GEN)/%.ipynb) $(BOOK_SOURCES)
	set -o pipefail; $(JB) build book --builder html -W -n --keep-going --all 2>&1 | $(NOCOLOR)
	@touch $@

# notebooks run two at a time (they are independent; the machine has 2 CPUs)
# the sub-make's own "*** Error" lines are dropped: each failure has said what failed
book: setup book-check-run
	@set -o pipefail; { RUN_CHECKED=$$RUN_PATH $(MAKE) -j2 --no-print-directory $(BOOK_STAMP) SETUP_DONE=1 2>&1 1>&3 3>&- \
	  | { grep -v '^make.*\*\*\*' || true; } >&2; } 3>&1
	@echo "book (run $$RUN_PATH): $(CURDIR)/$(BOOK_HTML)/index.html"

$(BOOK_PDF): $(BOOK_NOTEBOOKS:%=$(BOOK_GEN)/%.ipynb) $(BOOK_SOURCES)
	@command -v pdflatex >/dev/null && command -v latexmk >/dev/null || { \
	  echo "make pdf: pdflatex/latexmk missing; install texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended latexmk (scripts/setup does as root)" >&2; exit 1; }
	@# latexmk -silent: the first pdflatex pass warns of every forward reference (about 60),
	@# which the later passes resolve; what is left unresolved is in the final pass's log
	set -o pipefail; LATEXMKOPTS=-silent $(JB) build book --builder pdflatex -W -n --keep-going --all 2>&1 | $(NOCOLOR)
	@test -s $@
	@log=$(BOOK_PDF:.pdf=.log); if grep -q "There were undefined references" $$log; then \
	  echo "make pdf: warning: undefined references in the final LaTeX pass: $$(grep -c 'undefined on input' $$log) (see $$log)" >&2; fi

pdf: setup book-check-run
	@RUN_CHECKED=$$RUN_PATH $(MAKE) -j2 --no-print-directory $(BOOK_PDF) SETUP_DONE=1
	@echo "pdf (run $$RUN_PATH): $(CURDIR)/$(BOOK_PDF)"

# setup, build, a quick sweep into a new run directory (executed as the sweep notebook, kept
# in the run as sweep.ipynb), then notebooks and book. RUN=DIR (on the command line or in the
# environment, as `nix run .#reproduce -- RUN=DIR` passes it) names the new run's directory.
reproduce: setup build
	@if [ -n "$(filter command line environment,$(origin RUN))" ]; then run=$$RUN_PATH; \
	else run=data/raw/$$(date -u +%Y%m%dT%H%M%SZ)-quick; fi; \
	$(PY) -m runner notebook --profile quick --run-dir "$$run" && \
	$(MAKE) --no-print-directory book RUN="$(call submake-arg,run)" && \
	echo "reproduce: run $$run; book at $(CURDIR)/$(BOOK_HTML)/index.html (its PDF: make pdf RUN=$$run)"

# The reviewer's check of the verdicts: the claims profile (every claim testable here, the
# reports' own programs in their blocks; about 1 h 13 min of plan on 2 CPUs), its book, and its compare
# against the committed reference run under the appendix's "Results Reproduced" rule. The
# reports' programs come from GitHub, or from ORIGINALS_ARCHIVES=DIR (their archives).
# Their archives are fetched (or unpacked) and checked first: without them (no GitHub, no
# ORIGINALS_ARCHIVES) the sweep would run for an hour and record every trial of theirs as
# failed; it stops at once instead, in one line that says how to provide them.
# CLAIMS_RUN=DIR: the new run's directory (default data/raw/<time>-claims)
CLAIMS_RUN ?=
CLAIMS_RUN_PATH := $(CLAIMS_RUN)
export CLAIMS_RUN_PATH
.PHONY: claims
claims: ARCHIVES_FOR := claims
claims: originals-archives setup build
	@arch=(); [ -z "$$ORIGINALS_ARCHIVES" ] || arch=(--archives "$$(realpath -ms -- "$$ORIGINALS_ARCHIVES")"); \
	err=$$($(PY) -m runner originals fetch "$${arch[@]}" 2>&1 >/dev/null) \
	  || { echo "make claims: the reports' own programs cannot be had ($$(printf '%s\n' "$$err" | tail -n 1 | sed -e 's/^python -m runner originals: //' -e 's/; without GitHub.*//')); give their archives: make claims ORIGINALS_ARCHIVES=DIR (a directory of <owner>+<repo>-<commit>.tar.gz, as ../shared/seed-repos), or run it where github.com can be reached; nothing was run" >&2; exit 2; }
	@run=$${CLAIMS_RUN_PATH:-data/raw/$$(date -u +%Y%m%dT%H%M%SZ)-claims}; \
	[ -z "$$ORIGINALS_ARCHIVES" ] || export COPYBENCH_ORIGINALS_ARCHIVES=$$(realpath -ms -- "$$ORIGINALS_ARCHIVES"); \
	$(PY) -m runner notebook --profile claims --run-dir "$$run" && \
	$(MAKE) --no-print-directory book RUN="$(call submake-arg,run)" && \
	$(MAKE) --no-print-directory compare RUN="$(call submake-arg,run)" && \
	echo "claims: run $$run; book at $(CURDIR)/$(BOOK_HTML)/index.html; compare at $(CURDIR)/build/compare/$$(basename -- "$$run")-vs-$$(basename -- "$$REF_PATH")/compare.html"

THRESHOLD ?=
compare: setup
	@if [ "$(origin RUN)" = "file" ]; then \
	  echo "make compare: RUN is required: make compare RUN=data/raw/<run-id> [REF=data/raw/<reference-id>] [THRESHOLD=<t>]" >&2; exit 2; fi
	@if [ -z "$$REF_PATH" ]; then \
	  echo "make compare: no committed reference run under data/raw/; pass REF=data/raw/<run-id>" >&2; exit 2; fi
	@$(PY) -m analysis.compare_report "$$RUN_PATH" "$$REF_PATH" $${THRESHOLD_ARG:+--threshold "$$THRESHOLD_ARG"} $(if $(UNVERIFIED),--unverified)

# The notebooks' sources are notebooks/*.py (percent format); the .ipynb beside each is
# generated by jupytext and stored without outputs (test-layout checks they match).
NOTEBOOK_SOURCES := $(shell grep -l '^# jupyter:' notebooks/*.py 2>/dev/null)
notebooks-sync: setup
	cd notebooks && ../$(PY) -m jupytext --to ipynb --update $(notdir $(NOTEBOOK_SOURCES))

# Tests are selected by pytest markers, never by file lists (tests/conftest.py): `make test`
# runs every test without one of the markers below, so a new test file runs by default.
PYTEST = $(PY) -m pytest -q -rs
PYTEST_ELSEWHERE := slow or reference or sshd or book or compare_report or shared

.PHONY: test-py test-layout test-reference test-book
test-py: setup build
	$(PYTEST) -m "not ($(PYTEST_ELSEWHERE))" tests

# the pipeline's import boundaries and the notebooks against their sources
test-layout: setup
	$(PYTEST) tests/test_layout.py

# the tests that read the whole committed reference run (its claims, its why-they-differ
# table, its seal): make test-slow
test-reference: setup
	$(PYTEST) -m "reference and not book" tests

# Every notebook through papermill on the smoke run, the book built with -W, then the HTML
# checked for every chapter, every figure and a verdict row for each claim C1-C15 (marker
# book), and the compare report of the smoke run against the reference (compare_report).
test-book: setup smoke-run
	$(MAKE) --no-print-directory book RUN=build/smoke-run
	COPYBENCH_BOOK_RUN=build/smoke-run $(PYTEST) -m "book and not (reference or browser or pdf)" tests
	$(MAKE) --no-print-directory compare RUN=build/smoke-run
	COPYBENCH_COMPARE_REPORT="build/compare/smoke-run-vs-$$(basename -- "$$REF_PATH")" \
	  $(PYTEST) -m compare_report tests

test: test-py test-book

# --- the book from the committed reference run (make test-slow; .ci/run runs it after make test)
.PHONY: book-reference test-figures test-browser test-pdf test-slow
book-reference: setup
	@if [ -z "$$REFERENCE_RUN_PATH" ]; then echo "no committed reference run under data/raw/" >&2; exit 2; fi
	$(MAKE) --no-print-directory book RUN="$(call submake-arg,REFERENCE_RUN_PATH)"

# every figure against the data it claims to show (book/_generated/figdata/*.check.json),
# every figure's data CSV beside it, and the HTML checks of test-book, on the reference run
test-figures: book-reference
	COPYBENCH_BOOK_RUN="$$REFERENCE_RUN_PATH" $(PYTEST) -m "book and not (browser or pdf)" tests

# headless Chromium (Debian's chromium + chromium-driver, via selenium) opens every page:
# images load, internal links resolve, no glue key, Python error or raw LaTeX shows;
# screenshots in book/_build/screenshots/
test-browser: book-reference
	COPYBENCH_BOOK_RUN="$$REFERENCE_RUN_PATH" $(PYTEST) -m "book and browser" tests

# the PDF of the reference run's book: title page and abstract before the contents, the
# verdict table whole (tests/book/test_pdf.py, with pdftotext)
test-pdf: book-reference
	$(MAKE) --no-print-directory pdf RUN="$(call submake-arg,REFERENCE_RUN_PATH)"
	COPYBENCH_BOOK_RUN="$$REFERENCE_RUN_PATH" $(PYTEST) -m "book and pdf" tests

test-slow: test-figures test-browser test-pdf test-reference
	@echo "make test-slow: the reference run's book passed the figure, browser and PDF checks"


# The two commands of the quick start, and the author's loop.
#   make book              build the whole book strictly (warnings are errors), re-running only the
#                          pages whose execution key changed
#   make test              unit tests + doctests + every page under nbval, then the fault catalogue
#                          (python -m specbook.faults: each fault over its pages in record mode, runs
#                          kept while current), then the strict build (the ledger gets the kill matrix),
#                          then the kill gate (every claim broken by a fault: KILL_GATE), then the built
#                          book in a real browser (Debian's Chromium; where missing, apt installs it in the
#                          background while the other stages run)
#   make page PAGE=book/x.md   run one page (if its key changed; FORCE=1 always) and name the claim that failed
# One of them runs at a time in a tree: a second one waits for the first and says so
# (python -m specbook.buildlock; SPECBOOK_LOCK_TIMEOUT sets the longest wait, default an hour).

SELF    := $(abspath $(firstword $(MAKEFILE_LIST)))
PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
BUILD   := _build
JB      := $(BIN)/jupyter-book build -W -n --keep-going .
# --durations: the stage ends with its 15 slowest tests and page cells, so a test that grew slow shows in CI's log
PYTEST_OPTS ?= -n 2 --dist loadfile --durations=15
CHROMIUM := /usr/bin/chromium
# JAX's persistent compilation cache for the build's kernels (they inherit the recipe's environment;
# the root conftest.py sets the same for pytest). Under $(BUILD) so `make clean` drops it, outside
# the directories `make book` deletes so a clean build keeps it. A variable already set wins.
JAX_CACHE_ENV := JAX_COMPILATION_CACHE_DIR="$${JAX_COMPILATION_CACHE_DIR-$(CURDIR)/$(BUILD)/jax_cache}" \
  JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="$${JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS-0}" \
  JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="$${JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES--1}"
# NumPy's and SciPy's OpenBLAS on one thread in every recipe (a value set by the caller wins). Its
# threads spin between calls, and make test already runs two processes per two cores: one thread cut
# the CPU of eight pages run two at a time by about 6%. One thread also sums alike on any machine.
OPENBLAS_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS
# The fault catalogue writes to JAX's cache only the programs that took half a second or more to
# compile: a fault's step programs, which its other pages read, and not the hundreds of small
# programs of a patched run that no later run asks for (writing them cost about 5% of a run's time).
# SPECBOOK_FAULT_CACHE_MIN_COMPILE_SECS sets the threshold (0: every program, as the other stages).
FAULT_CACHE_ENV := $(JAX_CACHE_ENV) \
  JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="$${SPECBOOK_FAULT_CACHE_MIN_COMPILE_SECS-0.5}"
SUDO    := $(shell test "$$(id -u)" = 0 || echo sudo)
# The kill gate after the build (python -m specbook.faults --gate): `strict` fails on a claim that no
# fault breaks or a mislabelled source, naming each; `report` (KILL_GATE=report) only prints them, for
# an author who wants the rest of make test while a new claim waits for its fault.
KILL_GATE ?= strict
LOCKED  = $(BIN)/python -m specbook.buildlock --for "make $@" --

.PHONY: book book-now test test-now page setup clean chromium

# Create the venv if missing and install the project, editable, with its extras, through uv
# (pip installs uv, which resolves like pip and installs the same versions from PyPI, downloading
# in parallel: about 17 s here against pip's 33). Bytecode is compiled at install, as pip does:
# where PYTHONDONTWRITEBYTECODE is set no process writes it later, and every kernel would compile
# JAX and SciPy from source again. The stamp is renewed whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[book,test]"
	@touch $(STAMP)

setup: $(STAMP)

# Every page is reported first: cached, or to re-run and why (specbook.execute --plan). Then
# Sphinx reads every page afresh (a fresh environment: no warning is hidden) while the pages
# whose execution key changed run beside it (one kernel per core, into _build/.jupyter_cache):
# it reads the others first and each stale page once its run ended. The build writes the claim
# ledger (claims.json); the key is written and the ledger's differences from the previous
# build's are printed (specbook.buildkey write --diff). When every page is cached and nothing
# the build reads changed since the last strict build succeeded (--build-key: the same process
# as the plan asks specbook.buildkey), that build's site is current and Sphinx is not run again. What a build
# writes for the next to read is replaced in one step, so a build killed at any point leaves
# nothing half written: the next one redoes what was cut short (the key is dropped before the
# site is). A damaged notebook cache is moved aside and its pages run again.
book: $(STAMP)
	@$(LOCKED) $(MAKE) -f $(SELF) --no-print-directory book-now

book-now:
	@test ! -f $(BUILD)/html/claims.json || { cp $(BUILD)/html/claims.json $(BUILD)/.claims-previous.json.tmp && \
	  mv -f $(BUILD)/.claims-previous.json.tmp $(BUILD)/claims-previous.json; }
	@$(BIN)/python -m specbook.execute --plan --build-key; plan=$$?; test $$plan = 0 || { \
	  test $$plan = 3 -o $$plan = 4 || exit $$plan; \
	  echo "rm -rf $(BUILD)/html $(BUILD)/jupyter_execute $(BUILD)/.doctrees"; \
	  rm -f $(BUILD)/specbook-build-key && rm -rf $(BUILD)/html $(BUILD)/jupyter_execute $(BUILD)/.doctrees && \
	  $(JAX_CACHE_ENV) $(JB) && $(BIN)/python -m specbook.buildkey write --diff $(BUILD)/claims-previous.json; }
	@echo "The book: $(CURDIR)/$(BUILD)/html/index.html"

# The browser tests drive Debian's Chromium through Playwright (pip, in the test extra);
# never `playwright install`, which downloads a browser of its own.
CHROMIUM_INSTALL ?= $(SUDO) apt-get update -qq && \
  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium >/dev/null
chromium:
	@test -x $(CHROMIUM) || { echo "Installing Chromium (apt)..."; $(CHROMIUM_INSTALL); }
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) is still missing"; exit 1; }

test: $(STAMP)
	@$(LOCKED) $(MAKE) -f $(SELF) --no-print-directory test-now

# Each stage of make test says when it starts, how long it took (wall seconds) and the CPU seconds its
# processes spent (user and system: the shell's `times` for its children, written to a file, as `times` in a
# pipe or a command substitution would run in a subshell that has no children):
# CPU near twice the wall time says the stage kept both cores busy, and only less work would shorten it.
# A process that its parent never waits for is not counted: Chromium's, so the browser stage prints about
# 40% of what it spends (73 s printed, 193 s read from /proc/stat once a second through the stage).
STAGE = @start=$$(date +%s); echo "make test: $(1), from $$(date +%T)"; $(2); status=$$?; \
  times > $(BUILD)/.stage-times; cpu=$$(awk 'NR == 2 { split($$1, u, /[ms]/); split($$2, s, /[ms]/); \
  printf "%.0f", 60 * (u[1] + s[1]) + u[2] + s[2] }' $(BUILD)/.stage-times); \
  echo "make test: $(1) took $$(( $$(date +%s) - start )) s, $$cpu s of CPU"; exit $$status

# Chromium is needed only by the last stage: where it is missing, apt installs it in the
# background while the other stages run (its log and exit status under $(BUILD)), and the
# browser stage waits for it (at most CHROMIUM_WAIT seconds).
CHROMIUM_LOG    := $(BUILD)/chromium-install.log
CHROMIUM_STATUS := $(BUILD)/chromium-install.status
CHROMIUM_WAIT   ?= 900

test-now:
	@mkdir -p $(BUILD) && rm -f $(CHROMIUM_STATUS) && \
	if test -x $(CHROMIUM); then echo 0 > $(CHROMIUM_STATUS); else \
	  echo "make test: $(CHROMIUM) is missing; installing it in the background (log: $(CHROMIUM_LOG))"; \
	  { $(MAKE) -f $(SELF) --no-print-directory chromium > $(CHROMIUM_LOG) 2>&1 < /dev/null; \
	    echo $$? > $(CHROMIUM_STATUS).tmp && mv -f $(CHROMIUM_STATUS).tmp $(CHROMIUM_STATUS); } \
	    > /dev/null 2>&1 < /dev/null & fi
	$(call STAGE,import layering,$(BIN)/lint-imports --no-cache)
	$(call STAGE,unit tests and pages,$(BIN)/python -m pytest $(PYTEST_OPTS))
	$(call STAGE,fault catalogue,$(FAULT_CACHE_ENV) $(BIN)/python -m specbook.faults --jobs 2)
	$(call STAGE,strict build,$(MAKE) -f $(SELF) --no-print-directory book)
	$(call STAGE,kill gate,$(BIN)/python -m specbook.faults --gate $(KILL_GATE))
	@waited=0; while ! test -f $(CHROMIUM_STATUS); do \
	  test $$waited = 0 && echo "make test: waiting for the Chromium install (log: $(CHROMIUM_LOG))"; \
	  test $$waited -ge $(CHROMIUM_WAIT) && { echo "make test: Chromium not installed after $(CHROMIUM_WAIT) s"; \
	    tail -20 $(CHROMIUM_LOG); exit 1; }; sleep 1; waited=$$((waited + 1)); done; \
	test "$$(cat $(CHROMIUM_STATUS))" = 0 || { echo "make test: installing Chromium failed:"; \
	  tail -40 $(CHROMIUM_LOG); exit 1; }
	$(call STAGE,browser,$(BIN)/python -m pytest -q -p no:cacheprovider tests/browser --browser)

# One page, in this process: re-run when its key changed (FORCE=1: always), stop at the first
# failing cell and name the claim; a page that passes is cached for the next make book.
page: $(STAMP)
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=book/<page>.md [FORCE=1]"; exit 2; }
	@$(JAX_CACHE_ENV) $(LOCKED) $(BIN)/python -m specbook.execute --workers 1 $(if $(FORCE),--force) "$(PAGE)"

clean:
	rm -rf $(BUILD) .pytest_cache

# The two commands of the quick start, and the author's loop.
#   make book              build the whole book from clean, strictly (warnings are errors)
#   make test              unit tests + doctests + every page under nbval, then the fault catalogue
#                          (python -m specbook.faults), then the strict build, then the built book in
#                          a real browser (Debian's Chromium, installed if missing)
#   make page PAGE=book/x.md   run one page under nbval and name the claim that failed

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
BUILD   := _build
JB      := $(BIN)/jupyter-book build -W -n --keep-going .
PYTEST_OPTS ?= -n 2 --dist loadfile
CHROMIUM := /usr/bin/chromium
# JAX's persistent compilation cache for the build's kernels (they inherit the recipe's environment;
# the root conftest.py sets the same for pytest). Under $(BUILD) so `make clean` drops it, outside
# the directories `make book` deletes so a clean build keeps it. A variable already set wins.
JAX_CACHE_ENV := JAX_COMPILATION_CACHE_DIR="$${JAX_COMPILATION_CACHE_DIR-$(CURDIR)/$(BUILD)/jax_cache}" \
  JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="$${JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS-0}" \
  JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="$${JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES--1}"
SUDO    := $(shell test "$$(id -u)" = 0 || echo sudo)

.PHONY: book test page setup clean chromium

# Create the venv if missing and install the project, editable, with its extras.
# The stamp is renewed whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[book,test]"
	@touch $(STAMP)

setup: $(STAMP)

# Pages run in parallel first (one kernel per core, into _build/.jupyter_cache, stamped with
# the sources they ran); the strict build then reads their outputs from that cache.
book: $(STAMP)
	rm -rf $(BUILD)/html $(BUILD)/jupyter_execute $(BUILD)/.doctrees $(BUILD)/.jupyter_cache
	$(JAX_CACHE_ENV) $(BIN)/python -m specbook.execute
	$(JAX_CACHE_ENV) $(JB)
	@echo "The book: $(CURDIR)/$(BUILD)/html/index.html"

# The browser tests drive Debian's Chromium through Playwright (pip, in the test extra);
# never `playwright install`, which downloads a browser of its own.
chromium:
	@test -x $(CHROMIUM) || { echo "Installing Chromium (apt)..."; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) is still missing"; exit 1; }

test: $(STAMP) chromium
	$(BIN)/python -m pytest $(PYTEST_OPTS)
	$(JAX_CACHE_ENV) $(BIN)/python -m specbook.faults --jobs 2
	$(MAKE) --no-print-directory book
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/browser --browser

page: $(STAMP)
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=book/<page>.md"; exit 2; }
	$(BIN)/python -m pytest -x -q --no-header "$(PAGE)"

clean:
	rm -rf $(BUILD) .pytest_cache

# The two commands of the quick start, and the author's loop.
#   make book              build the whole book from clean, strictly (warnings are errors)
#   make test              unit tests + doctests + every page under nbval, then the strict build
#   make page PAGE=book/x.md   run one page under nbval and name the claim that failed

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
BUILD   := _build
JB      := $(BIN)/jupyter-book build -W -n --keep-going .
PYTEST_OPTS ?=

.PHONY: book test page setup clean

# Create the venv if missing and install the project, editable, with its extras.
# The stamp is renewed whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[book,test]"
	@touch $(STAMP)

setup: $(STAMP)

book: $(STAMP)
	rm -rf $(BUILD)/html $(BUILD)/jupyter_execute $(BUILD)/.doctrees
	$(JB)
	@echo "The book: $(CURDIR)/$(BUILD)/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_OPTS)
	$(MAKE) --no-print-directory book

page: $(STAMP)
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=book/<page>.md"; exit 2; }
	$(BIN)/python -m pytest -x -q --no-header "$(PAGE)"

clean:
	rm -rf $(BUILD) .pytest_cache

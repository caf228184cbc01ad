# TwoBig: `make run` (install, warm the numba cache, start the UCI loop) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= auto

.PHONY: run install test test-slow bench perft clean

run: install
	@$(BIN)/twobig

# Create the venv, install TwoBig with its test extras, then compile every jitted kernel
# once so that engines started later (several at once under cutechess) only read the cache.
install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/twobig warm
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest -n $(JOBS) -q

test-slow: install
	$(BIN)/python -m pytest -n $(JOBS) -q -m slow

bench: install
	$(BIN)/python scripts/bench_perft.py

perft: install
	$(BIN)/python scripts/perft_suites.py

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

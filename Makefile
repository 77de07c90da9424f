# Two entry points, both used by README.md:
#   make run   - create .venv, install Siege Hall, start the bot
#   make test  - create/update .venv with dev extras, then ruff, the layer contracts
#                (import-linter), mypy and pytest
#   make test-busy RUNS=3 - the suite with every core busy beside it, RUNS times
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-busy install install-dev lint typecheck pytest e2e clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	$(BIN)/python bot.py

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install-dev
	$(BIN)/mypy

# One worker per core: the suite runs the storage and end-to-end tests on SQLite and PostgreSQL.
pytest: install-dev
	$(BIN)/python -m pytest -n auto

e2e: install-dev
	$(BIN)/python -m pytest -m e2e

test: lint typecheck pytest

# The suite with every core kept busy beside it (not part of `make test`; see tests/busy.py).
RUNS ?= 1
test-busy: install-dev
	$(BIN)/python -m tests.busy --runs $(RUNS)

clean:
	rm -rf $(VENV)

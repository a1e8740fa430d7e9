# hourglass — the two set-up commands are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint install install-test selfplay bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]' -e ./clients/python

run: install
	$(BIN)/hourglass serve

test: install-test
	$(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/mypy --strict domain
	$(BIN)/mypy core replays workers service

selfplay: install
	$(BIN)/hourglass selfplay --game orleans --edition classic --players 4 --games 5 --seed demo --bots random

bench: install-test
	$(BIN)/python bench/selfplay.py

clean:
	rm -rf $(VENV) var .pytest_cache

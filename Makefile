# hourglass — the two set-up commands are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint install install-test selfplay bench chaos clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# An editable install leaves our sources uncompiled, and with PYTHONDONTWRITEBYTECODE=1 every
# start (a gunicorn worker, `hourglass selfplay`) would compile them again: about 85 ms of CPU.
# Compile them once here, as pip does for an installed package (Python checks each .pyc against
# its source's mtime, so an edited file is compiled afresh, never run stale).
COMPILED := domain core service workers replays adapters

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .
	$(BIN)/python -m compileall -q $(COMPILED)

# tests/typescript: openapi-typescript, openapi-fetch and tsc for the generated TypeScript client's
# test (pinned in its package-lock.json), installed once; without npm (or offline) that test skips.
# clients/typescript: the TypeScript starter's packages (its package-lock.json), the same way.
install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,research]' -e ./clients/python
	$(BIN)/python -m compileall -q $(COMPILED)
	@if command -v npm >/dev/null && [ ! -d tests/typescript/node_modules ]; then \
		npm ci --silent --no-audit --no-fund --prefix tests/typescript || echo "tests/typescript: npm ci failed; its test skips"; fi
	@if command -v npm >/dev/null && [ ! -d clients/typescript/node_modules ]; then \
		npm ci --silent --no-audit --no-fund --prefix clients/typescript || echo "clients/typescript: npm ci failed; its tests skip"; fi

run: install
	$(BIN)/hourglass serve

test: install-test
	$(BIN)/python -m pytest -q

# service/ stays plain mypy: flask-smorest is untyped.
lint: install-test
	$(BIN)/ruff check .
	$(BIN)/mypy --strict domain core replays workers adapters
	$(BIN)/mypy service
	$(BIN)/mypy --strict clients/python/hourglass_client
	$(BIN)/mypy --explicit-package-bases bench

# The proof suites at full size (make test runs each in a quick, bounded form): >= 10,000 chaos
# operations with worker and Redis kills, schemathesis with more cases per operation, more
# generated game configurations, the hostile strangers of issue 22 at 4x. Loopback only; prints the counts.
chaos: install-test
	HOURGLASS_CHAOS_OPS=10000 HOURGLASS_ST_EXAMPLES=100 HOURGLASS_PROPERTY_EXAMPLES=300 HOURGLASS_HOSTILE_SCALE=4 \
		$(BIN)/python -m pytest -q -s -p no:cacheprovider tests/hardening/test_chaos.py \
		tests/service/test_schemathesis.py tests/hardening/test_config_property.py tests/hardening/test_hostile_clients.py

selfplay: install
	$(BIN)/hourglass selfplay --game orleans --edition classic --players 4 --games 5 --seed demo --bots random

bench: install-test
	$(BIN)/python bench/selfplay.py

clean:
	rm -rf $(VENV) var .pytest_cache

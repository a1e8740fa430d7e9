# hourglass — the two set-up commands are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint install install-test selfplay bench chaos clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

# tests/typescript: openapi-typescript, openapi-fetch and tsc for the generated TypeScript client's
# test (pinned in its package-lock.json), installed once; without npm (or offline) that test skips.
# clients/typescript: the TypeScript starter's packages (its package-lock.json), the same way.
install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,research]' -e ./clients/python
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

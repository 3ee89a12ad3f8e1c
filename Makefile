# Faultline: `make run` sets up and serves on 127.0.0.1:8000; `make test` sets up and runs every test.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# written after a successful install; a second `make run`/`make test` installs nothing (and needs no
# package index) until pyproject.toml or constraints.txt change
STAMP := $(VENV)/.faultline-installed
PYCHECK := import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)
DB ?= faultline.db
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast test-postgresql pg-pass setup load lint verify i18n-extract i18n-update i18n-compile bench bench-write constraints clean

$(BIN)/python:
	@$(PY) -c '$(PYCHECK)' 2>/dev/null || { echo "Faultline needs Python 3.10 or newer, but $(PY) is" \
		"$$($(PY) -V 2>&1 || echo missing). Run again with a newer one, e.g. make $(MAKECMDGOALS) PY=python3.11"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	@$(BIN)/python -c '$(PYCHECK)' || { echo "$(VENV) was made by $$($(BIN)/python -V 2>&1), older than 3.10." \
		"Remove it (rm -rf $(VENV)) and run again with a newer Python, e.g. make $(MAKECMDGOALS) PY=python3.11"; exit 1; }
	$(BIN)/pip install -q -c constraints.txt -e '.[test]'
	@touch $@

setup: $(STAMP)
	@$(MAKE) --no-print-directory i18n-compile

load: setup
	$(BIN)/faultline load --db $(DB)

run: load
	$(BIN)/faultline serve --db $(DB) --host $(HOST) --port $(PORT)

# every test on SQLite, then the tests that touch a database again on PostgreSQL (127.0.0.1:5432)
# (the files that never touch the database backend run once, in the SQLite pass)
PG_TESTS := tests --ignore=tests/e2e --ignore=tests/test_kb.py --ignore=tests/test_logparse.py \
	--ignore=tests/test_matching.py --ignore=tests/test_holdout.py \
	--ignore=tests/test_readme.py --ignore=tests/test_make.py --ignore=tests/test_packaging.py \
	--ignore=tests/test_bigpath.py --ignore=tests/test_holdout3.py --ignore=tests/test_exits.py \
	--ignore=tests/test_relations.py --ignore=tests/test_truncated_context.py --ignore=tests/test_new.py \
	--ignore=tests/test_cudacodes.py --ignore=tests/test_prose_reports.py --ignore=tests/test_quoted.py \
	--ignore=tests/test_reraise.py --ignore=tests/test_schemathesis.py

# PostgreSQL answering on 127.0.0.1:5432? (the second pass of `make test` needs it)
PG_PORT ?= 5432
PG_UP := $(BIN)/python -c 'import socket; socket.create_connection(("127.0.0.1", $(PG_PORT)), timeout=3).close()'

# every test on SQLite (about 16 minutes on 2 quiet cores), then the database tests again on PostgreSQL (about 10)
test: setup
	@echo "== make test, pass 1 of 2: every test on SQLite"
	$(BIN)/python -m pytest -q tests
	@$(MAKE) --no-print-directory test-postgresql

# the second pass alone; without a PostgreSQL it is skipped with a loud line, unless FAULTLINE_REQUIRE_PG=1
# (.ci/run sets it: CI fails instead of skipping)
test-postgresql: setup
	@$(MAKE) --no-print-directory pg-pass

pg-pass:
	@if $(PG_UP) 2>/dev/null; then \
		echo "== make test, pass 2 of 2: the database tests again on PostgreSQL (127.0.0.1:5432, database test, user postgres)"; \
		FAULTLINE_TEST_BACKEND=postgresql $(BIN)/python -m pytest -q $(PG_TESTS); \
	elif [ -n "$$FAULTLINE_REQUIRE_PG" ]; then \
		echo "make test: PostgreSQL does not answer on 127.0.0.1:$(PG_PORT), and FAULTLINE_REQUIRE_PG is set" >&2; exit 1; \
	else \
		echo "!! make test: SKIPPED pass 2 of 2 (PostgreSQL): nothing answers on 127.0.0.1:$(PG_PORT); start one to run it" >&2; \
	fi

# the edit loop: SQLite only, without the browser, HTTP-fuzzing, load and fresh-checkout tests (a few minutes)
FAST_SKIP := --ignore=tests/e2e --ignore=tests/test_schemathesis.py --ignore=tests/test_reliability.py \
	--ignore=tests/test_reliability_2.py --ignore=tests/test_make.py --ignore=tests/test_replicas.py
test-fast: setup
	$(BIN)/python -m pytest -q -x $(FAST_SKIP) tests

lint: setup
	$(BIN)/faultline lint

# downloads the released packages each signature names (pip download; a warm cache downloads nothing)
# and rewrites kb/verification/; NCCL texts need a git mirror of NVIDIA/nccl under FAULTLINE_MIRRORS
verify: setup
	$(BIN)/faultline verify --quiet

# Translations of the web pages (gettext catalogs under app/i18n/locales).
i18n-extract: $(STAMP)
	$(BIN)/pybabel extract -F app/i18n/babel.cfg -o app/i18n/messages.pot app

i18n-update: i18n-extract
	$(BIN)/pybabel update -i app/i18n/messages.pot -d app/i18n/locales

i18n-compile: $(STAMP)
	@if [ -d app/i18n/locales ]; then $(BIN)/pybabel -q compile -d app/i18n/locales; fi

# `make bench` prints its report and changes no tracked file; `make bench-write` rewrites
# docs/benchmarks.md and bench/results/latest.json. A peer checkout: DEADENDS_CHECKOUT=PATH.
bench: setup
	$(BIN)/python -m bench

bench-write: setup
	$(BIN)/python -m bench --write

# after changing dependencies in pyproject.toml (and installing them): pin what is installed
constraints: $(BIN)/python
	$(BIN)/python tools/constraints.py

clean:
	rm -rf $(VENV) $(DB) *.egg-info

# Faultline: `make run` sets up and serves on 127.0.0.1:8000; `make test` sets up and runs every test.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= faultline.db
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test setup load lint i18n-extract i18n-update i18n-compile bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	$(MAKE) i18n-compile

load: setup
	$(BIN)/faultline load --db $(DB)

run: load
	$(BIN)/faultline serve --db $(DB) --host $(HOST) --port $(PORT)

# every test on SQLite, then the tests that touch a database again on PostgreSQL (127.0.0.1:5432)
PG_TESTS := tests --ignore=tests/e2e --ignore=tests/test_kb.py --ignore=tests/test_logparse.py \
	--ignore=tests/test_matching.py --ignore=tests/test_holdout.py

test: setup
	$(BIN)/python -m pytest -q tests
	FAULTLINE_TEST_BACKEND=postgresql $(BIN)/python -m pytest -q $(PG_TESTS)

lint: setup
	$(BIN)/faultline lint

# Translations of the web pages (gettext catalogs under app/i18n/locales).
i18n-extract:
	$(BIN)/pybabel extract -F app/i18n/babel.cfg -o app/i18n/messages.pot app

i18n-update: i18n-extract
	$(BIN)/pybabel update -i app/i18n/messages.pot -d app/i18n/locales

i18n-compile:
	@if [ -d app/i18n/locales ]; then $(BIN)/pybabel -q compile -d app/i18n/locales; fi

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(DB) *.egg-info

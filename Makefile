# Two commands for a new user (see README):
#   make run   - set up and open the dashboard on the bundled snapshot (no network needed after setup)
#   make test  - set up and run the whole test suite (make test-fast: the fast tier, between edits)
# Knobs: PY=python3.12 (the Python that makes the venv; 3.11 or newer), PORT=8600 (the dashboard's port),
#        RAW=data/raw (the folder of raw files `make rebuild` reads; default ../shared/data).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
RAW ?= ../shared/data

.PHONY: run test test-fast test-no-shared setup dev-setup test-setup rebuild rebuild-curated bench lint screenshot

# Tests write their compiled modules (pytest's assertion rewrites, and every `python -m` a test starts) to
# __pycache__ (git-ignored) even where the environment asks Python not to: reading them back instead of
# recompiling takes collection from about 13 s to 4 s on the second run.
unexport PYTHONDONTWRITEBYTECODE

# The runtime packages (requirements.txt) for `make run`; the test and development tools on top of them
# (requirements-dev.txt) for `make test`, `make lint` and the screenshot.
# The Python version is checked before pip runs, so an old Python is told so plainly, not by a failing install.
$(BIN)/.installed: requirements.txt
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
		{ echo "error: Python 3.11 or newer is needed; '$(PY)' is $$($(PY) --version 2>&1 || echo missing). Run with PY=python3.11 (or newer)."; exit 1; }
	$(PY) -m venv $(VENV)
	@echo "installing the dashboard's packages into $(VENV) (a few minutes the first time; later runs skip this)"
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar on --upgrade pip
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar on -r requirements.txt
	touch $@

$(BIN)/.installed-dev: $(BIN)/.installed requirements-dev.txt
	@echo "installing the test and development tools into $(VENV)"
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar on -r requirements-dev.txt
	touch $@

setup: $(BIN)/.installed

dev-setup: $(BIN)/.installed-dev

run: setup
	$(BIN)/streamlit run dashboard.py --server.address 127.0.0.1 --server.port $(PORT)

# The browser tests need Chromium, the proxy test nginx; install Debian's when missing and we are root.
test-setup: dev-setup
	@if ! command -v chromium >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| echo "could not install chromium: browser tests will skip"; \
	fi
	@# The proxy test (tests/test_proxy.py) runs Debian's nginx as its own foreground process, never the service.
	@if ! command -v nginx >/dev/null 2>&1 && ! [ -x /usr/sbin/nginx ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's nginx for the proxy test (the system service is not started by the test)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null) \
		|| echo "could not install nginx: the proxy test will skip"; \
	fi

# The linter, the type checker and the layers' import contract (all configured in pyproject.toml) run first:
# CI enforces them.
lint: dev-setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Two workers (pytest-xdist), one per core of the 2-core machines this is measured on; a test file stays on
# one worker, so a module's shared fixture (a built site, a parsed workbook) is built once.
PYTEST := $(BIN)/python -m pytest -q -n 2 --dist loadfile

# The whole suite, both tiers: what CI runs.
test: test-setup lint
	$(PYTEST)

# The fast tier, to run between edits: no browsers, no real files from ../shared, no servers or killed
# processes (the `slow` marker, tests/conftest.py); needs neither Chromium nor ../shared.
test-fast: dev-setup
	$(PYTEST) -m "not slow"

# CI's second run (.ci/run), after `make test`: the fast tier as a clone with nothing beside it would run it
# (SHARED_DATA pointing at a missing folder), limited to the tests that can come out differently there, those
# whose code reaches SHARED_DATA's value (marked `shared_path` by tests/conftest.py; tests/shared_deps.py).
# Every other fast test does the same thing with or without ../shared/data and has just run in `make test`.
# Only the files that can hold such a test are collected (`python -m tests.shared_deps` lists them; with none
# listed pytest collects every file): collecting all of them cost each worker more than the tests it ran.
test-no-shared: dev-setup
	SHARED_DATA=/nonexistent/shared-data $(PYTEST) -m "not slow and shared_path" $$($(BIN)/python -m tests.shared_deps)

rebuild: setup
	$(BIN)/python -m loaders rebuild --raw $(RAW) --out data

# After editing data/events.csv or data/reported_figures.csv: needs no raw folder (every other source is kept).
rebuild-curated: setup
	$(BIN)/python -m loaders rebuild --curated-only --out data

# The README's docs/screenshot.png: refreshed only by this command, never by the test suite.
screenshot: test-setup
	$(BIN)/python -m tests.e2e_screenshot

# The two commands a user needs are `make demo` and `make test`; both build .venv on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)

.PHONY: install chromium js test lint demo lab bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

PY_SOURCES := smskit tests benchmarks docs notebooks/_export notebooks/data

lint: install
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)

# The browser tests drive Debian's chromium (CI starts from a clean Debian machine, as root).
chromium:
	@if [ -x /usr/bin/chromium ]; then :; else \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; fi

# The exported pages' JavaScript, pinned in notebooks/_export/package-lock.json, installed by
# the npm client (with the machine's own registry configuration); npm from Debian when missing.
EXPORT_JS := notebooks/_export/node_modules/.package-lock.json
js: $(EXPORT_JS)

$(EXPORT_JS): notebooks/_export/package.json notebooks/_export/package-lock.json
	@command -v npm >/dev/null || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm; }
	npm ci --prefix notebooks/_export --no-audit --no-fund --ignore-scripts
	touch $@

# The browser tests export every notebook (as `make demo` does) and check each page.
test: lint chromium js
	$(BIN)/python -m pytest tests --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

# Executes every notebook on the embedded sandbox; the pages load their scripts from
# build/notebooks/static/ (copied from notebooks/_export/node_modules), so they render offline.
demo: install js
	$(BIN)/python notebooks/_export/export_notebooks.py --output-dir build/notebooks $(NOTEBOOKS)
	@echo "Demo notebooks written to $(CURDIR)/build/notebooks/"

lab: install
	$(BIN)/jupyter lab notebooks

# Every benchmark with its default size; smsutil is the text benchmark's reference, not a dependency.
bench: install
	$(BIN)/python -m pip install --quiet smsutil
	for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf build .pytest_cache .ruff_cache

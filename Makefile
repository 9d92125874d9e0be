# The two commands a user needs are `make demo` and `make test`; both build .venv on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NOTEBOOKS := $(wildcard notebooks/*.ipynb)

.PHONY: install lock chromium js test suite lint docs demo lab pictures bench clean

# One .venv, grown by extras: `make demo` installs only what runs and exports the notebooks
# ([demo]), `make lab` adds JupyterLab ([lab]), `make test` the test tools ([dev]).
# Every install, pip and the build backend included, takes the exact versions of
# constraints.txt (`make lock` regenerates it); pyproject.toml keeps ranges.
install: $(VENV)/.installed-dev

CONSTRAINTS := constraints.txt
PIP_INSTALL = $(BIN)/python -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS)

$(VENV)/.installed-%: pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) pip
	$(PIP_INSTALL) --build-constraint $(CONSTRAINTS) -e '.[$*]'
	touch $@

# pip resolves .[dev] (every extra), the build backend and pip in a fresh venv under build/
# without installing them, and writes each version it chose: commit the new constraints.txt.
lock:
	$(PYTHON) tools/lock.py

PY_SOURCES := smskit tests benchmarks docs tools notebooks/conftest.py notebooks/_export notebooks/data

lint: install
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)
	$(BIN)/mypy

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

# The API reference from the docstrings and the docs/*.md pages (Sphinx; docs/conf.py), written
# to build/docs/ (open build/docs/index.html). -W: a warning fails the build (a docstring
# docutils cannot read, a public name the reference cannot find); -E: read every page afresh,
# so a warning is never hidden by a cached page. tests/test_api_reference.py checks that every
# public name has a docstring.
docs: install
	$(BIN)/python -m sphinx -E -W --keep-going -q -b html docs build/docs

# The browser tests export every notebook (as `make demo` does) and check each page.
# lint, docs and the suite run side by side (the suite waits on browsers, sandboxes and
# subprocesses much of the time; lint and docs print nothing but their failures); any of
# them failing fails `make test`.
test: install chromium js
	$(MAKE) --no-print-directory -j3 lint docs suite

# The suite on two worker processes (pytest-xdist, `-n 2`). --dist loadfile runs each test
# file on one worker (its module fixtures, its runs_last test) and each notebook's cells in
# order on one kernel; tests/_schedule.py names the groups and starts the longest first
# (--no-loadscope-reorder: its order, not xdist's by test count). PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= 2
suite: install chromium js
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder tests --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

# Executes every notebook on the embedded sandbox; the pages load their scripts from
# build/notebooks/static/ (copied from notebooks/_export/node_modules), so they render offline.
demo: $(VENV)/.installed-demo js
	$(BIN)/python notebooks/_export/export_notebooks.py --output-dir build/notebooks $(NOTEBOOKS)
	@echo "Demo notebooks written to $(CURDIR)/build/notebooks/"

# JupyterLab on copies under lab/ (with notebooks/data), never on the committed notebooks
# (nbval compares their stored outputs): opening, running and autosaving change only the
# copies. A copy is refreshed when its notebook changed since; the copy it replaces is kept
# beside it as NAME.ipynb.~N~ (cp --backup=numbered), so no edit is lost; `make clean` leaves
# lab/ alone (it holds the user's work).
LAB := lab
# Jupyter refuses to run as root without this (containers, CI machines: root, as here).
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(VENV)/.installed-lab $(NOTEBOOKS:notebooks/%=$(LAB)/%)
	mkdir -p $(LAB)/data && cp -r notebooks/data/. $(LAB)/data/
	$(BIN)/jupyter lab $(LAB_FLAGS) $(LAB)

$(LAB)/%.ipynb: notebooks/%.ipynb
	mkdir -p $(LAB)
	cp --backup=numbered $< $@

# Every picture in docs/img, from the notebooks as committed: their stored outputs exported
# to build/pictures/ and cut from the pages by chromium (docs/make_notebook_pictures.py), the
# README's HLR figure (docs/make_figures.py, kaleido on Debian's chromium), docs/outcomes.md's
# (docs/make_outcome_figures.py) and the Composer after a curly quote, in JupyterLab and in
# marimo, from the real-browser tests (docs/make_composer_screenshot.py).
pictures: install chromium js
	$(BIN)/python notebooks/_export/export_notebooks.py --no-execute --output-dir build/pictures $(NOTEBOOKS)
	$(BIN)/python docs/make_notebook_pictures.py --pages build/pictures
	$(BIN)/python docs/make_figures.py
	$(BIN)/python docs/make_outcome_figures.py
	$(BIN)/python docs/make_composer_screenshot.py

# Every benchmark with its default size; smsutil is the text benchmark's reference, not a dependency.
# The package is byte-compiled first, as an install leaves it (an editable install under
# PYTHONDONTWRITEBYTECODE would compile every module in every fresh process it times).
bench: install
	$(PIP_INSTALL) smsutil
	$(BIN)/python -m compileall -q smskit
	for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf build .pytest_cache .ruff_cache

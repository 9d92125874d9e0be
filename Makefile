# The two commands a user needs are `make demo` and `make test`; both build .venv on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)

.PHONY: install test lint demo lab bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: install
	$(BIN)/ruff check smskit tests benchmarks

test: lint
	$(BIN)/python -m pytest tests --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

demo: install
	mkdir -p build/notebooks
	$(BIN)/jupyter nbconvert --to html --execute --output-dir build/notebooks $(NOTEBOOKS)
	@echo "Demo notebooks written to $(CURDIR)/build/notebooks/"

lab: install
	$(BIN)/jupyter lab notebooks

# Every benchmark with its default size; smsutil is the text benchmark's reference, not a dependency.
bench: install
	$(BIN)/python -m pip install --quiet smsutil
	for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf build .pytest_cache .ruff_cache

VENV ?= .venv
PY := $(VENV)/bin/python
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: setup quickstart test lint clean

$(VENV)/bin/python:
	python3 -m venv $(VENV)

# Re-install whenever pyproject.toml changes. The quickstart needs only the runtime
# dependencies; tests add the dev extras (linters, pytest, a llama.cpp server).
$(RUNTIME): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(RUNTIME)

$(DEV): $(RUNTIME)
	sh scripts/install_llama.sh $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(DEV)

setup: $(RUNTIME)
	@sh scripts/install_bubblewrap.sh

quickstart: setup
	$(VENV)/bin/harnesspro evolve --config configs/quickstart.yaml

lint: setup $(DEV)
	$(VENV)/bin/ruff check harnesspro tests scripts
	$(VENV)/bin/ruff format --check harnesspro tests scripts
	$(VENV)/bin/mypy harnesspro

# Test processes at once (pytest-xdist); each runs its own embedded Ray (~0.8 GB).
TEST_WORKERS ?= 2

test: lint
	@sh scripts/install_chromium.sh
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal

clean:
	rm -rf $(VENV) *.egg-info

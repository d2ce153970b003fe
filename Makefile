VENV ?= .venv
# The interpreter that makes the venv (.ci/run passes the one `python3` named before it
# cleaned PATH).
PYTHON ?= python3
PY := $(VENV)/bin/python
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: setup quickstart test lint clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Re-install whenever pyproject.toml changes. The quickstart needs only the runtime
# dependencies; tests add the dev extras (linters, pytest, mkdocs, a llama.cpp server).
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

# The docs build with --strict, so a broken link or anchor between docs/ pages fails `make test`.
lint: setup $(DEV)
	$(VENV)/bin/ruff check harnesspro tests scripts
	$(VENV)/bin/ruff format --check harnesspro tests scripts
	$(VENV)/bin/mypy harnesspro
	$(VENV)/bin/mkdocs build --strict --quiet

# Test processes at once (pytest-xdist); each runs its own embedded Ray (~0.8 GB).
TEST_WORKERS ?= 2

# `harnesspro doctor` first: bubblewrap, git, Ray, the verifiers' pinned pytest (built into the
# tool-environment cache here), the price table. Under CI, Chromium is required too.
test: lint
	@sh scripts/install_bubblewrap.sh
	@sh scripts/install_chromium.sh
	$(VENV)/bin/harnesspro doctor
	@if [ -n "$${CI:-}" ] && ! command -v chromium >/dev/null 2>&1; then \
	    echo "make test: Chromium is missing and scripts/install_chromium.sh could not install it." >&2; exit 1; fi
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=25

clean:
	rm -rf $(VENV) *.egg-info

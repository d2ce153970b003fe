VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup quickstart test lint clean

$(VENV)/bin/python:
	python3 -m venv $(VENV)

# Re-install whenever pyproject.toml changes.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)
	@sh scripts/install_bubblewrap.sh

quickstart: setup
	$(VENV)/bin/harnesspro evolve --config configs/quickstart.yaml

lint: setup
	$(VENV)/bin/ruff check harnesspro tests scripts
	$(VENV)/bin/ruff format --check harnesspro tests scripts
	$(VENV)/bin/mypy harnesspro

test: lint
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) *.egg-info

# The two commands: `make demo` and `make test`. Each creates .venv when it is missing and
# installs what it needs into it; nothing else has to be installed beforehand but Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[demo]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test,validation]"
	touch $@

demo: $(VENV)/.installed
	$(PY) -m kinetree demo

test: $(VENV)/.installed-test
	$(PY) -m pytest

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis

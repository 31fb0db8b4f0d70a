# The two commands: `make demo` and `make test`. Each creates .venv when it is missing and
# installs what it needs into it; nothing else has to be installed beforehand but Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test clean chromium

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[demo]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test,validation,ensemble]"
	touch $@

# Compiling kinetree's kernels is part of set-up: once per version of the source, on every
# core, into the per-user cache (`python -m kinetree warmup` returns at once when done).
demo: $(VENV)/.installed
	$(PY) -m kinetree warmup
	$(PY) -m kinetree demo

# The viewer tests drive Debian's chromium headless; install it when it is missing (as
# root, or through sudo). Where it cannot be installed those tests are skipped, saying why.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the viewer tests"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "could not install chromium: the browser tests will be skipped"

test: $(VENV)/.installed-test chromium
	$(PY) -m kinetree warmup
	$(PY) -m pytest

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis

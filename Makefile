# slotmath: two commands, `make report` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: report test check lint docs bench install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	$(VENV)/bin/slotmath warmup
	touch $(STAMP)

install: $(STAMP)

report: $(STAMP)
	$(VENV)/bin/slotmath report --all

# The lint checks run first: CI (.ci/run calls `make test`) fails on any finding.
test: $(STAMP) lint
	$(PY) -m pytest

# The fast tier for the inner loop, on every core: every test but the
# end-to-end ones marked slow (notebook kernels, the browser, every game's
# committed report, the documentation site) and the heavy ones listed in
# tests/slow_tests.txt; `make test` still runs them all, in one process.
check: $(STAMP)
	$(PY) -m pytest -m "not slow" -q -n auto

# ruff lint + format check and mypy, as configured in pyproject.toml
# (.pre-commit-config.yaml runs the same checks before each commit).
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

# The documentation site into docs/_build/html, offline, warnings as errors;
# notebooks are executed once and cached in docs/_build/.jupyter_cache.
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache docs/_build docs/generated

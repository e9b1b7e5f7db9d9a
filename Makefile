# kerneltrials: `make demo` and `make test` work on a fresh machine (see README).
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export CUDA_HOME ?= /usr/local/cuda-13.0
# The build cache is the machine's (~/.cache/kerneltrials unless KERNELTRIALS_CACHE says
# otherwise): shared by every test, check and run here, so most builds are cache hits.

.PHONY: venv bytecode system-packages test test-fast lint demo clean gpu-acceptance

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# The package's bytecode, written once here: where PYTHONDONTWRITEBYTECODE is set (it was
# on the machine this was measured on) or the package is read-only to the job (every
# sandboxed worker), each process would otherwise compile the modules it imports from
# source, every time (~0.5 s of CPU per harness process). Only stale files are rewritten;
# a stale one is never used.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 kerneltrials

# Debian packages the sandbox, fast builds and browser tests use (installed when missing).
system-packages:
	@bash scripts/install-system-packages.sh

# Most of the suite runs on TEST_WORKERS pytest workers (pytest-xdist). Then the tests that
# share one machine-wide service (the container engine, a local Ray) run on as many workers,
# each test file kept on one worker (a file's fixtures start and reuse the service: the
# engine's start script takes a lock). Last, the tests that watch process counts or
# timings run alone, with nothing beside them. Each phase leaves its per-test times in
# test-results/ (scripts/test_times.py sums them).
TEST_WORKERS ?= 2
PARALLEL_SAFE = not alone and not docker and not ray
SHARED_SERVICE = (docker or ray) and not alone
PYTEST = $(BIN)/python -m pytest -q -p no:cacheprovider

test: venv bytecode system-packages
	@df -h "$${TMPDIR:-/tmp}" | tail -1 | awk '{print "scratch space for the checks: " $$4 " free of " $$2 " on " $$6}'
	$(PYTEST) --durations=30 -n $(TEST_WORKERS) -m "$(PARALLEL_SAFE)" --junitxml=test-results/parallel.xml
	$(PYTEST) --durations=15 -n $(TEST_WORKERS) --dist loadfile -m "$(SHARED_SERVICE)" --junitxml=test-results/services.xml
	$(PYTEST) --durations=15 -m alone --junitxml=test-results/alone.xml

test-fast: venv bytecode
	$(PYTEST) -m "not slow and not docker"

lint: venv
	$(BIN)/ruff check kerneltrials tests bench
	$(BIN)/mypy kerneltrials

# On a GPU host with Python, PyTorch and nvcc (docs/gpu/README.md); WHEELS from
# scripts/gpu-wheels.sh. Uses the host's Python, not the virtual environment.
WHEELS ?= .whl
gpu-acceptance:
	bash scripts/gpu-acceptance.sh --wheels $(WHEELS) --out gpu-acceptance-out

demo: venv bytecode system-packages
	@bash scripts/demo.sh

clean:
	rm -rf $(VENV) site kerneltrials.sqlite* test-results

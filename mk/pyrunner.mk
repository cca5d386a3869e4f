# The Python runner (runners/python): providers `pyca` (cryptography) and `pycryptodome`.
# `make setup` installs its pinned libraries into runners/python/.venv and the wrapper
# .venv/bin/cryptobench-runner-python; if PyPI cannot be reached it prints why and the two
# providers are absent (runners/python/build.sh never fails setup). Its tests
# (python/tests/test_runner_protocol.py, test_runner_python.py) run with the other Python tests.
SETUP_TARGETS += runner-python
DEMO_TARGETS += runner-python

.PHONY: runner-python bench-python

runner-python: apt-build
	@$(PHASE) runner-python bash runners/python/build.sh $(abspath $(VENV))/bin

# Fidelity: the engine's loop against timeit on the reference cases (ratio 0.9-1.1).
bench-python:
	$(VENV)/bin/python -m cryptobench.runner_fidelity $(VENV)/bin/cryptobench-runner-python

TEST_TARGETS += lint-runner-python
.PHONY: lint-runner-python
lint-runner-python:
	$(VENV)/bin/ruff check runners/python
	$(VENV)/bin/ruff format --check runners/python

# The property-based test of both command lines (python/tests/test_cli_fuzz.py, Hypothesis):
# `make test` runs it with the "ci" profile (a bounded number of examples, about a minute);
# `make fuzz-cli` with the "fuzz" profile (1,500 examples per property; tens of minutes on a
# loaded machine; CLI_FUZZ_EXAMPLES=N for another count). Neither starts a measurement: see
# the test's docstring.
.PHONY: fuzz-cli

fuzz-cli:
	HYPOTHESIS_PROFILE=fuzz $(VENV)/bin/pytest -q python/tests/test_cli_fuzz.py

# `cryptobench serve` (python/cryptobench/serve): its tests run with the other Python tests
# (test_serve.py, test_serve_browser.py: Chromium and PostgreSQL from APT_PACKAGES).
# `make bench-serve` times its pages over a generated PostgreSQL store of 200 runs x 3,000
# cases (python/tests/bench_serve.py; figures in docs/serve.md). A benchmark, not a test.
.PHONY: bench-serve
bench-serve: venv
	cd python/tests && ../../$(VENV)/bin/python bench_serve.py

# `make demo`: only what the demo suite and its report need, then the suite. It installs
# APT_build and APT_libs (no package that only a scenario or a test needs: `make apt-PART` or
# `make setup` for those), builds the native runner without its tests, the scenarios' programs and -g,
# .venv without the test tools, and the runners the demo suite measures (DEMO_TARGETS: Go, Python,
# Rust; Rust's main build without its fidelity bench and SLH-DSA, which the demo suite does not
# use, and without its second, soft build; the JVM's is measured where `make setup` or `make
# runner-jvm` built it). It runs with -j, so that the runners and .venv's Python
# packages build and download while apt installs and the native runner compiles. Each phase
# prints its start and time (its output goes to build/phases/NAME.log); the run prints the
# report's answer table as soon as it ends, then writes the report. The demo suite
# (python/cryptobench/suites/demo.toml) is sized for about five minutes from a bare machine;
# SUITE=default measures the default suite instead (docs/setup.md). (setup-demo, the graph, is
# in the Makefile, after every part has added its DEMO_TARGETS.)
.PHONY: demo
SUITE ?= demo
# Enough jobs that every phase starts as soon as it can (each build is itself parallel): with
# fewer, the native build, the longest, waited for a runner's slot.
DEMO_JOBS ?= 8

demo:
	+@$(MAKE) --no-print-directory -j $(DEMO_JOBS) setup-demo NATIVE_TESTS=OFF NATIVE_TOOLS=OFF NATIVE_DEBUG=OFF \
	  VENV_EXTRAS= PHASE_QUIET=1 RUST_SOFT=0 RUST_FULL=0 RUNNER_NICE=0
	@$(PHASE) suite $(VENV)/bin/cryptobench run --suite $(SUITE) --report report.html
	@echo "report: $$(pwd)/report.html"
	@echo "serve the store as a web page: $(VENV)/bin/cryptobench serve   (then http://127.0.0.1:8350/)"
	@[ "$(SUITE)" != demo ] || echo "next, the default suite (the common algorithms at 16 B to 1 MiB,\
	 key generation, RSA-4096, SLH-DSA, hardware vs software; about 12 minutes on 2 cores;\
	 \`make runner-rust\` first adds rustcrypto's SLH-DSA and the variant rustcrypto/soft):\
	 $(VENV)/bin/cryptobench run --suite default --report report.html"

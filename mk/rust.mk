# The Rust runner (runners/rust): providers `ring`, `aws-lc-rs` and `rustcrypto`. `make setup`
# builds .venv/bin/cryptobench-runner-rust; without cargo or crates.io it prints why and the Rust
# providers are absent (runners/rust/build.sh never fails setup).
SETUP_TARGETS += runner-rust
DEMO_TARGETS += runner-rust
TEST_TARGETS += test-runner-rust

.PHONY: runner-rust test-runner-rust bench-rust

# Cargo's target directory, outside the clone and shared by every checkout on the machine: a
# second clone reuses the dependencies' builds; the runner crate's own are rebuilt when another
# checkout built them last (runners/rust/shared-target.sh).
export RUST_TARGET_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cryptobench/rust-target

# RUST_SOFT=0 (make demo) leaves out the second build, of the variant rustcrypto/soft, and
# RUST_FULL=0 the main build's features `bench` (criterion, only for `make bench-rust`) and
# `slh-dsa` (runners/rust/build.sh says why).
RUST_SOFT ?= 1
RUST_FULL ?= 1
runner-rust: apt-build
	@RUST_SOFT=$(RUST_SOFT) RUST_FULL=$(RUST_FULL) RUNNER_NICE=$(RUNNER_NICE) $(PHASE) runner-rust bash runners/rust/build.sh $(abspath $(VENV))/bin

# rustfmt's check (where rustfmt is installed) and the Rust unit tests, when the runner was built
# (runners/rust/test.sh; the protocol tests are in python/tests/test_runner_protocol.py and
# test_runner_rust.py, run with the other Python tests).
test-runner-rust:
	@if [ -x $(VENV)/bin/cryptobench-runner-rust ] && [ -f runners/rust/build/cargo-path ]; then \
	  bash runners/rust/test.sh "$$(cat runners/rust/build/cargo-path)"; \
	elif [ "$$CI" = true ]; then echo "rust runner absent: CI=true needs every runner" >&2; exit 1; \
	else echo "rust runner absent: Rust tests skipped"; fi

# Fidelity: the engine's loop against criterion on the reference cases (ratio 0.9-1.1).
bench-rust:
	$(VENV)/bin/python -m cryptobench.runner_fidelity $(VENV)/bin/cryptobench-runner-rust

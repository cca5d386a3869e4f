# cryptobench: `make setup` installs what the project needs and builds it; `make test` runs every
# test; `make demo` runs the quick suite and writes an HTML report.
SHELL := /bin/bash
.DEFAULT_GOAL := help

BUILD    ?= native/build
VENV     ?= .venv
PY       := $(VENV)/bin/python
JOBS     ?= $(shell nproc)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian 12 packages: toolchain, the nine crypto libraries' development files, test and lint tools.
APT_PACKAGES := build-essential cmake pkg-config ninja-build python3 python3-venv python3-dev \
  nlohmann-json3-dev googletest libgtest-dev clang-format gnupg \
  libssl-dev openssl libgcrypt20-dev libbotan-2-dev libcrypto++-dev libsodium-dev nettle-dev \
  libmbedtls-dev libwolfssl-dev libgnutls28-dev

.PHONY: help setup apt native venv test test-native test-python lint format demo clean

# Each further part of the project (a runner under runners/, a scenario's system packages) brings
# its own mk/<part>.mk, which appends to these instead of editing this file:
#   APT_PACKAGES += …        Debian packages it needs
#   SETUP_TARGETS += …       targets `make setup` runs after the native build and .venv
#   TEST_TARGETS += …        targets `make test` runs after the native and Python tests
SETUP_TARGETS :=
TEST_TARGETS :=
include $(sort $(wildcard mk/*.mk))

help:
	@echo "make setup   install Debian packages, build the native runner, create .venv"
	@echo "make demo    setup, then run the default suite (SUITE=quick for seconds) and write report.html"
	@echo "make test    setup, then native tests, Python tests and lint checks"

setup: apt native venv $(SETUP_TARGETS)

# Skips apt when every package is already installed (no root needed then).
apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	    | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# ccache, where installed, makes rebuilds in several checkouts cheap; the build does not need it.
CCACHE := $(shell command -v ccache >/dev/null 2>&1 && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

native:
	cmake -S native -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CCACHE)
	cmake --build $(BUILD) -j $(JOBS)

venv: native
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	cmake --install $(BUILD) --prefix $(VENV) >/dev/null

test: setup test-native test-python $(TEST_TARGETS) lint

test-native:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python:
	$(VENV)/bin/pytest -q python/tests

lint:
	$(VENV)/bin/ruff check python
	$(VENV)/bin/ruff format --check python
	clang-format --dry-run --Werror $$(git ls-files 'native/*.cpp' 'native/*.hpp')

format:
	$(VENV)/bin/ruff format python
	$(VENV)/bin/ruff check --fix python
	clang-format -i $$(git ls-files 'native/*.cpp' 'native/*.hpp')

# The main job: a real benchmark of the default suite (about 1-3 minutes on 2 cores) and its
# report. `make demo SUITE=quick` takes seconds.
SUITE ?= default
demo: setup
	$(VENV)/bin/cryptobench run --suite $(SUITE) --report report.html
	@echo "report: $$(pwd)/report.html"
	@echo "serve the store as a web page: $(VENV)/bin/cryptobench serve   (then http://127.0.0.1:8350/)"

clean:
	rm -rf $(BUILD)

# cryptobench: `make setup` installs everything the project needs (every part's packages) and
# builds it; `make test` runs every test; `make demo` installs and builds only what the default
# suite and its report need (mk/demo.mk), runs it and writes an HTML report.
SHELL := /bin/bash
.DEFAULT_GOAL := help

BUILD    ?= native/build
VENV     ?= .venv
PY       := $(VENV)/bin/python
JOBS     ?= $(shell nproc)

# Debian 12 packages, by part (`make apt-PART` installs APT_PART): the toolchain (which the
# runners need), what the native build needs besides (the nine crypto libraries' development
# files; ccache, which makes rebuilds cheap, in other checkouts too), and the native tests' and
# lint's tools. `make demo` installs build and libs only; on a machine that has the toolchain
# the runners then build while apt-libs downloads and installs.
APT_build := build-essential cmake pkg-config ninja-build python3 python3-venv python3-dev
APT_libs := nlohmann-json3-dev libssl-dev openssl libgcrypt20-dev libbotan-2-dev libcrypto++-dev \
  libsodium-dev nettle-dev libmbedtls-dev libwolfssl-dev libgnutls28-dev ccache
APT_test := googletest libgtest-dev clang-format
APT_PACKAGES := $(APT_build) $(APT_libs) $(APT_test)

.PHONY: help setup setup-demo apt native venv venv-python test test-native test-python lint format demo clean

# Each further part of the project (a runner under runners/, a scenario's system packages) brings
# its own mk/<part>.mk, which appends to these instead of editing this file:
#   APT_PART := …            Debian packages it needs (`make apt-PART` installs them), and
#   APT_PACKAGES += $(APT_PART)   so that `make setup` installs them too
#   SETUP_TARGETS += …       targets `make setup` runs after the native build and .venv
#   TEST_TARGETS += …        targets `make test` runs after the native and Python tests
#   DEMO_TARGETS += …        targets `make demo` runs besides the native build (mk/demo.mk)
SETUP_TARGETS :=
TEST_TARGETS :=
DEMO_TARGETS :=
# Each phase of a build prints when it started and how long it took (mk/phase.sh), counted
# from the start of the outermost make (CB_T0).
PHASE := bash mk/phase.sh
ifndef CB_T0
CB_T0 := $(shell date +%s)
endif
export CB_T0
# The priority (nice -n) of the Go and Rust runners' builds. `make setup` keeps them at 10, below
# whatever else runs (tests, other checkouts' work, CI's other jobs); `make demo` passes 0
# (mk/demo.mk): on a bare machine they run beside the native build, which is not niced, and
# there niced they waited for it with nothing else to yield to (docs/setup.md, "No idle cores").
RUNNER_NICE ?= 10
include $(sort $(wildcard mk/*.mk))

help:
	@echo "make demo    install and build what the default suite needs, run it (SUITE=quick for seconds), write report.html"
	@echo "make setup   install every part's Debian packages, build the native runner, .venv and every runner"
	@echo "make apt-PART  one part's Debian packages (a scenario names its own: apt-channel, apt-storage, ...)"
	@echo "make test    setup, then native tests, Python tests and lint checks"
	@echo "make fuzz-cli  the command-line property test with many examples (minutes)"

setup: apt native venv $(SETUP_TARGETS)
setup-demo: venv $(DEMO_TARGETS)

# mk/apt-install.sh installs those of a phase's packages that are not installed yet.
apt:
	@bash mk/apt-install.sh apt $(APT_PACKAGES)

# One part's packages: apt-build, apt-libs, apt-test, apt-channel, … (not .PHONY, so that a
# rule without a recipe can give one of them a prerequisite: apt-libs waits for apt-build).
apt-%:
	@$(if $(APT_$*),bash mk/apt-install.sh apt-$* $(APT_$*),echo "make: no part '$*' (no APT_$*)" >&2; exit 2)
apt-libs: apt-build

# ccache, where installed (APT_libs), makes rebuilds cheap, in other checkouts too: paths under
# this checkout are hashed relative to it. Looked up when the recipe runs (apt-libs may have
# just installed it); the build does not need it.
CCACHE = $$(command -v ccache >/dev/null 2>&1 && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# NATIVE_TESTS=OFF (make demo) leaves the GoogleTest suites out of the native build, and
# NATIVE_TOOLS=OFF the scenarios' programs (confcrypt, cryptobench-encfile; native/CMakeLists.txt).
# NATIVE_DEBUG=OFF (make demo) compiles without -g, at the same -O2 (GCC's code is the same with
# and without -g): about 28% less compile CPU (docs/setup.md). Given every time, so that a build
# after make demo's compiles with -g again.
NATIVE_TESTS ?= ON
NATIVE_TOOLS ?= ON
NATIVE_DEBUG ?= ON
native: apt-libs
	@$(PHASE) native bash -c 'cmake -S native -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2$(if $(filter OFF,$(NATIVE_DEBUG)),, -g) -DNDEBUG" \
	  -DCB_BUILD_TESTS=$(NATIVE_TESTS) -DCB_SCENARIO_TOOLS=$(NATIVE_TOOLS) $(CCACHE) && \
	  cmake --build $(BUILD) -j $(JOBS)'

# .venv and the package; VENV_EXTRAS= (make demo) leaves out the test tools.
VENV_EXTRAS ?= [dev]
venv-python: apt-build
	@$(PHASE) venv bash -c '{ [ -x $(PY) ] || python3 -m venv $(VENV); } && \
	  $(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q -e ".$(VENV_EXTRAS)"'

venv: native venv-python
	cmake --install $(BUILD) --prefix $(VENV) >/dev/null

test: setup test-native test-python $(TEST_TARGETS) lint

test-native:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python:
	$(VENV)/bin/pytest -q -n $(JOBS) --dist loadfile --durations=30 python/tests

lint:
	$(VENV)/bin/ruff check python
	$(VENV)/bin/ruff format --check python
	clang-format --dry-run --Werror $$(git ls-files 'native/*.cpp' 'native/*.hpp')

format:
	$(VENV)/bin/ruff format python
	$(VENV)/bin/ruff check --fix python
	clang-format -i $$(git ls-files 'native/*.cpp' 'native/*.hpp')

clean:
	rm -rf $(BUILD)

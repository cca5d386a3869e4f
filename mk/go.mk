# The Go runner (runners/go): providers `go` (standard library) and `go-x` (golang.org/x/crypto).
# `make setup` builds .venv/bin/cryptobench-runner-go; without Go or the module proxy it prints why
# and the Go providers are absent (runners/go/build.sh never fails setup).
SETUP_TARGETS += runner-go
DEMO_TARGETS += runner-go
TEST_TARGETS += test-runner-go

.PHONY: runner-go test-runner-go bench-go

runner-go: apt-build
	@RUNNER_NICE=$(RUNNER_NICE) $(PHASE) runner-go bash runners/go/build.sh $(abspath $(VENV))/bin

# go vet and the Go unit tests, when the runner was built (the protocol tests are in
# python/tests/test_runner_protocol.py and test_runner_go.py, run with the other Python tests).
test-runner-go:
	@if [ -x $(VENV)/bin/cryptobench-runner-go ] && [ -f runners/go/build/go-path ]; then \
	  go=$$(cat runners/go/build/go-path) && cd runners/go && \
	  "$$go" vet ./... && nice "$$go" test -count=1 ./...; \
	elif [ "$$CI" = true ]; then echo "go runner absent: CI=true needs every runner" >&2; exit 1; \
	else echo "go runner absent: Go tests skipped"; fi

# Fidelity: the engine's loop against testing.B on the reference cases (ratio 0.9-1.1).
bench-go:
	$(VENV)/bin/python -m cryptobench.runner_fidelity $(VENV)/bin/cryptobench-runner-go

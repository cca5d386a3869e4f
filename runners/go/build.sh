#!/usr/bin/env bash
# Builds cryptobench-runner-go into the directory $1 (make setup passes .venv/bin).
# Never fails the caller: without a usable Go toolchain or module proxy it says why, removes any
# old binary and exits 0, so the Go providers are absent and everything else still works. On CI
# (CI=true) it exits 1 instead: there every runner must build.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
want=go1.26.8 # the Go this module is built and tested with (go.mod asks for 1.26 or newer)
target=$dest/cryptobench-runner-go
mkdir -p "$dest" # make demo builds the runners before .venv exists

absent() {
  echo "go runner: not built: $* (the providers go and go-x are absent)" >&2
  rm -f "$target" "$dest/cryptobench-tlshs" "$dest/cryptobench-mlkembench"
  # On CI (CI=true, as .ci/run sets it) every runner must build: fail the setup instead.
  [ "${CI:-}" = true ] && exit 1
  exit 0
}

find_go() {
  command -v go 2>/dev/null && return
  for g in /usr/local/go/bin/go /usr/lib/go/bin/go; do [ -x "$g" ] && echo "$g" && return; done
}

GO=$(find_go)
if [ -z "$GO" ]; then
  echo "go runner: no Go toolchain; installing golang-go from Debian" >&2
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends golang-go \
    >/dev/null 2>&1 || absent "no Go toolchain, and apt-get install golang-go failed"
  GO=$(find_go)
  [ -n "$GO" ] || absent "no Go toolchain after installing golang-go"
fi

# Debian 12's Go is 1.19, older than the toolchain switch of Go 1.21: fetch the Go toolchain the
# module needs from the Go module proxy (it is served there as the module golang.org/toolchain).
minor=$("$GO" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$minor" ] || [ "$minor" -lt 21 ]; then
  arch=$("$GO" env GOARCH)
  echo "go runner: $("$GO" version) is too old; fetching $want from the Go module proxy" >&2
  dir=$(cd "$(mktemp -d)" && "$GO" mod download -json "golang.org/toolchain@v0.0.1-$want.linux-$arch" \
    2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -f "$dir/bin/go" ] || absent "cannot fetch $want from the Go module proxy"
  # Module zips keep no file modes; Go 1.21+ marks the toolchain's programs executable the same way.
  chmod +x "$dir"/bin/* "$dir"/pkg/tool/*/* 2>/dev/null
  [ -x "$dir/bin/go" ] || absent "cannot make $dir/bin/go executable"
  GO=$dir/bin/go
fi

# GOFLAGS=-mod=readonly: go.mod and go.sum pin every module; a build never changes them.
# Go's build cache (GOCACHE) makes rebuilds cheap, in CI too; it is keyed by the content of what
# is compiled, so other checkouts sharing it never hand this one their build.
# RUNNER_NICE (the Makefile's, default 10): make demo passes 0, as for the Rust build.
cd "$here" || absent "no $here"
nice=(nice -n "${RUNNER_NICE:-10}")
# go generate copies the catalogue (catalogue/algorithms.json) into build/ for go:embed (types.go).
out=$("${nice[@]}" "$GO" generate . 2>&1) || absent "go generate (the catalogue copy) failed: $out"
if ! out=$(GOFLAGS=-mod=readonly "${nice[@]}" "$GO" build -trimpath -o "$target.tmp" . 2>&1); then
  rm -f "$target.tmp"
  absent "go build failed (is the Go module proxy reachable?): $(echo "$out" | tail -3 | tr '\n' ' ')"
fi
mv "$target.tmp" "$target"
# Tools beside the runner, named outside cryptobench-runner-* so they are not taken for runners:
# cmd/tlshs, the channel scenario's TLS handshake tool (Go's crypto/tls, classical and hybrid
# post-quantum key exchange), and cmd/mlkembench, testing.B on crypto/mlkem for the PQ fidelity
# check (make bench-fidelity-pq).
for tool in tlshs mlkembench; do
  exe=$dest/cryptobench-$tool
  if ! out=$(GOFLAGS=-mod=readonly "${nice[@]}" "$GO" build -trimpath -o "$exe.tmp" ./cmd/$tool 2>&1); then
    rm -f "$exe.tmp" "$exe"
    absent "go build ./cmd/$tool failed: $(echo "$out" | tail -3 | tr '\n' ' ')"
  fi
  mv "$exe.tmp" "$exe"
done
mkdir -p "$here/build" && echo "$GO" >"$here/build/go-path" # the toolchain `make test` uses
"$target" list >/dev/null 2>&1 || absent "the built runner fails its list command"
echo "go runner: built $target with $("$GO" version | cut -d' ' -f3)"

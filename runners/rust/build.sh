#!/usr/bin/env bash
# Builds cryptobench-runner-rust into the directory $1 (make setup passes .venv/bin).
# Never fails the caller: without a usable Rust toolchain or crates.io it says why, removes any
# old binary and exits 0, so the providers ring, aws-lc-rs and rustcrypto are absent and
# everything else still works. On CI (CI=true) it exits 1 instead: there every runner must build,
# the soft build of rustcrypto too.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
need_minor=85 # Cargo.toml: edition 2024, rust-version 1.85
target=$dest/cryptobench-runner-rust
mkdir -p "$dest"
soft=$(cd "$dest/.." && pwd)/libexec/cryptobench-runner-rust-soft

absent() {
  echo "rust runner: not built: $* (the providers ring, aws-lc-rs and rustcrypto are absent)" >&2
  rm -f "$target" "$soft"
  # On CI (CI=true, as .ci/run sets it) every runner must build: fail the setup instead.
  [ "${CI:-}" = true ] && exit 1
  exit 0
}

find_cargo() {
  command -v cargo 2>/dev/null && return
  for c in "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" /usr/bin/cargo; do [ -x "$c" ] && echo "$c" && return; done
}

minor_of() { "$1" --version 2>/dev/null | sed -n 's/^cargo 1\.\([0-9]*\).*/\1/p'; }

CARGO=$(find_cargo)
if [ -z "$CARGO" ]; then
  # Debian's cargo, only if it is new enough for this crate (its package 0.N is Rust 1.(N-1); Debian 12 has 0.66).
  candidate=$(apt-cache policy cargo 2>/dev/null | sed -n 's/^ *Candidate: \([0-9]*\.[0-9]*\).*/\1/p')
  cminor=${candidate#*.}
  if [ -n "$candidate" ] && [ "${candidate%%.*}" = 0 ] && [ "${cminor:-0}" -gt "$need_minor" ]; then
    echo "rust runner: no cargo; installing cargo $candidate from Debian" >&2
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends cargo \
      >/dev/null 2>&1 || absent "no cargo, and apt-get install cargo failed"
    CARGO=$(find_cargo)
  fi
  [ -n "$CARGO" ] || absent "no cargo on PATH or in ~/.cargo/bin, and Debian's cargo ${candidate:-(none)} is older than Rust 1.$need_minor (install Rust with rustup)"
fi
minor=$(minor_of "$CARGO")
[ -n "$minor" ] && [ "$minor" -ge "$need_minor" ] ||
  absent "$("$CARGO" --version 2>/dev/null) is older than 1.$need_minor"
command -v cmake >/dev/null || absent "aws-lc-sys needs cmake (make setup installs it)"

# --locked: Cargo.lock pins every crate; a build never changes it. The target directory is
# $RUST_TARGET_DIR (mk/rust.mk: ~/.cache/cryptobench/rust-target), outside the clone, so that
# every checkout on the machine reuses the dependencies' builds (most of the build's time);
# cargo's registry cache (~/.cargo/registry) is shared too. The runner crate's own build is one
# checkout's at a time (shared-target.sh says why): after another checkout's, it is built again
# from this one's sources. The lock, held to the end, keeps another checkout from building
# between this one's claim, build and copy.
tdir=${RUST_TARGET_DIR:-$here/target}
cd "$here" || absent "no $here"
. "$here/shared-target.sh"
target_lock "$tdir" || absent "cannot lock $tdir"
export PATH="$(dirname "$CARGO"):$PATH"
target_claim "$CARGO" "$tdir" cryptobench-runner-rust || absent "cannot claim $tdir for this checkout"
# RUST_FULL=0 (make demo) builds only the feature `c-providers`, without `bench` (criterion and
# its dependencies: clap, regex, ciborium, ..., only for `make bench-rust`) and `slh-dsa` (the
# crate and its twelve parameter sets, which the demo suite does not measure). Every other
# algorithm and the code that measures it are the same. The runner's record says which build it
# is (machine.rust.build, .commands); a later `make runner-rust` or `make setup` builds the full
# runner again (cargo rebuilds whenever the features differ from the last build's).
features=()
what=""
if [ "${RUST_FULL:-1}" = 0 ]; then
  features=(--no-default-features --features c-providers)
  what=" (make demo's: without the fidelity bench and SLH-DSA; make runner-rust builds them)"
fi
# RUNNER_NICE (the Makefile's, default 10): make demo passes 0. There this build is the longest
# chain and runs beside the native build, which is not niced: at nice 10 it got about a tenth of a
# core until the native build ended, then compiled alone, with a core idle whenever cargo had one
# crate left to build.
if ! out=$(CARGO_TARGET_DIR="$tdir" nice -n "${RUNNER_NICE:-10}" "$CARGO" build --release --locked "${features[@]}" 2>&1); then
  absent "cargo build failed (is crates.io reachable?): $(echo "$out" | grep -m3 -E '^(error|warning: spurious)' | tr '\n' ' ')"
fi
install -m 755 "$tdir/release/cryptobench-runner-rust" "$target.tmp" && mv "$target.tmp" "$target" ||
  absent "cannot install into $dest"
mkdir -p "$here/build" && echo "$CARGO" >"$here/build/cargo-path" # the toolchain `make test` uses
"$target" list >/dev/null 2>&1 || absent "the built runner fails its list command"
echo "rust runner: built $target with $("$CARGO" --version | cut -d' ' -f1-2)$what"

# The variant rustcrypto/soft: RustCrypto's portable backends can only be chosen at compile time,
# so they get a build of their own (RustCrypto only, no ring, aws-lc-rs or criterion), installed
# out of the runners' directories; the runner re-executes it for that variant.
# RUST_SOFT=0 (make demo, whose suite measures default variants only) skips it, and leaves an
# earlier build of it in place.
if [ "${RUST_SOFT:-1}" = 0 ]; then
  echo "rust runner: the variant rustcrypto/soft not built now (make runner-rust builds it)"
  exit 0
fi
soft_flags='--cfg cryptobench_soft --cfg aes_backend="soft" --cfg polyval_backend="soft"
  --cfg chacha20_backend="soft" --cfg poly1305_backend="soft" --cfg sha1_backend="soft"
  --cfg sha2_backend="soft" --cfg keccak_backend="soft"'
out=
if target_claim "$CARGO" "$tdir/soft" cryptobench-runner-rust &&
  out=$(RUSTFLAGS="$(echo $soft_flags)" CARGO_TARGET_DIR="$tdir/soft" nice -n "${RUNNER_NICE:-10}" \
    "$CARGO" build --release --locked --no-default-features --features slh-dsa 2>&1) && mkdir -p "$(dirname "$soft")" &&
  install -m 755 "$tdir/soft/release/cryptobench-runner-rust" "$soft.tmp" && mv "$soft.tmp" "$soft"; then
  echo "rust runner: built $soft (the variant rustcrypto/soft)"
else
  rm -f "$soft"
  echo "rust runner: the soft build failed, so rustcrypto/soft is absent: $(echo "$out" | grep -m3 '^error' | tr '\n' ' ')" >&2
  [ "${CI:-}" = true ] && exit 1
fi

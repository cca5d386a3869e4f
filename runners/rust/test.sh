#!/usr/bin/env bash
# `make test-runner-rust`: rustfmt's check (where rustfmt is installed) and the crate's unit tests,
# built with CARGO ($1, the toolchain build.sh used) in $RUST_TARGET_DIR, the target directory
# build.sh shares with the other checkouts: under its lock, and with the runner crate's
# artifacts made this checkout's first (shared-target.sh), so that the tests run are this
# checkout's, not the last other checkout's whose build cargo would find fresh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cargo=$1
tdir=${RUST_TARGET_DIR:-$here/target}
cd "$here"
. "$here/shared-target.sh"
if "$cargo" fmt --version >/dev/null 2>&1; then "$cargo" fmt --check; fi
target_lock "$tdir"
target_claim "$cargo" "$tdir" cryptobench-runner-rust
CARGO_TARGET_DIR="$tdir" nice "$cargo" test --release --locked -q

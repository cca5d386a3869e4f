# Sourced by build.sh and test.sh: a cargo target directory shared by several checkouts.
#
# $RUST_TARGET_DIR (mk/rust.mk) is shared by every checkout on the machine so that the
# dependencies build once. Cargo does not expect two source trees in one target directory: it
# names a workspace crate's artifacts by a hash of the crate's name, version, features and its
# path *relative to the workspace*, so the runner crate of two checkouts is one set of files
# (deps/cryptobench_runner_rust-<hash>, the same hash in both: the `executable` cargo reports
# with --message-format=json is that same file), and it calls them fresh when the sources of
# the checkout building now are older than the last build. So after checkout A built, then B,
# A's next build found its sources older than B's build, linked nothing, and A installed B's
# runner. The runner crate's own artifacts therefore belong to one checkout at a time; the
# dependencies' are shared as before.

# target_lock DIR: waits for DIR's lock and holds it on fd 9 until the shell exits, so that no
# other checkout claims or builds between this one's claim, build and copy.
target_lock() {
  mkdir -p "$1" && exec 9>"$1/.cryptobench-build.lock" && flock 9
}

# target_claim CARGO DIR PACKAGE: makes DIR's artifacts of PACKAGE (the crate in the current
# directory) this checkout's. When another checkout built them last (DIR/.checkout-of-PACKAGE
# names it; an unnamed one may be anyone's), `cargo clean -p` removes them, so that the next
# cargo command builds them from this checkout's sources. A target directory without a release
# build yet has nothing to remove (and `cargo clean -p` would need crates.io's index there
# first). Call it with target_lock held.
target_claim() {
  local cargo=$1 dir=$2 pkg=$3 src out
  local stamp=$dir/.checkout-of-$pkg
  src=$(pwd -P)
  [ "$(cat "$stamp" 2>/dev/null)" = "$src" ] && return 0
  if [ -e "$stamp" ]; then
    echo "rust build: $dir holds $pkg as built from $(cat "$stamp"); building it from $src" >&2
  fi
  if [ -d "$dir/release" ]; then
    out=$(CARGO_TARGET_DIR="$dir" "$cargo" clean --release --locked -p "$pkg" 2>&1) || {
      echo "rust build: cargo clean -p $pkg in $dir failed: $(echo "$out" | tail -2 | tr '\n' ' ')" >&2
      return 1
    }
  fi
  echo "$src" >"$stamp"
}

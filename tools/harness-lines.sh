#!/usr/bin/env bash
# Lines of harness per non-native runner (issue 24): every tracked source file of the runner
# except its provider adapters, its tests and its dependency pins, counted with `wc -l`.
# Usage: tools/harness-lines.sh [COMMIT]   (default: the work tree's tracked files)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
rev=${1:-}

files() {  # tracked files under $1, at $rev or in the work tree
  if [ -n "$rev" ]; then git ls-tree -r --name-only "$rev" -- "$1"; else git ls-files -- "$1"; fi
}
count() {  # total lines of the files read on stdin
  local total=0 n
  while read -r f; do
    if [ -n "$rev" ]; then n=$(git show "$rev:$f" | wc -l); else n=$(wc -l <"$f"); fi
    total=$((total + n))
  done
  echo "$total"
}

# The JVM's Keys.java turns catalogue key parts into JCA keys for JcaProvider alone (its only
# caller): adapter code, like Python's providers/_keys.py and the key conversions that Go and Rust
# keep in their provider files, so it is counted with the adapters, not the harness.
# Go's cmd/ holds separate programs (the channel scenario's TLS handshake tool, a fidelity bench).
go=$(files runners/go | grep -Ev '/prov_[^/]*\.go$|_test\.go$|/go\.(mod|sum)$|/catalogue\.json$|/cmd/' | count)
python=$(files runners/python \
  | grep -Ev '/providers/(pyca|pyca_pq|pycryptodome|_keys)\.py$|/requirements\.txt$|/catalogue\.json$' \
  | count)
rust=$(files runners/rust/src | grep -E '\.rs$' \
  | grep -Ev '/providers/|/tests\.rs$|/layering\.rs$' | count)
jvm=$(files runners/jvm/src/main/java \
  | grep -Ev '/(JcaProvider|JcaNames|PqJca|Providers|JmhReference|Keys)\.java$' | count)

printf '%-7s %6s\n' runner harness go "$go" python "$python" rust "$rust" jvm "$jvm"

#!/usr/bin/env bash
# Installs the Python runner: its pinned libraries (requirements.txt) into runners/python/.venv
# and the wrapper cryptobench-runner-python into the directory $1 (make setup passes .venv/bin).
# Never fails the caller: if the libraries cannot be installed it says why, removes any old
# wrapper and exits 0, so the providers pyca and pycryptodome are absent. On CI (CI=true) it
# exits 1 instead: there every runner must build.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
venv=$here/.venv
target=$dest/cryptobench-runner-python
mkdir -p "$dest" # make demo builds the runners before .venv exists

absent() {
  echo "python runner: not installed: $* (the providers pyca and pycryptodome are absent)" >&2
  rm -f "$target"
  # On CI (CI=true, as .ci/run sets it) every runner must build: fail the setup instead.
  [ "${CI:-}" = true ] && exit 1
  exit 0
}

[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >/dev/null 2>&1 ||
  absent "python3 -m venv failed (python3-venv missing?)"
if ! out=$("$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -r "$here/requirements.txt" 2>&1); then
  absent "pip install -r runners/python/requirements.txt failed: $(echo "$out" | tail -2 | tr '\n' ' ')"
fi
cat >"$target.tmp" <<WRAPPER
#!/bin/sh
# cryptobench-runner-python (written by runners/python/build.sh): the Python runner, run from its
# source with the pinned libraries of its own virtual environment.
PYTHONPATH="$here\${PYTHONPATH:+:\$PYTHONPATH}" exec "$venv/bin/python" -m cryptobench_pyrunner "\$@"
WRAPPER
chmod +x "$target.tmp" && mv "$target.tmp" "$target"
"$target" list >/dev/null 2>&1 || absent "the installed runner fails its list command"
echo "python runner: installed $target ($("$venv/bin/python" --version))"

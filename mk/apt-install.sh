#!/usr/bin/env bash
# mk/apt-install.sh PHASE PACKAGE…: installs those of the Debian packages that are not installed
# yet, as the build phase PHASE (mk/phase.sh). Nothing to do, so no root needed and nothing
# printed, when every one is; waits for another apt's lock (another checkout's make) instead
# of failing.
set -euo pipefail
phase=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
echo "$phase: installing ${missing[*]}"
exec bash "$(dirname "$0")/phase.sh" "$phase" bash -c '
  sudo=$1; shift
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq &&
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "$@"' _ "$sudo" "${missing[@]}"

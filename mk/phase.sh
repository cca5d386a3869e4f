#!/usr/bin/env bash
# mk/phase.sh NAME COMMAND…: runs one phase of a build (a package install, the native build, a
# runner) and prints when it started, when it ended and how long it took, as clock time and
# minutes:seconds since the outermost make started (CB_T0, exported by the Makefile), and the
# CPU time it used, so that a build says what it is doing and a slow phase shows. With
# PHASE_QUIET=1 (make demo) the phase's output goes to build/phases/NAME.log instead; the
# runners' own one-line verdicts ("rust runner: built …", "… not built: why") are still shown,
# and on failure the log's last lines.
set -uo pipefail
name=$1
shift
t0=${CB_T0:-$(date +%s)}
start=$(date +%s)
stamp() {
  local now s
  now=$(date +%s)
  s=$((now - t0))
  printf '[%s +%d:%02d]' "$(date -u -d "@$now" +%H:%M:%S)" $((s / 60)) $((s % 60))
}
took() {
  local s=$(($(date +%s) - start))
  if [ $s -ge 60 ]; then printf '%d m %02d s' $((s / 60)) $((s % 60)); else printf '%d s' $s; fi
}
echo "$(stamp) $name: started"
# `time` reports the CPU the phase used (all its processes), which says whether it kept the
# cores busy and, unlike its duration, hardly depends on what else the machine is doing.
TIMEFORMAT='%U %S'
cpu_file=$(mktemp)
if [ "${PHASE_QUIET:-}" = 1 ]; then
  mkdir -p build/phases
  log=build/phases/$name.log
  { time "$@" >"$log" 2>&1; } 2>"$cpu_file"
  rc=$?
  grep -E '^[a-z]+ runner: ' "$log"
  [ $rc -eq 0 ] || tail -n 30 "$log"
else
  { time "$@" 2>&3 3>&-; } 3>&2 2>"$cpu_file"
  rc=$?
fi
cpu=$(awk 'END { s = $1 + $2; if (s < 60) printf "%.1f s", s; else printf "%d m %02d s", s / 60, s % 60 }' "$cpu_file")
rm -f "$cpu_file"
if [ $rc -eq 0 ]; then
  echo "$(stamp) $name: done in $(took), CPU $cpu"
else
  echo "$(stamp) $name: FAILED (exit $rc) after $(took)${log:+; its output: $log}" >&2
fi
exit $rc

#!/usr/bin/env bash
# Run .ci/run as CI does on a machine new to the project, and print how long each phase took:
# a fresh `git clone` of this repository's HEAD in a temporary folder, an empty tool cache
# (XDG_CACHE_HOME in a temporary folder: weed, Jaeger and the Temporal server are fetched or built
# again), and by default cold Go caches too (GOCACHE and GOMODCACHE there as well), CI=true, no
# standard input.
#
#   scripts/ci-fresh.sh [--hogs N] [--warm-go] [--keep] [--dir DIR]
#     --hogs N    start N busy loops (one core each) for the whole run, as other work on the box would
#     --warm-go   keep the machine's Go build and module caches (only the tool cache is empty)
#     --keep      keep the temporary folder (the clone, the caches, the logs) afterwards
#     --dir DIR   where to make it (default: a new folder under $TMPDIR or /tmp)
#
# What it cannot make new: the Python modules (`pip install` goes to the machine's site-packages),
# Debian's packages (Chromium, PostgreSQL) and npm's download cache stay as the machine has them.
# The phases are read from the run's own lines (npm prints `> champion-loop@... <script>` as each
# script starts); the background tool builds' times come from their log in the empty tool cache.
set -euo pipefail

hogs=0
warm_go=0
keep=0
base=''
while [ $# -gt 0 ]; do
  case "$1" in
    --hogs) hogs="$2"; shift 2 ;;
    --warm-go) warm_go=1; shift ;;
    --keep) keep=1; shift ;;
    --dir) base="$2"; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${base:-${TMPDIR:-/tmp}}/champion-loop-ci-fresh.XXXXXX")"
log="$work/ci.log"
hog_pids=()

finish() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # The background build, if .ci/run left one running (it stops with the run only when it is done).
  local builder="$work/cache/champion-loop/tools/background-build.pid"
  # It runs detached, in a process group of its own: its Go build goes with it.
  if [ -f "$builder" ]; then kill -- "-$(cat "$builder")" 2>/dev/null || true; fi
  if [ "$keep" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT

echo "[ci-fresh] cloning $repo (HEAD $(git -C "$repo" rev-parse --short HEAD)) into $work/clone"
git clone --quiet --no-local "$repo" "$work/clone"
mkdir -p "$work/cache"
export XDG_CACHE_HOME="$work/cache"
if [ "$warm_go" = 0 ]; then
  export GOCACHE="$work/go/cache" GOMODCACHE="$work/go/mod"
  mkdir -p "$GOCACHE" "$GOMODCACHE"
fi
for _ in $(seq 1 "$hogs"); do
  (while :; do :; done) &
  hog_pids+=("$!")
done
echo "[ci-fresh] XDG_CACHE_HOME=$XDG_CACHE_HOME, Go caches $([ "$warm_go" = 1 ] && echo warm || echo "cold ($work/go)"), $hogs CPU hog(s); load $(cut -d' ' -f1-3 /proc/loadavg)"

started=$(date +%s)
set +e
# Every line shown as it comes, and logged with the second it came at, for the phases below.
(cd "$work/clone" && CI=true bash .ci/run </dev/null 2>&1) | while IFS= read -r line; do
  printf '%s\n' "$line"
  # Logged without colours (vitest colours its RUN line), so the phases below find their lines.
  printf '%(%s)T %s\n' -1 "$(printf '%s' "$line" | sed 's/\x1b\[[0-9;]*m//g')" >>"$log"
done
status=${PIPESTATUS[0]}
set -e
ended=$(date +%s)

# The second the first line matching a pattern came at (empty when none did).
at() { grep -m1 -E -- "$1" "$log" | cut -d' ' -f1 || true; }
phase() { # name, from, to
  if [ -n "$2" ] && [ -n "$3" ]; then
    printf '  %-44s %6d s\n' "$1" "$(($3 - $2))"
  else
    printf '  %-44s %8s\n' "$1" '-'
  fi
}
background=$(at 'building the tools in the background')
typecheck=$(at '^[0-9]+ > champion-loop@[^ ]+ typecheck$')
lint=$(at '^[0-9]+ > champion-loop@[^ ]+ lint$')
format=$(at '^[0-9]+ > champion-loop@[^ ]+ format:check$')
vitest=$(at '^[0-9]+ +RUN +v[0-9]')
cluster=$(at '^[0-9]+ > champion-loop@[^ ]+ test:cluster$')
last=$(tail -n1 "$log" | cut -d' ' -f1)

echo
echo "[ci-fresh] .ci/run exited $status after $((ended - started)) s ($(((ended - started + 59) / 60)) min); phases:"
phase 'npm ci' "$started" "$background"
phase 'provisioning (Temporal CLI, Chromium)' "$background" "$typecheck"
phase 'typecheck' "$typecheck" "$lint"
phase 'lint (eslint, knip)' "$lint" "$format"
phase 'format:check' "$format" "$vitest"
phase 'vitest (pip modules, weed, the tests)' "$vitest" "${cluster:-$last}"
phase 'test:cluster' "$cluster" "$([ -n "$cluster" ] && echo "$last")"
echo "[ci-fresh] background tool builds (started with npm test, overlapping the phases above):"
grep -E 'ready in|failed|done in' "$work/cache/champion-loop/tools/background-build.log" 2>/dev/null |
  sed -e 's/^\[build \([^]]*\)\] /  \1 /' -e 's/: {.*$//' -e 's/: "[^"]*"$//' || echo '  (no log)'
grep -E '^[0-9]+ +(Test Files|Tests|Duration) ' "$log" | cut -d' ' -f2- | sed 's/^/  /' || true
exit "$status"

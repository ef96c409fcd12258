#!/bin/sh
# A fleet-bench step: sleeps like a job of controlled length, runs the bench stack's step
# (bench/stack/, shell, no interpreter start-up), and appends one trace line to $FIXTURE_TRACE in
# the fixture stack's format (bench/lib/trace.ts), so the dispatch figures are read as the
# utilisation section reads them. Shell, not node: 64 lanes of node steps would spend the 2-core
# box on interpreter start-up and hide the orchestrator's own limit.
# Usage: fleet-step.sh STEP SCRIPT MIN_MS MAX_MS [the step's own arguments...]
# The sleep (train only) is MIN_MS + cksum(run id) mod (MAX_MS - MIN_MS + 1): the same per run on every box.
set -eu
start=$(date +%s%3N)
step=$1 script=$2 min=$3 max=$4
shift 4
config='' manifest='' run=''
prev=''
for arg in "$@"; do
  case $prev in
    --config) config=$arg ;;
    --manifest) manifest=$arg ;;
    --run-id) run=$arg ;;
  esac
  prev=$arg
done
if [ "$step" = train ]; then
  sum=$(printf '%s' "$run" | cksum)
  sum=${sum%% *}
  ms=$((min + sum % (max - min + 1)))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
fi
/bin/sh "$script" "$@"
end=$(date +%s%3N)
if [ -n "${FIXTURE_TRACE:-}" ]; then
  json() { if [ -n "$1" ]; then printf '"%s"' "$1"; else printf 'null'; fi; }
  printf '{"step":"%s","lane":null,"pid":%d,"start":%s,"loaded":%s,"end":%s,"config":%s,"manifest":%s}\n' \
    "$step" $$ "$start" "$start" "$end" "$(json "$config")" "$(json "$manifest")" >>"$FIXTURE_TRACE"
fi

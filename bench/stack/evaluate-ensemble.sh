#!/bin/sh
# Bench stack ensemble evaluator (docs/behaviour.md, section 10): the scores file, then the report, for a
# manifest's mean-margin ensemble; counts come from a checksum of the manifest's path.
set -eu
manifest='' output='' role='' scores=''
while [ $# -gt 0 ]; do
  case $1 in
    --manifest) manifest=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    --role) role=$2; shift 2 ;;
    --scores-output) scores=$2; shift 2 ;;
    --band-scores | --score-cache-dir) shift 2 ;;
    *) echo "evaluate-ensemble.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$manifest" ] && [ -n "$output" ] && [ -n "$role" ] && [ -n "$scores" ] || { echo 'evaluate-ensemble.sh: --manifest, --output, --role and --scores-output are required' >&2; exit 2; }
mkdir -p "$(dirname "$scores")" "$(dirname "$output")"
printf '{"id": "item-000000", "target": 1, "margin": 0.5}\n' >"$scores"
sum=$(printf '%s' "$manifest" | cksum)
sum=${sum%% *}
f2p=$((sum % 30))
p2f=$((sum / 30 % 40))
printf '{"role": "%s", "checkpoint": "%s", "checkpoint_sha256": "%s", "members": [], "items": 100, "pass_count": 70, "pass_correct_count": %d, "fail_count": 30, "fail_to_pass_count": %d, "pass_to_fail_count": %d, "macro_f1": 0.8, "s_f1": 0.7, "gate_auc": 0.9}\n' \
  "$role" "$manifest" "$sum" $((70 - p2f)) "$f2p" "$p2f" >"$output.tmp"
mv "$output.tmp" "$output"
echo "scored ensemble $manifest"

#!/bin/sh
# Bench stack evaluator, batch form only (`--jobs J`): per job the scores file, then the report
# (via a temp file and rename). It reads the jobs file as the loop writes it,
# JSON.stringify(jobs, null, 1): one "key": "value" per line, checkpoint, output, scores_output.
set -eu
role='' jobs=''
while [ $# -gt 0 ]; do
  case $1 in
    --config | --score-cache-dir) shift 2 ;;
    --role) role=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "evaluate.sh: unknown option $1 (the bench stack scores --jobs batches only)" >&2; exit 2 ;;
  esac
done
[ -n "$role" ] && [ -n "$jobs" ] || { echo 'evaluate.sh: --role and --jobs are required' >&2; exit 2; }
checkpoint='' output='' found=0
sed -n 's/^ *"\([a-z_]*\)": "\(.*\)",\{0,1\}$/\1 \2/p' "$jobs" >"$jobs.lines"
while read -r key value; do
  case $key in
    checkpoint) checkpoint=$value ;;
    output) output=$value ;;
    scores_output)
      mkdir -p "$(dirname "$value")" "$(dirname "$output")"
      printf '{"id": "item-000000", "target": 1, "margin": 0.5}\n' >"$value"
      sum=$(printf '%s' "$checkpoint" | cksum)
      sum=${sum%% *}
      f2p=$((sum % 30))
      p2f=$((sum / 30 % 40))
      printf '{"role": "%s", "checkpoint": "%s", "checkpoint_sha256": "%s", "items": 100, "pass_count": 70, "pass_correct_count": %d, "fail_count": 30, "fail_to_pass_count": %d, "pass_to_fail_count": %d, "macro_f1": 0.8, "s_f1": 0.7, "gate_auc": 0.9}\n' \
        "$role" "$checkpoint" "$sum" $((70 - p2f)) "$f2p" "$p2f" >"$output.tmp"
      mv "$output.tmp" "$output"
      found=$((found + 1))
      ;;
  esac
done <"$jobs.lines"
rm -f "$jobs.lines"
[ "$found" -gt 0 ] || { echo "evaluate.sh: no jobs in $jobs" >&2; exit 2; }
echo "scored $found"

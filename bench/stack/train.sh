#!/bin/sh
# Bench stack trainer: the least a trainer may write under the subprocess contract
# (docs/behaviour.md, section 10: one checkpoint, its validation metrics and scores, the front
# and the selection), in a shell so a run costs no interpreter start-up. Without the validation
# scores the loop would score the checkpoint on validation itself (an extra evaluator process per
# run). Counts come from a checksum of the run id, so champions and fronts still move.
set -eu
root='' run=''
while [ $# -gt 0 ]; do
  case $1 in
    --config | --score-cache-dir) shift 2 ;;
    --output-root) root=$2; shift 2 ;;
    --run-id) run=$2; shift 2 ;;
    *) echo "train.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$root" ] && [ -n "$run" ] || { echo 'train.sh: --output-root and --run-id are required' >&2; exit 2; }
dir=$root/$run
mkdir -p "$dir"
sum=$(printf '%s' "$run" | cksum)
sum=${sum%% *}
f2p=$((sum % 30))
p2f=$((sum / 30 % 40))
printf '{"run": "%s", "epoch": 1}\n' "$run" >"$dir/checkpoint-0001.pt"
printf '{"epoch": 1, "fail_to_pass_count": %d, "pass_to_fail_count": %d}\n' "$f2p" "$p2f" >"$dir/validation-epoch-0001.json"
printf '{"id": "item-000000", "target": 1, "margin": 0.5}\n{"id": "item-000001", "target": 0, "margin": -0.5}\n' >"$dir/validation-epoch-0001.scores.jsonl"
printf '{"checkpoints": [{"checkpoint": "checkpoint-0001.pt"}]}\n' >"$dir/pareto.json"
printf '{"checkpoint": "checkpoint-0001.pt", "epoch": 1, "false_negatives": %d}\n' "$f2p" >"$dir/selection.json"
echo "selected checkpoint-0001.pt"

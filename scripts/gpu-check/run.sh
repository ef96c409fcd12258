#!/usr/bin/env bash
# The GPU path on a real card (issue 26, item 6), on a machine with PyTorch and nvidia-smi but no
# Node and no network. From the repository root:
#
#   OUT=/some/dir GPU_DEVICE=0 bash scripts/gpu-check/run.sh
#
# Into $OUT (default ./gpu-check-out) it writes what the box has (nvidia-smi, Python, PyTorch), the
# memory guard's two queries, run exactly as src/workers/gpu-memory.ts runs them, idle and every
# half second while a python-gate job trains and then evaluates on the GPU that
# CUDA_VISIBLE_DEVICES pins (config `device: cuda`, $GPU_BALLAST_GIB GiB of ballast, default 8),
# the job's logs (PyTorch's own view of its memory: `gpu {...}` lines), its run directory, and
# summary.json. Commit $OUT as test/fixtures/nvidia-smi/real-gpu/: test/workers/real-gpu-capture.test.ts
# then checks the guard's parsing and the stack's contract files against it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
OUT=${OUT:-$root/gpu-check-out}
DEVICE=${GPU_DEVICE:-0}
BALLAST=${GPU_BALLAST_GIB:-8}
# cuda; `cpu` runs the same script with the job on numpy (a dry run of the script without a GPU,
# which test/workers/real-gpu-capture.test.ts does with a stand-in nvidia-smi).
COMPUTE=${GPU_CHECK_COMPUTE:-cuda}
mkdir -p "$OUT/samples"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONPATH="$root/examples/python-gate${PYTHONPATH:+:$PYTHONPATH}"

say() { echo "[gpu-check] $*" | tee -a "$OUT/run.log"; }

# The memory guard's queries (src/workers/gpu-memory.ts: NVIDIA_SMI_ARGS, COMPUTE_APPS_ARGS, -i N).
sample() {
  local name=$1
  date +%s.%N > "$OUT/samples/$name.time"
  nvidia-smi --query-gpu=index,memory.total,memory.used,memory.free --format=csv,noheader,nounits -i "$DEVICE" \
    > "$OUT/samples/$name.query-gpu.csv" 2>&1
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -i "$DEVICE" \
    > "$OUT/samples/$name.compute-apps.csv" 2>&1
}

# Run a step pinned to the device in the background, sampling every half second until it ends.
pinned() {
  local step=$1
  shift
  CUDA_VISIBLE_DEVICES=$DEVICE "$@" > "$OUT/$step.log" 2>&1 &
  local pid=$! n=0
  echo "$pid" > "$OUT/$step.pid"
  while kill -0 "$pid" 2> /dev/null; do
    n=$((n + 1))
    sample "$step-$(printf %03d "$n")"
    sleep 0.5
  done
  wait "$pid"
  local code=$?
  echo "$code" > "$OUT/$step.exit"
  say "$step: exit $code, $n samples (log $OUT/$step.log)"
}

if ! command -v nvidia-smi > /dev/null; then
  say "nvidia-smi not found: this script needs a machine with an NVIDIA GPU"
  exit 2
fi
nvidia-smi -L > "$OUT/nvidia-smi-L.txt" 2>&1
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
python3 "$here/box.py" "$DEVICE" > "$OUT/box.json" 2> "$OUT/box.err"
say "box: $(cat "$OUT/box.json")"
if [ "$COMPUTE" = cuda ] && ! python3 -c 'import sys, json; sys.exit(0 if json.load(open(sys.argv[1])).get("cuda") else 1)' "$OUT/box.json"; then
  say "PyTorch sees no GPU with CUDA_VISIBLE_DEVICES=$DEVICE (box.json): nothing to run"
  exit 3
fi
sample idle

# A split of python-gate's synthetic data set, as the loop's split steps make it.
cp -r "$root/examples/python-gate/data" "$work/data"
python3 -m pygate.split_generate --data-root "$work/data" --output "$work/devval.yaml" --seed 7 --validation-fraction 0.10 > "$OUT/split.log" 2>&1
python3 -m pygate.split_carve --split "$work/devval.yaml" --output "$work/test.yaml" --role test --test-fraction 0.10 --seed 7 >> "$OUT/split.log" 2>&1
python3 -m pygate.split_carve --split "$work/test.yaml" --output "$work/split.yaml" --role reserve --test-fraction 0.10 --seed 7 >> "$OUT/split.log" 2>&1
# A job config as the loop writes one (JSON is YAML), computing on the GPU.
cat > "$work/job.yaml" <<JOB
{"split": "$work/split.yaml", "seed": 20260928, "device": "$COMPUTE", "gpu_ballast_gib": $BALLAST,
 "features": 8, "epochs": 3, "epoch_sleep_s": 3, "min_validation_auc": 0.0}
JOB
cp "$work/job.yaml" "$OUT/job.yaml"

pinned train python3 -m pygate.train --config "$work/job.yaml" --output-root "$work/runs" --run-id gpu-check
cp -r "$work/runs/gpu-check" "$OUT/run" 2> /dev/null
checkpoint=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["checkpoint"])' "$OUT/run/selection.json" 2> /dev/null)
if [ -n "$checkpoint" ]; then
  pinned evaluate python3 -m pygate.evaluate --config "$work/job.yaml" --role test \
    --checkpoint "$work/runs/gpu-check/$checkpoint" --output "$OUT/run/test-report.json" \
    --scores-output "$OUT/run/test.scores.jsonl"
else
  say "train wrote no selection.json: no evaluation"
fi
sample after

# Pinning: the device by its index, and an index the box does not have.
CUDA_VISIBLE_DEVICES=$DEVICE python3 "$here/box.py" 0 > "$OUT/pinned.json" 2>&1
CUDA_VISIBLE_DEVICES=99 python3 "$here/box.py" 0 > "$OUT/pinned-99.json" 2>&1
nvidia-smi --query-gpu=index,memory.total,memory.used,memory.free --format=csv,noheader,nounits -i 99 > "$OUT/query-gpu-99.txt" 2>&1
echo "$?" > "$OUT/query-gpu-99.exit"
python3 "$here/summary.py" "$OUT" "$DEVICE" "$BALLAST" > "$OUT/summary.json"
say "done: $OUT/summary.json"
